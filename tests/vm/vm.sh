#!/bin/bash
# The vm/ runner: real rxe traffic between the two guests, the capture, and
# how failures, hangs and interrupts end.
# shellcheck disable=SC2016 # the commands expand inside the guests
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# opcodes PCAP: the BTH opcodes on the wire, one per line, decimal.
opcodes() {
	tshark -r "$1" -Y infiniband -T fields -e infiniband.bth.opcode \
		2>/dev/null | sort -un
}

# qemu_left DIR: QEMU processes still running for the run folder DIR.
qemu_left() {
	pgrep -f "qemu-system.*$1" >/dev/null
}

# --- real traffic -----------------------------------------------------------
log=$t_tmp/pingpong.log
if vm_run "$log" --pcap "$t_tmp/pp.pcap" \
	--server 'ibv_rc_pingpong -d $LAB_DEV -g $LAB_GID_IDX -n 50' \
	--client 'sleep 1; ibv_rc_pingpong -d $LAB_DEV -g $LAB_GID_IDX -n 50 $LAB_SERVER_IP' &&
	expect_in "$log" '^\[client\] .*50 iters' &&
	expect_in "$log" '^\[server\] .*50 iters'; then
	ok "ibv_rc_pingpong between the guests"
else
	fail "ibv_rc_pingpong between the guests" "$log"
fi
# 4096-byte SENDs over a 1024-byte path MTU: FIRST, MIDDLE, LAST, ACK.
if [ "$(opcodes "$t_tmp/pp.pcap" | tr '\n' ' ')" = "0 1 2 17 " ]; then
	ok "--pcap: tshark decodes SEND FIRST/MIDDLE/LAST and ACK"
else
	opcodes "$t_tmp/pp.pcap" >"$t_tmp/op.txt" 2>&1
	fail "--pcap: tshark decodes SEND FIRST/MIDDLE/LAST and ACK" \
		"$t_tmp/op.txt"
fi

log=$t_tmp/perftest.log
perf='-d $LAB_DEV -x $LAB_GID_IDX'
# perftest times its report with the TSC, sampled against the clock: a
# guest descheduled by a busy host during that sampling gets "r^2 < 0.9,
# Can't produce a report" (seen once in a quiet run here) after all its
# traffic.  That cause only gets a second run.
for try in 1 2; do
	vm_run "$log" --pcap "$t_tmp/perf.pcap" \
		--server "ib_send_lat $perf -s 16 -n 100 && ib_write_bw $perf -n 50" \
		--client "sleep 2; ib_send_lat $perf -s 16 -n 100 \$LAB_SERVER_IP &&
			sleep 2; ib_write_bw $perf -n 50 \$LAB_SERVER_IP" &&
		break
	if [ "$try" = 2 ] || ! grep -q "Can't produce a report" "$log"; then
		break
	fi
	echo "perftest: no report (its TSC sampling), run again"
done
if expect_in "$log" '^\[client\] +16 +100 ' &&
	expect_in "$log" '^\[client\] +65536 +50 '; then
	ok "perftest ib_send_lat and ib_write_bw"
else
	fail "perftest ib_send_lat and ib_write_bw" "$log"
fi
# ib_write_bw's 64 KiB writes: WRITE FIRST (6), MIDDLE (7), LAST (8).
if opcodes "$t_tmp/perf.pcap" | grep -qx 6 &&
	opcodes "$t_tmp/perf.pcap" | grep -qx 8; then
	ok "--pcap: RDMA WRITE FIRST/LAST from ib_write_bw"
else
	fail "--pcap: RDMA WRITE FIRST/LAST from ib_write_bw"
fi

# --- the connection manager: rdma_cm in the guests ------------------------------
# One boot: rping, then perftest over rdma_cm (-R), in rounds that wait on
# each other (tests/vm/cm-guest.sh says why).
log=$t_tmp/cm.log
vm_run "$log" --pcap "$t_tmp/cm.pcap" --timeout 240 \
	--server "tests/vm/cm-guest.sh server" --client "tests/vm/cm-guest.sh client"
cm_rc=$?
if expect_in "$log" '^\[server\] cm-device-ok$'; then
	ok "rdma_ucm loaded: /dev/infiniband/rdma_cm exists in the guest"
else
	fail "rdma_ucm loaded: /dev/infiniband/rdma_cm exists in the guest" "$log"
fi
# rping -v prints one "ping data" line per round trip, on each side.
if [ "$(grep -Ec '^\[client\] ping data: rdma-ping-[0-4]: ' "$log")" = 5 ] &&
	[ "$(grep -Ec '^\[server\] server ping data: rdma-ping-[0-4]: ' "$log")" = 5 ]; then
	ok "rping: 5 round trips over rdma_cm between the guests"
else
	fail "rping: 5 round trips over rdma_cm between the guests" "$log"
fi
if [ "$cm_rc" = 0 ] &&
	expect_in "$log" '^\[client\] +Data ex\. method : rdma_cm' &&
	expect_in "$log" '^\[client\] +16 +100 ' &&
	expect_in "$log" '^\[server\] +16 +100 '; then
	ok "ib_send_lat -R: perftest connects through rdma_cm"
else
	fail "ib_send_lat -R: perftest connects through rdma_cm (status $cm_rc)" "$log"
fi
# cm_fields FILTER FIELD...: the fields of the matching packets, tab-separated.
cm_fields() {
	local filter=$1 f
	local args=()
	shift
	for f in "$@"; do
		args+=(-e "$f")
	done
	tshark -r "$t_tmp/cm.pcap" -Y "$filter" -T fields -E occurrence=f \
		"${args[@]}" 2>/dev/null
}
# Every CM message is a MAD of class 7 (CM) sent to QP 1; a connection is
# ConnectRequest (0x0010), ConnectReply (0x0013), ReadyToUse (0x0014), and
# rping plus perftest's two connections make three of each.
cm_fields 'infiniband.mad.mgmtclass == 0x07' infiniband.bth.destqp \
	infiniband.mad.attributeid >"$t_tmp/cm.txt"
if [ "$(cut -f1 "$t_tmp/cm.txt" | sort -u)" = 0x000001 ] &&
	[ "$(grep -c '0x0010$' "$t_tmp/cm.txt")" -ge 3 ] &&
	[ "$(grep -c '0x0013$' "$t_tmp/cm.txt")" -ge 3 ] &&
	[ "$(grep -c '0x0014$' "$t_tmp/cm.txt")" -ge 3 ]; then
	ok "--pcap: tshark decodes the CM's REQ, REP and RTU, all on QP 1"
else
	fail "--pcap: tshark decodes the CM's REQ, REP and RTU, all on QP 1" \
		"$t_tmp/cm.txt"
fi
# The REP carries the server's QPN and the PSN it expects: the client's
# first RC packet of that connection goes to that QP with that PSN.
rep=$(cm_fields 'infiniband.cm.rep.localqpn' frame.number \
	infiniband.cm.rep.localqpn infiniband.cm.rep.startpsn | head -n 1)
read -r rep_frame rep_qpn rep_psn <<<"$rep"
first=$(cm_fields "frame.number > ${rep_frame:-0} && ip.src == 192.0.2.2 &&
	infiniband.bth.destqp != 1" infiniband.bth.destqp infiniband.bth.psn |
	head -n 1)
if [ -n "$rep" ] && [ "$first" = "$(printf '%s\t%d' "$rep_qpn" "$rep_psn")" ]; then
	ok "--pcap: the REP's QPN and starting PSN are what the client then uses"
else
	echo "REP: $rep; first client packet after it: $first" >"$t_tmp/rep.txt"
	fail "--pcap: the REP's QPN and starting PSN are what the client then uses" \
		"$t_tmp/rep.txt"
fi

# --- how runs end -------------------------------------------------------------
log=$t_tmp/fail.log
vm_run "$log" --out "$t_tmp/fail" --server 'exit 3' --client true
rc=$?
if [ "$rc" = 3 ] &&
	expect_in "$log" 'server command exited with status 3' &&
	! qemu_left "$t_tmp/fail"; then
	ok "a failing server: status 3, named, no QEMU left"
else
	fail "a failing server: status 3, named, no QEMU left (got $rc)" "$log"
fi
# A kept folder holds files only: its consoles' named pipes would hang a
# reader (cat out/run/*).
if [ -e "$t_tmp/fail/server.rc" ] &&
	[ -z "$(find "$t_tmp/fail" -type p)" ]; then
	ok "--out keeps no named pipes"
else
	find "$t_tmp/fail" -ls >"$t_tmp/pipes" 2>&1
	fail "--out keeps no named pipes" "$t_tmp/pipes"
fi

# "Soon" from the client's end (its status file's time), not from the
# start: under make test's load the two boots alone took over a minute.
log=$t_tmp/fail2.log
vm_run "$log" --out "$t_tmp/fail2" --server 'sleep 600' --client 'exit 4'
rc=$?
after=$(($(date +%s) - $(stat -c %Y "$t_tmp/fail2/client.rc" 2>/dev/null ||
	echo 0)))
if [ "$rc" = 4 ] && [ "$after" -lt 60 ] &&
	expect_in "$log" 'client command exited with status 4' &&
	expect_in "$log" 'server stopped: the other side failed' &&
	! qemu_left "$t_tmp/fail2"; then
	ok "a failing client stops the server soon after ($after s)"
else
	fail "a failing client stops the server soon after (got $rc," \
		"$after s after the client's end)" "$log"
fi

log=$t_tmp/hang.log
# Timed inside the lock: waiting for other users is not the run's time.
flock "$t_lock" bash -c 'start=$SECONDS
	vm/run "$@" >"$0" 2>&1
	rc=$?
	echo $((SECONDS - start)) >"$0.secs"
	exit "$rc"' "$log" --out "$t_tmp/hang" --timeout 10 \
	--server 'sleep 600' --client 'sleep 600'
rc=$?
if [ "$rc" = 124 ] && [ "$(cat "$log.secs" 2>/dev/null || echo 99)" -lt 30 ] &&
	expect_in "$log" 'timed out after 10 s' &&
	! qemu_left "$t_tmp/hang"; then
	ok "a hanging pair is stopped at --timeout with status 124"
else
	fail "a hanging pair is stopped at --timeout (got $rc)" "$log"
fi

# interrupt SIGNAL NAME: signals vm/run once both commands run.
interrupt() {
	local sig=$1 name=$2 dir=$t_tmp/$1 pid rc
	# A background job of a script ignores SIGINT unless told otherwise.
	env --default-signal=INT vm/run --out "$dir" \
		--server 'sleep 600' --client 'sleep 600' >"$t_tmp/$sig.log" 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		[ -e "$dir/client.ready" ] && break
		sleep 0.1
	done
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	sleep 1
	if [ -e "$dir/client.ready" ] && ! qemu_left "$dir" &&
		[ "$rc" = "$3" ]; then
		ok "$name: status $rc, no QEMU left"
	else
		fail "$name: status $rc (want $3), QEMU left?" "$t_tmp/$sig.log"
		pkill -9 -f "qemu-system.*$dir"
	fi
}
interrupt INT "Ctrl-C (SIGINT)" 130
interrupt KILL "kill -9 of vm/run" 137

# --- vm/run --shell: two consoles in tmux ------------------------------------------
# script(1) gives the runner the terminal it insists on; tmux send-keys
# types into each guest's console and capture-pane reads it back.
shell_test() {
	local session=rdma-lab-test-$$ pane piped
	LAB_TMUX_SESSION=$session script -q -c "vm/run --shell" /dev/null \
		>/dev/null 2>&1 &
	local pid=$!
	# Bounds for a busy host: --shell boots cold (16.5 s quiet); under
	# make test beside two busy loops a guest took over a minute to its
	# prompt, past the 60 s these waits once allowed.  Each wait ends as
	# soon as what it waits for is there.
	for _ in $(seq 1500); do
		tmux has-session -t "$session" 2>/dev/null && break
		sleep 0.2
	done
	for pane in 0 1; do
		# Each console also to a file, which outlives its pane: a
		# guest whose set-up failed powers off, and its pane closes
		# with the reason (seen once under make test's load).
		piped=''
		for _ in $(seq 1500); do
			if [ -z "$piped" ] && tmux pipe-pane -t "$session:0.$pane" \
				"cat >>'$t_tmp/console$pane'" 2>/dev/null; then
				piped=1
			fi
			tmux capture-pane -p -t "$session:0.$pane" 2>/dev/null |
				grep -q 'root@' && break
			sleep 0.2
		done
		tmux send-keys -t "$session:0.$pane" 'ibv_devices | grep -c rxe0' Enter
	done
	for pane in 0 1; do
		for _ in $(seq 300); do
			tmux capture-pane -p -t "$session:0.$pane" >"$t_tmp/pane$pane"
			grep -qx 1 "$t_tmp/pane$pane" && break
			sleep 0.2
		done
	done
	for pane in 0 1; do
		tmux send-keys -t "$session:0.$pane" 'exit' Enter
	done
	for _ in $(seq 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	! kill -0 "$pid" 2>/dev/null && grep -q 'root@server' "$t_tmp/pane0" &&
		grep -q 'root@client' "$t_tmp/pane1" &&
		grep -qx 1 "$t_tmp/pane0" && grep -qx 1 "$t_tmp/pane1" &&
		! tmux has-session -t "$session" 2>/dev/null
}
if flock "$t_lock" bash -c "$(declare -f shell_test); t_tmp=$t_tmp shell_test"; then
	ok "vm/run --shell: a console in each guest, rxe0 there, clean exit"
else
	# The panes as they were last seen, then the consoles whole (their
	# last lines: why a guest left).
	cat "$t_tmp"/pane* "$t_tmp"/console* >"$t_tmp/panes" 2>/dev/null
	fail "vm/run --shell" "$t_tmp/panes"
	tmux kill-server 2>/dev/null
fi

# --- runs at once, from two users ----------------------------------------------
# Three guest pairs at the same time: two of this user's (two shells) and,
# when we are root, one of nobody's, with a copy of the project and of the
# warm cache (a fresh one would fetch the kernel again).  While all are up,
# the guests' wire ports must all differ; each pair runs the lab with its
# own message, and each capture must hold its own message and no other.
# The runner needs no privilege, and nobody's capture belongs to nobody.
runs="a b"
if [ "$(id -u)" = 0 ]; then
	runs="a b nobody"
	chmod 755 "$t_tmp"
	mkdir -p "$t_tmp/nobody/cache/rdma-lab" "$t_tmp/nobody/lab"
	guest=$(vm/prepare)
	kernel=$(readlink -f "$guest/kernel")
	kdir=$t_tmp/nobody/cache/rdma-lab/$(basename "$(dirname "$kernel")")
	mkdir -p "$kdir"
	cp "$kernel" "$kdir/"
	cp -a "$guest" "$t_tmp/nobody/cache/rdma-lab/"
	git ls-files -z | xargs -0 tar cf - | tar xf - -C "$t_tmp/nobody/lab"
	cp solution/rdma-lab "$t_tmp/nobody/lab/solution/"
	chmod -R a+rwX "$t_tmp/nobody"
fi
guests=$(($(echo "$runs" | wc -w) * 2))
# run_lab NAME: the lab, message run-NAME, capture in $t_tmp/NAME/w.pcap.
run_lab() {
	local dir=$t_tmp/$1 as=()
	mkdir -p "$dir"
	if [ "$1" = nobody ]; then
		as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
		cd "$dir/lab" || return 1
		export HOME=$dir XDG_CACHE_HOME=$dir/cache
	fi
	"${as[@]}" vm/run --out "$dir/run" --pcap "$dir/w.pcap" \
		--server solution/rdma-lab \
		--client "solution/rdma-lab -m run-$1 \$LAB_SERVER_IP" \
		>"$t_tmp/$1.log" 2>&1
	echo $? >"$t_tmp/$1.rc"
}
(
	flock 9
	for r in $runs; do
		(run_lab "$r") &
	done
	# While the pairs run, note each guest's wire port (pid and port):
	# the guests up at one moment must never share a port (on this
	# kernel, clashing ports only sometimes cross).  Only these runs'
	# guests (their run folders are in $t_tmp): other groups' guests may
	# be up too.  Sampled until every run has ended, not for a fixed
	# time: on a slow host a pair may end before another has booted.
	: >"$t_tmp/ports"
	port_re='127\.0\.0\.1:\([0-9]*\)'
	for _ in $(seq 3000); do
		[ -n "$(jobs -rp)" ] || break
		pgrep -a qemu-system | grep -F "$t_tmp/" |
			sed -n "s/^\([0-9]*\) .*localaddr=$port_re.*/\1 \2/p" \
			>"$t_tmp/live"
		if [ -n "$(cut -d' ' -f2 "$t_tmp/live" | sort | uniq -d)" ]; then
			{ echo clash; cat "$t_tmp/live"; } >>"$t_tmp/ports"
		fi
		echo "live $(wc -l <"$t_tmp/live")" >>"$t_tmp/ports"
		cat "$t_tmp/live" >>"$t_tmp/ports"
		sleep 0.2
	done
	wait
) 9>"$t_lock"
pids=$(grep '^[0-9]' "$t_tmp/ports" | cut -d' ' -f1 | sort -u | wc -l)
most=$(sed -n 's/^live //p' "$t_tmp/ports" | sort -n | tail -1)
if ! grep -q '^clash' "$t_tmp/ports" && [ "$pids" -ge "$guests" ] &&
	[ "${most:-0}" -ge 4 ]; then
	ok "runs at once: $guests guests, up to $most together, each on its" \
		"own wire port"
else
	why="clashed, or fewer than $guests guests ($pids) or than 4 at once"
	fail "runs at once: the guests' wire ports $why (${most:-0}) were seen" \
		"$t_tmp/ports"
fi
why=''
for r in $runs; do
	rc=$(cat "$t_tmp/$r.rc")
	[ "$rc" = 0 ] || why="$why $r:status $rc"
	grep -aq "run-$r" "$t_tmp/$r/w.pcap" 2>/dev/null ||
		why="$why $r:without its message"
	for o in $runs; do
		[ "$o" = "$r" ] || ! grep -aq "run-$o" "$t_tmp/$r/w.pcap" ||
			why="$why $r:holds run-$o"
	done
	cat "$t_tmp/$r.log" >>"$t_tmp/runs.log"
done
if [ -z "$why" ]; then
	ok "runs at once ($runs) do not collide: each capture holds its own lab"
else
	fail "runs at once:$why" "$t_tmp/runs.log"
fi
if [ "$(id -u)" = 0 ]; then
	if [ "$(stat -c %U "$t_tmp/nobody/w.pcap" 2>/dev/null)" = nobody ]; then
		ok "a user without root runs the lab and gets the capture"
	else
		fail "a user without root runs the lab" "$t_tmp/nobody.log"
	fi
fi

# --- offline: a warm cache needs neither apt nor the network -------------------
# make demo's steps (vm/deps, then vm/demo) with apt and dpkg taken off PATH
# and, as root, in a network namespace that has only a loopback.
offline_path=$(path_without apt-get apt-cache apt dpkg dpkg-deb)
offline='vm/deps --check && vm/demo solution/rdma-lab "$0"'
wrap=()
if [ "$(id -u)" = 0 ]; then
	wrap=(unshare -n)
	offline="ip link set lo up && $offline"
fi
log=$t_tmp/offline.log
if flock "$t_lock" env PATH="$offline_path" \
	"${wrap[@]}" bash -c "$offline" "$t_tmp/offline" >"$log" 2>&1 &&
	expect_in "$log" '^\[server\] lab teardown ok' &&
	expect_in "$log" '^\[client\] lab teardown ok' &&
	[ -s "$t_tmp/offline/wire.pcap" ]; then
	ok "warm cache: vm/deps --check and vm/demo pass without apt, dpkg" \
		"${wrap[*]:+or a network}"
else
	fail "warm cache: vm/deps --check and vm/demo without apt" "$log"
fi
if [ "$(grep -Ec '^vm/run: accelerator (kvm|tcg): .+' "$log")" = 1 ]; then
	ok "vm/run names its accelerator and why, once:" \
		"$(grep -m 1 '^vm/run: accelerator' "$log" | cut -d: -f2-)"
else
	fail "vm/run names its accelerator and why, once" "$log"
fi

# --- a kernel in several .deb files, as Ubuntu ships it ----------------------
# Made from the warm cache, no guest boots: the image in one package, most
# modules in a second (/lib/modules, .ko.zst, as Ubuntu's) and rdma_rxe's
# folder in a third (/usr/lib/modules, .ko.xz, as Debian 13's). Given as
# LAB_KERNEL_DEB, vm/prepare must merge them into one kernel whose
# initramfs holds plain .ko files.
split_debs() {
	local guest kdir kver src root=$t_tmp/split pkg path rel to mods mod pack
	guest=$(vm/prepare) || return 1
	kdir=$(dirname "$(readlink -f "$guest/kernel")")
	kver=$(ls "$kdir/lib/modules")
	src=$kdir/lib/modules/$kver
	for pkg in image modules extra; do
		mkdir -p "$root/$pkg/DEBIAN"
		printf '%s\n' "Package: test-$pkg" "Version: 1" \
			"Architecture: amd64" "Maintainer: tests" \
			"Description: a piece of kernel $kver" \
			>"$root/$pkg/DEBIAN/control"
	done
	mkdir -p "$root/image/boot" "$root/modules/lib/modules/$kver"
	cp "$kdir/vmlinuz" "$root/image/boot/vmlinuz-$kver"
	cp "$src/modules.order" "$src/modules.builtin" \
		"$src/modules.builtin.modinfo" "$root/modules/lib/modules/$kver/"
	# The modules vm/prepare puts in the initramfs, with their dependencies.
	mods=$(sed -n '/^modules="/,/"$/p' vm/prepare | tr -d '"' | cut -d= -f2)
	for mod in $mods; do
		modprobe -d "$kdir" -S "$kver" --show-depends "$mod" || return 1
	done | awk '$1 == "insmod" { print $2 }' | sort -u >"$root/list"
	[ -s "$root/list" ] || return 1
	while read -r path; do
		rel=${path#"$src/"}
		rel=${rel%.ko*}.ko
		case "$rel" in
		kernel/drivers/infiniband/*)
			pack=xz to=$root/extra/usr/lib/modules/$kver/$rel.xz ;;
		*) pack=zstd to=$root/modules/lib/modules/$kver/$rel.zst ;;
		esac
		mkdir -p "$(dirname "$to")"
		case "$path" in
		*.ko.xz) xz -dc "$path" ;;
		*.ko.zst) zstd -dcq "$path" ;;
		*) cat "$path" ;;
		esac | "$pack" -qc >"$to" || return 1
	done <"$root/list"
	for pkg in image modules extra; do
		dpkg-deb -Zgzip -b "$root/$pkg" "$root/$pkg.deb" >/dev/null || return 1
	done
	XDG_CACHE_HOME=$root/cache LAB_KERNEL_DEB="$root/image.deb \
$root/modules.deb $root/extra.deb" vm/prepare >"$root/guest" || return 1
	[ "$(gzip -dc "$(cat "$root/guest")/initramfs.img" | cpio -t --quiet |
		grep -cE '/rdma_rxe\.ko$|/virtio_net\.ko$')" = 2 ] &&
		find "$root/cache" -name 'rdma_rxe.ko.xz' | grep -q . &&
		find "$root/cache" -name 'virtio_net.ko.zst' | grep -q .
}
check "a kernel split over three .deb files (.ko.zst and .ko.xz, /lib and \
/usr/lib/modules) is merged into one; its initramfs has plain .ko" split_debs

# --- a broken or missing kernel cache ------------------------------------------
cache=$t_tmp/cache
echo "not a package" >"$t_tmp/junk.deb"
log=$t_tmp/corrupt.log
XDG_CACHE_HOME=$cache LAB_KERNEL_DEB=$t_tmp/junk.deb \
	vm/run --server true --client true >"$log" 2>&1
rc=$?
if [ "$rc" = 125 ] && expect_in "$log" 'cannot unpack .*run again' &&
	[ -z "$(ls -A "$cache/rdma-lab")" ]; then
	ok "a corrupt kernel package: clear error, status 125, nothing kept"
else
	fail "a corrupt kernel package (status $rc)" "$log"
fi
# The retry path: the same empty cache, fetched anew from apt.
log=$t_tmp/refetch.log
if XDG_CACHE_HOME=$cache flock "$t_lock" \
	vm/run --server true --client true >"$log" 2>&1; then
	ok "run again: an empty kernel cache is fetched and the run works"
else
	fail "run again: an empty kernel cache is fetched" "$log"
fi
if [ "$(id -u)" = 0 ] && mkdir -p "$t_tmp/small" &&
	mount -t tmpfs -o size=50m tmpfs "$t_tmp/small"; then
	log=$t_tmp/full.log
	XDG_CACHE_HOME=$t_tmp/small vm/run --server true --client true \
		>"$log" 2>&1
	rc=$?
	umount "$t_tmp/small"
	if [ "$rc" = 125 ] && expect_in "$log" 'needs about .* MB free'; then
		ok "a full disk: clear error before fetching, status 125"
	else
		fail "a full disk (status $rc)" "$log"
	fi
fi

# --- arguments and the files beside the runner --------------------------------
# bad_args PATTERN ARGS...: vm/run ARGS exits 2 with one line saying
# PATTERN.
bad_args() {
	local pattern=$1 out rc=0
	shift
	out=$(vm/run "$@" 2>&1) || rc=$?
	[ "$rc" = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] &&
		grep -q -- "$pattern" <<<"$out"
}
check "vm/run rejects a bad --timeout" \
	bad_args "whole number" --timeout x --server true --client true
check "vm/run without commands prints usage" bad_args "usage:"
check "vm/run rejects an unknown option" bad_args "unknown argument" --bogus
# Writes land in the guest's tmpfs overlay, never on the host.
probe=vm/.write-probe-$$
check "a guest's writes to the project do not reach the host" \
	bash -c "vm/run --server 'touch $probe && test -e $probe' \
		--client 'touch $probe' && test ! -e $probe"
check "Vagrantfile: two machines with the lab addresses" \
	ruby tests/platforms/vagrantfile-check.rb vm/Vagrantfile "$t_tmp/provision.sh"
check "Vagrantfile: its provisioning script passes shellcheck" \
	shellcheck -s bash "$t_tmp/provision.sh"
# Every shell script of the tree: those that start with a shell's #! line
# or name their shell for shellcheck (sourced ones).
mapfile -t scripts < <(git ls-files | while read -r f; do
	[ -f "$f" ] && head -c 200 "$f" |
		grep -qE '^(#!/bin/(ba)?sh|# shellcheck shell=)' && echo "$f"
done)
check "all ${#scripts[@]} shell scripts pass shellcheck" \
	shellcheck -x "${scripts[@]}"

# --- the programmable wire (issue 43): tests/vm/wire-guest.sh -----------------
# A SEND ONLY dropped between the guests: both sides still pass, and the
# client resends it after its retransmit timer (the check: about 14 s).
if tests/vm/wire-guest.sh >"$t_tmp/wire-guest.log" 2>&1; then
	ok "wire: $(grep -c '^ok' "$t_tmp/wire-guest.log") checks of" \
		"tests/vm/wire-guest.sh (a dropped SEND resent by RC)"
else
	fail "tests/vm/wire-guest.sh" "$t_tmp/wire-guest.log"
fi
# Part three's exercises, each run 3 times: as recorded in docs/runs/
# (about 100 s).
tests/vm/loss-guest.sh >"$t_tmp/loss-guest.log" 2>&1
tally loss_guest "$t_tmp/loss-guest.log" $?

summary

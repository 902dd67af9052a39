#!/bin/bash
# arm64 guests (vm/arch, LAB_ARCH=arm64): the same runner, wire, capture,
# demo and grade as amd64's, in guests of the other architecture.  On an
# x86-64 host they run under TCG with a root of their own; on an arm64 host
# they are the native ones.  (The handout's arm64 image, make image
# ARCH=arm64 with make demo in it: tests/platforms/arm64-image.sh.)  Not in the
# default make test (a minute of emulation, 43 s here, and the guests'
# demo and grade, minutes more): tests/run arm64, or make test-arm64.
# shellcheck disable=SC2016 # the commands expand inside the guests
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
export LAB_ARCH=arm64
lock=${TMPDIR:-/tmp}/rdma-lab-vm.lock

# --- what needs no guest ----------------------------------------------------
log=$t_tmp/bad-arch.log
rc=0
LAB_ARCH=sparc vm/run --server true --client true >"$log" 2>&1 || rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$log")" = 1 ] &&
	expect_in "$log" "LAB_ARCH is 'sparc': it must be amd64 or arm64"; then
	ok "LAB_ARCH=sparc: one line, status 2"
else
	fail "LAB_ARCH=sparc: one line, status 2 (status $rc)" "$log"
fi
if [ "$(LAB_ARCH='' vm/arch name)" = "$(dpkg --print-architecture)" ]; then
	ok "no LAB_ARCH: the host's own architecture"
else
	fail "no LAB_ARCH: the host's own architecture"
fi

why=$(need qemu-system-aarch64 tshark) || {
	skip "arm64 guests: $why (LAB_ARCH=arm64 vm/deps installs them)"
	stop_group
}
if ! LAB_ARCH=arm64 vm/deps --check >"$t_tmp/deps.log" 2>&1; then
	fail "LAB_ARCH=arm64 vm/deps --check (run LAB_ARCH=arm64 vm/deps as root)" \
		"$t_tmp/deps.log"
	stop_group
fi

log=$t_tmp/build.log
if make -s all grader-tools >"$log" 2>&1 &&
	for f in solution/rdma-lab lab/rdma-lab out/tools/jail \
		out/tools/probes; do
		readelf -h "$f" | grep -q 'Machine: *AArch64' || exit 1
	done; then
	ok "make with LAB_ARCH=arm64: the programs and tools are AArch64"
else
	fail "make with LAB_ARCH=arm64: the programs and tools are AArch64" "$log"
fi

# --- the runner: uname, rxe, the wire -------------------------------------
log=$t_tmp/uname.log
flock "$lock" true # wait for other users, outside the measured time
start=$SECONDS
if vm_run "$log" --server 'uname -m; ibv_devices' --client 'uname -m; ibv_devices' &&
	expect_in "$log" '^\[server\] aarch64$' &&
	expect_in "$log" '^\[client\] aarch64$' &&
	expect_in "$log" '^\[server\] +rxe0 ' &&
	expect_in "$log" '^\[client\] +rxe0 '; then
	ok "vm/run: aarch64 and rxe0 in both guests in $((SECONDS - start)) s"
else
	fail "vm/run: aarch64 and rxe0 in both guests" "$log"
fi

log=$t_tmp/pingpong.log
flock "$lock" true # wait for other users, outside the measured time
start=$SECONDS
if vm_run "$log" --pcap "$t_tmp/pp.pcap" \
	--server 'ibv_rc_pingpong -d $LAB_DEV -g $LAB_GID_IDX -n 50' \
	--client 'sleep 1; ibv_rc_pingpong -d $LAB_DEV -g $LAB_GID_IDX -n 50 $LAB_SERVER_IP' &&
	expect_in "$log" '^\[client\] .*50 iters' &&
	expect_in "$log" '^\[server\] .*50 iters'; then
	ok "ibv_rc_pingpong between the arm64 guests in $((SECONDS - start)) s"
else
	fail "ibv_rc_pingpong between the arm64 guests" "$log"
fi
# 4096-byte SENDs over a 1024-byte path MTU: FIRST, MIDDLE, LAST, ACK.
ops=$(tshark -r "$t_tmp/pp.pcap" -Y infiniband -T fields \
	-e infiniband.bth.opcode 2>/dev/null | sort -un | tr '\n' ' ')
if [ "$ops" = "0 1 2 17 " ]; then
	ok "--pcap: tshark decodes SEND FIRST/MIDDLE/LAST and ACK"
else
	echo "opcodes: $ops" >"$t_tmp/op.txt"
	fail "--pcap: tshark decodes SEND FIRST/MIDDLE/LAST and ACK" "$t_tmp/op.txt"
fi

# --- make demo, make grade ----------------------------------------------------
log=$t_tmp/demo.log
flock "$lock" true # wait for other users, outside the measured time
start=$SECONDS
if flock "$lock" make -s demo >"$log" 2>&1 &&
	expect_in "$log" '^\[server\] lab teardown ok' &&
	expect_in "$log" '^\[client\] lab teardown ok' &&
	expect_in "$log" 'RDMA_WRITE_ONLY\(0x0a\)'; then
	ok "make demo in arm64 guests in $((SECONDS - start)) s"
else
	fail "make demo in arm64 guests" "$log"
fi

# The reference as the lab, in a copy of the tree: make grade builds and
# grades lab/main.c.
tree=$t_tmp/tree
mkdir -p "$tree"
git ls-files -z | xargs -0 tar -c | tar -x -C "$tree"
cp solution/main.c "$tree/lab/main.c"
max2=$(full_marks 2)
[ "$max2" != 0 ] || max2=''
log=$t_tmp/grade.log
rc=0
make -s -C "$tree" grade GRADE_ARGS="--out $t_tmp/g" >"$log" 2>&1 || rc=$?
# Its own grading time, without a wait for the guest slots.
secs=$(sed -n 's/^(graded in \([0-9]*\) s.*/\1/p' "$log")
waited=$(sed -n 's/^grade: the guests are free after \([0-9]*\) s$/\1/p' "$log")
two=${max2:+, Part two: $max2/$max2}
if [ "$rc" = 0 ] && grep -q '^Score: 20/20' "$log" &&
	{ [ -z "$max2" ] || grep -q "^Part two: $max2/$max2\$" "$log"; }; then
	ok "make grade of the reference in arm64 guests: Score: 20/20$two" \
		"in $((${secs:-0} - ${waited:-0})) s"
else
	fail "make grade of the reference in arm64 guests (status $rc)" "$log"
fi

# The handout (make dist on this host): its reference for arm64 guests
# too, graded against in them.
log=$t_tmp/handout.log
rc=0
{ release/mkdist "$t_tmp/handout.tar.gz" &&
	tar -xzf "$t_tmp/handout.tar.gz" -C "$t_tmp" &&
	cp solution/main.c "$t_tmp/rdma-lab/lab/main.c" &&
	make -s -C "$t_tmp/rdma-lab" grade; } >"$log" 2>&1 || rc=$?
# Made on an arm64 host, its main reference is arm64's.
ref=$t_tmp/rdma-lab/grader/reference
[ -e "$ref/arm64/rdma-lab" ] && ref=$ref/arm64
if [ "$rc" = 0 ] && readelf -h "$ref/rdma-lab" |
	grep -q 'Machine: *AArch64' && grep -q '^Score: 20/20' "$log"; then
	ok "make dist: the handout's arm64 reference; make grade there:" \
		"Score: 20/20$two"
else
	fail "make dist: the handout's arm64 reference (status $rc)" "$log"
fi

# The tree's programs back to this host's architecture: the groups after
# this one run solution/rdma-lab as it is (an arm64 one failed every
# check of tests/run arm64 vm with "Exec format error").
LAB_ARCH='' make -s all >"$t_tmp/rebuild.log" 2>&1 ||
	fail "make all for this host after the arm64 builds" "$t_tmp/rebuild.log"

summary

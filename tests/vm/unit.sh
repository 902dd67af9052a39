# shellcheck shell=bash disable=SC2154 # set by tests/unit.sh
# The unit group's checks of the two-guest runner's host side: vm/deps and
# vm/prepare on fake hosts, make run's arguments, the KVM probe, the wire,
# Wireshark's profile, a lossy run's shape. Sourced by tests/unit.sh, whose
# helpers (ok, ko, section, BIN, ccw, programs, tools) they use; each section
# is a named check.

u_deps() {
	if python3 tests/vm/deps_check.py >"$BIN/deps.out" 2>&1; then
	ok "every command the scripts run is known to vm/deps" \
		"($(tail -n 1 "$BIN/deps.out"))"
	else
	fail "every command the scripts run is known to vm/deps" "$BIN/deps.out"
	fi
}
section deps u_deps

# ---- the host's package system: the kernel's source, what to install ----
u_hosts() {
	# shellcheck source=tests/vm/hosts.sh
	. tests/vm/hosts.sh
}
section hosts u_hosts

# make run ARGS='-m hello world': a word that is no option (the server
# would have become a client of host "world") is refused before any guest
# boots, with one line that shows how to quote.
u_make_run_args() {
	rm -rf "$BIN/demo-out"
	vm/demo "$LAB" "$BIN/demo-out" -s 8192 -m hello world >"$BIN/demo.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && [ "$(grep -c . "$BIN/demo.out")" = 1 ] &&
	grep -q "'world' is not an option.*ARGS=\"-m 'hello world'\"" \
		"$BIN/demo.out" && [ ! -e "$BIN/demo-out" ]; then
	ok "make run ARGS='-m hello world' is refused in one line, before a boot"
	else
	ko make_run_unquoted_args "status $rc: $(head -n 2 "$BIN/demo.out")"
	fi
}
section make_run_args u_make_run_args

# The KVM probe on a host whose KVM hangs: one line that says so, and no
# "Killed" from the shell (a fake QEMU that hangs, a fake /dev/kvm).
u_kvm_probe() {
	probe=$BIN/accel
	rm -rf "$probe" && mkdir -p "$probe/bin" "$probe/guest"
	: >"$probe/kvm"
	printf '#!/bin/sh\nexec sleep 30\n' >"$probe/bin/qemu-system-x86_64"
	chmod +x "$probe/bin/qemu-system-x86_64"
	got=$(PATH="$probe/bin:$PATH" LAB_KVM_DEVICE="$probe/kvm" \
	LAB_KVM_PROBE_SECONDS=1 vm/accel "$probe/guest" 2>"$probe/err")
	if [ "$got" = tcg ] && [ "$(grep -c . "$probe/err")" = 1 ] &&
	grep -q 'accelerator tcg: a test boot under KVM did not finish in 1 s' \
		"$probe/err" && ! grep -qi killed "$probe/err"; then
	ok "a hanging KVM probe says one line and falls back to tcg"
	else
	ko kvm_probe_hangs "got '$got': $(tr '\n' ' ' <"$probe/err")"
	fi
	rm -f "$probe/guest/accel"
	printf '#!/bin/sh\nexit 0\n' >"$probe/bin/qemu-system-x86_64"
	got=$(PATH="$probe/bin:$PATH" LAB_KVM_DEVICE="$probe/kvm" \
	LAB_KVM_PROBE_SECONDS=1 vm/accel "$probe/guest" 2>"$probe/err")
	if [ "$got" = kvm ] && [ "$(grep -c . "$probe/err")" = 1 ]; then
	ok "a KVM probe that boots chooses kvm"
	else
	ko kvm_probe_works "got '$got': $(tr '\n' ' ' <"$probe/err")"
	fi
}
section kvm_probe u_kvm_probe

# ---- the programmable wire (vm/wire/relay), the guests played by sockets ----
# The recorded run's frames through the relay on loopback ports, its rules
# checked on what each side got and on its pcapng (tshark).
section wire py_checks tests/vm/wire_check.py
# The handout's Wireshark profile (wireshark/rdma-lab) through tshark on
# docs/runs' captures and a relay pcapng, and the marks of wire-summary
# and the ladder: RESENT, DROPPED and the rest.
section wireshark py_checks tests/vm/wireshark_check.py

# ---- tests/vm/loss-guest.sh's comparison: a loaded run as recorded ----
# loss_as_recorded NAME RUN N: RUN (a vm/wire-summary) has the shape of
# docs/runs/loss-NAME-wire.txt with N resends of rxe's timer left out.
u_loss_shape() {
	# shellcheck disable=SC2317 # called by check, below
	loss_as_recorded() {
	local got n
	got=$(python3 tests/vm/loss_shape.py "$2" 2>"$BIN/loss-n.txt") || return 1
	n=$(cat "$BIN/loss-n.txt")
	if [ "$got" != "$(python3 tests/vm/loss_shape.py \
		"docs/runs/loss-$1-wire.txt" 2>/dev/null)" ] || [ "$n" != "$3" ]
	then
		echo "spurious resends left out: $n (want $3); the shape:"
		echo "$got"
		return 1
	fi
	}
	# middle-spurious.txt: a run of the lost-middle exercise under make
	# test's load (a fresh Debian 12), whose 3-packet WRITE with immediate
	# rxe's timer resent with nothing lost, each duplicate answered with the
	# last PSN in order.
	check "loss_shape: a loaded run's timer resends left out, as recorded" \
	loss_as_recorded middle tests/vm/loss/middle-spurious.txt 3
	# middle-timer-before-nak.txt: the recording with the two packets CI's
	# failing run (stop 47) had more: the timer fired after the responder's
	# NAK of the lost SEND_MIDDLE and before the requester read it, resending
	# the SEND_FIRST the responder held (answered by an ACK of it).
	check "loss_shape: a timer resend before a NAK is read is left out" \
	loss_as_recorded middle tests/vm/loss/middle-timer-before-nak.txt 1
	# random-spurious-dropped.txt: the random exercise's recording with a
	# spurious timer resend of the READ after its response, lost on the wire
	# (a random rule draws for resends too): no answer of it to leave out.
	# Before, the shape dropped the WRITE with immediate's ACK in its stead,
	# as in CI's failing run at stop 47 ("< ACKNOWLEDGE +4").
	check "loss_shape: a timer resend lost on the wire has no answer left out" \
	loss_as_recorded random tests/vm/loss/random-spurious-dropped.txt 1
	# random-late-atomic.txt: CI's failing run at this stop: the dropped
	# FETCH_ADD resent three times before its late answer came, the two
	# answers to the later resends dropped by the wire's draws.  Before,
	# the shape kept all of them ("> FETCH_ADD +5 RESENT" twice).
	check "loss_shape: a dropped request's late-answered resends left out" \
	loss_as_recorded random tests/vm/loss/random-late-atomic.txt 2
	# The lost SEND_LAST has no NAK: the timer is the recovery, and its
	# resends of the message's first packets are the exercise's.
	check "loss_shape: a lost last packet's timer resends are kept" \
	loss_as_recorded last docs/runs/loss-last-wire.txt 0
}
section loss_shape u_loss_shape

#!/bin/bash
# The programmable wire in the guests (issue 43), run by tests/vm/vm.sh: the
# reference lab, server and client, through vm/run --wire RULES, each
# side's hw_counters read before and after its run.  Boots one guest pair
# (about 10 s warm), under the tests' lock.
#   tests/vm/wire-guest.sh [RULES]     default: drop c2s op=SEND_ONLY n=1
#   tests/vm/wire-guest.sh --guest ROLE   inside a guest (vm/run runs it)
# Checks, one "ok" or "FAIL" line each: both sides' steps pass (RC's
# promise); the wire's log and pcapng name the action; with the default
# rule, the SEND ONLY's PSN is sent twice, the second time at least the
# retransmit timer later (4.096 us x 2^LAB_QP_TIMEOUT of lab/lab.h: 134
# ms at 15; less a tenth for the two frames' own delays on their way out
# of an emulated guest), and the server's own capture (wire.pcap, its
# NIC) has it once.  Then the
# counters, for the record: nothing here yet says how they move.
set -eu

counters="rcvd_seq_err duplicate_request out_of_seq_request completer_retry_err"

if [ "${1:-}" = --guest ]; then
	role=$2
	hw=/sys/class/infiniband/$LAB_DEV/ports/1/hw_counters
	(cd "$hw" && grep . ./*) >"/lab-out/counters-$role-before.txt"
	rc=0
	if [ "$role" = server ]; then
		solution/rdma-lab -t 30 || rc=$?
	else
		solution/rdma-lab -t 30 "$LAB_SERVER_IP" || rc=$?
	fi
	(cd "$hw" && grep . ./*) >"/lab-out/counters-$role-after.txt"
	exit "$rc"
fi

cd "$(dirname "$0")/../.."
# shellcheck source=tests/lib.sh
. tests/lib.sh
rules=${1:-drop c2s op=SEND_ONLY n=1}
out=out/wire-guest
rm -rf "$out"
mkdir -p "$out"
make -s all
rc=0
vm_run "$out/vm.log" --out "$out" --pcap "$out/wire.pcap" --timeout 120 \
	--wire "$rules" --server "tests/vm/wire-guest.sh --guest server" \
	--client "tests/vm/wire-guest.sh --guest client" || rc=$?

if [ "$rc" = 0 ] && grep -q '^lab teardown ok' "$out/server.log" &&
	grep -q '^lab teardown ok' "$out/client.log"; then
	ok "wire-guest: both sides' steps pass through '$rules'"
else
	fail "wire-guest: both sides' steps pass (vm/run status $rc)" "$out/vm.log"
fi
n=$(grep -c 'by the wire' "$out/wire.log" || true)
if [ "$n" -ge 1 ]; then
	ok "wire-guest: the wire's log names $n action(s)"
else
	fail "wire-guest: the wire's log names the actions" "$out/wire.log"
fi
tshark -r "$out/wire.pcapng" -Y frame.comment -T fields -e frame.number \
	-e frame.comment >"$out/comments.txt" 2>/dev/null || true
if [ "$(grep -c . "$out/comments.txt")" = "$n" ]; then
	ok "wire-guest: the pcapng's comments, one per action"
else
	fail "wire-guest: the pcapng's comments, one per action" "$out/comments.txt"
fi

if [ "$rules" = "drop c2s op=SEND_ONLY n=1" ]; then
	qp_timeout=$(sed -n 's/^#define LAB_QP_TIMEOUT[[:space:]]*//p' lab/lab.h)
	timer_ms=$(((4096 << qp_timeout) / 1000000))
	# Each SEND ONLY the client sent: time, PSN, comment.
	tshark -r "$out/wire.pcapng" -Y 'infiniband.bth.opcode == 4' \
		-T fields -E separator=/t -e frame.time_epoch \
		-e infiniband.bth.psn -e frame.comment >"$out/sends.txt" \
		2>/dev/null || true
	read -r gap same < <(awk -F'\t' 'NR == 1 { t = $1; p = $2 }
		NR == 2 { printf "%d %d\n", ($1 - t) * 1000, $2 == p }
		END { if (NR < 2) print "-1 0" }' "$out/sends.txt")
	echo "     the SEND ONLY's resend came $gap ms after the first"
	if [ "$same" = 1 ] && [ "$gap" -ge $((timer_ms * 9 / 10)) ]; then
		ok "wire-guest: the SEND ONLY sent again, same PSN, $gap ms later" \
			"(timer: $timer_ms ms)"
	else
		fail "wire-guest: the SEND ONLY sent again after the timer" \
			"$out/sends.txt"
	fi
	psn=$(cut -f 2 "$out/sends.txt" | head -n 1)
	got=$(tshark -r "$out/wire.pcap" -Y "infiniband.bth.opcode == 4 && infiniband.bth.psn == ${psn:-0}" 2>/dev/null | grep -c . || true)
	if [ "$got" = 1 ]; then
		ok "wire-guest: the server's NIC got that PSN once"
	else
		fail "wire-guest: the server's NIC got that PSN once ($got times)"
	fi
fi

for role in server client; do
	echo "     $role: counter, before, after"
	for c in $counters; do
		b=$(sed -n "s|^\./$c:||p" "$out/counters-$role-before.txt" 2>/dev/null)
		a=$(sed -n "s|^\./$c:||p" "$out/counters-$role-after.txt" 2>/dev/null)
		printf '     %-22s %6s %6s\n' "$c" "${b:-?}" "${a:-?}"
	done
done
echo "     the wire: $out/wire.log, $out/wire.pcapng; the server's NIC: $out/wire.pcap"
summary

#!/bin/bash
# The lab end to end in the two guests: the reference against itself with
# per-run random payloads, checked against what really crossed the wire.
# shellcheck disable=SC2016 # the commands expand inside the guests
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

rand_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# value LOG STEP KEY: KEY's value on the "lab STEP ok" line of LOG.
value() {
	awk -v step="$2" -v key="$3" '
	$1 == "lab" && $2 == step && $3 == "ok" {
		for (i = 4; i <= NF; i++) {
			eq = index($i, "=")
			if (substr($i, 1, eq - 1) == key) {
				v = substr($i, eq + 1)
				gsub(/^"|"$/, "", v)
				print v
				exit
			}
		}
	}' "$1"
}

# wire PCAP OPCODE FIELD: FIELD of the first packet with that BTH opcode.
wire() {
	tshark -r "$1" -Y "infiniband.bth.opcode == $2" -T fields -e "$3" \
		2>/dev/null | head -n 1 | cut -d, -f1
}

# same_number A B: equal as numbers (hex with 0x, any leading zeros).
same_number() {
	[ -n "$1" ] && [ -n "$2" ] && [ $(($1)) = $(($2)) ]
}

steps=$(lab_steps | tr '\n' ' ')

# --- the reference against itself ---------------------------------------------
msg=m$(rand_hex 10)
wmsg=w$(rand_hex 10)
imm=0x$(rand_hex 4)
run=$t_tmp/ref
log=$t_tmp/ref.log
# rxe numbers QPs from 0x11 in each guest: a throw-away QP on the server
# first makes the two QPNs differ, so a swapped QPN cannot pass.  Its RC
# QP is waited for in the kernel's list (a fixed "timeout 2" stopped
# ibv_rc_pingpong before it made one on a loaded host, and both sides
# got 0x11), then the server listens.
vm_run "$log" --out "$run" --pcap "$run.pcap" \
	--server 'ibv_rc_pingpong -d $LAB_DEV -g $LAB_GID_IDX -p 19999 &
		for i in $(seq 600); do
			rdma resource show qp | grep -q "type RC" && break
			sleep 0.1
		done
		kill $! && wait $!
		solution/rdma-lab' \
	--client "solution/rdma-lab -m $msg --imm $imm -w $wmsg \$LAB_SERVER_IP"
rc=$?
srv=$run/server.log cli=$run/client.log
if [ "$rc" = 0 ]; then
	ok "solution against itself: both sides exit 0"
else
	fail "solution against itself: both sides exit 0 (got $rc)" "$log"
fi
missing=''
for step in $steps; do
	grep -q "^lab $step ok" "$srv" || missing="$missing server:$step"
	grep -q "^lab $step ok" "$cli" || missing="$missing client:$step"
done
if [ -z "$missing" ]; then
	ok "every step reports ok on both sides"
else
	fail "steps without an ok line:$missing" "$log"
fi

check "the server received the random SEND payload" \
	test "$(value "$srv" send received)" = "$msg"
check "the server received the random immediate, in host order" \
	same_number "$(value "$srv" send_imm imm)" "$imm"
check "the server's buffer holds the random WRITE payload" \
	test "$(value "$srv" write received)" = "$wmsg"
# Part two.
check "the client READ the random WRITE payload back" \
	test "$(value "$cli" read read)" = "$wmsg"
check "the WRITE with immediate put the random SEND payload in the server's buffer" \
	test "$(value "$srv" write_imm received)" = "$msg"
check "the WRITE with immediate's completion carries the random immediate" \
	same_number "$(value "$srv" write_imm imm)" "$imm"
start=$(value "$srv" atomic start)
check "FETCH_ADD returned the server's random start value ($start)" \
	same_number "$(value "$cli" atomic fetch_add)" "$start"
check "CMP_SWAP returned the start value plus one" \
	same_number "$(value "$cli" atomic cmp_swap)" "$((start + 1))"
check "the server's word ends as LAB_ATOMIC_SWAP" \
	same_number "$(value "$srv" atomic final)" 0x0123456789abcdef

# --- what crossed the wire ------------------------------------------------------
pcap=$run.pcap
ops=$(tshark -r "$pcap" -Y infiniband -T fields -e infiniband.bth.opcode \
	2>/dev/null | sort -un | tr '\n' ' ')
for op in 4:"SEND ONLY" 5:"SEND ONLY with immediate" 10:"RDMA WRITE ONLY" \
	17:"ACKNOWLEDGE" 12:"RDMA READ REQUEST" 16:"RDMA READ RESPONSE ONLY" \
	11:"RDMA WRITE ONLY with immediate" 20:"FETCH ADD" 19:"COMPARE SWAP" \
	18:"ATOMIC ACKNOWLEDGE"; do
	if [[ " $ops" == *" ${op%%:*} "* ]]; then
		ok "wire: ${op#*:} ($(printf '0x%02x' "${op%%:*}"))"
	else
		echo "opcodes seen: $ops" >"$t_tmp/ops.txt"
		fail "wire: ${op#*:}" "$t_tmp/ops.txt"
	fi
done

srv_qpn=$(value "$srv" create_resources qpn)
cli_qpn=$(value "$cli" create_resources qpn)
check "the two QPNs differ ($srv_qpn, $cli_qpn)" test "$srv_qpn" != "$cli_qpn"
check "wire: SEND goes to the server's QPN $srv_qpn" \
	same_number "$(wire "$pcap" 4 infiniband.bth.destqp)" "$srv_qpn"
check "wire: the client's printed dest_qpn is the server's QPN" \
	same_number "$(value "$cli" send dest_qpn)" "$srv_qpn"
check "wire: SEND's PSN is the one the client printed" \
	same_number "$(wire "$pcap" 4 infiniband.bth.psn)" \
	"$(value "$cli" send psn)"
check "wire: ACKs go to the client's QPN $cli_qpn" \
	same_number "$(wire "$pcap" 17 infiniband.bth.destqp)" "$cli_qpn"
check "wire: the immediate is the random one" \
	same_number "0x$(wire "$pcap" 5 infiniband.immdt)" "$imm"
check "wire: RETH address is the server's advertised buffer" \
	same_number "$(wire "$pcap" 10 infiniband.reth.va)" \
	"$(value "$srv" create_resources buf)"
check "wire: RETH address is what the client printed" \
	same_number "$(wire "$pcap" 10 infiniband.reth.va)" \
	"$(value "$cli" write remote_addr)"
check "wire: RETH rkey is the server's rkey" \
	same_number "$(wire "$pcap" 10 infiniband.reth.r_key)" \
	"$(value "$srv" create_resources rkey)"
check "wire: RETH rkey is what the client printed" \
	same_number "$(wire "$pcap" 10 infiniband.reth.r_key)" \
	"$(value "$cli" write rkey)"
check "wire: RETH length is the WRITE payload's" \
	same_number "$(wire "$pcap" 10 infiniband.reth.dmalen)" "${#wmsg}"
hex=$(printf '%s' "$wmsg" | od -An -tx1 | tr -d ' \n')
check "wire: the READ RESPONSE carries the WRITE payload" \
	test "$(wire "$pcap" 16 data | cut -c1-${#hex})" = "$hex"
check "wire: the READ REQUEST asks for the server's buffer" \
	same_number "$(wire "$pcap" 12 infiniband.reth.va)" \
	"$(value "$srv" create_resources buf)"
check "wire: the WRITE with immediate carries the random immediate" \
	same_number "0x$(wire "$pcap" 11 infiniband.immdt)" "$imm"
# aligned8 NUMBER: a multiple of 8.
aligned8() { [ -n "$1" ] && [ $(($1 % 8)) = 0 ]; }
addr=$(wire "$pcap" 20 infiniband.reth.va)
check "wire: FETCH_ADD targets the word the server advertised" \
	same_number "$addr" "$(value "$srv" atomic addr)"
check "wire: FETCH_ADD's address is 8-byte aligned" aligned8 "$addr"
# The ATOMIC ACKNOWLEDGEs, in order: the start value, then start + 1.
# rxe's retransmit timer may resend a CMP_SWAP that was not lost (an
# earlier request's timer runs on; troubleshooting.md): its duplicate is
# answered from the saved result, the same PSN and value, so identical
# answers count once, and a PSN answered with two values fails.
origs=$(tshark -r "$pcap" -Y 'infiniband.bth.opcode == 18' -T fields \
	-e infiniband.bth.psn -e infiniband.atomicacketh 2>/dev/null |
	awk '!seen[$0]++ { n[$1]++; printf "%s ", $2 }
		END { for (p in n) if (n[p] > 1) print "twice:" p }')
check "wire: the ATOMIC ACKNOWLEDGEs return the start value, then start + 1" \
	test "$origs" = "$(printf '%016x %016x ' "$start" "$((start + 1))")"

# --- a message larger than the path MTU -----------------------------------------
big=b$(rand_hex 1500)
bigw=r$(rand_hex 1500)
run=$t_tmp/big
vm_run "$t_tmp/big.log" --out "$run" --pcap "$run.pcap" \
	--server 'solution/rdma-lab -s 8192' \
	--client "solution/rdma-lab -s 8192 -m $big -w $bigw \$LAB_SERVER_IP"
rc=$?
ops=$(tshark -r "$run.pcap" -Y infiniband -T fields \
	-e infiniband.bth.opcode 2>/dev/null | sort -un | tr '\n' ' ')
echo "opcodes seen: $ops" >>"$t_tmp/big.log"
if [ "$rc" = 0 ] && [[ " $ops" == *" 0 1 2 "* ]] &&
	[ "$(value "$run/server.log" send received)" = "$big" ]; then
	ok "a ${#big}-byte SEND goes as FIRST/MIDDLE/LAST and arrives whole"
else
	fail "a ${#big}-byte SEND as FIRST/MIDDLE/LAST (status $rc)" \
		"$t_tmp/big.log"
fi
# READ RESPONSE FIRST/MIDDLE/LAST; WRITE FIRST/MIDDLE, LAST with imm.
if [ "$rc" = 0 ] && [[ " $ops" == *" 6 7 8 9 "* ]] &&
	[[ " $ops" == *" 13 14 15 "* ]] &&
	[ "$(value "$run/client.log" read read)" = "$bigw" ] &&
	[ "$(value "$run/server.log" write_imm received)" = "$big" ]; then
	ok "a ${#bigw}-byte READ comes back as RESPONSE FIRST/MIDDLE/LAST, whole"
else
	fail "a ${#bigw}-byte READ as RESPONSE FIRST/MIDDLE/LAST (status $rc)" \
		"$t_tmp/big.log"
fi

# --- the untouched skeleton -----------------------------------------------------
run=$t_tmp/skel
vm_run "$t_tmp/skel.log" --out "$run" --server 'lab/rdma-lab' \
	--client 'lab/rdma-lab $LAB_SERVER_IP'
rc=$?
if [ "$rc" = 1 ] &&
	grep -q 'TODO open_device is not implemented' "$run/server.log" &&
	grep -q 'TODO open_device is not implemented' "$run/client.log" &&
	! grep -qi 'segmentation\|core dumped' "$t_tmp/skel.log"; then
	ok "the skeleton stops at its first TODO in the guests, status 1"
else
	fail "the skeleton stops at its first TODO (status $rc)" \
		"$t_tmp/skel.log"
fi

# --- make run ARGS=..., quoted as the README shows, and the time order -------
# make demo and make run pass ARGS the same way (vm/demo); text with spaces
# must arrive whole.  The lines are shown in the order the guests wrote
# them (vm/lines): the printed order follows the stamps, and a line that
# caused another across the wire comes first.
log=$t_tmp/args.log
if flock "$t_lock" \
	make -s demo ARGS="-m 'hello world' -w 'two  spaces'" >"$log" 2>&1 &&
	grep -q '^lab send ok received="hello world" ' out/demo/server.log &&
	grep -q '^lab send ok sent="hello world" ' out/demo/client.log &&
	grep -q '^lab write ok received="two  spaces" ' out/demo/server.log; then
	ok "make demo ARGS=\"-m 'hello world' -w 'two  spaces'\" passes the text whole"
else
	fail "make demo ARGS=\"-m 'hello world' ...\" passes the text whole" "$log"
fi
# before LOG A B: line A (a fixed string) is printed before line B; if
# not, says which lines and where (two guests' clocks are tied to the
# host's only as closely as the best of a few 9p writes, vm/lines).
before() {
	local a b
	a=$(grep -n -F -m 1 "$2" "$1" | cut -d: -f1)
	b=$(grep -n -F -m 1 "$3" "$1" | cut -d: -f1)
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; then
		return 0
	fi
	echo "not in order: '$2' (line ${a:-none}), '$3' (line ${b:-none})"
	return 1
}
in_order() {
	before "$log" "[server] lab exchange ok" "[client] lab send ok" &&
		before "$log" "[client] lab exchange ok" "[server] lab send ok" &&
		before "$log" "[client] lab send_imm ok" "[server] lab write ok" &&
		vm/lines --stamped out/demo >"$t_tmp/stamped" &&
		python3 - "$t_tmp/stamped" "$log" <<'PY'
import sys
stamped, log = sys.argv[1], sys.argv[2]
when = {}
for line in open(stamped, encoding="utf-8"):
    stamp, _, text = line.rstrip("\n").partition(" ")
    when[text] = float(stamp)
shown = [when[l.rstrip("\n")] for l in open(log, encoding="utf-8")
         if l.rstrip("\n") in when]
if len(shown) < 20 or shown != sorted(shown):
    sys.exit("%d lines; order of the stamps: %s" % (len(shown), shown))
PY
}
check "make demo shows the two sides' lines in the order they were written" \
	in_order

summary

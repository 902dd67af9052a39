#!/bin/bash
# Part three's exercises (docs/handout.md section 7), run by tests/vm.sh:
# each of docs/runs/record's lossy runs of the reference (make demo
# LOSS=RULES) three times.  Every run must show what the recording shows
# (docs/runs/loss-NAME-wire.txt, which the texts quote): the same packets
# dropped, the same NAKs and the same requests resent, each named by its
# direction, opcode and PSN counted from the first (frames and PSNs differ
# from run to run), and the same step lines passing or failing; a resend
# made while no dropped packet waited for its answer, which rxe's timer
# makes on a busy host whatever the wire does, is left out with one answer
# to it (tests/loss_shape.py).  About 15
# guest-pair runs, 6 s each warm, under the tests' lock.
#   tests/loss-guest.sh [NAME...]    default: every recorded one
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib.sh
. tests/lib.sh

# The exercises as docs/runs/record runs them: NAME, RULES, program
# options (one word each; BIG: the 3000-byte message).
exercises="middle|drop c2s op=SEND_MIDDLE n=1|-s 8192 -m BIG
last|drop c2s op=SEND_LAST n=1|-s 8192 -m BIG
ack|drop s2c op=ACKNOWLEDGE n=1|
gone|drop s2c op=ACKNOWLEDGE|-t 3
random|random=0.3 seed=2|"
big=$(head -c 3000 /dev/zero | tr '\0' x)

# shape SUMMARY: the packets of vm/wire-summary's SUMMARY as sender,
# opcode, PSN from the first and marks, without the resends rxe's timer
# makes on a busy host, loss or not (their count on stderr:
# tests/loss_shape.py).
shape() {
	python3 tests/loss_shape.py "$1"
}
# steps LOG: each step line's step and verdict (ok, FAIL).
steps() {
	awk '$1 == "lab" && ($3 == "ok" || $3 == "FAIL") { print $2, $3 }' "$1"
}

make -s all
want=" $* "
while IFS='|' read -r name rules args; do
	[ "$want" = "  " ] || [[ $want == *" $name "* ]] || continue
	rec=docs/runs/loss-$name
	if [ ! -s "$rec-wire.txt" ]; then
		fail "loss $name: no recording $rec-wire.txt (docs/runs/record --loss)"
		continue
	fi
	shape "$rec-wire.txt" >"$t_tmp/$name.want" 2>/dev/null
	cat "$rec-server.txt" "$rec-client.txt" >"$t_tmp/$name.lines"
	steps "$t_tmp/$name.lines" >"$t_tmp/$name.steps"
	read -ra opts <<<"${args//BIG/$big}"
	why='' spurious=0
	for i in 1 2 3; do
		o=out/loss-guest/$name-$i
		rm -rf "$o"
		mkdir -p "$o"
		flock "$t_lock" env LAB_WIRE="$rules" vm/demo solution/rdma-lab \
			"$o" ${opts[@]+"${opts[@]}"} >"$o.txt" 2>&1
		vm/wire-summary "$o/wire.pcapng" >"$o/summary.txt" 2>&1
		shape "$o/summary.txt" >"$o/shape.txt" 2>"$o/spurious.txt"
		spurious=$((spurious + $(cat "$o/spurious.txt")))
		cat "$o/server.log" "$o/client.log" >"$o/lines.txt" 2>/dev/null
		steps "$o/lines.txt" >"$o/steps.txt"
		if ! diff "$t_tmp/$name.want" "$o/shape.txt" >"$o/shape.diff"; then
			why="$why run $i: packets (the recording's <, the run's >)"
			cat "$o/shape.diff" >>"$t_tmp/$name.why"
		fi
		if ! diff "$t_tmp/$name.steps" "$o/steps.txt" >>"$t_tmp/$name.why"
		then
			why="$why run $i: step lines"
		fi
	done
	drops=$(grep -c DROPPED "$t_tmp/$name.want")
	resent=$(grep -c RESENT "$t_tmp/$name.want")
	if [ -z "$why" ]; then
		ok "loss $name ('$rules'): 3 runs as recorded, $drops dropped," \
			"$resent resent, the same steps ($spurious spurious" \
			"timer resends left out)"
	else
		fail "loss $name ('$rules'):$why" "$t_tmp/$name.why"
	fi
done <<<"$exercises"

summary

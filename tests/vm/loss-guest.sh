#!/bin/bash
# Part three's exercises (docs/handout.md section 7), run by tests/vm/vm.sh:
# each of docs/runs/record's lossy runs of the reference (make demo
# LOSS=RULES) three times.  Every run must show what the recording shows
# (docs/runs/loss-NAME-wire.txt, which the texts quote): the same packets
# dropped, the same NAKs and the same requests resent, each named by its
# direction, opcode and PSN counted from the first (frames and PSNs differ
# from run to run), and the same step lines passing or failing; a resend
# made while no dropped packet waited for its answer, which rxe's timer
# makes on a busy host whatever the wire does, is left out with one answer
# to it (tests/vm/loss_shape.py).  About 15
# guest-pair runs, 6 s each warm, under the tests' lock.  Then part three
# graded (graded): a copy of this tree with LAB_PARTS 3, grader/grade-all of
# the reference, alt.c, the skeleton and three seeds: a retry_cnt of 0
# loses loss alone, a timeout of 0 and a server without receives lose
# connect alone (loss kept); about a minute and a half.
#   tests/vm/loss-guest.sh [NAME...]    default: every recorded one, graded
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib.sh
. tests/lib.sh

# The exercises as docs/runs/record runs them: NAME, RULES, program
# options (one word each; BIG: the 3000-byte message).
exercises="middle|drop c2s op=SEND_MIDDLE n=1|-s 8192 -m BIG
last|drop c2s op=SEND_LAST n=1|-s 8192 -m BIG
ack|drop s2c op=ACKNOWLEDGE n=1|
gone|drop s2c op=ACKNOWLEDGE|
random|random=0.3 seed=3187|"
big=$(head -c 3000 /dev/zero | tr '\0' x)

# shape SUMMARY: the packets of vm/wire-summary's SUMMARY as sender,
# opcode, PSN from the first and marks, without the resends rxe's timer
# makes on a busy host, loss or not (their count on stderr:
# tests/vm/loss_shape.py).
shape() {
	python3 tests/vm/loss_shape.py "$1"
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
			"$o" ${opts[@]+"${opts[@]}"} >"$o.txt" 2>&1 ||
			echo "(vm/demo: exit status $?)" >>"$o.txt"
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
		# The evidence of a run that differs: what vm/demo printed (its
		# packets, what the wire did, its exit status).
		case "$why" in *"run $i:"*)
			{
				echo "== run $i: vm/demo's output"
				cat "$o.txt"
			} >>"$t_tmp/$name.why" ;;
		esac
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

# --- part three graded ----------------------------------------------------
# scores_of OUT NAME: each item of a student's result as ITEM=SCORE, then
# its loss hint, on one line.
scores_of() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (k, v["score"]) for k, v in r["steps"].items()),
      "|", r["steps"].get("loss", {}).get("hint") or "")' \
		"$1/students/$2/result.json" 2>/dev/null
}
# expect_loss OUT NAME LOST HINT: NAME's items scored 0 are exactly LOST
# (ALL: every one), and HINT (a regex, or '') is in its loss hint.
expect_loss() {
	local got zero
	got=$(scores_of "$1" "$2")
	zero=$(echo "${got%%|*}" | tr ' ' '\n' | sed -n 's/=0$//p' | tr '\n' ' ')
	zero=${zero% }
	if [ "$3" = ALL ] && ! echo "${got%%|*}" | tr ' ' '\n' |
		grep -q '=[1-9]'; then
		zero=ALL
	fi
	if [ -n "$got" ] && [ "$zero" = "$3" ] &&
		{ [ -z "$4" ] || echo "${got#*|}" | grep -Eq "$4"; }; then
		ok "part three graded: $2 loses ${3:-nothing}${4:+, hint /$4/}"
	else
		echo "$got" >"$t_tmp/loss-$2.txt"
		cat "$1/students/$2/report.txt" >>"$t_tmp/loss-$2.txt" 2>/dev/null
		fail "part three graded: $2 loses '$zero', not '$3'" \
			"$t_tmp/loss-$2.txt"
	fi
}
if [ "$want" = "  " ] || [[ $want == *" graded "* ]]; then
	g=$t_tmp/graded
	mkdir -p "$g/tree" "$g/subs"
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$g/tree"
	sed -i 's/^#define LAB_PARTS [0-9]*$/#define LAB_PARTS 3/' \
		"$g/tree/lab/steps.h"
	cp solution/main.c "$g/subs/reference.c"
	cp lab/main.c "$g/subs/skeleton.c"
	python3 tests/grader/seeds/mkalt.py lab/main.c tests/grader/seeds/alt.c >"$g/subs/alt.c"
	sed 's/\.retry_cnt = LAB_QP_RETRY_CNT,/.retry_cnt = 0,/' solution/main.c \
		>"$g/subs/retry_cnt_0.c"
	for m in timeout_zero no_recv; do
		sed -f "tests/grader/seeds/mistakes/$m.sed" solution/main.c >"$g/subs/$m.c"
	done
	start=$SECONDS
	if (cd "$g/tree" && grader/grade-all --out "$g/out" "$g/subs") \
		>"$g/log" 2>&1; then
		ok "part three graded: 6 submissions with LAB_PARTS 3 in" \
			"$((SECONDS - start)) s"
	else
		fail "part three graded: grader/grade-all" "$g/log"
	fi
	expect_loss "$g/out" reference '' ''
	expect_loss "$g/out" alt '' ''
	expect_loss "$g/out" skeleton ALL ''
	expect_loss "$g/out" retry_cnt_0 loss 'retry_cnt of 0'
	expect_loss "$g/out" timeout_zero connect ''
	expect_loss "$g/out" no_recv connect ''
	if grep -qx 'Part three: 4/4' "$g/out/students/reference/report.txt" &&
		head -n 1 "$g/out/lms.csv" | grep -q ',part_three,total,' &&
		head -n 1 "$g/out/report.csv" | grep -q ',loss,.*,part3,part3_max,'
	then
		ok "part three graded: its line in the report, its columns in" \
			"report.csv and lms.csv"
	else
		head -n 1 "$g/out/report.csv" "$g/out/lms.csv" >"$t_tmp/cols.txt"
		fail "part three graded: report line and columns" "$t_tmp/cols.txt"
	fi
fi

summary

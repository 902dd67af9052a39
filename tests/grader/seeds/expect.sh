# shellcheck shell=bash disable=SC2154 # t_tmp: tests/lib.sh's
# The grades that the test submissions must get, checked on a graded folder
# (OUT/report.csv and OUT/students/NAME/{result.json,report.txt}); sourced after
# tests/lib.sh (ok, fail, skip, lab_steps).  tests/grader/grade.sh checks a
# batch graded in the guests, tests/grader/judges.sh the recorded evidence of
# one judged again without them.  The expectations are the seeds' own: each
# tests/grader/seeds/mistakes/NAME.sed says the step it must lose (# step:) and
# the hint it must give (# hint:), each tests/grader/seeds/hostile/NAME.sed its
# score (# score:) and a text of its report (# text:).

# declared_names: every submission whose grade is declared here, one a
# line: the reference, the skeleton, alt.c, ext.c (the extended verbs
# API), each mistake and hostile seed.
declared_names() {
	local f
	printf '%s\n' reference skeleton alt ext
	for f in tests/grader/seeds/mistakes/*.sed tests/grader/seeds/hostile/*.sed; do
		basename "$f" .sed
	done
}

# expect_init OUT: the checks below read OUT.  Sets max2, part two's full
# marks ('' when the course does the core only).
expect_init() {
	x_out=$1
	x_rep=$1/students
	# NAME POINTS PART per step, as the grader reads lab/steps.h.
	python3 grader/grader.py steps >"$t_tmp/steps.txt"
	max2=$(full_marks 2)
	[ "$max2" != 0 ] || max2=''
	# Every step of every student, read once (one python start per
	# value cost 20 s over the batch).
	verdicts_of "$x_out" >"$t_tmp/steps.tsv"
}

# verdicts_of GRADED: NAME, STEP, score and hint (on one line) of every
# step of every student of a graded folder, tab-separated, one a line.
verdicts_of() {
	python3 -c 'import json,sys,os
for n in sorted(os.listdir(sys.argv[1])):
    try:
        r = json.load(open(os.path.join(sys.argv[1], n, "result.json")))
    except OSError:
        continue
    for k, v in r["steps"].items():
        h = " ".join(str(v.get("hint") or "").split())
        print("\t".join([n, k, str(v["score"]), h]))' "$1/students"
}

# col NAME COLUMN: a student's value in report.csv's column of that name.
col() {
	awk -F, -v n="$1" -v c="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$1 == n && (c in k) { print $(k[c]) }' "$x_out/report.csv"
}
# score NAME: the core score of a student; part2 NAME: part two's.
score() { col "$1" score; }
part2() { col "$1" part2; }
# step_part STEP: the part a step belongs to.
step_part() {
	awk -v s="$1" '$1 == s { print $3 }' "$t_tmp/steps.txt"
}
# step_score NAME STEP; step_hint NAME STEP
step_field() {
	awk -F '\t' -v n="$1" -v s="$2" -v f="$3" '$1 == n && $2 == s {
		print $f }' "$t_tmp/steps.tsv"
}
step_score() { step_field "$1" "$2" 3; }
step_hint() { step_field "$1" "$2" 4; }

# expect_full NAME...: full marks in every part.
expect_full() {
	local s
	for s in "$@"; do
		if [ "$(score "$s")" = 20 ] && [ "$(part2 "$s")" = "$max2" ]; then
			ok "$s: 20/20${max2:+, part two $max2/$max2}"
		else
			fail "$s: $(score "$s")/20${max2:+, part two $(part2 "$s")/$max2}" \
				"$x_rep/$s/report.txt"
		fi
	done
}

# expect_skeleton: 0 in every part, "not implemented".
expect_skeleton() {
	if [ "$(score skeleton)" = 0 ] && [ "$(part2 skeleton)" = "${max2:+0}" ] &&
		grep -q "not implemented" "$x_rep/skeleton/report.txt"; then
		ok "skeleton: 0/20${max2:+, part two 0/$max2}, not implemented"
	else
		fail "skeleton: $(score skeleton)/20" "$x_rep/skeleton/report.txt"
	fi
}

# keys_differ TRACE...: in the reference's kernel trace (SIDE.ktrace, or
# the log.txt that holds it), an MR registered without remote access has
# an rkey other than its lkey.  Kernel 6.1's rxe gives it 0; 6.12's gives
# it the lkey (as mlx5 NICs do), and then an SGE that takes the rkey for
# the lkey works: neither the wire nor the trace can tell.  The access is
# on the call's line, the keys on its return's.
keys_differ() {
	awk '/ ibv_reg_mr: / { plain = / access=0x[01]( |$)/ }
	/ ibv_reg_mr_ret: / && plain && match($0, / lkey=0x[0-9a-f]+ rkey=/) {
		l = substr($0, RSTART + 6, RLENGTH - 12)
		r = substr($0, RSTART + RLENGTH); sub(/ .*/, "", r)
		if (l != r) d = 1
	}
	END { exit !d }' "$@"
}

# expect_mistakes [--graded] TRACE...: each seeded mistake loses its step with
# its hint and every other step keeps its points (each step is judged on its own
# code: grader/labgrader/rounds.py), but the steps its "# also:" line names,
# whose code the seed changed too.  TRACE: the reference's trace, for
# keys_differ.  --graded: only the mistakes graded in OUT (the others are left
# to the recording, said in one line).
expect_mistakes() {
	local f name step hint why got s steps also graded='' left=0
	[ "$1" != --graded ] || {
		graded=1
		shift
	}
	mapfile -t steps < <(lab_steps)
	for f in tests/grader/seeds/mistakes/*.sed; do
		name=$(basename "$f" .sed)
		if [ -n "$graded" ] && [ ! -d "$x_rep/$name" ]; then
			left=$((left + 1))
			continue
		fi
		step=$(sed -n 's/^# step: //p' "$f")
		hint=$(sed -n 's/^# hint: //p' "$f")
		also=$(sed -n 's/^# also: //p' "$f")
		if grep -q '^# needs: keys that differ$' "$f" && ! keys_differ "$@"; then
			skip "mistake $name: this kernel's rxe gives an MR without" \
				"remote access an rkey equal to its lkey, so the mistake" \
				"works and leaves no evidence"
			continue
		fi
		why=''
		[ -e "$x_rep/$name/result.json" ] || why="no result"
		[ -n "$why" ] || [ "$(step_score "$name" "$step")" = 0 ] ||
			why="$step kept its points"
		if [ -z "$why" ]; then
			got=$(step_hint "$name" "$step")
			echo "$got" | grep -Eq -- "$hint" ||
				why="hint for $step is '$got', wanted /$hint/"
		fi
		for s in "${steps[@]}"; do
			[ -z "$why" ] || break
			if [ "$s" = "$step" ] || [[ " $also " == *" $s "* ]]; then
				continue
			fi
			[ "$(step_score "$name" "$s")" != 0 ] ||
				why="$s lost its points too"
		done
		if [ -z "$why" ]; then
			ok "mistake $name: loses $step${also:+ and $also} only," \
				"hint /$hint/"
		else
			fail "mistake $name: $why" "$x_rep/$name/report.txt"
		fi
	done
	[ "$left" = 0 ] ||
		echo "($left mistakes judged on their recorded evidence:" \
			"tests/run judges)"
}

# expect_own_lines: a student's line is marked by its own pairing:
# no_recv breaks the server only, so its client's SEND in p2 (reference
# server) is good.
expect_own_lines() {
	local r=$x_rep/no_recv/report.txt
	if sed -n '/^  p2, your client/,/^  p3/p' "$r" |
		grep -q '^    GOOD   lab send ok' &&
		sed -n '/^  p1, your server/,/^  p2/p' "$r" |
		grep -q '^    BAD     lab send FAIL'; then
		ok "own lines are marked per pairing (no_recv: p1 server BAD, p2" \
			"client GOOD)"
	else
		fail "no_recv: own lines not marked per pairing" "$r"
	fi
}

# limits_in TEXT: TEXT with each ${NAME} of a limit of grader/settings.sh
# replaced by its value: a seed's text names the limit, not its number.
limits_in() (
	# shellcheck source=grader/settings.sh
	. grader/settings.sh
	local t=$1 v
	for v in RUN_MEM_MIB RUN_PROCS CAPTURE_MAX_MIB; do
		t=${t//"\${$v}"/${!v}}
	done
	printf '%s\n' "$t"
)

# rounds_evidence STUDENT: its report, then what decided its rounds: each
# round's stand-ins, cut and pairings' windows, waits and stretches
# (guest_cpu), and the merged result's rounds_stopped.
rounds_evidence() {
	cat "$1/report.txt" 2>/dev/null
	python3 -c 'import glob, json, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], "round-*", "result.json"))) + \
        [os.path.join(sys.argv[1], "result.json")]:
    try:
        r = json.load(open(p))
    except (OSError, ValueError) as e:
        print(p, e)
        continue
    print(os.path.relpath(p, sys.argv[1]), json.dumps({k: r.get(k) for k in (
        "standins", "cut", "guest_cpu", "seconds", "rounds", "rounds_stopped",
        "env_error")}))' "$1"
}

# expect_hostile: each hostile submission gets its score and its report
# shows its text; one that keeps full marks keeps part two's too; each
# step its seed names (# lost: STEP...) scores 0.
expect_hostile() {
	local f name want text two got lost s kept
	for f in tests/grader/seeds/hostile/*.sed; do
		name=$(basename "$f" .sed)
		want=$(sed -n 's/^# score: //p' "$f")
		text=$(limits_in "$(sed -n 's/^# text: //p' "$f")")
		lost=$(sed -n 's/^# lost: //p' "$f")
		two=''
		[ "$want" != 20 ] || [ -z "$max2" ] || two=$max2
		kept=''
		for s in $lost; do
			[ "$(step_score "$name" "$s")" = 0 ] || kept="$kept $s"
		done
		if [ "$(score "$name")" = "$want" ] && [ -z "$kept" ] &&
			{ [ -z "$two" ] || [ "$(part2 "$name")" = "$two" ]; } &&
			grep -Eq -- "$text" "$x_rep/$name/report.txt"; then
			ok "hostile $name: $want/20${two:+, part two $two/$two}," \
				"report says /$text/${lost:+, lost $lost}"
		else
			got="$(score "$name")/20${two:+, part two $(part2 "$name")/$two}"
			rounds_evidence "$x_rep/$name" >"$t_tmp/hostile.ev"
			fail "hostile $name: $got${kept:+, kept$kept}, wanted $want and /$text/" \
				"$t_tmp/hostile.ev"
		fi
	done
}

#!/bin/bash
# The grader (vm/grade, vm/grade-all) judged on known programs, in one batch
# graded by two guest pairs at once (-j 2: most failing submissions spend
# their time waiting, which the other pair uses; 202 s for the batch, 289 s
# with one pair, the same grades at every step, measured twice): the
# reference scores full marks in every part,
# the skeleton 0 with "not implemented", a differently written correct
# solution full marks, the race mistakes of vm/grader/mistakes/ lose their
# step with their hint every time (the other mistakes: tests/judges.sh),
# and hostile submissions cost only their own score.  Then make grade itself:
# the untouched skeleton, and a correct lab with its wall time; and make
# dist, whose handout grades without the solution's source and holds only
# the TODOs of the parts chosen in lab/steps.h.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/grade/expect.sh
. tests/grade/expect.sh

# JUDGES_RECORD=1: this batch's evidence is kept and becomes the judges
# group's recording (tests/judges/record).
[ -z "${JUDGES_RECORD:-}" ] || export GRADE_KEEP_EVIDENCE=1
lock=/tmp/rdma-lab-vm.lock
subs=$t_tmp/subs
out=$t_tmp/graded
mkdir -p "$subs"
make -s all lab >/dev/null 2>&1 || fail "make all"

# --- the batch --------------------------------------------------------------
# In the guests: what this machine's kernel, limits and timing decide
# (the hostile seeds, the races), the reference and the skeleton, alt.c
# and ext.c (the extended verbs API).  The other mistakes are judged by
# tests/judges.sh on their recorded evidence, which it holds to this
# tree's sources (a lab mistake's evidence is the same on every run:
# grading each in the guests again cost 150 s here).  JUDGES_RECORD=1
# grades every seed here, to record them.
# The races: mistakes whose naive verdict hangs on timing, each made
# certain by the grader (the order of events in the kernel's trace; the
# reference client's wait before its WRITEs and atomics; the send queue
# counted by the verbs' rules), and graded 3 times below.
races="late_recv one_recv notice_early early_read imm_no_wait"
races="$races atomic_read_early sq_unsignaled"
live=$races
cp solution/main.c "$subs/reference.c"
cp lab/main.c "$subs/skeleton.c"
python3 tests/grade/mkalt.py lab/main.c tests/grade/alt.c >"$subs/alt.c"
python3 tests/grade/mkalt.py lab/main.c tests/grade/ext.c >"$subs/ext.c"
for f in vm/grader/mistakes/*.sed tests/grade/hostile/*.sed; do
	name=$(basename "$f" .sed)
	if [ -z "${JUDGES_RECORD:-}" ] && [[ $f != */hostile/* ]] &&
		[[ " $live " != *" $name "* ]]; then
		continue
	fi
	# @ROOT@: the project's absolute path, for hostiles that look for it.
	sed -f "$f" solution/main.c | sed "s|@ROOT@|$PWD|g" >"$subs/$name.c"
	if cmp -s solution/main.c "$subs/$name.c"; then
		fail "$name: the seed no longer applies to solution/main.c"
	fi
done
# Determinism: the same code is graded 3 times (the reference as such, as
# the tarball below and once more after a lost result, each race mistake
# under three names).
for name in $races; do
	cp "$subs/$name.c" "$subs/$name-2.c"
	cp "$subs/$name.c" "$subs/$name-3.c"
done
# A folder and a tarball, as students hand them in.
mkdir -p "$t_tmp/tree/lab" && cp solution/main.c "$t_tmp/tree/lab/main.c"
tar -C "$t_tmp/tree" -czf "$subs/tarball.tar.gz" lab
n=$(find "$subs" -maxdepth 1 -type f | wc -l)

# Every form a submission takes yields its lab/main.c (on the host: only
# the unpacking); a linked main.c is refused, not followed.
f=$t_tmp/forms
mkdir -p "$f/folder/lab" "$f/folder/old" "$f/linked/lab"
cp solution/main.c "$f/folder/lab/main.c"
cp lab/main.c "$f/folder/old/main.c"
ln -s /etc/passwd "$f/linked/lab/main.c"
(cd "$t_tmp/tree" && python3 -m zipfile -c "$f/zipped.zip" lab)
why=''
for s in folder zipped.zip "$subs/tarball.tar.gz" "$subs/reference.c"; do
	case "$s" in /*) ;; *) s=$f/$s ;; esac
	rm -rf "$f/got"
	python3 vm/grader/grader.py unpack "$s" "$f/got" 2>>"$f/err" &&
		cmp -s solution/main.c "$f/got/main.c" ||
		why="$why $(basename "$s")"
done
python3 vm/grader/grader.py unpack "$f/linked" "$f/got2" 2>>"$f/err" &&
	why="$why linked"
if [ -z "$why" ] && grep -q "no main.c in .*linked" "$f/err"; then
	ok "unpack: a folder, a zip, a tarball and a .c give lab/main.c;" \
		"a linked main.c is refused"
else
	fail "unpack:$why" "$f/err"
fi

start=$SECONDS
vm/grade-all -j 2 --out "$out" "$subs" >"$t_tmp/batch.log" 2>&1
rc=$?
secs=$((SECONDS - start))
if [ "$rc" = 0 ] && [ -s "$out/report.csv" ] && [ -s "$out/report.md" ]; then
	ok "grade-all -j 2: $n submissions in $secs s" \
		"($((n * 600 / (secs + 1) / 10)).$((n * 600 / (secs + 1) % 10))/min)"
else
	fail "grade-all (status $rc)" "$t_tmp/batch.log"
fi

# The grades the seeds declare (tests/grade/expect.sh, shared with
# tests/judges.sh).
expect_init "$out"
rep=$out/students
expect_full reference alt ext tarball
expect_skeleton
expect_mistakes --graded "$rep/reference/log.txt"

# scores NAME: the score of every step, on one line.
scores() {
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (k, v["score"]) for k, v in r["steps"].items()))' \
		"$out/students/$1/result.json" 2>/dev/null
}
# same3 NAME A B C: A, B and C (each a line of scores) are the same.
same3() {
	if [ -n "$2" ] && [ "$2" = "$3" ] && [ "$2" = "$4" ]; then
		ok "$1 graded 3 times: the same score at every step"
	else
		fail "$1 graded 3 times: '$2' / '$3' / '$4'"
	fi
}
for name in $races; do
	same3 "$name" "$(scores "$name")" "$(scores "$name-2")" \
		"$(scores "$name-3")"
done

[ -z "${JUDGES_RECORD:-}" ] || expect_own_lines
expect_hostile
if [ ! -e /tmp/rdma-lab-pwned ] && [ ! -e "$out/run/pwned" ]; then
	ok "hostile writes landed nowhere on the host"
else
	fail "a hostile write reached the host"
fi
if [ "$(wc -l <"$out/report.csv")" = $((n + 1)) ] &&
	grep -q '^| send | ' "$out/report.md"; then
	ok "report.csv has one row per student, report.md a row per step"
else
	fail "report.csv/report.md" "$out/report.csv"
fi

# The grader reads captures with its own parser: it must agree with
# tshark, packet by packet and field by field, on every capture taken,
# and write the students' packet lists as vm/wire-summary does.
# The captures are joined into one (mergecap -a keeps every packet, in
# order): one tshark start where 171 cost a minute.
caps=("$rep"/*/p*.pcap)
if mergecap -a -F pcap -w "$t_tmp/all.pcap" "${caps[@]}" 2>"$t_tmp/differ.txt" &&
	tests/grade/packets-tshark.py "$t_tmp/all.pcap" >"$t_tmp/tshark.txt" \
		2>>"$t_tmp/differ.txt" &&
	python3 vm/grader/grader.py packets "$t_tmp/all.pcap" \
		>"$t_tmp/grader.txt" 2>>"$t_tmp/differ.txt" &&
	diff "$t_tmp/tshark.txt" "$t_tmp/grader.txt" >>"$t_tmp/differ.txt" &&
	vm/wire-summary "$t_tmp/all.pcap" >"$t_tmp/summary-tshark.txt" \
		2>>"$t_tmp/differ.txt" &&
	python3 vm/grader/grader.py summary "$t_tmp/all.pcap" \
		>"$t_tmp/summary.txt" 2>>"$t_tmp/differ.txt" &&
	diff "$t_tmp/summary-tshark.txt" "$t_tmp/summary.txt" \
		>>"$t_tmp/differ.txt" &&
	n_pk=$(wc -l <"$t_tmp/grader.txt") && [ "$n_pk" -gt 100 ]; then
	ok "the grader's pcap parser agrees with tshark on ${#caps[@]}" \
		"captures ($n_pk packets), its summary with vm/wire-summary's"
else
	fail "the grader's pcap parser and tshark differ (or too few" \
		"packets)" "$t_tmp/differ.txt"
fi

# Resuming: nothing left to do, so no boot and the same results.
cp "$out/report.csv" "$t_tmp/before.csv"
start=$SECONDS
vm/grade-all --out "$out" "$subs" >"$t_tmp/resume.log" 2>&1
if ! grep -q booting "$t_tmp/resume.log" &&
	cmp -s "$out/report.csv" "$t_tmp/before.csv"; then
	ok "grade-all again: resumes, nothing regraded ($((SECONDS - start)) s)"
else
	fail "grade-all again regraded or changed the report" \
		"$t_tmp/resume.log"
fi
# One result removed: only that student is graded again (the reference's
# third grading).
first=$(scores reference)
rm "$out/students/reference/result.json"
vm/grade-all --out "$out" "$subs" >"$t_tmp/resume2.log" 2>&1
if grep -q 'for 1 submission' "$t_tmp/resume2.log" &&
	[ "$(score reference)" = 20 ]; then
	ok "grade-all after a lost result: only that student regraded"
else
	fail "grade-all after a lost result" "$t_tmp/resume2.log"
fi
same3 reference "$first" "$(scores reference)" "$(scores tarball)"

# --- a batch in two shards, one after the other, merged ------------------------
# --shard 1/2 (with -j 2: two guest pairs at once) and --shard 2/2 (its
# submission compiled in the guests, as where the host cannot make the
# jail's namespaces), then --merge: the same grades as the unsharded batch
# above gave the same submissions (ones whose grade does not depend on
# timing, and that need no second round: a round is a batch of its own,
# with its own boot, which the batch above tests).
sh=$t_tmp/shards
mkdir -p "$sh/subs"
for s in alt reference skeleton; do
	cp "$subs/$s.c" "$sh/subs/"
done
why=''
vm/grade-all -j 2 --shard 1/2 --out "$sh/out-1" "$sh/subs" \
	>"$sh/log" 2>&1 || why="$why shard-1:$?"
GRADE_HOST_CC=0 vm/grade-all --shard 2/2 --out "$sh/out-2" "$sh/subs" \
	>>"$sh/log" 2>&1 || why="$why shard-2:$?"
tab=$(printf '\t')
grep -q "^reference${tab}src${tab}" "$sh/out-2/run/jobs.txt" ||
	why="$why not-compiled-in-the-guests"
cat "$sh"/out-1/part-*/run/jobs.txt 2>/dev/null |
	grep -q "^alt${tab}host${tab}" || why="$why not-compiled-here"
vm/grade-all --merge "$sh/all" "$sh/out-1" "$sh/out-2" \
	>>"$sh/log" 2>&1 || why="$why merge:$?"
# Bytewise order: alt reference skeleton; shard 1 is the 1st and 3rd.
names() { (cd "$1/students" && echo *); }
[ "$(names "$sh/out-1")" = "alt skeleton" ] &&
	[ "$(names "$sh/out-2")" = "reference" ] || why="$why partition"
grep -q '^graded 2/2' "$sh/log" || why="$why no-progress-line"
# Each student's scores by step, merged and unsharded.
steps_of() {
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (k, v["score"]) for k, v in sorted(r["steps"].items())))' "$1"
}
for s in alt reference skeleton; do
	[ "$(steps_of "$sh/all/students/$s/result.json")" = \
		"$(steps_of "$out/students/$s/result.json")" ] || why="$why $s"
done
[ "$(wc -l <"$sh/all/report.csv")" = 4 ] || why="$why report-rows"
if [ -z "$why" ]; then
	ok "two shards (one with -j 2, one compiled in the guests), merged:" \
		"the unsharded grades"
else
	fail "two shards, merged:$why" "$sh/log"
fi

# --- make grade -------------------------------------------------------------
log=$t_tmp/grade-skel.log
flock "$lock" true # wait for other users, outside the measured time
make -s grade GRADE_ARGS="--out $t_tmp/g1 --results $t_tmp/results.json" \
	>"$log" 2>&1
rc=$?
if [ "$rc" != 0 ] && grep -q '^Score: 0/20' "$log" &&
	{ [ -z "$max2" ] || grep -q "^Part two: 0/$max2\$" "$log"; } &&
	grep -q 'not implemented' "$log" &&
	grep -q '^open_device  *0/2  FAIL' "$log"; then
	ok "make grade on the skeleton: Score: 0/20${max2:+, Part two: 0/$max2}," \
		"not implemented, status $rc"
else
	fail "make grade on the skeleton (status $rc)" "$log"
fi
# One test per step graded, numbered by part (1.N the core, 2.N part two).
if python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
t = d["tests"]
max2 = int(sys.argv[2] or 0)
assert [x["name"] for x in t][:2] == ["open_device", "create_resources"]
core = [x for x in t if x["number"].startswith("1.")]
two = [x for x in t if x["number"].startswith("2.")]
assert len(core) == 9 and sum(x["max_score"] for x in core) == 20
assert sum(x["max_score"] for x in two) == max2 and len(t) == 9 + len(two)
assert all({"name", "score", "max_score", "output"} <= set(x) for x in t)
' "$t_tmp/results.json" "$max2" 2>"$t_tmp/json.err"; then
	ok "--results writes Gradescope results.json (core${max2:+ and part two})"
else
	fail "--results" "$t_tmp/json.err"
fi

mkdir -p "$t_tmp/good"
cp solution/main.c "$t_tmp/good/main.c"
# Two make grade runs at once, while a third party holds the guests for
# longer than their stall limit: both say that they wait, the wait is never
# taken for a stuck guest, both score, and no process is left behind.
log=$t_tmp/grade-good.log
log2=$t_tmp/grade-steps.log
flock "$lock" true
flock "$lock" sleep 25 &
holder=$!
for _ in $(seq 100); do
	flock -n "$lock" true || break
	sleep 0.1
done
GRADE_STALL=20 vm/grade --out "$t_tmp/g2" --lab "$t_tmp/good" >"$log" 2>&1 &
first=$!
GRADE_STALL=20 vm/grade --out "$t_tmp/g3" --lab "$t_tmp/good" send write \
	>"$log2" 2>&1 &
second=$!
# --- make dist: the student handout -----------------------------------------
# No solution source in it, yet make grade works there: the reference goes
# in as a binary.  Made, and its files checked, while the two make grades
# above wait for the holder (host work only: no guest).
h=$t_tmp/handout
mkdir -p "$h"
dist_ok=''
if make -s dist >"$t_tmp/dist.log" 2>&1 &&
	tar -xzf out/rdma-lab-handout.tar.gz -C "$h"; then
	dist_ok=1
	h=$h/rdma-lab
	leak=$( (ls -d "$h/solution" "$h/vm/grader/mistakes" \
		"$h/docs/grading.md" "$h/docs/answers.md" 2>/dev/null
		grep -rl 'BEGIN SOLUTION\|return lab_recv_write_done(ctx);' "$h") |
		head -3)
	if [ -z "$leak" ] && [ -x "$h/vm/grader/reference/rdma-lab" ]; then
		ok "make dist: no solution source, the reference as a binary"
	else
		fail "make dist: ${leak:-no reference binary}"
	fi
	# The guides left out must leave no dead link behind.
	check "make dist: links in the handout's README.md and docs/*.md resolve" \
		python3 tests/docs_check.py links "$h/README.md" "$h"/docs/*.md
else
	fail "make dist" "$t_tmp/dist.log"
fi

# A course that does the core only (LAB_PARTS 1 in lab/steps.h, its one
# place): the handout's lab/main.c has no TODO of a later part and builds.
# The tree is this one's files as they are, with that one line changed,
# committed in a repository of its own (make dist packs a commit).
p1=$t_tmp/parts1
mkdir -p "$p1"
git ls-files -z | xargs -0 cp --parents -t "$p1"
sed -i 's/^#define LAB_PARTS [0-9]*$/#define LAB_PARTS 1/' "$p1/lab/steps.h"
later=$(python3 "$p1/vm/grader/grader.py" steps --later | cut -d ' ' -f 1)
core=$(python3 "$p1/vm/grader/grader.py" steps --graded | wc -l)
if (cd "$p1" && git init -q && git add -A &&
	git -c user.name=t -c user.email=t@t commit -qm parts1 &&
	vm/grader/mkdist "$t_tmp/parts1.tar.gz") >"$t_tmp/dist1.log" 2>&1 &&
	mkdir -p "$t_tmp/h1" && tar -xzf "$t_tmp/parts1.tar.gz" -C "$t_tmp/h1" &&
	make -s -C "$t_tmp/h1/rdma-lab" lab/rdma-lab >>"$t_tmp/dist1.log" 2>&1; then
	h1=$t_tmp/h1/rdma-lab/lab/main.c
	left=$(for s in $later; do grep -l "step_$s(\|\"$s\")" "$h1" >/dev/null &&
		echo "$s"; done)
	todos=$(grep -c '^	return lab_todo(ctx, "' "$h1")
	# Nor any word of it in the TODOs left.
	grep -qi 'part two' "$h1" && left="$left part-two-text"
	if [ -n "$later" ] && [ -z "$left" ] &&
		[ "$todos" = "$core" ]; then
		ok "make dist with LAB_PARTS 1: $todos TODOs, none of part two nor its text" \
			"($(echo "$later" | tr '\n' ' ' | sed 's/ $//')), builds"
	else
		fail "make dist with LAB_PARTS 1: later steps left: ${left:-none}," \
			"$todos TODOs" "$h1"
	fi
else
	fail "make dist with LAB_PARTS 1" "$t_tmp/dist1.log"
fi


wait "$first"
rc=$?
wait "$second"
rc2=$?
wait "$holder"
# The time of the first run's own grading, without its wait.
secs=$(sed -n 's/^(graded in \([0-9]*\) s.*/\1/p' "$log")
waited=$(sed -n 's/^grade: the guests are free after \([0-9]*\) s$/\1/p' "$log")
if [ "$rc" = 0 ] && grep -q '^Score: 20/20' "$log" &&
	{ [ -z "$max2" ] || grep -q "^Part two: $max2/$max2\$" "$log"; }; then
	ok "make grade on a correct lab: Score: 20/20${max2:+, Part two: $max2/$max2}" \
		"in $((${secs:-0} - ${waited:-0})) s"
else
	fail "make grade on a correct lab (status $rc)" "$log"
fi
if [ "$rc2" = 0 ] && grep -q '^Score: 5/5' "$log2" && ! grep -q '^connect' "$log2" &&
	! grep -q '^Part two' "$log2"; then
	ok "vm/grade STEP...: only the steps asked for"
else
	fail "vm/grade STEP... (status $rc2)" "$log2"
fi
cat "$log" "$log2" >"$t_tmp/both"
if [ "$(grep -c 'grading runs hold the guests' "$t_tmp/both")" = 2 ] &&
	[ "${waited:-0}" -gt 20 ] &&
	! grep -Eq 'no progress|ENVIRONMENT|stopped answering' "$t_tmp/both" &&
	! pgrep -f "^flock 9\$|$t_tmp/g[23]" >"$t_tmp/left" 2>&1; then
	ok "make grade twice at once, the guests busy for longer than the" \
		"stall limit: both wait and say so, both score, nothing left"
else
	ps -ef >>"$t_tmp/both"
	fail "make grade twice at once (waited ${waited:-?} s)" "$t_tmp/both"
fi

# The handout's own make demo and make test, in the guests.
if [ -n "$dist_ok" ]; then
	log=$t_tmp/handout-demo.log
	make -s -C "$h" demo >"$log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && [ -s "$h/out/demo/wire.pcap" ] &&
		grep -q 'lab teardown ok' "$h/out/demo/server.log"; then
		ok "make demo in the handout runs the reference binary"
	else
		fail "make demo in the handout (status $rc)" "$log"
	fi
	cp solution/main.c "$h/lab/main.c"
	log=$t_tmp/handout-grade.log
	make -s -C "$h" test >"$log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -q '^Score: 20/20' "$log" &&
		{ [ -z "$max2" ] || grep -q "^Part two: $max2/$max2\$" "$log"; }; then
		ok "make test in the handout grades the lab: Score: 20/20${max2:+, Part two: $max2/$max2}"
	else
		fail "make test in the handout (status $rc)" "$log"
	fi
fi

if [ -n "${JUDGES_RECORD:-}" ]; then
	check "the batch's evidence recorded for tests/judges.sh" \
		tests/judges/record "$out"
fi

# A failure's evidence outlives the temporary folder.
if [ "$t_fail" != 0 ]; then
	rm -rf out/grade-test-failed
	mkdir -p out
	cp -r "$out" out/grade-test-failed 2>/dev/null &&
		echo "evidence kept in out/grade-test-failed"
fi

summary

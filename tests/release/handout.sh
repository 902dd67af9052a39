#!/bin/bash
# What a student runs to be graded, and what an instructor hands out:
# make grade on the untouched skeleton and on a correct lab (with its
# wall time, and two at once while a third party holds the guests); make
# dist, whose handout grades without the solution's source and holds
# only the TODOs of the parts chosen in lab/steps.h, and its own make
# demo and make test.  (The grader's judges on known programs:
# tests/grader/grade.sh.)
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# The grader's slot 0 (grader/batch; GRADE_LOCK names another set),
# which the third party below holds; own: the slots of the gradings that
# run meanwhile.
lock=${GRADE_LOCK:-/tmp/rdma-lab-vm.lock}
own=$t_tmp/own.lock
make -s all lab >/dev/null 2>&1 || fail "make all"
# Part two's full marks ('' when the course does the core only).
max2=$(full_marks 2)
[ "$max2" != 0 ] || max2=''

mkdir -p "$t_tmp/good"
cp solution/main.c "$t_tmp/good/main.c"
# Two make grade runs at once, while a third party holds the guests for
# longer than their stall limit: both say that they wait, the wait is never
# taken for a stuck guest, both score, and no process is left behind.
# While they wait, the other checks run, their guests in a set of slots
# of their own (own): the wait was 45 of this group's 83 s.
good_log=$t_tmp/grade-good.log
steps_log=$t_tmp/grade-steps.log
flock "$lock" true
# The stall limit: well above the longest silence of a grading when
# other groups' guests load the machine (20 s was not, run beside the
# grade group's batch on a fresh Debian 12; 40 s failed twice there for
# a cause not seen; tests/run runs it after the grade group).
stall=40
flock "$lock" sleep $((stall + 5)) &
holder=$!
for _ in $(seq 100); do
	flock -n "$lock" true || break
	sleep 0.1
done
GRADE_STALL=$stall grader/grade --out "$t_tmp/g2" --lab "$t_tmp/good" \
	>"$good_log" 2>&1 &
first=$!
GRADE_STALL=$stall grader/grade --out "$t_tmp/g3" --lab "$t_tmp/good" send write \
	>"$steps_log" 2>&1 &
second=$!
# --- make dist: the student handout -----------------------------------------
# No solution source in it, yet make grade works there: the reference goes
# in as a binary.
h=$t_tmp/handout
mkdir -p "$h"
dist_ok=''
if LAB_DIST_UNCOMMITTED=1 make -s dist >"$t_tmp/dist.log" 2>&1 &&
	tar -xzf out/rdma-lab-handout.tar.gz -C "$h"; then
	dist_ok=1
	h=$h/rdma-lab
	leak=$( (ls -d "$h/solution" "$h/tests" \
		"$h/docs/grading.md" "$h/docs/answers.md" 2>/dev/null
		grep -rl --include='*.[ch]' --include='*.md' \
			'BEGIN SOLUTION\|return lab_recv_write_done(ctx);' "$h") |
		head -3)
	if [ -z "$leak" ] && [ -x "$h/grader/reference/rdma-lab" ]; then
		ok "make dist: no solution source, the reference as a binary"
	else
		fail "make dist: ${leak:-no reference binary}"
	fi
	# Whole folders and the instructors' docs are all make dist takes out
	# of the commit: the rest ships as it is (and the reference, built,
	# and the students' workflow, added).
	git ls-files | grep -Ev '^(solution|tests|\.ci|\.github)/|^docs/(grading|answers)\.md$' |
		sort >"$t_tmp/dist-want"
	(cd "$h" && find . -type f ! -path './grader/reference/*' \
		! -path './.github/workflows/grade.yml' | sed 's#^\./##' | sort) \
		>"$t_tmp/dist-got"
	check "make dist: the commit but solution/, tests/, .ci/ and the instructors' docs" \
		diff "$t_tmp/dist-want" "$t_tmp/dist-got"
	# The guides left out must leave no dead link behind.
	check "make dist: links in the handout's README.md and docs/*.md resolve" \
		python3 tests/docs/docs_check.py links "$h/README.md" "$h"/docs/*.md
else
	fail "make dist" "$t_tmp/dist.log"
fi

# --- make grade -------------------------------------------------------------
log=$t_tmp/grade-skel.log
GRADE_LOCK=$own make -s grade \
	GRADE_ARGS="--out $t_tmp/g1 --results $t_tmp/results.json" >"$log" 2>&1
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
	GRADE_LOCK=$own make -s -C "$h" test >"$log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -q '^Score: 20/20' "$log" &&
		{ [ -z "$max2" ] || grep -q "^Part two: $max2/$max2\$" "$log"; }; then
		ok "make test in the handout grades the lab: Score: 20/20${max2:+, Part two: $max2/$max2}"
	else
		fail "make test in the handout (status $rc)" "$log"
	fi
fi

# A course that does the core only (LAB_PARTS 1 in lab/steps.h, its one
# place): the handout's lab/main.c has no TODO of a later part and builds.
# The tree is this one's files as they are, with that one line changed,
# committed in a repository of its own (make dist packs a commit).
p1=$t_tmp/parts1
mkdir -p "$p1"
git ls-files -z | xargs -0 cp --parents -t "$p1"
sed -i 's/^#define LAB_PARTS [0-9]*$/#define LAB_PARTS 1/' "$p1/lab/steps.h"
later=$(python3 "$p1/grader/grader.py" steps --later | cut -d ' ' -f 1)
core=$(python3 "$p1/grader/grader.py" steps --graded | wc -l)
if (cd "$p1" && git init -q && git add -A &&
	git -c user.name=t -c user.email=t@t commit -qm parts1 &&
	release/mkdist "$t_tmp/parts1.tar.gz") >"$t_tmp/dist1.log" 2>&1 &&
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

# The two make grades started above, once the holder has let them go.
wait "$first"
rc=$?
wait "$second"
rc2=$?
wait "$holder"
# The time of the first run's own grading, without its wait.
secs=$(sed -n 's/^(graded in \([0-9]*\) s.*/\1/p' "$good_log")
waited=$(sed -n 's/^grade: the guests are free after \([0-9]*\) s$/\1/p' "$good_log")
if [ "$rc" = 0 ] && grep -q '^Score: 20/20' "$good_log" &&
	{ [ -z "$max2" ] || grep -q "^Part two: $max2/$max2\$" "$good_log"; }; then
	ok "make grade on a correct lab: Score: 20/20${max2:+, Part two: $max2/$max2}" \
		"in $((${secs:-0} - ${waited:-0})) s"
else
	fail "make grade on a correct lab (status $rc)" "$good_log"
fi
if [ "$rc2" = 0 ] && grep -q '^Score: 5/5' "$steps_log" &&
	! grep -q '^connect' "$steps_log" && ! grep -q '^Part two' "$steps_log"; then
	ok "grader/grade STEP...: only the steps asked for"
else
	fail "grader/grade STEP... (status $rc2)" "$steps_log"
fi
cat "$good_log" "$steps_log" >"$t_tmp/both"
# why: each part of the check that failed, named.
why=''
n=$(grep -c 'grading runs hold the guests' "$t_tmp/both")
[ "$n" = 2 ] || why="$why said-they-wait:$n"
[ "${waited:-0}" -gt "$stall" ] || why="$why waited:${waited:-?}s"
! grep -Eq 'no progress|ENVIRONMENT|stopped answering' "$t_tmp/both" ||
	why="$why stall-or-env-error"
if pgrep -af "^flock 9\$|$t_tmp/g[23]" >"$t_tmp/left" 2>&1; then
	why="$why left:$(tr '\n' ',' <"$t_tmp/left")"
fi
if [ -z "$why" ]; then
	ok "make grade twice at once, the guests busy for longer than the" \
		"stall limit: both wait and say so, both score, nothing left"
else
	fail "make grade twice at once:$why" "$t_tmp/both"
fi

summary

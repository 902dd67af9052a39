#!/bin/bash
# The grader (grader/grade, grader/grade-all) judged on known programs, in one
# batch graded by two guest pairs at once (-j 2: most failing submissions spend
# their time waiting, which the other pair uses; 202 s for the batch, 289 s with
# one pair, the same grades at every step, measured twice): the reference scores
# full marks in every part, the skeleton 0 with "not implemented", a differently
# written correct solution full marks, the race mistakes of
# tests/grader/seeds/mistakes/ lose their step with their hint every time (the
# other mistakes: tests/grader/judges.sh), and hostile submissions cost only
# their own score; then the batch resumed, sharded and merged.  make grade and
# make dist: tests/release/handout.sh.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/grader/seeds/expect.sh
. tests/grader/seeds/expect.sh

# JUDGES_RECORD=1: this batch's evidence is kept and becomes the judges
# group's recording (tests/grader/judges/record).
[ -z "${JUDGES_RECORD:-}" ] || export GRADE_KEEP_EVIDENCE=1
subs=$t_tmp/subs
out=$t_tmp/graded
mkdir -p "$subs"
make -s all lab >/dev/null 2>&1 || fail "make all"

# --- the batch --------------------------------------------------------------
# In the guests: what this machine's kernel, limits and timing decide
# (the hostile seeds, the races), the reference and the skeleton, alt.c
# and ext.c (the extended verbs API).  The other mistakes are judged by
# tests/grader/judges.sh on their recorded evidence, which it holds to this
# tree's sources (a lab mistake's evidence is the same on every run:
# grading each in the guests again cost 150 s here).  JUDGES_RECORD=1
# grades every seed here, to record them.
# The races: mistakes whose naive verdict hangs on timing, made certain
# by the grader where an event shows them (the order of events in the
# kernel's trace; the send queue counted by the verbs' rules), likely
# where only a read of memory does (the reference client's wait before
# its WRITEs and atomics: docs/grading.md), and graded 3 times below.
races="late_recv one_recv notice_early early_read imm_no_wait"
races="$races atomic_read_early sq_unsignaled"
live=$races
cp solution/main.c "$subs/reference.c"
cp lab/main.c "$subs/skeleton.c"
python3 tests/grader/seeds/mkalt.py lab/main.c tests/grader/seeds/alt.c >"$subs/alt.c"
python3 tests/grader/seeds/mkalt.py lab/main.c tests/grader/seeds/ext.c >"$subs/ext.c"
for f in tests/grader/seeds/mistakes/*.sed tests/grader/seeds/hostile/*.sed; do
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
# A program that crashes is graded the same every time: 5 copies (six
# copies of one once got 18/20 four times and 15/20 twice, issue 39).
for k in 2 3 4 5; do
	cp "$subs/crash_after_connect.c" "$subs/crash_after_connect-$k.c"
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
	python3 grader/grader.py unpack "$s" "$f/got" 2>>"$f/err" &&
		cmp -s solution/main.c "$f/got/main.c" ||
		why="$why $(basename "$s")"
done
python3 grader/grader.py unpack "$f/linked" "$f/got2" 2>>"$f/err" &&
	why="$why linked"
if [ -z "$why" ] && grep -q "no main.c in .*linked" "$f/err"; then
	ok "unpack: a folder, a zip, a tarball and a .c give lab/main.c;" \
		"a linked main.c is refused"
else
	fail "unpack:$why" "$f/err"
fi

# A batch in two shards: --shard 1/2 (with -j 2: two guest pairs at
# once) and --shard 2/2 (its submission compiled in the guests, as where
# the host cannot make the jail's namespaces), then --merge (below): the
# same grades as the unsharded batch gives the same submissions (ones
# whose grade does not depend on timing, and that need no second round:
# a round is a batch of its own, with its own boot, which the batch
# tests).  Graded beside the batch, in slots of their own: after it,
# they were a minute of this group's time.
# settled OUT LOG ARGS...: grader/grade-all ARGS, and once more, as its
# message tells an instructor, when it ends with status 3 (an environment
# error: a guest pair the host starved twice running, which make test's
# groups beside this one can do); the env errors named in
# OUT/settled.txt.  Its status: the last run's.
settled() {
	local o=$1 log=$2 rc=0 r
	shift 2
	grader/grade-all "$@" >"$log" 2>&1 || rc=$?
	: >"$o/settled.txt"
	[ "$rc" = 3 ] || return "$rc"
	for r in "$o"/students/*/result.json; do
		python3 -c 'import json, sys
e = json.load(open(sys.argv[1])).get("env_error")
if e:
    print(sys.argv[2] + ": " + e[:300])' "$r" \
			"$(basename "$(dirname "$r")")"
	done >"$o/settled.txt"
	# Why the guests failed them: kept (tests/lib.sh keep_evidence).
	for r in "$o"/vm-attempt-*.log "$log"; do
		[ ! -f "$r" ] ||
			keep_evidence "settled-${o##*/}-${r##*/}" "$r"
	done
	echo "== again, for the environment errors" >>"$log"
	rc=0
	grader/grade-all "$@" >>"$log" 2>&1 || rc=$?
	return "$rc"
}
# again OUT: " (after ... again)", when settled ran twice.
again() {
	[ -s "$1/settled.txt" ] || return 0
	printf ' (graded again after %s environment error(s): %s)' \
		"$(wc -l <"$1/settled.txt")" "$(head -n 1 "$1/settled.txt")"
}

sh=$t_tmp/shards
mkdir -p "$sh/subs"
for s in alt reference skeleton; do
	cp "$subs/$s.c" "$sh/subs/"
done
(
	export GRADE_LOCK=$t_tmp/shards.lock
	mkdir -p "$sh/out-1" "$sh/out-2"
	settled "$sh/out-1" "$sh/log-1" -j 2 --shard 1/2 \
		--out "$sh/out-1" "$sh/subs" || echo " shard-1:$?" >>"$sh/why"
	GRADE_HOST_CC=0 settled "$sh/out-2" "$sh/log-2" --shard 2/2 \
		--out "$sh/out-2" "$sh/subs" || echo " shard-2:$?" >>"$sh/why"
	cat "$sh/log-1" "$sh/log-2"
) >"$sh/log" 2>&1 &
shards=$!

start=$SECONDS
mkdir -p "$out"
settled "$out" "$t_tmp/batch.log" -j 2 --out "$out" "$subs"
rc=$?
secs=$((SECONDS - start))
if [ "$rc" = 0 ] && [ -s "$out/report.csv" ] && [ -s "$out/report.md" ]; then
	ok "grade-all -j 2: $n submissions in $secs s" \
		"($((n * 600 / (secs + 1) / 10)).$((n * 600 / (secs + 1) % 10))/min)$(again "$out")"
else
	# The progress lines left out: what the batches said.
	grep -v '^graded [0-9]*/' "$t_tmp/batch.log" >"$t_tmp/batch.said"
	cat "$out/settled.txt" >>"$t_tmp/batch.said" 2>/dev/null
	fail "grade-all (status $rc)" "$t_tmp/batch.said"
fi

# The grades the seeds declare (tests/grader/seeds/expect.sh, shared with
# tests/grader/judges.sh).
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
crash=$(scores crash_after_connect) why=''
for k in 2 3 4 5; do
	[ "$(scores "crash_after_connect-$k")" = "$crash" ] || why="$why $k"
done
if [ -n "$crash" ] && [ -z "$why" ]; then
	ok "crash_after_connect graded 5 times: the same score at every step"
else
	fail "crash_after_connect: copies$why scored otherwise than '$crash'"
fi

# runs NAME: the seconds of runs a student's rounds cost the guests, as
# the rounds' budget counts them (labgrader/rounds.py), and its rounds.
runs() {
	python3 - "$out/students/$1" <<'PY' 2>/dev/null
import glob, json, os, sys
sys.path.insert(0, "grader")
from labgrader.rounds import run_seconds
d = sys.argv[1]
paths = glob.glob(os.path.join(d, "round-*", "result.json")) or \
    [os.path.join(d, "result.json")]
rounds = [(None, json.load(open(p))) for p in paths]
stretch = max([c.get("stretch", 1.0) for _, r in rounds
               for c in (r.get("guest_cpu") or {}).values()] or [1.0])
print("%.0f %d %.1f" % (run_seconds(rounds), len(rounds), stretch))
PY
}
# A round-staller (every step talks for 11 s, then fails): its runs,
# counted as the budget counts (quiet-host seconds), stay within the
# budget and one more round of three run limits (and the client's slack)
# whatever the host's load.  It gets two rounds (rounds.py, stalled: both
# cut at their first step of its own, each longer than its waits; four
# within the budget alone, 12 before any budget).  The rule measures the
# student's run, its time off the CPU less what a busy host adds to a
# correct run's (starved.py, own_seconds): 11 s of talk stays over 5 s
# up to a stretch of about 10; up to stall_stretch_max it is checked,
# beyond, only the budget (when the rule used the pairing's window less
# the guests' CPU wait, CI at a stretch of 4 to 5 gave it 3 rounds).
stall_stretch_max=8
budget=$(sed -n 's/^ROUND_BUDGET_S = //p' grader/labgrader/rounds.py)
run_t=$(sed -n 's/^RUN_TIMEOUT_DEFAULT=//p' grader/settings.sh)
slack=$(sed -n 's/^CLIENT_DONE_SLACK_S=//p' grader/settings.sh)
read -r st_s st_r st_x <<<"$(runs round_staller)"
read -r ref_s _ <<<"$(runs reference)"
if [ -n "${st_s:-}" ] && [ -n "$budget$run_t$slack" ] &&
	[ "$st_s" -le $((budget + 3 * run_t + slack)) ]; then
	ok "round_staller: $st_s s of runs in $st_r round(s), within the" \
		"budget and one round (the reference: ${ref_s:-?} s; budget" \
		"$budget s)"
else
	fail "round_staller: ${st_s:-?} s of runs in ${st_r:-?} round(s)," \
		"over $budget + 3 x $run_t + $slack s"
fi
if [ -z "${st_r:-}" ]; then
	fail "round_staller: no rounds to count"
elif awk -v x="$st_x" -v m="$stall_stretch_max" 'BEGIN { exit !(x > m) }'
then
	skip "round_staller's two stalled rounds: its guests ran at a" \
		"stretch of $st_x, over $stall_stretch_max ($st_r rounds)"
elif [ "$st_r" -le 2 ]; then
	ok "round_staller: stopped after $st_r stalled round(s) (stretch" \
		"$st_x)"
else
	fail "round_staller: $st_r rounds at a stretch of $st_x, not 2"
fi

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
	tests/grader/packets-tshark.py "$t_tmp/all.pcap" >"$t_tmp/tshark.txt" \
		2>>"$t_tmp/differ.txt" &&
	python3 grader/grader.py packets "$t_tmp/all.pcap" \
		>"$t_tmp/grader.txt" 2>>"$t_tmp/differ.txt" &&
	diff "$t_tmp/tshark.txt" "$t_tmp/grader.txt" >>"$t_tmp/differ.txt" &&
	vm/wire-summary "$t_tmp/all.pcap" >"$t_tmp/summary-tshark.txt" \
		2>>"$t_tmp/differ.txt" &&
	python3 grader/grader.py summary "$t_tmp/all.pcap" \
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
grader/grade-all --out "$out" "$subs" >"$t_tmp/resume.log" 2>&1
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
grader/grade-all --out "$out" "$subs" >"$t_tmp/resume2.log" 2>&1
if grep -q 'for 1 submission' "$t_tmp/resume2.log" &&
	[ "$(score reference)" = 20 ]; then
	ok "grade-all after a lost result: only that student regraded"
else
	fail "grade-all after a lost result" "$t_tmp/resume2.log"
fi
same3 reference "$first" "$(scores reference)" "$(scores tarball)"

# --- the batch in two shards, one after the other, merged ----------------------
# Graded beside the batch (started before it, in a set of guest slots
# of its own, GRADE_LOCK), compared after.
wait "$shards" || true
why=$(cat "$sh/why" 2>/dev/null)
tab=$(printf '\t')
grep -q "^reference${tab}src${tab}" "$sh/out-2/run/jobs.txt" ||
	why="$why not-compiled-in-the-guests"
cat "$sh"/out-1/part-*/run/jobs.txt 2>/dev/null |
	grep -q "^alt${tab}host${tab}" || why="$why not-compiled-here"
grader/grade-all --merge "$sh/all" "$sh/out-1" "$sh/out-2" \
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
# A student whose grades differ: both sets, the shard's report and its
# runs' times, in the log kept as evidence.
for s in alt reference skeleton; do
	a=$(steps_of "$sh/all/students/$s/result.json")
	b=$(steps_of "$out/students/$s/result.json")
	[ "$a" != "$b" ] || continue
	why="$why $s"
	{
		cat "$sh/all/students/$s/report.txt"
		printf '%s sharded: %s\n%s unsharded: %s\n' "$s" "$a" "$s" "$b"
		python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for k in ("seconds", "guest_cpu", "rounds", "rounds_stopped"):
    print(k, json.dumps(r.get(k)))' "$sh/all/students/$s/result.json"
	} >>"$sh/log" 2>&1
done
[ "$(wc -l <"$sh/all/report.csv")" = 4 ] || why="$why report-rows"
if [ -z "$why" ]; then
	ok "two shards (one with -j 2, one compiled in the guests), merged:" \
		"the unsharded grades$(again "$sh/out-1")$(again "$sh/out-2")"
else
	fail "two shards, merged:$why" "$sh/log"
fi

if [ -n "${JUDGES_RECORD:-}" ]; then
	check "the batch's evidence recorded for tests/grader/judges.sh" \
		tests/grader/judges/record "$out"
fi

# A resubmission: the skeleton's file replaced by the reference is graded
# again, named, and nothing else is (after the shards' comparison and
# the recording, which read the skeleton's first grade).
cp solution/main.c "$subs/skeleton.c"
grader/grade-all --out "$out" "$subs" >"$t_tmp/resubmit.log" 2>&1
if grep -q '^grade-all: skeleton: the submission changed since its grade' \
	"$t_tmp/resubmit.log" &&
	grep -q 'for 1 submission' "$t_tmp/resubmit.log" &&
	[ "$(score skeleton)" = 20 ]; then
	ok "a resubmitted file is graded again, and named"
else
	fail "a resubmitted file kept its grade: $(score skeleton)/20" \
		"$t_tmp/resubmit.log"
fi
# Nothing left: no guests waited for, and it says so.
grader/grade-all --out "$out" "$subs" >"$t_tmp/nothing.log" 2>&1
if grep -q '^nothing to grade: each of' "$t_tmp/nothing.log" &&
	! grep -q 'guests' "$t_tmp/nothing.log"; then
	ok "grade-all with nothing to grade waits for no guests"
else
	fail "grade-all with nothing to grade" "$t_tmp/nothing.log"
fi

# A failure's evidence outlives the temporary folder.
if [ "$t_fail" != 0 ]; then
	rm -rf out/grade-test-failed
	mkdir -p out
	cp -r "$out" out/grade-test-failed 2>/dev/null &&
		echo "evidence kept in out/grade-test-failed"
fi

summary

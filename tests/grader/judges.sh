#!/bin/bash
# Every judge on recorded evidence, with no guests: the raw evidence of a batch
# graded in the guests (tests/grader/judges/recorded.tar.xz: the reference, the
# skeleton, alt.c, ext.c, every mistake and hostile seed) is judged again by
# grader.py analyze and show, with QEMU absent from PATH, and the grades are
# held to what the seeds declare (tests/grader/seeds/expect.sh, the checks of
# tests/grader/grade.sh) and to the verdicts recorded
# (tests/grader/judges/verdicts.tsv: any change of a score or a hint fails
# until that file is made again, tests/grader/judges/record --verdicts, and
# its diff shows the change).  The recording must be of this tree's sources
# (tests/grader/judges/sources.sha256): re-record when what runs in the
# guests or a submission changes,
# JUDGES_RECORD=1 tests/run grade (tests/grader/judges/record says more).
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/grader/seeds/expect.sh
. tests/grader/seeds/expect.sh

out=$t_tmp/graded
# No QEMU: the judges need no guest.  No tshark either: it only draws the
# wire summary a student's report shows, which is never judged, and its
# start for each failed pairing cost 40 s over the recording.
mapfile -t qemus < <(compgen -c qemu | sort -u)
nopath=$(path_without tshark "${qemus[@]}")

# Each section below is a named check (tests/run --only NAME judges);
# each asks for the recording judged, which the first that asks does.
# judged: the recording judged again into $out (and expect_init's
# steps.tsv), once a run; status 1 when that failed.
judged_status=''
judged_secs=0
judged() {
	local start=$SECONDS
	[ -z "$judged_status" ] || return "$judged_status"
	judged_status=0
	PATH=$nopath tests/grader/judges/record --judge "$out" \
		>"$t_tmp/judge.log" 2>&1 || judged_status=1
	judged_secs=$((SECONDS - start))
	expect_init "$out"
	return "$judged_status"
}

# recording: judged again with this tree's judges, of this tree's
# sources, every verdict and hint as recorded.
j_recording() {
	local stale
	if judged; then
		ok "judged $(find "$out/students" -name result.json | wc -l)" \
			"recorded submissions without guests in $judged_secs s"
	else
		fail "the recording judged again" "$t_tmp/judge.log"
	fi
	stale=$(tests/grader/judges/record --stale 2>&1)
	if [ -z "$stale" ]; then
		ok "the recording is of this tree's guest code and submissions"
	else
		echo "$stale" >"$t_tmp/stale.txt"
		fail "the recording is stale: $(echo "$stale" | wc -l) source(s)\
 changed since (re-record: JUDGES_RECORD=1 tests/run grade)" \
			"$t_tmp/stale.txt"
	fi
	# The verdicts recorded, step by step (expect_init's steps.tsv).
	if diff -u tests/grader/judges/verdicts.tsv "$t_tmp/steps.tsv" \
		>"$t_tmp/verdicts.diff"; then
		ok "$(wc -l <"$t_tmp/steps.tsv") verdicts and hints as recorded"
	else
		fail "verdicts or hints differ from tests/grader/judges/verdicts.tsv\
 (deliberate? tests/grader/judges/record --verdicts)" "$t_tmp/verdicts.diff"
	fi
}
section recording j_recording

# seeds: each recorded submission's grade is what it declares.
j_seeds() {
	judged
	expect_full reference alt ext
	expect_skeleton
	expect_mistakes "$out"/recorded/reference/res/reference/p*/*.ktrace
	expect_own_lines
	expect_hostile
}
section seeds j_seeds

# starved: the recording judged again as if the host had starved a guest
# in every pairing (tests/grader/starved_recorded.py): a wait is the
# machine's there, a failure on the kernel's facts the program's.
j_starved() {
	local rc
	judged
	python3 tests/grader/starved_recorded.py "$out/recorded" \
		>"$t_tmp/starved.out" 2>&1
	rc=$?
	tally starved "$t_tmp/starved.out" "$rc"
}
section starved j_starved

# course: the course layer over these grades (tests/grader/course_check.py):
# the LMS's layouts in and out, regrades by content, class statistics,
# the HTML report in headless Chromium, similarity.  Its grade-all runs
# find every grade standing: no guest, and no QEMU on their PATH.
j_course() {
	local rc line
	judged
	PATH=$nopath python3 tests/grader/course_check.py "$out" \
		>"$t_tmp/course.out" 2>&1
	rc=$?
	cp "$t_tmp/course.out" "$t_tmp/course.log"
	# checklib's lines: "ok   NAME", "FAIL NAME: why", "SKIP: NAME: reason".
	while IFS= read -r line; do
		case "$line" in
		"ok "*)
			line=${line#ok }
			ok "${line#"${line%%[! ]*}"}"
			;;
		"FAIL "*) fail "${line#FAIL }" "$t_tmp/course.log" ;;
		"SKIP: "*) skip "${line#SKIP: }" ;;
		esac
	done <"$t_tmp/course.out"
	if [ "$rc" != 0 ] && ! grep -q '^FAIL ' "$t_tmp/course.out"; then
		fail "tests/grader/course_check.py: status $rc, no FAIL line" \
			"$t_tmp/course.out"
	fi
}
section course j_course

summary

#!/bin/bash
# Every judge on recorded evidence, with no guests: the raw evidence of a
# batch graded in the guests (tests/judges/recorded.tar.xz: the reference,
# the skeleton, alt.c, every mistake and hostile seed) is judged again by
# grader.py analyze and show, with QEMU absent from PATH, and the grades
# are held to what the seeds declare (tests/grade/expect.sh, the checks of
# tests/grade.sh), never to the grades recorded.  Re-record when the
# evidence format changes: tests/judges/record says how.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/grade/expect.sh
. tests/grade/expect.sh

rec=tests/judges/recorded.tar.xz
ev=$t_tmp/evidence
out=$t_tmp/graded
mkdir -p "$ev" "$out/students"
start=$SECONDS
if ! tar -xJf "$rec" -C "$ev" 2>"$t_tmp/tar.err"; then
	fail "unpack $rec" "$t_tmp/tar.err"
	summary
	exit
fi

# No QEMU: the judges need no guest.  No tshark either: it only draws the
# wire summary a student's report shows, which is never judged, and its
# start for each failed pairing cost 40 s over the recording.
mapfile -t qemus < <(compgen -c qemu | sort -u)
nopath=$(path_without tshark "${qemus[@]}")
# The interpreter itself, found once: a version manager's python3 is a
# shim that cost 70 ms a start, 9 s over the recording.
py=$(python3 -c 'import sys; print(sys.executable)')
missing=''
why=''
n=0
while read -r name; do
	e=$ev/$name
	if [ ! -d "$e/res/$name" ]; then
		missing="$missing $name"
		continue
	fi
	d=$out/students/$name
	if PATH=$nopath "$py" -S vm/grader/grader.py analyze "$e/res/$name" \
		"$e" "$d" 2>>"$t_tmp/analyze.err"; then
		PATH=$nopath "$py" -S vm/grader/grader.py show "$d/result.json" \
			>"$d/report.txt" 2>>"$t_tmp/analyze.err" || true
		n=$((n + 1))
	else
		why="$why $name"
	fi
done < <(declared_names)
if [ -z "$missing$why" ] && [ "$n" -gt 0 ] &&
	"$py" -S vm/grader/grader.py report "$out" 2>>"$t_tmp/analyze.err"; then
	ok "judged $n recorded submissions without guests in" \
		"$((SECONDS - start)) s"
else
	fail "recorded submissions:${missing:+ not recorded:$missing (re-record:" \
		"tests/judges/record)}${why:+ analyze failed:$why}" \
		"$t_tmp/analyze.err"
fi

expect_init "$out"
expect_full reference alt
expect_skeleton
expect_mistakes "$ev"/reference/res/reference/p*/*.ktrace
expect_own_lines
expect_hostile

summary

#!/bin/bash
# Host-side unit tests for rdma-lab; no RDMA device needed.
#   bash tests/unit.sh        (or: make unit)
# One "ok name" / "FAIL name: why" line per check, then "N passed,
# M failed, K skipped".  Exit status 1 if anything failed.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

BIN=tests/bin
# The flags every build of a student's file gets (lab/flags.mk).
ccw() {
	# shellcheck disable=SC2046 # the flags are words
	cc $(sed -n 's/^LAB_CFLAGS := //p' lab/flags.mk) "$@"
}
mkdir -p "$BIN"

# ko NAME WHY: a failed check with its reason on the same line.
ko() {
	fail "$1: $2"
}

# Each section below is a named check (section NAME FUNCTION, tests/lib.sh):
# LAB_TEST_ONLY=NAME bash tests/unit.sh runs it alone, LAB_TEST_LIST=1
# lists the names.  What several sections use is made by the first that
# asks (programs, tools), whichever sections run.

# programs: SOL and LAB built, once a run; programs_failed names the
# builds that failed (the build section's checks).
# shellcheck disable=SC2034 # used by the areas' checks
SOL=$BIN/solution-rdma-lab
# shellcheck disable=SC2034
LAB=$BIN/lab-rdma-lab
programs_failed=''
programs_built=''
programs() {
	local src
	[ -z "$programs_built" ] || return 0
	programs_built=1
	for src in solution lab; do
		rm -f "$BIN/$src-rdma-lab"
		ccw -Ilab -o "$BIN/$src-rdma-lab" "$src/main.c" lab/support.c \
			lab/driver.c -libverbs 2>"$BIN/cc-$src.err" ||
			programs_failed="$programs_failed $src"
	done
}
# tools: make grader-tools (out/tools: the jail, the scaffolding's
# objects), once a run; the jail_host section says how it went.
tools_made=''
tools() {
	[ -n "$tools_made" ] || make -s grader-tools >"$BIN/tools.err" 2>&1 ||
		true
	tools_made=1
}

# ---- tests/lib.sh: a failure's evidence kept whole (LAB_EVIDENCE) ----
u_evidence() {
	ev=$BIN/evidence-kept
	rm -rf "$ev" && mkdir -p "$ev"
	printf '%s\n' {1..100} >"$BIN/evidence-in"
	(
	LAB_EVIDENCE=$ev
	fail "a check's/name (x)" "$BIN/evidence-in" >/dev/null
	LAB_EVIDENCE=''
	fail "not kept" "$BIN/evidence-in" >/dev/null
	)
	kept=$(ls "$ev")
	if [ "$kept" = "a_check_s_name__x_.log" ] &&
	cmp -s "$ev/$kept" "$BIN/evidence-in"; then
	ok "fail keeps its evidence whole in LAB_EVIDENCE, under a safe name"
	else
	fail "fail keeps its evidence in LAB_EVIDENCE (got: ${kept:-nothing})"
	fi
}
section evidence u_evidence

# ---- tests/lib.sh: checks by name (LAB_TEST_ONLY, _SKIP, _LIST) ----
# A group of three named checks (a section of two lines, two checks) and
# one of an unnamed check, chosen from; and a Python check's checklib.
names_are() {
	local want=$1 got rc=0
	shift
	got=$(env "$@" bash "$BIN/names.sh" 2>&1) || rc=$?
	got="$(printf '%s\n' "$got" | tr '\n' '|')rc $rc"
	[ "$got" = "$want" ] || ko "names: $*" "got '$got', want '$want'"
}
u_names() {
	local bad
	cat >"$BIN/names.sh" <<'EOF'
. tests/lib.sh
one() {
	ok "one: a"
	[ -n "${LAB_TEST_ONLY:-}" ] || ok "one: b (no LAB_TEST_ONLY in here)"
}
section one one
check two true
check three false
[ -z "${NAMES_UNNAMED:-}" ] || ok unnamed
summary
EOF
	bad=$t_fail
	names_are 'ok   one: a|ok   one: b (no LAB_TEST_ONLY in here)|2 passed, 0 failed, 0 skipped|rc 0' \
		LAB_TEST_ONLY=one
	names_are 'ok   two|1 passed, 0 failed, 0 skipped|rc 0' \
		LAB_TEST_ONLY=^t LAB_TEST_SKIP=three
	names_are 'one|two|three|0 passed, 0 failed, 0 skipped|rc 0' \
		LAB_TEST_LIST=1
	names_are "FAIL no check of $BIN/names.sh has a name that LAB_TEST_ONLY='four' chooses and LAB_TEST_SKIP='' does not (LAB_TEST_LIST=1 lists them)|0 passed, 1 failed, 0 skipped|rc 1" \
		LAB_TEST_ONLY=four
	names_are "FAIL $BIN/names.sh: a check in no section or check, which LAB_TEST_ONLY, LAB_TEST_SKIP and LAB_TEST_LIST cannot name (tests/README.md)|0 passed, 1 failed, 0 skipped|rc 1" \
		LAB_TEST_ONLY=unnamed NAMES_UNNAMED=1
	names_are "FAIL LAB_TEST_ONLY or LAB_TEST_SKIP: '(' is no extended regular expression|0 passed, 1 failed, 0 skipped|rc 1" \
		LAB_TEST_ONLY='('
	[ "$t_fail" != "$bad" ] ||
		ok "names: a section, checks, a skip, a list; none chosen," \
			"an unnamed check and a bad regex fail"
	if [ "$(LAB_TEST_ONLY='^codes_grader$' python3 -B \
		tests/lab/codes_check.py | cut -c 1-17)" = "ok   codes_grader" ] &&
		! LAB_TEST_ONLY=none python3 -B tests/lab/codes_check.py \
			>/dev/null; then
		ok "names: checklib.py keeps the check chosen, fails when none is"
	else
		ko "names: checklib.py" "LAB_TEST_ONLY not honoured"
	fi
}
section names u_names

# The instructor's commands explain themselves and refuse what they do
# not know with status 2 and one line.
u_commands_help() {
	for cmd in grader/grade grader/grade-all vm/run; do
	if "$cmd" --help >"$BIN/help.out" 2>&1 && grep -q usage -i "$BIN/help.out" &&
		[ "$(wc -l <"$BIN/help.out")" -gt 3 ]; then
		ok "${cmd}_help"
	else
		ko "${cmd}_help" "$(head -n 1 "$BIN/help.out")"
	fi
	"$cmd" --no-such-option >"$BIN/bad.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && [ "$(grep -c . "$BIN/bad.out")" = 1 ]; then
		ok "${cmd}_bad_option"
	else
		ko "${cmd}_bad_option" "status $rc: $(head -n 2 "$BIN/bad.out" | tr '\n' ' ')"
	fi
	done
}
section commands_help u_commands_help

# ---- Python: pyflakes over every Python file of the project ----
# Files named *.py and scripts whose first line names python (vm/lines,
# release/views).  Debian's python3-pyflakes is a module of the
# system's python3, which a python3 earlier on PATH (pyenv, a venv) may
# lack: /usr/bin/python3 is asked, the one the grader runs with.
u_pyflakes() {
	py_files() {
	local f
	find . \( -path ./.git -o -path ./out -o -path ./tests/bin \) -prune \
		-o -type f -print | LC_ALL=C sort | while IFS= read -r f; do
		case "$f" in
		*.py) echo "$f" ;;
		*) if head -n 1 "$f" | grep -aq '^#!.*python'; then echo "$f"; fi ;;
		esac
	done
	}
	if ! /usr/bin/python3 -c 'import pyflakes' 2>/dev/null; then
	skip "pyflakes: python3-pyflakes is not installed (vm/deps --tests)"
	else
	py_files >"$BIN/py-files"
	if [ ! -s "$BIN/py-files" ]; then
		ko pyflakes "no Python files found: the search is broken"
	elif xargs -d '\n' /usr/bin/python3 -m pyflakes <"$BIN/py-files" \
		>"$BIN/pyflakes.out" 2>&1; then
		ok "pyflakes ($(wc -l <"$BIN/py-files") Python files)"
	else
		fail pyflakes "$BIN/pyflakes.out"
	fi
	fi
}
section pyflakes u_pyflakes

# py_checks FILE: a Python check script (tests/checklib.py's lines) run
# whole, its lines tallied under its name.
py_checks() {
	local name
	name=$(basename "$1" .py)
	python3 -B "$1" >"$BIN/$name.out" 2>&1
	tally "$name" "$BIN/$name.out" $?
}

# Each area's checks (tests/AREA/unit.sh), found, not listed.
for area_unit in tests/*/unit.sh; do
	# shellcheck source=/dev/null
	. "$area_unit"
done

summary

# Shared by the test groups (sourced): one "ok", "FAIL" or "SKIP: reason"
# line per check and a closing "N passed, M failed, K skipped" line that
# tests/run adds up.
# shellcheck shell=bash

t_pass=0
t_fail=0
t_skip=0
t_tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdma-lab-test.XXXXXX")
trap 'rm -rf "$t_tmp"' EXIT
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
exec {t_stderr}>&2

# A command that is not installed must never let a check pass: bash calls
# this instead, often in a subshell (a pipeline, a $(...)), so the failure
# is kept in a file that summary counts.
command_not_found_handle() {
	echo "$1" >>"$t_tmp/not-found"
	echo "FAIL command not found: $1 (vm/deps --tests installs it)" \
		>&"$t_stderr"
	return 127
}

# Checks by name (tests/README.md).  LAB_TEST_ONLY=REGEX runs only the
# checks whose name REGEX matches (an extended regular expression, as
# grep -E: anywhere in the name, case counts), LAB_TEST_SKIP=REGEX leaves
# out those it matches, LAB_TEST_LIST=1 prints the names (of those chosen)
# and runs none.  A check left out prints nothing and is not counted; a
# choice that leaves no check of the group is a failure.  A name is a
# section's (section NAME CMD...) or a check's (check NAME CMD...) that is
# in no section: a section's lines all count, whatever their text.  The
# variables are the group's alone: what it runs (a Python check) runs
# whole.
t_only=${LAB_TEST_ONLY:-}
t_except=${LAB_TEST_SKIP:-}
t_list=${LAB_TEST_LIST:-}
[ "$t_list" != 0 ] || t_list=''
t_chose=0
t_in=''
t_none_ok=${LAB_TEST_NONE_OK:-}
unset LAB_TEST_ONLY LAB_TEST_SKIP LAB_TEST_LIST LAB_TEST_NONE_OK
for t_re in "$t_only" "$t_except"; do
	t_rc=0
	# shellcheck disable=SC2319 # the match's own status: 2, no regex
	[[ $t_only =~ $t_re ]] || t_rc=$?
	[ "$t_rc" != 2 ] || {
		echo "FAIL LAB_TEST_ONLY or LAB_TEST_SKIP: '$t_re' is no" \
			"extended regular expression"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	}
done
unset t_re t_rc

# t_chosen NAME: status 0 when the check NAME is to run (and LAB_TEST_LIST
# is not set: then it prints NAME, and status 1).  Inside a section, its
# choice holds.
t_chosen() {
	[ -z "$t_in" ] || return 0
	if [ -n "$t_only" ] && ! [[ $1 =~ $t_only ]]; then
		return 1
	fi
	if [ -n "$t_except" ] && [[ $1 =~ $t_except ]]; then
		return 1
	fi
	t_chose=$((t_chose + 1))
	[ -z "$t_list" ] || {
		echo "$1"
		return 1
	}
}

# t_named: a line of a check that is in no section, in a group chosen
# from by name, ends the group: its checks could not all be chosen.
t_named() {
	[ -z "$t_in" ] && [ -n "$t_only$t_except$t_list" ] || return 0
	echo "FAIL ${0#./}: a check in no section or check, which LAB_TEST_ONLY," \
		"LAB_TEST_SKIP and LAB_TEST_LIST cannot name (tests/README.md)"
	echo "$t_pass passed, $((t_fail + 1)) failed, $t_skip skipped"
	exit 1
}

# section NAME CMD...: the checks CMD prints (ok, FAIL and SKIP lines; CMD
# is mostly a function of the group), under one name: run only when the
# name is chosen (above).
section() {
	local name=$1 in=$t_in
	shift
	t_chosen "$name" || return 0
	t_in=${t_in:-$name}
	"$@"
	t_in=$in
}

# full_marks [PART]: the full marks of part PART of lab/steps.h (0 when
# the course does not grade it), or of every part the course grades,
# without PART: the points of grader.py steps --graded, the grader's own
# reading ("NAME POINTS PART" per step of parts 1..LAB_PARTS).
full_marks() {
	local steps points part t=0
	steps=$(python3 grader/grader.py steps --graded) || return 1
	while read -r _ points part; do
		[ -z "${1:-}" ] || [ "$part" = "$1" ] || continue
		t=$((t + points))
	done <<<"$steps"
	echo "$t"
}

# t_missing: sets t_new_missing to how many commands were not found since
# the last call.
t_missing_seen=0
t_missing() {
	local n=0
	[ ! -s "$t_tmp/not-found" ] || n=$(wc -l <"$t_tmp/not-found")
	t_new_missing=$((n - t_missing_seen))
	t_missing_seen=$n
}

# lab_steps: the step names of lab/steps.h, in order, one per line, as
# the grader reads them (grader.py steps: one reader for every language).
lab_steps() {
	python3 grader/grader.py steps | cut -d ' ' -f 1
}

# ok TEXT...: a passed check, unless a command it ran was missing.
ok() {
	t_named
	t_missing
	if [ "$t_new_missing" != 0 ]; then
		t_fail=$((t_fail + 1))
		echo "FAIL $* (a command it ran is not installed)"
		return
	fi
	t_pass=$((t_pass + 1))
	echo "ok   $*"
}

# fail NAME [FILE]: a failed check, with the tail of FILE as evidence.
# FILE is also kept whole in LAB_EVIDENCE (tests/run sets it), which
# outlives the test's temporary folder: a CI log shows only a part.
fail() {
	t_named
	t_fail=$((t_fail + 1))
	echo "FAIL $1"
	if [ -n "${2:-}" ] && [ -f "$2" ]; then
		tail -n 40 "$2" | sed 's/^/     | /'
		keep_evidence "$1" "$2"
	fi
}

# keep_evidence NAME FILE: FILE's first 4 MB as LAB_EVIDENCE/NAME.log
# (NAME in file-name characters), when LAB_EVIDENCE is a folder.
keep_evidence() {
	local name
	[ -n "${LAB_EVIDENCE:-}" ] && [ -d "$LAB_EVIDENCE" ] || return 0
	name=$(printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_' | cut -c 1-100)
	head -c 4000000 "$2" >"$LAB_EVIDENCE/$name.log" 2>/dev/null || true
}

# tally NAME OUT STATUS: the ok, FAIL and SKIP lines a test program wrote
# to OUT, shown and counted as checks; a non-zero STATUS without a FAIL
# line is one more failure.
tally() {
	local p f k
	t_named
	cat "$2"
	p=$(grep -c '^ok ' "$2")
	f=$(grep -c '^FAIL ' "$2")
	k=$(grep -c '^SKIP: ' "$2")
	t_pass=$((t_pass + p))
	t_fail=$((t_fail + f))
	t_skip=$((t_skip + k))
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "${1}_exit: exit status $3 without a FAIL line"
	fi
}

# skip REASON: a check that could not run; counted apart, never as passed.
skip() {
	t_named
	t_skip=$((t_skip + 1))
	echo "SKIP: $*"
}

# need CMD...: status 1, with the missing names on stdout, unless every
# CMD is installed.  For checks that SKIP without them.
need() {
	local c missing=''
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
	done
	[ -z "$missing" ] || {
		echo "${missing# } not installed"
		return 1
	}
}

# check NAME CMD...: passes when CMD exits 0; its output is the evidence.
# Runs only when NAME is chosen (LAB_TEST_ONLY, above), or in a section.
# A section of one check: the choice by name is section's alone.
check() {
	section "$1" t_check "$@"
}

# t_check NAME CMD...: check's verdict on CMD.
t_check() {
	local name=$1
	shift
	if "$@" >"$t_tmp/check.log" 2>&1; then
		ok "$name"
	else
		fail "$name" "$t_tmp/check.log"
	fi
}

# expect_in FILE PATTERN: FILE has a line matching the extended regex.
expect_in() {
	grep -Eq -- "$2" "$1"
}

# t_lock: the lock a group's guest runs hold, one pair at a time on this
# small machine: the grader's first slot, which other engineers' runs
# take too (grader/batch).  tests/run gives the groups that run beside
# the grader's groups a lock of their own (LAB_TEST_LOCK): the grader's
# batches hold its slots for minutes.
t_lock=${LAB_TEST_LOCK:-${TMPDIR:-/tmp}/rdma-lab-vm.lock}

# vm_run LOG ARGS...: vm/run with its output in LOG, under t_lock;
# returns its status.
vm_run() {
	local log=$1
	shift
	flock "$t_lock" vm/run "$@" >"$log" 2>&1
}

# cpu_watch DIR FILE: while vm/run --out DIR runs (started beside it, in
# the background), FILE holds each guest's QEMU threads' run and wait
# for a CPU so far, in ns ("SRV_RUN SRV_WAIT CLI_RUN CLI_WAIT"), as the
# grader's batch samples them (grader/batch).  Ends when DIR's
# guests have ended, or after 30 min.
cpu_watch() {
	local dir=$1 file=$2 role pid t a b r w line n seen=0
	for ((n = 0; n < 1800; n++)); do
		line=''
		for role in server client; do
			r=0 w=0 pid=''
			read -r pid 2>/dev/null <"$dir/$role.qemu-pid" || true
			if [ -n "$pid" ]; then
				for t in /proc/"$pid"/task/*/schedstat; do
					read -r a b _ 2>/dev/null <"$t" || continue
					r=$((r + a)) w=$((w + b))
				done
			fi
			line+=" $r $w"
		done
		if [ "$line" != " 0 0 0 0" ]; then
			echo "$line" >"$file"
			seen=1
		elif [ "$seen" = 1 ]; then
			return 0
		fi
		sleep 1
	done
}
# stretch FILE: cpu_watch's FILE as the grader's stretch, in tenths (10:
# none): SLOW_SHARE over the smaller share of the CPU a guest asked for
# that it got, at most SLOW_MAX (grader/settings.sh, in a subshell).
# A bound of seconds that a guest's clock measured holds times that.
stretch() (
	# shellcheck source=grader/settings.sh
	. grader/settings.sh
	f=10
	read -r sr sw cr cw 2>/dev/null <"$1" || {
		echo 10
		exit 0
	}
	for t in "$sr:$sw" "$cr:$cw"; do
		[ "${t%:*}" -gt 0 ] || continue
		t=$((SLOW_SHARE * (${t%:*} + ${t#*:}) / ${t%:*} / 10))
		[ "$t" -le "$f" ] || f=$t
	done
	[ "$f" -le $((SLOW_MAX * 10)) ] || f=$((SLOW_MAX * 10))
	echo "$f"
)

summary() {
	t_missing
	t_fail=$((t_fail + t_new_missing))
	if [ -n "$t_only$t_except" ] && [ "$t_chose" = 0 ]; then
		if [ -n "$t_none_ok" ]; then
			echo "none of ${0#./}'s checks chosen"
		else
			t_fail=$((t_fail + 1))
			echo "FAIL no check of ${0#./} has a name that" \
				"LAB_TEST_ONLY='$t_only' chooses and LAB_TEST_SKIP='$t_except'" \
				"does not (LAB_TEST_LIST=1 lists them)"
		fi
	fi
	echo "$t_pass passed, $t_fail failed, $t_skip skipped"
	[ "$t_fail" = 0 ]
}

# stop_group: the group ends here, its summary printed and its status
# summary's (a check it cannot go on without was skipped or failed).
stop_group() {
	summary
	exit
}

# path_without CMD...: prints a PATH that holds every command of $PATH
# except the CMDs: one folder of links, for checks that a program does
# without them (rather than passing because they happened to be there).
path_without() {
	local dir d f name dirs
	local -A seen=()
	dir=$(mktemp -d "$t_tmp/path.XXXXXX")
	for name in "$@"; do
		seen[$name]=1
	done
	IFS=: read -ra dirs <<<"$PATH:/usr/sbin:/sbin"
	for d in "${dirs[@]}"; do
		for f in "$d"/*; do
			name=${f##*/}
			if [ -z "${seen[$name]:-}" ] && [ -f "$f" ] && [ -x "$f" ]; then
				seen[$name]=1
				echo "$f"
			fi
		done
	done | xargs -d '\n' ln -s -t "$dir"
	echo "$dir"
}

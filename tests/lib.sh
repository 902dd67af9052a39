# Shared by the test groups (sourced): one "ok"/"FAIL" line per check and a
# closing "N passed, M failed" line that tests/run adds up.
# shellcheck shell=bash

t_pass=0
t_fail=0
t_tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdma-lab-test.XXXXXX")
trap 'rm -rf "$t_tmp"' EXIT
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

# ok TEXT...: a passed check.
ok() {
	t_pass=$((t_pass + 1))
	echo "ok   $*"
}

# fail NAME [FILE]: a failed check, with the tail of FILE as evidence.
fail() {
	t_fail=$((t_fail + 1))
	echo "FAIL $1"
	if [ -n "${2:-}" ] && [ -f "$2" ]; then
		tail -n 40 "$2" | sed 's/^/     | /'
	fi
}

# check NAME CMD...: passes when CMD exits 0; its output is the evidence.
check() {
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

# vm_run LOG ARGS...: vm/run with its output in LOG; returns its status.
# One guest pair at a time on this small machine: other engineers' runs
# take the same lock.
vm_run() {
	local log=$1
	shift
	flock "${TMPDIR:-/tmp}/rdma-lab-vm.lock" vm/run "$@" >"$log" 2>&1
}

summary() {
	echo "$t_pass passed, $t_fail failed"
	[ "$t_fail" = 0 ]
}

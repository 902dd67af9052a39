#!/bin/bash
# Host-side unit tests for rdma-lab; no RDMA device needed.
#   bash tests/unit/run.sh        (or: make unit)
# One "ok name" / "FAIL name: why" line per check, then "N passed,
# M failed, K skipped".  Exit status 1 if anything failed.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

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
# LAB_TEST_ONLY=NAME bash tests/unit/run.sh runs it alone, LAB_TEST_LIST=1
# lists the names.  What several sections use is made by the first that
# asks (programs, tools), whichever sections run.

# programs: SOL and LAB built, once a run; programs_failed names the
# builds that failed (the build section's checks).
SOL=$BIN/solution-rdma-lab
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

u_deps() {
	if python3 tests/unit/deps_check.py >"$BIN/deps.out" 2>&1; then
	ok "every command the scripts run is known to vm/deps" \
		"($(tail -n 1 "$BIN/deps.out"))"
	else
	fail "every command the scripts run is known to vm/deps" "$BIN/deps.out"
	fi
}
section deps u_deps

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
	if [ "$(LAB_TEST_ONLY='^codes_grader ' python3 -B \
		tests/unit/codes_check.py | cut -c 1-17)" = "ok   codes_grader" ] &&
		! LAB_TEST_ONLY=none python3 -B tests/unit/codes_check.py \
			>/dev/null; then
		ok "names: checklib.py keeps the check chosen, fails when none is"
	else
		ko "names: checklib.py" "LAB_TEST_ONLY not honoured"
	fi
}
section names u_names

# ---- the host's package system: the kernel's source, what to install ----
u_hosts() {
	# shellcheck source=tests/unit/hosts.sh
	. tests/unit/hosts.sh
}
section hosts u_hosts

# ---- C unit tests: exchange message, GID choice, helpers ----
u_test_unit() {
	if ccw -Wno-unused-function -o "$BIN/test_unit" \
	tests/unit/test_unit.c -libverbs 2>"$BIN/cc.err"; then
	"$BIN/test_unit" >"$BIN/test_unit.out" 2>&1
	tally test_unit "$BIN/test_unit.out" $?
	else
	ko test_unit_build "$(head -n 1 "$BIN/cc.err")"
	fi
}
section test_unit u_test_unit

# ---- the driver's report lines and the hints: one line per step ----
u_test_driver() {
	if ccw -Wno-unused-function -o "$BIN/test_driver" \
	tests/unit/test_driver.c -libverbs 2>"$BIN/cc.err"; then
	"$BIN/test_driver" >"$BIN/test_driver.out" 2>&1
	rc=$?
	cat "$BIN/test_driver.out"
	t_pass=$((t_pass + $(grep -c '^ok ' "$BIN/test_driver.out")))
	f=$(grep -c '^FAIL ' "$BIN/test_driver.out")
	t_fail=$((t_fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		ko test_driver_exit "exit status $rc without a FAIL line"
	fi
	else
	ko test_driver_build "$(head -n 1 "$BIN/cc.err")"
	fi
}
section test_driver u_test_driver

# ---- both programs build warning-free, each main.c with the scaffolding --
u_build() {
	programs
	for src in solution lab; do
		if [[ " $programs_failed " != *" $src "* ]]; then
		ok "build_$src"
	else
			ko "build_$src" "$(head -n 1 "$BIN/cc-$src.err")"
	fi
	done
}
section build u_build

# ---- argument errors: exit 2 and exactly one line on stderr ----
u_args() {
	programs
	# usage: bad_args NAME PROGRAM ARGS...
	bad_args() {
	name=$1
	prog=$2
	shift 2
	"$prog" "$@" >"$BIN/args.out" 2>"$BIN/args.err"
	rc=$?
	lines=$(wc -l <"$BIN/args.err")
	if [ "$rc" -ne 2 ]; then
		ko "$name" "exit status $rc, want 2 ($*)"
	elif [ "$lines" -ne 1 ]; then
		ko "$name" "$lines lines on stderr, want 1 ($*)"
	elif [ -s "$BIN/args.out" ]; then
		ko "$name" "wrote to stdout ($*)"
	else
		ok "$name"
	fi
	}

	bad_args args_unknown_option "$SOL" --bogus
	bad_args args_unknown_short "$SOL" -x
	bad_args args_missing_value "$SOL" -p
	bad_args args_port_text "$SOL" -p abc
	bad_args args_port_zero "$SOL" -p 0
	bad_args args_port_big "$SOL" -p 65536
	bad_args args_port_negative "$SOL" -p -1
	bad_args args_ib_port_zero "$SOL" -i 0
	bad_args args_gid_negative "$SOL" -g -5
	bad_args args_gid_junk "$SOL" -g 1x
	bad_args args_size_zero "$SOL" -s 0
	bad_args args_size_huge "$SOL" -s 99999999999
	bad_args args_timeout_zero "$SOL" -t 0
	bad_args args_imm_33bit "$SOL" --imm 0x1ffffffff
	bad_args args_imm_junk "$SOL" --imm 12z
	bad_args args_imm_bare_0x "$SOL" --imm 0x
	bad_args args_empty_message "$SOL" -m ""
	bad_args args_two_hosts "$SOL" host1 host2
	bad_args args_message_over_size "$SOL" -s 4 -m hello host
	bad_args args_write_over_size "$SOL" -s 4 -m hi -w hello host
	bad_args args_skeleton_same "$LAB" -p abc
}
section args u_args

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

# make run ARGS='-m hello world': a word that is no option (the server
# would have become a client of host "world") is refused before any guest
# boots, with one line that shows how to quote.
u_make_run_args() {
	rm -rf "$BIN/demo-out"
	vm/demo "$LAB" "$BIN/demo-out" -s 8192 -m hello world >"$BIN/demo.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && [ "$(grep -c . "$BIN/demo.out")" = 1 ] &&
	grep -q "'world' is not an option.*ARGS=\"-m 'hello world'\"" \
		"$BIN/demo.out" && [ ! -e "$BIN/demo-out" ]; then
	ok "make run ARGS='-m hello world' is refused in one line, before a boot"
	else
	ko make_run_unquoted_args "status $rc: $(head -n 2 "$BIN/demo.out")"
	fi
}
section make_run_args u_make_run_args

# The KVM probe on a host whose KVM hangs: one line that says so, and no
# "Killed" from the shell (a fake QEMU that hangs, a fake /dev/kvm).
u_kvm_probe() {
	probe=$BIN/accel
	rm -rf "$probe" && mkdir -p "$probe/bin" "$probe/guest"
	: >"$probe/kvm"
	printf '#!/bin/sh\nexec sleep 30\n' >"$probe/bin/qemu-system-x86_64"
	chmod +x "$probe/bin/qemu-system-x86_64"
	got=$(PATH="$probe/bin:$PATH" LAB_KVM_DEVICE="$probe/kvm" \
	LAB_KVM_PROBE_SECONDS=1 vm/accel "$probe/guest" 2>"$probe/err")
	if [ "$got" = tcg ] && [ "$(grep -c . "$probe/err")" = 1 ] &&
	grep -q 'accelerator tcg: a test boot under KVM did not finish in 1 s' \
		"$probe/err" && ! grep -qi killed "$probe/err"; then
	ok "a hanging KVM probe says one line and falls back to tcg"
	else
	ko kvm_probe_hangs "got '$got': $(tr '\n' ' ' <"$probe/err")"
	fi
	rm -f "$probe/guest/accel"
	printf '#!/bin/sh\nexit 0\n' >"$probe/bin/qemu-system-x86_64"
	got=$(PATH="$probe/bin:$PATH" LAB_KVM_DEVICE="$probe/kvm" \
	LAB_KVM_PROBE_SECONDS=1 vm/accel "$probe/guest" 2>"$probe/err")
	if [ "$got" = kvm ] && [ "$(grep -c . "$probe/err")" = 1 ]; then
	ok "a KVM probe that boots chooses kvm"
	else
	ko kvm_probe_works "got '$got': $(tr '\n' ' ' <"$probe/err")"
	fi
}
section kvm_probe u_kvm_probe

u_args_help() {
	programs
	if "$SOL" -h >"$BIN/help.out" 2>&1 && grep -q 18515 "$BIN/help.out" &&
	grep -q 4096 "$BIN/help.out"; then
	ok args_help_shows_defaults
	else
	ko args_help_shows_defaults "-h failed or lacks the defaults"
	fi
}
section args_help u_args_help

# ---- skeleton drift: lab/main.c is what the generator makes ----
u_skeleton() {
	if awk -f solution/mkskeleton.awk solution/main.c >"$BIN/main.c.gen" \
	2>"$BIN/gen.err"; then
	if cmp -s "$BIN/main.c.gen" lab/main.c; then
		ok skeleton_no_drift
	else
		ko skeleton_no_drift "lab/main.c is stale: run make lab"
	fi
	else
	ko skeleton_no_drift "generator failed: $(head -n 1 "$BIN/gen.err")"
	fi
	if grep -q 'SOLUTION' lab/main.c; then
	ko skeleton_no_markers "lab/main.c still contains solution markers"
	else
	ok skeleton_no_markers
	fi
	# One stub per step of lab/steps.h, in its order, and nothing else: the
	# student's file starts at its first TODO and holds only the steps.
	want=$(lab_steps | tr '\n' ' ')
	got=$(sed -n 's/^\treturn lab_todo(ctx, "\([a-z_]*\)");$/\1/p' lab/main.c |
	tr '\n' ' ')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "skeleton_one_todo_per_step ($want)"
	else
	ko skeleton_one_todo_per_step "stubs '$got', steps.h '$want'"
	fi
	funcs=$(grep -c '^[a-z].*(' lab/main.c)
	steps=$(grep -c '^int step_[a-z_]*(struct lab_ctx \*ctx)$' lab/main.c)
	first=$(grep -n -m 1 'TODO [a-z_]*:' lab/main.c | cut -d: -f1)
	if [ "$funcs" = "$steps" ] && [ "$(wc -l <lab/main.c)" -lt 450 ] &&
	[ "${first:-999}" -le 80 ]; then
	ok "skeleton_only_steps ($(wc -l <lab/main.c) lines, first TODO at line $first)"
	else
	ko skeleton_only_steps "$funcs functions, $steps steps,\
 $(wc -l <lab/main.c) lines, first TODO at line ${first:-none}"
	fi
}
section skeleton u_skeleton

# ---- the grader: one judge per step, as docs/grading.md lists them ----
# The judges registered (@judge), lab/steps.h and the evidence table of
# docs/grading.md: the same steps, order and points; its pairings table
# is grader/pairings.tsv's (tables_agree.py).
u_judge_tables() {
	if python3 tests/unit/tables_agree.py >"$BIN/judges.out" 2>&1; then
	ok "grader_one_judge_per_step ($(cat "$BIN/judges.out"))"
	else
	fail grader_one_judge_per_step "$BIN/judges.out"
	fi
	# ... and the check notices a table that drifts: two steps swapped, a
	# step's points changed, a pairing's roles swapped.
	# shellcheck disable=SC2016 # backquotes of markdown, not of the shell
	sed '/^| `send` | /{h;d};/^| `send_imm` | /G' docs/grading.md >"$BIN/swapped.md"
	# shellcheck disable=SC2016 # backquotes of markdown, not of the shell
	sed 's/^| `atomic` | [0-9]* |/| `atomic` | 9 |/' docs/grading.md \
	>"$BIN/points.md"
	sed 's/^| p1 | student | reference |$/| p1 | reference | student |/' \
	docs/grading.md >"$BIN/pairing.md"
	for drift in swapped points pairing; do
	if cmp -s docs/grading.md "$BIN/$drift.md"; then
		ko "tables_agree_notices_$drift" "the sed changed nothing"
	elif python3 tests/unit/tables_agree.py "$BIN/$drift.md" \
		>"$BIN/drift.out" 2>&1; then
		ko "tables_agree_notices_$drift" "a drifted table passed"
	else
		ok "tables_agree_notices_$drift ($(grep -c . "$BIN/drift.out") lines)"
	fi
	done
}
section judge_tables u_judge_tables

# ---- FAIL lines' cause codes: lab/codes.h, protocol.md, the grader ----
u_codes() {
	python3 -B tests/unit/codes_check.py >"$BIN/codes.out" 2>&1
	tally codes_check "$BIN/codes.out" $?
}
section codes u_codes

# ---- the grader's evidence readers, on recorded evidence ----
# The guest kernel's trace (tests/unit/ktrace/, from real grading runs)
# and the wire's ICRC (docs/runs/demo.pcap).
u_grader_evidence() {
	python3 -B tests/unit/grader_evidence.py >"$BIN/evidence.out" 2>&1
	tally grader_evidence "$BIN/evidence.out" $?
}
section grader_evidence u_grader_evidence
# Which pairings the host starved of CPU (labgrader/starved.py).
u_starved() {
	python3 -B tests/unit/starved_check.py >"$BIN/starved.out" 2>&1
	tally starved_check "$BIN/starved.out" $?
}
section starved u_starved
u_late() {
	python3 -B tests/unit/late_check.py >"$BIN/late.out" 2>&1
	tally late_check "$BIN/late.out" $?
}
section late u_late
# Points (labgrader/points.py): the all-pairings rule, the blame by a
# hint's key, the round that decides a step, the parts' totals.
u_points() {
	python3 -B tests/unit/points_check.py --lines >"$BIN/points.out" 2>&1
	tally points_check "$BIN/points.out" $?
}
section points u_points
# The rounds' experiment: an earlier step's code found at fault.
u_rounds() {
	python3 -B tests/unit/rounds_check.py >"$BIN/rounds.out" 2>&1
	tally rounds_check "$BIN/rounds.out" $?
}
section rounds u_rounds
# Shards merged: all of them, or refused with the missing one named.
u_merge() {
	python3 -B tests/unit/merge_check.py >"$BIN/merge.out" 2>&1
	tally merge_check "$BIN/merge.out" $?
}
section merge u_merge

# ---- the programmable wire (vm/wire/relay), the guests played by sockets ----
# The recorded run's frames through the relay on loopback ports, its rules
# checked on what each side got and on its pcapng (tshark).
u_wire() {
	python3 -B tests/unit/wire_check.py >"$BIN/wire.out" 2>&1
	tally wire_check "$BIN/wire.out" $?
}
section wire u_wire
# The handout's Wireshark profile (wireshark/rdma-lab) through tshark on
# docs/runs' captures and a relay pcapng, and the marks of wire-summary
# and the ladder: RESENT, DROPPED and the rest.
u_wireshark() {
	python3 -B tests/unit/wireshark_check.py >"$BIN/wireshark.out" 2>&1
	tally wireshark_check "$BIN/wireshark.out" $?
}
section wireshark u_wireshark

# ---- grader/capacity: guest pairs from the cores and memory, or a Slurm job's ----
# A 16-core host (nproc on PATH says so) with this host's memory: a Slurm
# task's pairs come from its --cpus-per-task and --mem, not the node's.
u_capacity() {
	fake=$BIN/fake-nproc
	mkdir -p "$fake"
	printf '#!/bin/sh\necho 16\n' >"$fake/nproc"
	chmod +x "$fake/nproc"
	# shellcheck disable=SC2317 # called by check, below
	capacity_is() {
	local want=$1 got
	shift
	got=$(env -u GRADE_SLOTS -u SLURM_JOB_ID -u SLURM_CPUS_PER_TASK \
		-u SLURM_MEM_PER_NODE -u SLURM_MEM_PER_CPU \
		-u SLURM_CPUS_ON_NODE PATH="$fake:$PATH" "$@" grader/capacity)
	[ "$got" = "$want" ] || {
		echo "$* grader/capacity: $got, not $want"
		return 1
	}
	}
	# shellcheck disable=SC2317 # called by check, below
	capacity_slurm() {
	capacity_is 2 SLURM_JOB_ID=7 SLURM_CPUS_PER_TASK=4 &&
		capacity_is 1 SLURM_JOB_ID=7 SLURM_CPUS_PER_TASK=4 \
			SLURM_MEM_PER_NODE=2000 &&
		capacity_is 2 SLURM_JOB_ID=7 SLURM_CPUS_ON_NODE=6 \
			SLURM_MEM_PER_CPU=500 &&
		capacity_is 1 SLURM_JOB_ID=7 SLURM_CPUS_PER_TASK=1 &&
		capacity_is 3 GRADE_SLOTS=3 SLURM_JOB_ID=7 \
			SLURM_CPUS_PER_TASK=1
	}
	if [ "$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)" \
	-lt 4000 ]; then
	skip "grader/capacity in a Slurm job: less than 4 GB available here"
	else
	check "grader/capacity in a Slurm job: its CPUs and memory, not the node's" \
		capacity_slurm
	fi
}
section capacity u_capacity

# ---- tests/loss-guest.sh's comparison: a loaded run as recorded ----
# loss_as_recorded NAME RUN N: RUN (a vm/wire-summary) has the shape of
# docs/runs/loss-NAME-wire.txt with N resends of rxe's timer left out.
u_loss_shape() {
	# shellcheck disable=SC2317 # called by check, below
	loss_as_recorded() {
	local got n
	got=$(python3 tests/loss_shape.py "$2" 2>"$BIN/loss-n.txt") || return 1
	n=$(cat "$BIN/loss-n.txt")
	if [ "$got" != "$(python3 tests/loss_shape.py \
		"docs/runs/loss-$1-wire.txt" 2>/dev/null)" ] || [ "$n" != "$3" ]
	then
		echo "spurious resends left out: $n (want $3); the shape:"
		echo "$got"
		return 1
	fi
	}
	# middle-spurious.txt: a run of the lost-middle exercise under make
	# test's load (a fresh Debian 12), whose 3-packet WRITE with immediate
	# rxe's timer resent with nothing lost, each duplicate answered with the
	# last PSN in order.
	check "loss_shape: a loaded run's timer resends left out, as recorded" \
	loss_as_recorded middle tests/unit/loss/middle-spurious.txt 3
	# middle-timer-before-nak.txt: the recording with the two packets CI's
	# failing run (stop 47) had more: the timer fired after the responder's
	# NAK of the lost SEND_MIDDLE and before the requester read it, resending
	# the SEND_FIRST the responder held (answered by an ACK of it).
	check "loss_shape: a timer resend before a NAK is read is left out" \
	loss_as_recorded middle tests/unit/loss/middle-timer-before-nak.txt 1
	# random-spurious-dropped.txt: the random exercise's recording with a
	# spurious timer resend of the READ after its response, lost on the wire
	# (a random rule draws for resends too): no answer of it to leave out.
	# Before, the shape dropped the WRITE with immediate's ACK in its stead,
	# as in CI's failing run at stop 47 ("< ACKNOWLEDGE +4").
	check "loss_shape: a timer resend lost on the wire has no answer left out" \
	loss_as_recorded random tests/unit/loss/random-spurious-dropped.txt 1
	# random-late-atomic.txt: CI's failing run at this stop: the dropped
	# FETCH_ADD resent three times before its late answer came, the two
	# answers to the later resends dropped by the wire's draws.  Before,
	# the shape kept all of them ("> FETCH_ADD +5 RESENT" twice).
	check "loss_shape: a dropped request's late-answered resends left out" \
	loss_as_recorded random tests/unit/loss/random-late-atomic.txt 2
	# The lost SEND_LAST has no NAK: the timer is the recovery, and its
	# resends of the message's first packets are the exercise's.
	check "loss_shape: a lost last packet's timer resends are kept" \
	loss_as_recorded last docs/runs/loss-last-wire.txt 0
}
section loss_shape u_loss_shape

# ---- the host reads submissions as hostile input ----
u_host_input() {
	# shellcheck source=tests/unit/host_input.sh
	. tests/unit/host_input.sh
}
section host_input u_host_input

# ---- the generator rejects bad markers, naming the line ----
# usage: bad_markers NAME EXPECTED-STDERR-TEXT  (input on stdin)
u_generator() {
	bad_markers() {
	cat >"$BIN/bad.c"
	if awk -f solution/mkskeleton.awk "$BIN/bad.c" >"$BIN/bad.out" \
		2>"$BIN/bad.err"; then
		ko "$1" "generator accepted it"
	elif ! grep -q "$2" "$BIN/bad.err"; then
		ko "$1" "stderr '$(head -n 1 "$BIN/bad.err")' lacks '$2'"
	else
		ok "$1"
	fi
	}

	bad_markers gen_rejects_nested 'bad.c:3: nested' <<'X'
int f(void) {
	/* BEGIN SOLUTION a */
	/* BEGIN SOLUTION b */
	/* END SOLUTION */
	/* END SOLUTION */
}
X
	bad_markers gen_rejects_unclosed 'unclosed region a opened at line 2' <<'X'
int f(void) {
	/* BEGIN SOLUTION a */
	return 0;
}
X
	bad_markers gen_rejects_unnamed 'bad.c:2: BEGIN SOLUTION without a region' <<'X'
int f(void) {
	/* BEGIN SOLUTION */
	/* END SOLUTION */
}
X
	bad_markers gen_rejects_duplicate 'bad.c:6: duplicate region name a' <<'X'
int f(void) {
	/* BEGIN SOLUTION a */
	/* END SOLUTION */
}
int g(void) {
	/* BEGIN SOLUTION a */
	/* END SOLUTION */
}
X
	bad_markers gen_rejects_stray_end 'bad.c:2: END SOLUTION without' <<'X'
int f(void) {
	/* END SOLUTION */
}
X
	bad_markers gen_rejects_malformed 'bad.c:2: malformed' <<'X'
int f(void) {
	// BEGIN SOLUTION a
	/* END SOLUTION */
}
X
	bad_markers gen_rejects_no_regions 'no solution regions' <<'X'
int f(void) { return 0; }
X
}
section generator u_generator

# ---- running on this host (no RDMA): clean failures, no crash ----
u_no_rdma() {
	programs
	"$LAB" >"$BIN/run.out" 2>"$BIN/run.err"
	rc=$?
	if [ "$rc" -eq 1 ] && [ ! -s "$BIN/run.out" ] &&
	[ "$(head -n 1 "$BIN/run.err")" = \
		"lab open_device FAIL: TODO open_device is not implemented code=TODO" ]; then
	ok skeleton_stops_at_open_device
	else
	ko skeleton_stops_at_open_device \
		"status $rc, stderr '$(head -n 1 "$BIN/run.err")'"
	fi
	"$SOL" -t 1 >"$BIN/run.out" 2>"$BIN/run.err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q '^lab open_device FAIL: ' "$BIN/run.err"; then
	ok solution_fails_cleanly_without_rdma
	else
	ko solution_fails_cleanly_without_rdma \
		"status $rc, stderr '$(head -n 1 "$BIN/run.err")'"
	fi
}
section no_rdma u_no_rdma

# ---- the grader's host compile: what a compiler can read -------------------
# grader/guest/jail host, as root and as a user without root (then in a user
# namespace): the reference builds; an #include or an .incbin of the
# project's files, which compile outside, finds nothing; the compiler
# holds no capability.
u_jail_host() {
	if make -s grader-tools >"$BIN/jail.err" 2>&1; then
	j=$BIN/jail-job
	rm -rf "$j" && mkdir -p "$j" && cp solution/main.c "$j/main.c"
	printf '#include <%s/lab/lab.h>\n' "$PWD" >"$j/inc.c"
	printf 'asm(".incbin \\"%s/lab/lab.h\\"");\n' "$PWD" >"$j/bin.c"
	chmod -R a+rwX "$j"
	(cd "$j" && cc -c -o inc.o inc.c && cc -c -o bin.o bin.c) \
		>"$BIN/jail.err" 2>&1 || ko jail_host_control \
		"inc.c or bin.c does not compile outside the jail"
	# jail_host USER CMD...: the compile as root, or as nobody.
	jail_host() {
		local as=$1
		shift
		if [ "$as" = root ]; then
			out/tools/jail host "$j" out/tools "$PWD" 60 "$@"
		else
			setpriv --reuid=65534 --regid=65534 --clear-groups \
				out/tools/jail host "$j" out/tools "$PWD" 60 "$@"
		fi
	} >>"$BIN/jail.err" 2>&1
	for as in root nobody; do
		if [ "$(id -u)" != 0 ]; then
			skip "jail host as $as: the tests run without root"
			continue
		fi
		if [ "$as" = nobody ] && ! setpriv --reuid=65534 \
			--regid=65534 --clear-groups unshare -U true 2>/dev/null; then
			skip "jail host as $as: user namespaces are off here"
			continue
		fi
		rm -f "$j/rdma-lab"
		# shellcheck disable=SC2046 # the flags are words
		if jail_host "$as" cc $(sed -n 's/^LAB_CFLAGS := //p' \
			lab/flags.mk) -I/grader/scaffold -o rdma-lab main.c \
			/grader/scaffold/support.o /grader/scaffold/driver.o \
			-libverbs && [ -x "$j/rdma-lab" ] &&
			! jail_host "$as" cc -c -o inc.o inc.c &&
			! jail_host "$as" cc -c -o bin.o bin.c &&
			jail_host "$as" grep -q '^CapEff:.0*$' /proc/self/status; then
			ok "jail host as $as: the reference compiles; #include and" \
				".incbin of the project find nothing; no capability"
		else
			ko "jail host as $as" "$(tail -n 1 "$BIN/jail.err")"
		fi
	done
	else
	ko jail_host "make grader-tools: $(tail -n 1 "$BIN/jail.err")"
	fi
}
section jail_host u_jail_host

# ---- a compile's CPU time is the student's, its wall time the machine's ----
# jail -t bounds each process's CPU time (a compile that loops fails as
# the student's); the jail's SECONDS of wall time run out only on a host
# too busy to give the compile the CPU: status 124, which compile_job
# makes an environment error (retried), never a compile error.
u_jail_cpu() {
	tools
	if [ "$(id -u)" = 0 ] && [ -x out/tools/jail ]; then
	j=$BIN/jail-cpu
	rm -rf "$j" && mkdir -p "$j" && chmod 777 "$j"
	rc=0 t0=$SECONDS
	out/tools/jail host "$j" out/tools "$PWD" 30 -t 1 \
		sh -c 'while :; do :; done' 2>>"$BIN/jail.err" || rc=$?
	rc2=0
	out/tools/jail host "$j" out/tools "$PWD" 1 -t 30 \
		sleep 5 2>>"$BIN/jail.err" || rc2=$?
	pri=$(out/tools/jail host "$j" out/tools "$PWD" 5 \
		cut -d' ' -f19 /proc/self/stat 2>>"$BIN/jail.err") || pri=''
	if [ "$rc" = 124 ]; then
		# The loop got less than 1 s of CPU in 30 s of wall time: the
		# wall clock's case, which the check below holds on its own.
		skip "jail host -t: this host gave a nice-10 loop less than" \
			"1 s of CPU in 30 s (busy): its CPU limit not judged"
	elif [ "$rc" != 0 ] && [ $((SECONDS - t0)) -lt 30 ] &&
		[ "$rc2" = 124 ] && [ "$pri" = 10 ]; then
		ok "jail host: -t ends a loop by its CPU time (status $rc)," \
			"wall time ends a sleep with 124; nice 10"
	else
		ko jail_host_cpu "loop: status $rc after" \
			"$((SECONDS - t0)) s; sleep: $rc2; nice '$pri'"
	fi
	# compile_job with a jail whose wall time ran out (124), and with
	# one that failed otherwise.
	(
		# shellcheck source=grader/guest/compile.sh
		. grader/guest/compile.sh
		CC_TIMEOUT=60 LAB_CFLAGS='' LAB_LDLIBS=''
		for st in 124 1; do
			mkdir -p "$j/cc-$st/res"
			printf 'int x;\n' >"$j/cc-$st/main.c"
			compile_job "$j/cc-$st" "$j/cc-$st/res" \
				sh -c "exit $st" jail
		done
	)
	if [ -e "$j/cc-124/res/env-error" ] &&
		[ ! -e "$j/cc-124/res/compile-failed" ] &&
		[ -e "$j/cc-124/res/compiled" ] &&
		[ -e "$j/cc-1/res/compile-failed" ] &&
		[ ! -e "$j/cc-1/res/env-error" ]; then
		ok "compile_job: the jail's wall time out is an environment" \
			"error, another failure a compile error"
	else
		ko compile_job_wall "$(echo "$j"/cc-*/res/*)"
	fi
	else
	skip "jail host -t: the tests run without root, or no out/tools/jail"
	fi
}
section jail_cpu u_jail_cpu

# ---- the run sandbox of a student's program: jail run -x ------------------
# tests/unit/jail_probe.c tries, from inside "jail run -k 5 -x", what the
# seccomp filter, the mounts and the namespaces must refuse (a second
# exec, memfd_create, executable memory, a write to /proc/self/mem, UDP
# and raw sockets, io_uring, ptrace, new namespaces, an x32 call), what
# must still work (ld.so's mappings, dlopen of the rxe provider, TCP,
# netlink, threads), that no descriptor above 4 and no SysV segment of
# the caller's reached it.  On this host as root: no guest, no RDMA.
u_jail_run() {
	tools
	if [ "$(id -u)" != 0 ]; then
	skip "jail run -x: the box needs root to mount"
	elif ! cc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror \
	-Wl,-z,noexecstack -o "$BIN/jail_probe" tests/unit/jail_probe.c \
	-libverbs -lpthread 2>"$BIN/probe.err"; then
	ko jail_probe_build "$(head -n 1 "$BIN/probe.err")"
	else
	shm=$("$BIN/jail_probe" shm-make 2>"$BIN/probe.err")
	# The box is mounted in a mount namespace of its own, gone after.
	# shellcheck disable=SC2016 # expanded by that bash
	unshare -m --propagation private bash -c '
		set -e
		r=$(mktemp -d) g=$(mktemp -d)
		out/tools/jail box "$r" "$g" "$PWD"
		mkdir "$r/jobs/probe"
		cp "$1" "$r/jobs/probe/jail_probe"
		# 7 and 9: descriptors of the caller the program must not get.
		exec 7>/dev/null 9</dev/null
		rc=0
		out/tools/jail run "$r" 20 65534 probe -k 5 -x \
			/jobs/probe/jail_probe all 3>/dev/null 4</dev/null || rc=$?
		echo "status $rc"
		rm -rf "$g"' bash "$BIN/jail_probe" >"$BIN/probe.out" 2>&1
	[ -z "$shm" ] || "$BIN/jail_probe" shm-rm "$shm" >>"$BIN/probe.err" 2>&1
	n=$(grep -c '^ok ' "$BIN/probe.out")
	sk=$(grep -c '^SKIP' "$BIN/probe.out")
	missing=''
	for c in "execve refused" "execve by a child refused" \
		"memfd_create refused" "mmap anonymous exec refused" \
		"mprotect to exec refused" "/proc/self/mem not writable" \
		"mmap exec of a file in /tmp refused" "socket UDP refused" \
		"socket raw refused" "socket TCP" "socket netlink" \
		"unshare(CLONE_NEWUSER) refused" "pthread_create works" \
		"descriptors above 4 closed" "descriptor 4 kept" \
		"an IPC namespace of its own"; do
		grep -qF "ok   $c" "$BIN/probe.out" || missing="$missing, $c"
	done
	if grep -q '^status 0$' "$BIN/probe.out" &&
		! grep -q '^FAIL' "$BIN/probe.out" && [ -z "$missing" ] &&
		[ -n "$shm" ] && grep -q 'jail: refused to run another program' \
		"$BIN/probe.out"; then
		ok "jail run -x: $n checks from inside (second exec, memfd," \
			"W^X, /proc/self/mem, sockets, namespaces, descriptors," \
			"IPC) as expected"
	else
		fail "jail run -x: $n ok, missing: ${missing#, }" "$BIN/probe.out"
	fi
	[ "$sk" = 0 ] || skip "$(grep -m 1 '^SKIP' "$BIN/probe.out" |
		sed 's/^SKIP: //')"
	fi
}
section jail_run u_jail_run

# A run whose processes cannot die (frozen here by cgroup v1's freezer;
# in a guest, stuck in the kernel) still ends: SECONDS, then 5 s of grace
# after its namespace was killed, and the jail returns 124 all the same.
# The run's 4 s leave room to freeze it before they are up on a busy host
# (with 1 s, the run once ended before its process was frozen).
u_jail_grace() {
	tools
	fz=/sys/fs/cgroup/freezer
	if [ "$(id -u)" != 0 ] || [ ! -w "$fz/cgroup.procs" ]; then
	skip "jail run grace: needs root and cgroup v1's freezer"
	else
	# shellcheck disable=SC2016 # expanded by that bash
	unshare -m --propagation private bash -c '
		r=$(mktemp -d) g=$(mktemp -d) f=$1/lab-jail-test.$$
		out/tools/jail box "$r" "$g" || exit 1
		mkdir "$r/jobs/j" "$f"
		start=$SECONDS
		out/tools/jail run "$r" 4 65534 j /bin/sleep 1000 &
		jail=$!
		for _ in {1..60}; do
			p=$(pgrep -f "^/bin/sleep 1000$") && break
			sleep 0.05
		done
		echo "$p" >"$f/cgroup.procs" && echo FROZEN >"$f/freezer.state"
		rc=0
		wait "$jail" || rc=$?
		echo "status $rc after $((SECONDS - start)) s"
		echo THAWED >"$f/freezer.state"
		for _ in {1..50}; do rmdir "$f" 2>/dev/null && break; sleep 0.1; done
		rm -rf "$g"' bash "$fz" >"$BIN/grace.out" 2>&1
	if grep -q '^status 124 after \(9\|1[0-2]\) s$' "$BIN/grace.out" &&
		grep -q 'did not end within 5 s' "$BIN/grace.out"; then
		ok "jail run: a run whose processes cannot die ends" \
			"($(sed -n 's/^status 124 after //p' "$BIN/grace.out"))"
	else
		fail "jail run grace" "$BIN/grace.out"
	fi
	fi
}
section jail_grace u_jail_grace

# ---- lab/check-main.sh: what a main.c may define -------------------------
# Every build of a main.c runs it (make, make grade, the grader).  The
# reference, the skeleton and tests/grade/alt.c pass; a name of
# libibverbs, the C library or the scaffolding, code before main, an
# ifunc, a section that is no code or data, a writable+executable one, are
# refused with one line; a global helper is made local, the steps are not.
u_check_main() {
	tools
	cm=$BIN/checkmain
	rm -rf "$cm" && mkdir -p "$cm"
	python3 tests/grade/mkalt.py lab/main.c tests/grade/alt.c >"$cm/alt.c"
	why=''
	for src in solution/main.c lab/main.c "$cm/alt.c"; do
	o=$cm/$(basename "$(dirname "$src")")-$(basename "$src" .c).o
	ccw -Ilab -c -o "$o" "$src" 2>>"$cm/err" &&
		sh lab/check-main.sh "$src" "$o" out/tools/scaffold/support.o \
			out/tools/scaffold/driver.o 2>>"$cm/err" ||
		why="$why $src"
	done
	if [ -z "$why" ] &&
	nm "$cm/solution-main.o" | grep -q ' T step_open_device$' &&
	! nm "$cm/solution-main.o" | grep -q ' [A-SV-Z] [a-rt-z_]'; then
	ok "check-main: the reference, the skeleton and alt.c pass; only" \
		"step_* stays global"
	else
	fail "check-main refused:$why" "$cm/err"
	fi
	# The names make wrote once (LAB_KNOWN, which every build but the loop
	# above reads) are the ones check-main.sh reads itself.
	sh lab/check-main.sh --known out/tools/scaffold/support.o \
	out/tools/scaffold/driver.o >"$cm/known.tsv" 2>"$cm/known.err"
	if [ "$(wc -l <"$cm/known.tsv")" -gt 1000 ] &&
	cmp -s "$cm/known.tsv" out/tools/scaffold/known.tsv; then
	ok "check-main: make's known.tsv holds the names it reads itself" \
		"($(wc -l <"$cm/known.tsv"))"
	else
	fail "check-main: known.tsv differs from --known" "$cm/known.err"
	fi
	# check_main NAME WANT CODE: CODE after #include "lab.h" is refused with
	# a line matching WANT (an empty WANT: accepted), reading LAB_KNOWN.
	check_main() {
	printf '#include "lab.h"\n%s\n' "$3" >"$cm/$1.c"
	if ! ccw -Ilab -c -o "$cm/$1.o" "$cm/$1.c" 2>"$cm/$1.err"; then
		ko "check-main $1" "does not compile: $(head -n 1 "$cm/$1.err")"
		return
	fi
	LAB_KNOWN=out/tools/scaffold/known.tsv sh lab/check-main.sh main.c \
		"$cm/$1.o" out/tools/scaffold/support.o \
		out/tools/scaffold/driver.o 2>"$cm/$1.err"
	local rc=$?
	if [ -z "$2" ] && [ "$rc" = 0 ] && [ ! -s "$cm/$1.err" ]; then
		ok "check-main $1: accepted"
	elif [ -n "$2" ] && [ "$rc" = 1 ] &&
		[ "$(wc -l <"$cm/$1.err")" = 1 ] &&
		grep -q "^main.c: $2" "$cm/$1.err"; then
		ok "check-main $1: $(cat "$cm/$1.err")"
	else
		ko "check-main $1" "status $rc: $(head -n 2 "$cm/$1.err" |
			tr '\n' ' ')"
	fi
	}
	check_main verbs 'defines ibv_open_device, which libibverbs already' \
	'struct ibv_context *ibv_open_device(struct ibv_device *d)
	{ (void)d; return 0; }'
	check_main scaffolding 'defines lab_barrier, which the scaffolding (support.c)' \
	'int lab_barrier(struct lab_ctx *ctx) { (void)ctx; return 0; }'
	check_main main 'defines main, which the scaffolding (driver.c)' \
	'int main(void) { return 0; }'
	check_main libc 'defines connect, which the C library' \
	'int connect(int s, const struct sockaddr *a, socklen_t n)
	{ (void)s; (void)a; (void)n; return 0; }'
	check_main weak 'defines free, which the C library' \
	'__attribute__((weak)) void free(void *p) { (void)p; }'
	check_main underscore 'defines _lab_secret globally' 'int _lab_secret = 1;'
	check_main constructor 'has a section .init_array, which would run code' \
	'__attribute__((constructor)) static void f(void) { puts("x"); }'
	check_main destructor 'has a section .fini_array, which would run code' \
	'__attribute__((destructor)) static void f(void) { puts("x"); }'
	check_main preinit 'has a section .preinit_array' \
	'static void f(void) { }
	__attribute__((section(".preinit_array"), used)) static void (*p)(void) = f;'
	check_main section 'has a section .lab, which is not a section of code' \
	'__attribute__((section(".lab"), used)) static int x = 1;'
	check_main init_type 'has a section .data.z of type INIT_ARRAY' \
	'asm(".section .data.z,\"aw\",@init_array\n.quad 0\n.previous");'
	check_main ifunc 'defines pick as an indirect function' \
	'static int impl(void) { return 1; }
	static int (*res(void))(void) { return impl; }
	int pick(void) __attribute__((ifunc("res")));'
	check_main data_exec 'has an executable section .data.x that is not code' \
	'asm(".pushsection .data.x,\"awx\"\n.byte 0xc3\n.popsection");'
	check_main text_write 'has a writable code section .text.x' \
	'asm(".pushsection .text.x,\"awx\"\n.byte 0xc3\n.popsection");'
	check_main exec_stack 'has an executable section .note.GNU-stack' \
	'asm(".pushsection .note.GNU-stack,\"x\",@progbits\n.popsection");'
	check_main helper '' 'int lab_my_helper(int x) { return x + 1; }'
	if nm "$cm/helper.o" 2>/dev/null | grep -q ' t lab_my_helper$'; then
	ok "check-main: a global helper is made local"
	else
	ko "check-main helper" "lab_my_helper still global"
	fi
}
section check_main u_check_main

# ---- jail host: the compile's view and the whole compile ------------------
# /etc holds the alternatives and the loader's cache, nothing else (in a
# user namespace the grader's groups stay: the view is the defence); the
# grader's compile (grader/guest/compile.sh) builds the reference and refuses
# a main.c that defines a scaffolding function, as root and as nobody.
u_jail_compile() {
	tools
	cj=$BIN/cj
	for as in root nobody; do
	if [ "$(id -u)" != 0 ]; then
		skip "jail host compile as $as: the tests run without root"
		continue
	fi
	# Where unprivileged users may not make user namespaces (some
	# containers, a chroot), the grader compiles in the guests instead.
	if [ "$as" = nobody ] && ! setpriv --reuid=65534 --regid=65534 \
		--clear-groups unshare -U true 2>/dev/null; then
		skip "jail host compile as $as: user namespaces are off here"
		continue
	fi
	rm -rf "$cj" && mkdir -p "$cj/ok" "$cj/bad" "$cj/res-ok" "$cj/res-bad"
	cp solution/main.c "$cj/ok/main.c"
	printf '#include "lab.h"\nint lab_barrier(struct lab_ctx *c)\n{\n\t(void)c;\n\treturn 0;\n}\n' \
		>"$cj/bad/main.c"
	chmod -R a+rwX "$cj"
	run_as=()
	[ "$as" = root ] || run_as=(setpriv --reuid=65534 --regid=65534 \
		--clear-groups)
	# shellcheck disable=SC2016 # expanded by that bash
	"${run_as[@]}" bash -c '
		. grader/settings.sh
		. grader/guest/compile.sh
		LAB_CFLAGS=$(sed -n "s/^LAB_CFLAGS := //p" lab/flags.mk)
		LAB_LDLIBS=$(sed -n "s/^LAB_LDLIBS := //p" lab/flags.mk)
		for k in ok bad; do
			compile_job "$1/$k" "$1/res-$k" out/tools/jail host \
				"$1/$k" out/tools "$PWD" 60 -f "$CC_FILE_KIB" \
				-v "$CC_AS_KIB"
		done
		out/tools/jail host "$1/ok" out/tools "$PWD" 60 \
			sh -c "ls /etc; id -G" >"$1/etc"' bash "$cj" \
		>"$cj/log" 2>&1
	if [ -x "$cj/res-ok/rdma-lab" ] && [ -e "$cj/res-bad/compile-failed" ] &&
		grep -q '^main.c: defines lab_barrier, which the scaffolding' \
			"$cj/res-bad/compile.log" &&
		[ "$(head -n 2 "$cj/etc" | tr '\n' ' ')" = "alternatives ld.so.cache " ]; then
		ok "jail host compile as $as: the reference builds, lab_barrier" \
			"refused, /etc is alternatives and ld.so.cache only"
	else
		cat "$cj/res-bad/compile.log" "$cj/etc" >>"$cj/log" 2>/dev/null
		fail "jail host compile as $as" "$cj/log"
	fi
	done
}
section jail_compile u_jail_compile

# ---- formatting ----
u_clang_format() {
	if command -v clang-format >/dev/null 2>&1; then
	for f in solution/main.c lab/main.c lab/*.h lab/support.c \
		lab/driver.c tests/unit/test_unit.c tests/unit/test_driver.c \
		tests/unit/fuzz_wire.c tests/unit/jail_probe.c grader/guest/*.c; do
		if clang-format --dry-run --Werror "$f" >"$BIN/fmt.err" 2>&1; then
			ok "clang_format_$(echo "$f" | tr '/.' '__')"
		else
			ko "clang_format_$(echo "$f" | tr '/.' '__')" \
				"$(head -n 1 "$BIN/fmt.err")"
		fi
	done
	else
	ko clang_format "clang-format is not installed"
	fi
}
section clang_format u_clang_format

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

# ---- the same unit tests under AddressSanitizer and UBSan ----
u_sanitizers() {
	if clang -std=gnu11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror \
	-Wno-unused-function \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$BIN/test_unit_san" tests/unit/test_unit.c -libverbs \
	2>"$BIN/cc.err"; then
	if "$BIN/test_unit_san" >"$BIN/san.out" 2>&1 &&
		! grep -q '^FAIL ' "$BIN/san.out"; then
		ok sanitizers_unit_tests
	else
		ko sanitizers_unit_tests \
			"$(grep -m 1 -E 'ERROR|runtime error|^FAIL' "$BIN/san.out")"
	fi
	else
	ko sanitizers_build "$(head -n 1 "$BIN/cc.err")"
	fi
}
section sanitizers u_sanitizers

# ---- ./lab.sh without a real engine: its choices and its own bound ----
# A fake engine first on PATH whose run never returns: LAB_MAX_SECONDS
# stops the action, removes the named container, and leaves no process
# (no timeout(1) in it: stock macOS has none).
u_lab_sh() {
	fake=$BIN/fake-engine
	mkdir -p "$fake"
	cat >"$fake/fakectr" <<'EOF'
#!/bin/sh
echo "$*" >>"${0%/*}/calls"
case "$1" in
version | image) exit 0 ;;
run) exec sleep 97 ;;
esac
EOF
	chmod 755 "$fake/fakectr"
	rm -f "$fake/calls"
	rc=0
	start=$SECONDS
	PATH=$fake:$PATH LAB_ENGINE=fakectr LAB_WHERE=container LAB_MAX_SECONDS=2 \
	./lab.sh demo >"$fake/out" 2>&1 || rc=$?
	took=$((SECONDS - start))
	sleep 1
	if [ "$rc" != 0 ] && [ "$took" -le 6 ] &&
	grep -q '^rm -f rdma-lab-' "$fake/calls" &&
	grep -q 'stopped after 2 s' "$fake/out" &&
	! pgrep -f "^sleep 97$" >/dev/null; then
	ok "./lab.sh: LAB_MAX_SECONDS=2 stops a hung engine in $took s, container removed"
	else
	ko lab_sh_bound "status $rc after $took s: $(tr '\n' ' ' <"$fake/out" | cut -c 1-200)"
	fi
	rc=0
	LAB_WHERE=nowhere ./lab.sh where >"$fake/out" 2>&1 || rc=$?
	if [ "$rc" = 2 ] && grep -q 'LAB_WHERE must be host or container' "$fake/out"; then
	ok "./lab.sh: a bad LAB_WHERE, status 2"
	else
	ko lab_sh_where "status $rc: $(head -n 1 "$fake/out")"
	fi
}
section lab_sh u_lab_sh

u_platforms_unit() {
	# shellcheck source=tests/unit/platforms_unit.sh
	. tests/unit/platforms_unit.sh
}
section platforms_unit u_platforms_unit

# ---- libFuzzer on the exchange decoder, bounded, from the seed corpus ----
# The checked-in corpus stays as it is: new inputs go to a scratch copy.
u_fuzz() {
	if clang -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -o "$BIN/fuzz_wire" tests/unit/fuzz_wire.c \
	-libverbs 2>"$BIN/cc.err"; then
	rm -rf "$BIN/corpus"
	cp -r tests/unit/corpus "$BIN/corpus"
	if "$BIN/fuzz_wire" -max_total_time="${LAB_FUZZ_SECONDS:-15}" \
		-max_len=256 -artifact_prefix="$BIN/" "$BIN/corpus" \
		>"$BIN/fuzz.out" 2>&1; then
		ok "fuzz_wire_decode ($(grep -o 'Done [0-9]* runs' "$BIN/fuzz.out"))"
	else
		ko fuzz_wire_decode "$(grep -m 1 -E 'ERROR|runtime error|abort' \
			"$BIN/fuzz.out") (input saved in $BIN/)"
	fi
	else
	ko fuzz_build "$(head -n 1 "$BIN/cc.err")"
	fi
}
section fuzz u_fuzz

summary

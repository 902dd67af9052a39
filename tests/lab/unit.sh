# shellcheck shell=bash disable=SC2154 # set by tests/unit.sh
# The unit group's checks of the lab's program: its C units, builds,
# arguments, the skeleton and its generator, what a main.c may define, format,
# sanitizers, fuzzing. Sourced by tests/unit.sh, whose helpers (ok, ko,
# section, BIN, ccw, programs, tools) they use; each section is a named check.

# ---- C unit tests: exchange message, GID choice, helpers ----
u_test_unit() {
	if ccw -Wno-unused-function -o "$BIN/test_unit" \
	tests/lab/test_unit.c -libverbs 2>"$BIN/cc.err"; then
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
	tests/lab/test_driver.c -libverbs 2>"$BIN/cc.err"; then
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

# ---- FAIL lines' cause codes: lab/codes.h, protocol.md, the grader ----
section codes py_checks tests/lab/codes_check.py

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

# ---- lab/check-main.sh: what a main.c may define -------------------------
# Every build of a main.c runs it (make, make grade, the grader).  The
# reference, the skeleton and tests/grader/seeds/alt.c pass; a name of
# libibverbs, the C library or the scaffolding, code before main, an
# ifunc, a section that is no code or data, a writable+executable one, are
# refused with one line; a global helper is made local, the steps are not.
u_check_main() {
	tools
	cm=$BIN/checkmain
	rm -rf "$cm" && mkdir -p "$cm"
	python3 tests/grader/seeds/mkalt.py lab/main.c tests/grader/seeds/alt.c >"$cm/alt.c"
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

# ---- formatting ----
u_clang_format() {
	if command -v clang-format >/dev/null 2>&1; then
	for f in solution/main.c lab/main.c lab/*.h lab/support.c \
		lab/driver.c tests/lab/test_unit.c tests/lab/test_driver.c \
		tests/lab/checks.h \
		tests/lab/fuzz_wire.c tests/grader/jail_probe.c grader/guest/*.c; do
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

# ---- the same unit tests under AddressSanitizer and UBSan ----
u_sanitizers() {
	if clang -std=gnu11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror \
	-Wno-unused-function \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$BIN/test_unit_san" tests/lab/test_unit.c -libverbs \
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

# ---- libFuzzer on the exchange decoder, bounded, from the seed corpus ----
# The checked-in corpus stays as it is: new inputs go to a scratch copy.
u_fuzz() {
	if clang -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -o "$BIN/fuzz_wire" tests/lab/fuzz_wire.c \
	-libverbs 2>"$BIN/cc.err"; then
	rm -rf "$BIN/corpus"
	cp -r tests/lab/corpus "$BIN/corpus"
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

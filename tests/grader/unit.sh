# shellcheck shell=bash disable=SC2154 # set by tests/unit.sh
# The unit group's checks of the grader on the host: its evidence readers, the
# rounds, points, merges, capacity, hostile input, the compile and run
# sandbox. Sourced by tests/unit.sh, whose helpers (ok, ko, section, BIN, ccw,
# programs, tools) they use; each section is a named check.

# ---- the grader's evidence readers, on recorded evidence ----
# The guest kernel's trace (tests/grader/ktrace/, from real grading runs)
# and the wire's ICRC (docs/runs/demo.pcap).
section grader_evidence py_checks tests/grader/grader_evidence.py
# Which pairings the host starved of CPU (labgrader/starved.py).
section starved py_checks tests/grader/starved_check.py
section late py_checks tests/grader/late_check.py
# Points (labgrader/points.py): the all-pairings rule, the blame by a
# hint's key, the round that decides a step, the parts' totals.
section points py_checks tests/grader/points_check.py
# The rounds' experiment: an earlier step's code found at fault.
section rounds py_checks tests/grader/rounds_check.py
# Shards merged: all of them, or refused with the missing one named.
section merge py_checks tests/grader/merge_check.py

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

# ---- the host reads submissions as hostile input ----
u_host_input() {
	# shellcheck source=tests/grader/host_input.sh
	. tests/grader/host_input.sh
}
section host_input u_host_input

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
# tests/grader/jail_probe.c tries, from inside "jail run -k 5 -x", what the
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
	-Wl,-z,noexecstack -o "$BIN/jail_probe" tests/grader/jail_probe.c \
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

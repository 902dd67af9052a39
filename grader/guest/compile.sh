# shellcheck shell=bash
# Sourced by grader/batch (a compile on the host) and guest-driver (in
# a guest, where the host cannot make the namespaces): one student's
# main.c built in grader/guest/jail, the same way on both sides.

# quoted_includes FILE: refuses, as a compile error, any #include but
# "lab.h" and <system headers>, with the first one's line.  The sandbox
# hides the project anyway; this says why in one line.
quoted_includes() {
	awk '{
		# A directive may go on over lines ending with a backslash.
		if (!cont) { text = ""; first = NR }
		text = text $0
		cont = sub(/\\$/, "", text)
		if (cont)
			next
		gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", text)
		if (text !~ /^[ \t]*(#|%:)[ \t]*include(_next)?([^a-z_]|$)/)
			next
		sub(/^[ \t]*(#|%:)[ \t]*include(_next)?[ \t]*/, "", text)
		if (text ~ /^(<[^>]*>|"lab\.h")/)
			next
		sub(/[ \t]*(\/\/.*)?$/, "", text)
		printf "main.c:%d: #include %s: only \"lab.h\" may be " \
			"included with quotes\n", first, text
		bad = 1
		exit
	}
	END { exit bad }' "$1"
}

# cc_starved SECONDS: why a compile that failed after SECONDS of wall time
# is the machine's, or nothing.  On the host, whose CPU time is the
# compile's own: nothing.  The guest driver, which sources this file, has
# its own.
cc_starved() { :; }

# compile_job DIR RES JAIL...: DIR/main.c (owned by the jail's user)
# compiled by the command JAIL... followed by a shell's, which sees DIR as
# its working folder and the scaffolding in /grader/scaffold.  As make
# does it: main.c compiled alone, checked by lab/check-main.sh (no name of
# the libraries or the scaffolding, no code before main; every symbol but
# the steps made local), then linked.  Leaves RES/rdma-lab, or
# RES/compile.log and RES/compile-failed (RES/env-error instead when the
# jail's wall time ran out: CC_TIMEOUT, settings.sh, or when cc_starved
# says why the failure is the machine's); then RES/compiled.
# CC_TIMEOUT must be set; JAIL... bounds the CPU time (-t).  LAB_CFLAGS
# and LAB_LDLIBS are lab/flags.mk's.  RES/standins, when there, names the
# steps whose reference version (scaffold/standins.o) is linked in place
# of the student's (labgrader/rounds.py says when): the student's becomes
# local to main.o, the reference's is the only global one of standins.o,
# and --gc-sections leaves out the reference's other steps.
compile_job() {
	local d=$1 res=$2 rc=0 s=/grader/scaffold standins='' busy=''
	local t0=${EPOCHREALTIME/./}
	shift 2
	[ ! -f "$res/standins" ] || standins=$(tr -cd 'a-z_ \n' <"$res/standins")
	quoted_includes "$d/main.c" >"$res/compile.log" || rc=1
	# shellcheck disable=SC2016 # expanded by the shell in the jail
	[ "$rc" != 0 ] || "$@" sh -c 'cc $1 -I$3 -c -o main.o main.c &&
		LAB_KNOWN=$3/known.tsv sh $3/check-main.sh main.c main.o \
			$3/support.o $3/driver.o &&
		if [ -z "$4" ]; then
			cc $1 -o rdma-lab main.o $3/support.o $3/driver.o $2
		else
			l= k=
			for step in $4; do
				l="$l -L step_$step"
				k="$k --keep-global-symbol=step_$step"
			done
			objcopy $l main.o &&
			objcopy $k $3/standins.o standins.o &&
			cc $1 -Wl,--gc-sections -o rdma-lab main.o standins.o \
				$3/support.o $3/driver.o $2
		fi' \
		sh "$LAB_CFLAGS" "$LAB_LDLIBS" "$s" "$standins" \
		>"$res/compile.log" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && [ -x "$d/rdma-lab" ]; then
		cp "$d/rdma-lab" "$res/rdma-lab"
		: >"$res/compiled"
	else
		head -c 20000 "$res/compile.log" >"$d/cl"
		mv "$d/cl" "$res/compile.log"
		# The jail's wall clock ran out (its CPU limit, -t, did not):
		# the machine was too busy, which costs the student nothing.
		if [ "$rc" = 124 ]; then
			busy="did not end within $CC_TIMEOUT s of wall time (its"
			busy="$busy CPU time was within its limit)"
		else
			busy=$(cc_starved \
				$(((${EPOCHREALTIME/./} - t0) / 1000000)))
		fi
		if [ -n "$busy" ]; then
			echo "the machine was too busy: main.c's compile" \
				"$busy" >"$res/env-error"
		else
			: >"$res/compile-failed"
		fi
		: >"$res/compiled"
	fi
}

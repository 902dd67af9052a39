#!/bin/sh
# lab/check-main.sh SRC MAIN.o SCAFFOLD.o...: the check between the compile
# of a main.c (SRC, for the messages) and its link with the scaffolding.
# make, make run, make grade and the grader's own compile all run it, so a
# program refused here is refused everywhere, with the same line.
#
# main.c holds the steps, and only its steps may reach the rest of the
# program.  So:
#  - a global symbol it defines with a name that libibverbs, the C library
#    (or libgcc, or the loader) or the scaffolding already defines is
#    refused: linked, it would replace the real one for the scaffolding's
#    self-checks or for the libraries themselves (the tracer's view of
#    your verbs calls, the report lines);
#  - so is a global name that starts with an underscore (C11 7.1.3
#    reserves those for the implementation), an indirect function (its
#    resolver runs before main) and any section that is not code, data or
#    their bookkeeping (.init_array, .ctors and the like run code before
#    main or at exit), or data that is executable or code that is
#    writable (it would make a mapping both);
#  - then every global symbol but the step_* functions is made local
#    (objcopy), so nothing else in main.c can stand in for a function the
#    scaffolding or a library calls.
# Status 0 when MAIN.o passed (and was rewritten); else one line on
# stderr saying why, and status 1.  CC (default cc) finds the libraries.
#
# The names the libraries and the scaffolding define are the same at
# every compile, and reading them (nm over the C library) cost as much
# CPU as the compile itself: make writes them once (--known SCAFFOLD.o...
# prints them), and LAB_KNOWN names that file.
[ "${1:-}" != --help ] || exec sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
set -eu

cc=${CC:-cc}

# The names the libraries and the scaffolding define: NAME TAB WHO.
known() {
	for o in "$@"; do
		nm -P --defined-only --extern-only "$o" 2>/dev/null |
			awk -v who="the scaffolding ($(basename "$o" .o).c)" \
				'NF >= 2 && $1 !~ /:$/ { print $1 "\t" who }'
	done
	libc=$("$cc" -print-file-name=libc.so.6)
	# The loader that libc.so.6 asks for (its name differs by machine).
	ldso=$(readelf -lW "$libc" 2>/dev/null |
		sed -n 's/.*program interpreter: \(.*\)\]$/\1/p')
	for lib in libibverbs:libibverbs.so.1 "the C library:$libc" \
		"the C library:libc_nonshared.a" "libgcc:libgcc_s.so.1" \
		"the loader:$ldso"; do
		who=${lib%%:*}
		f=${lib#*:}
		case "$f" in /*) ;; ?*) f=$("$cc" -print-file-name="$f") ;; esac
		[ -f "$f" ] || continue
		case "$f" in *.a) d='' ;; *) d=-D ;; esac
		# shellcheck disable=SC2086 # $d: no word, or -D
		nm $d -P --defined-only "$f" 2>/dev/null |
			awk -v who="$who" 'NF >= 2 && $1 !~ /:$/ {
				sub(/@.*/, "", $1); print $1 "\t" who }'
	done
}

if [ "${1:-}" = --known ]; then
	shift
	known "$@"
	exit 0
fi
[ $# -ge 2 ] || {
	echo "usage: lab/check-main.sh SRC MAIN.o [SCAFFOLD.o...]" >&2
	echo "       lab/check-main.sh --known [SCAFFOLD.o...]" >&2
	exit 2
}
src=$1
obj=$2
shift 2
# A cross compiler's objcopy has its prefix (aarch64-linux-gnu-gcc:
# aarch64-linux-gnu-objcopy; make LAB_ARCH=arm64 on another host).
case "$cc" in
*-gcc) objcopy=${cc%gcc}objcopy ;;
*) objcopy=objcopy ;;
esac

# refuse TEXT: the one line, and the build stops.
refuse() {
	echo "$src: $*" >&2
	exit 1
}

sections=$(readelf -SW "$obj") || refuse "not an object file readelf reads"
symbols=$(nm -P --defined-only "$obj") || refuse "not an object file nm reads"

# Sections: names from an allowlist, each with a type that a compiler
# gives such a section; no data section executable, no code writable.
why=$(echo "$sections" | awk '
	/^ *\[ *[0-9]+\]/ {
		sub(/^ *\[ *[0-9]+\] /, "")
		if (NF == 8 && $1 == "NULL")
			next
		if (NF != 9 && NF != 10) {
			print "has a section with a space in its name: " \
				"only code and data sections may be in main.c"
			exit
		}
		name = $1
		type = $2
		flags = NF == 10 ? $7 : ""
		if (name !~ /^\.(text|rodata|data|bss|tdata|tbss)(\..*)?$/ &&
		    name !~ /^\.(comment|eh_frame|group|symtab|strtab|shstrtab)$/ &&
		    name !~ /^\.note\.(GNU-stack|gnu\.property)$/ &&
		    name !~ /^\.rela?\./ && name !~ /^\.debug_/ &&
		    name != ".llvm_addrsig") {
			if (name ~ /init|fini|ctors|dtors/)
				why = "would run code before main or at exit"
			else
				why = "is not a section of code or data"
			print "has a section " name ", which " why \
				": remove what puts it there " \
				"(__attribute__((constructor)), " \
				"section(...), asm)"
			exit
		}
		if (type !~ /^(PROGBITS|NOBITS|NOTE|RELA|REL|SYMTAB|STRTAB|GROUP|X86_64_UNWIND|LLVM_ADDRSIG)$/) {
			print "has a section " name " of type " type \
				", which is no code or data"
			exit
		}
		if (name ~ /^\.text/ && flags ~ /W/) {
			print "has a writable code section " name
			exit
		}
		if (name !~ /^\.text/ && flags ~ /X/) {
			print "has an executable section " name \
				" that is not code"
			exit
		}
	}')
[ -z "$why" ] || refuse "$why"


# Global definitions: upper-case types but debug (N), and GNU unique (u);
# indirect functions (i) whatever their binding.
why=$( (
	# (Never none: without the file, they are read here.)
	if [ -n "${LAB_KNOWN:-}" ] && [ -s "$LAB_KNOWN" ]; then
		cat "$LAB_KNOWN"
	else
		known "$@"
	fi
	echo "--"
	echo "$symbols"
) | awk -F '\t' '
	$0 == "--" { mine = 1; FS = " "; next }
	!mine { if (!($1 in who)) who[$1] = $2; next }
	{
		name = $1
		type = $2
		if (type == "i") {
			print "defines " name " as an indirect function " \
				"(ifunc), whose resolver would run before main"
			exit
		}
		if (type !~ /^[A-MO-Zu]$/)
			next
		if (type == "C") {
			print "defines " name " as a common symbol: give it " \
				"an initializer or make it static"
			exit
		}
		if (name in who) {
			print "defines " name ", which " who[name] \
				" already defines: make it static or rename it"
			exit
		}
		if (name ~ /^_/) {
			print "defines " name " globally, and names that " \
				"start with _ belong to the C library: make " \
				"it static or rename it"
			exit
		}
	}')
[ -z "$why" ] || refuse "$why"

"$objcopy" -w --keep-global-symbol='step_*' "$obj" ||
	refuse "objcopy could not make its symbols local"

# mkskeleton.awk: turn the reference solution into the student skeleton.
#
#   awk -f solution/mkskeleton.awk solution/main.c > lab/main.c
#
# A region is a line "/* BEGIN SOLUTION <name> */" and a later line
# "/* END SOLUTION */", each alone on its line (leading blanks allowed).
# The region, markers included, becomes one line at the BEGIN marker's
# indentation:   return lab_todo(ctx, "<name>");
# Names are [a-z_][a-z0-9_]*.  Nested, unclosed, unnamed, duplicated or
# otherwise malformed markers are errors: message with the line number on
# stderr, exit status 1.  Plain POSIX awk: no gawk extensions.

function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

BEGIN {
	print "/* Generated from solution/main.c by solution/mkskeleton.awk. */"
}

/BEGIN SOLUTION|END SOLUTION/ {
	if ($0 ~ /^[ \t]*\/\* BEGIN SOLUTION [a-z_][a-z0-9_]* \*\/[ \t]*$/) {
		name = $0
		sub(/^[ \t]*\/\* BEGIN SOLUTION /, "", name)
		sub(/ \*\/[ \t]*$/, "", name)
		if (inside)
			fail("nested BEGIN SOLUTION " name " inside region " \
			    open_name " (opened at line " open_line ")")
		if (name in seen)
			fail("duplicate region name " name \
			    " (first used at line " seen[name] ")")
		seen[name] = FNR
		inside = 1
		open_name = name
		open_line = FNR
		indent = $0
		sub(/[^ \t].*$/, "", indent)
		printf "%sreturn lab_todo(ctx, \"%s\");\n", indent, name
		next
	}
	if ($0 ~ /^[ \t]*\/\* END SOLUTION \*\/[ \t]*$/) {
		if (!inside)
			fail("END SOLUTION without a BEGIN SOLUTION")
		inside = 0
		next
	}
	if ($0 ~ /BEGIN SOLUTION[ \t]*\*\//)
		fail("BEGIN SOLUTION without a region name")
	fail("malformed solution marker: " $0)
}

!inside { print }

END {
	if (failed)
		exit 1
	if (inside) {
		printf "%s: unclosed region %s opened at line %d\n", \
		    FILENAME, open_name, open_line > "/dev/stderr"
		exit 1
	}
	if (open_line == 0) {
		printf "%s: no solution regions found\n", FILENAME \
		    > "/dev/stderr"
		exit 1
	}
}

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
#
#   awk -v parts=1 -v steps=lab/steps.h -f solution/mkskeleton.awk ...
# also leaves out the step functions of the parts above 1, and the
# "Part two:" paragraphs of the TODOs (make dist for a course that does
# only the core).

function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

BEGIN {
	print "/* Generated from solution/main.c by solution/mkskeleton.awk. */"
	if (parts != "") {
		while ((getline line < steps) > 0)
			if (line ~ /^LAB_STEP\(/) {
				split(line, f, /[(), ]+/)
				part[f[2]] = f[4]
			}
		if (!("open_device" in part)) {
			printf "mkskeleton: no LAB_STEP lines in %s\n", \
			    steps > "/dev/stderr"
			failed = 1
			exit 1
		}
	}
}

# A step function of a part the course leaves out, with the blank line
# after it.
dropping && /^}$/ { dropping = 0; dropped = 1; next }
dropping { next }
dropped && /^$/ { dropped = 0; next }
{ dropped = 0 }
parts != "" && /^int step_[a-z_]+\(/ {
	name = $0
	sub(/^int step_/, "", name)
	sub(/\(.*/, "", name)
	if ((name in part) && part[name] + 0 > parts + 0) {
		dropping = 1
		next
	}
}

# A "Part two:" paragraph of a TODO, up to its next Verbs:, See: or
# Pitfall: line or the comment's end, when the course does only the core.
part_two && /^[ \t]*\*(\/| (Verbs|See|Pitfall):)/ { part_two = 0 }
part_two { next }
parts != "" && parts + 0 < 2 && /^[ \t]*\* Part two: / {
	part_two = 1
	next
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

/*
 * checks.h: the C checks' one dialect and names, as tests/checklib.py's
 * and tests/lib.sh's (tests/README.md).  check_line() prints "ok   NAME"
 * or "FAIL NAME: why"; LAB_TEST_ONLY=REGEX keeps only the checks whose
 * name the extended regular expression matches (anywhere in the name),
 * LAB_TEST_SKIP=REGEX leaves out those it matches, LAB_TEST_LIST=1 prints
 * the names chosen instead of their lines.  A check left out prints
 * nothing and is not counted; a choice that leaves none is a failure
 * (checks_done()).  The work of a check is done before its line: the
 * choice hides the line, it does not spare the time.
 */
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int checks_failed;
static int checks_chosen;

/* checks_match VAR NAME: whether $VAR, a regex, matches NAME; -1 when VAR
 * is unset or empty.  A bad regex fails the run: no check passes by it. */
static int checks_match(const char *var, const char *name)
{
	const char *re = getenv(var);
	regex_t rx;
	int hit;

	if (!re || !*re)
		return -1;
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB)) {
		printf("FAIL %s: '%s' is no extended regular expression\n", var,
		       re);
		exit(1);
	}
	hit = !regexec(&rx, name, 0, NULL, 0);
	regfree(&rx);
	return hit;
}

static bool check_chosen(const char *name)
{
	return checks_match("LAB_TEST_ONLY", name) != 0 &&
	       checks_match("LAB_TEST_SKIP", name) != 1;
}

/* check_line OK NAME WHY...: the check NAME's line, WHY a printf format
 * for a failure's reason. */
static void check_line(bool ok, const char *name, const char *why, ...)
{
	const char *list = getenv("LAB_TEST_LIST");
	va_list ap;

	if (!check_chosen(name))
		return;
	checks_chosen++;
	if (list && *list && strcmp(list, "0")) {
		printf("%s\n", name);
		return;
	}
	if (ok) {
		printf("ok   %s\n", name);
		return;
	}
	checks_failed++;
	printf("FAIL %s: ", name);
	va_start(ap, why);
	vprintf(why, ap);
	va_end(ap);
	printf("\n");
}

/* checks_done PROG: the exit status; a choice that left no check fails. */
static int checks_done(const char *prog)
{
	const char *only = getenv("LAB_TEST_ONLY");
	const char *skip = getenv("LAB_TEST_SKIP");

	if (((only && *only) || (skip && *skip)) && !checks_chosen) {
		printf("FAIL no check of %s has a name that LAB_TEST_ONLY='%s' "
		       "chooses and LAB_TEST_SKIP='%s' does not\n",
		       prog, only ? only : "", skip ? skip : "");
		return 1;
	}
	return checks_failed ? 1 : 0;
}

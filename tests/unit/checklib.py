"""The Python unit checks' one dialect (tests/unit/run.sh tallies it):
check() prints "ok NAME" or "FAIL NAME: why" and counts the failures;
done() ends the script, with status 1 when any check failed.

Checks by name, as tests/lib.sh's (tests/README.md): LAB_TEST_ONLY=REGEX
keeps only the checks whose name REGEX matches (re.search: anywhere in the
name), LAB_TEST_SKIP=REGEX leaves out those it matches, LAB_TEST_LIST=1
prints the names chosen instead of their lines.  A check left out prints
nothing and is not counted; a choice that leaves none is a failure.  The
work of a check is done before check() is called: the choice hides its
line, it does not spare its time.  A group run by tests/run never passes
these to its programs: a script runs whole there."""
import os
import re
import sys

failed = 0
chosen = 0
_only = os.environ.get("LAB_TEST_ONLY", "")
_skip = os.environ.get("LAB_TEST_SKIP", "")
_list = os.environ.get("LAB_TEST_LIST", "") not in ("", "0")


def _chosen(name):
    if _only and not re.search(_only, name):
        return False
    return not (_skip and re.search(_skip, name))


def check(name, good, why=""):
    global failed, chosen
    if not _chosen(name):
        return
    chosen += 1
    if _list:
        print(name)
    elif good:
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def done():
    global failed
    if (_only or _skip) and not chosen:
        failed += 1
        print("FAIL no check of %s has a name that LAB_TEST_ONLY=%r chooses"
              " and LAB_TEST_SKIP=%r does not" %
              (os.path.basename(sys.argv[0]), _only, _skip))
    sys.exit(1 if failed else 0)

"""The Python unit checks' one dialect (tests/unit/run.sh tallies it):
check() prints "ok NAME" or "FAIL NAME: why" and counts the failures;
done() ends the script, with status 1 when any check failed."""
import sys

failed = 0


def check(name, good, why=""):
    global failed
    if good:
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def done():
    sys.exit(1 if failed else 0)

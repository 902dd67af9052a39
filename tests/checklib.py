"""The Python checks' one dialect (tests/unit.sh tallies it): one line
per check, "ok   NAME", "FAIL NAME: why" or "SKIP: NAME: reason", and
status 1 when any check failed.

A check script is a stdlib unittest module: each test_NAME method of its
Case classes is the check NAME (a test may set self.detail, shown after
the name), and it ends with run() (checklib's lines) when run as a
script; python3 -m unittest runs the same tests the usual way.

Checks by name, as tests/lib.sh's (tests/README.md): LAB_TEST_ONLY=REGEX
keeps only the checks whose name REGEX matches (re.search: anywhere in the
name), LAB_TEST_SKIP=REGEX leaves out those it matches, LAB_TEST_LIST=1
prints the names chosen instead of running them.  A check left out is not
run and not counted; a choice that leaves none is a failure.  A group run
by tests/run never passes these to its programs: a script runs whole
there."""
import os
import re
import sys
import unittest

_only = os.environ.get("LAB_TEST_ONLY", "")
_skip = os.environ.get("LAB_TEST_SKIP", "")
_list = os.environ.get("LAB_TEST_LIST", "") not in ("", "0")


def _chosen(name):
    if _only and not re.search(_only, name):
        return False
    return not (_skip and re.search(_skip, name))


def _none_chosen():
    print("FAIL no check of %s has a name that LAB_TEST_ONLY=%r chooses"
          " and LAB_TEST_SKIP=%r does not" %
          (os.path.basename(sys.argv[0]), _only, _skip))


class Case(unittest.TestCase):
    """A script's checks: test_NAME is the check NAME."""
    detail = ""
    maxDiff = 2000


def _name(test, prefix):
    method = getattr(test, "_testMethodName", "")
    name = method[5:] if method.startswith("test_") else str(test)
    return "%s %s" % (prefix, name) if prefix else name


def _why(err):
    return " ".join(str(err[1]).split())[:400]


class _Lines(unittest.TextTestResult):
    prefix = ""

    def _line(self, test):
        detail = getattr(test, "detail", "")
        name = _name(test, self.prefix)
        return "%s (%s)" % (name, detail) if detail else name

    def addSuccess(self, test):
        super().addSuccess(test)
        print("ok   %s" % self._line(test), flush=True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        print("FAIL %s: %s" % (self._line(test), _why(err)), flush=True)

    def addError(self, test, err):
        super().addError(test, err)
        print("FAIL %s: %s: %s" % (self._line(test), err[0].__name__,
                                   _why(err)), flush=True)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print("SKIP: %s: %s" % (self._line(test), reason), flush=True)


def _flat(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flat(t)
        else:
            yield t


def run(prefix=""):
    """Runs __main__'s tests as named checks, in checklib's lines (PREFIX
    NAME, or NAME), and exits with status 1 when one failed."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules["__main__"])
    tests = [t for t in _flat(suite) if _chosen(_name(t, prefix))]
    if (_only or _skip) and not tests:
        _none_chosen()
        sys.exit(1)
    if _list:
        for t in tests:
            print(_name(t, prefix))
        sys.exit(0)
    _Lines.prefix = prefix
    with open(os.devnull, "w") as null:
        result = unittest.TextTestRunner(stream=null, resultclass=_Lines,
                                         verbosity=0).run(
                                             unittest.TestSuite(tests))
    sys.exit(0 if result.wasSuccessful() else 1)

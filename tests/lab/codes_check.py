#!/usr/bin/env python3
"""The cause codes of FAIL lines have one home, lab/codes.h: the table of
docs/protocol.md ("Failure codes") names each code once, in its order;
every code of the lab's own checks is printed somewhere in the C sources;
and every code the grader asks for is one of them.

Runs alone (python3 -m unittest codes_check, from tests/lab, or python3
tests/lab/codes_check.py) or in tests/unit.sh, which reads its "ok NAME"
/ "FAIL NAME: why" lines."""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "grader"))
sys.path.insert(0, os.path.dirname(HERE))  # tests/checklib.py
sys.dont_write_bytecode = True
import checklib  # noqa: E402
from labgrader.codes import CODES, read_codes  # noqa: E402
from labgrader.judges.common import FAIL_HINTS  # noqa: E402
from labgrader.judges.causes import CODE_HINTS  # noqa: E402


def text(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def asked_codes():
    """The codes the judges ask for: FAIL_HINTS' and those named in a
    .failed("step", ...) call of the grader's sources."""
    asked = set(FAIL_HINTS)
    for path in glob.glob(os.path.join(ROOT, "grader/labgrader/**/*.py"),
                          recursive=True):
        with open(path, encoding="utf-8") as f:
            for m in re.finditer(r"\.failed\(\s*\"\w+\",\s*([^)]*)\)",
                                 f.read()):
                asked |= set(re.findall(r'"([^"]*)"', m.group(1)))
    return asked


class Codes(checklib.Case):
    # A failure's text is the check's own why (the codes at fault), not
    # unittest's repr of the operands before it.
    longMessage = False

    @classmethod
    def setUpClass(cls):
        cls.names = read_codes()  # lab/codes.h's, in its order

    def test_codes_docs_table(self):
        names = self.names
        self.detail = ("%d codes of lab/codes.h, once each, in its order"
                       % len(names))
        doc = text("docs/protocol.md")
        # The section's tables, the core's and part two's, down to the
        # next heading or the exit status.
        sec = doc.split("<!-- codes: lab/codes.h -->", 1)[-1]
        sec = re.split(r"^(?:#|Exit status)", sec, 1, flags=re.M)[0]
        tables = [re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", s, re.M)
                  for s in re.split(r"\n\n(?=\| code )", sec)]
        rows = [r for tab in tables for r in tab]
        in_order = all(tab == sorted(tab, key=names.index)
                       for tab in tables if not set(tab) - set(names))
        why = "in one only: %s; twice: %s" % (
            sorted(set(rows) ^ set(names)),
            sorted({r for r in rows if rows.count(r) > 1}) or
            "none; another order")
        self.assertEqual(sorted(rows), sorted(names), why)
        self.assertTrue(in_order, why)

    def test_codes_printed(self):
        names = self.names
        csrc = "".join(text(p) for p in ("lab/support.c", "lab/driver.c",
                                         "solution/main.c"))
        used = set(re.findall(r"\bLAB_CODE_([A-Z][A-Z0-9_]*)\b", csrc))
        own = [n for n in names if not n.startswith(("WC_", "ERRNO_")) or
               n.endswith("_OTHER")]
        self.detail = "each of the lab's own %d codes is printed" % len(own)
        self.assertFalse(set(own) - used,
                         "never printed: %s" % sorted(set(own) - used))

    def test_codes_grader(self):
        asked = asked_codes()
        self.detail = "the %d codes the judges ask for exist" % len(asked)
        why = "not in lab/codes.h: %s" % sorted(asked - CODES)
        self.assertTrue(asked, why)
        self.assertFalse(asked - CODES, why)

    def test_codes_hinted(self):
        # A failure with a known cause gets that cause's hint, never the
        # generic one (judges/causes.py): every code has its entry there,
        # none else.
        names = self.names
        self.detail = ("each of the %d codes has its hint in "
                       "judges/causes.py" % len(names))
        self.assertEqual(set(CODE_HINTS), set(names),
                         "no hint: %s; not a code: %s" % (
                             sorted(set(names) - set(CODE_HINTS)),
                             sorted(set(CODE_HINTS) - set(names))))


if __name__ == "__main__":
    checklib.run()

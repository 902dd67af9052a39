#!/usr/bin/env python3
"""The cause codes of FAIL lines have one home, lab/codes.h: the table of
docs/protocol.md ("Failure codes") names each code once, in its order;
every code of the lab's own checks is printed somewhere in the C sources;
and every code the grader asks for is one of them.  One "ok NAME" or
"FAIL NAME: why" line per check."""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "grader"))
sys.dont_write_bytecode = True
from labgrader.codes import CODES, read_codes  # noqa: E402
from labgrader.judges.common import FAIL_HINTS  # noqa: E402
from labgrader.judges.causes import CODE_HINTS  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
from checklib import check, done  # noqa: E402


def text(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


names = read_codes()
doc = text("docs/protocol.md")
# The section's tables, the core's and part two's, down to the next
# heading or the exit status.
sec = doc.split("<!-- codes: lab/codes.h -->", 1)[-1]
sec = re.split(r"^(?:#|Exit status)", sec, 1, flags=re.M)[0]
tables = [re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", s, re.M)
          for s in re.split(r"\n\n(?=\| code )", sec)]
rows = [r for tab in tables for r in tab]
in_order = all(tab == sorted(tab, key=names.index) for tab in tables
               if not set(tab) - set(names))
check("codes_docs_table (%d codes of lab/codes.h, once each, in its order)"
      % len(names), sorted(rows) == sorted(names) and in_order,
      "in one only: %s; twice: %s" % (
          sorted(set(rows) ^ set(names)),
          sorted({r for r in rows if rows.count(r) > 1}) or
          "none; another order"))

csrc = "".join(text(p) for p in ("lab/support.c", "lab/driver.c",
                                 "solution/main.c"))
used = set(re.findall(r"\bLAB_CODE_([A-Z][A-Z0-9_]*)\b", csrc))
own = [n for n in names if not n.startswith(("WC_", "ERRNO_")) or
       n.endswith("_OTHER")]
check("codes_printed (each of the lab's own %d codes is printed)" % len(own),
      not set(own) - used, "never printed: %s" % sorted(set(own) - used))

asked = set(FAIL_HINTS)
for path in glob.glob(os.path.join(ROOT, "grader/labgrader/**/*.py"),
                      recursive=True):
    with open(path, encoding="utf-8") as f:
        for m in re.finditer(r"\.failed\(\s*\"\w+\",\s*([^)]*)\)", f.read()):
            asked |= set(re.findall(r'"([^"]*)"', m.group(1)))
check("codes_grader (the %d codes the judges ask for exist)" % len(asked),
      asked and not asked - CODES, "not in lab/codes.h: %s" %
      sorted(asked - CODES))
# A failure with a known cause gets that cause's hint, never the generic
# one (judges/causes.py): every code has its entry there, none else.
check("codes_hinted (each of the %d codes has its hint in "
      "judges/causes.py)" % len(names), set(CODE_HINTS) == set(names),
      "no hint: %s; not a code: %s" % (
          sorted(set(names) - set(CODE_HINTS)),
          sorted(set(CODE_HINTS) - set(names))))
done()

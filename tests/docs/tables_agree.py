#!/usr/bin/env python3
"""The tables that docs/grading.md repeats agree with their homes.

The judges registered (@judge in grader/labgrader/judges/STEP.py),
lab/steps.h (as the grader reads it) and the evidence table of
docs/grading.md name the same steps, in the same order, with the same
points (the table then its checks, LAB_CHECK, whose judges are not
registered: judges/loss.py); each step is judged on both sides, by
judges defined in the step's own module.  The pairings table of
docs/grading.md ("What is run") is grader/pairings.tsv's, every part's,
as the grader reads it.

    tables_agree.py [GRADING.md]

Prints the steps and pairings and exits 0 when they agree; else says
what differs and exits 1.  GRADING.md (default docs/grading.md) lets the
unit tests show that a table that drifts is caught."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "grader"))
from labgrader import lab  # noqa: E402
from labgrader.judges.registry import REGISTRY, SIDES, judges_of  # noqa: E402


def table_rows(path):
    """[(step, points)] of the evidence table, the section "Scoring and
    evidence" of docs/grading.md, in its order."""
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    doc = doc.split("## Scoring and evidence", 1)[-1].split("\n## ", 1)[0]
    return [(m.group(1), int(m.group(2))) for m in
            re.finditer(r"^\| `(\w+)` \| (\d+) \|", doc, re.M)]


def section(doc, title):
    """The text of a section of docs/grading.md, up to the next."""
    return doc.split("## " + title, 1)[-1].split("\n## ", 1)[0]


def pairing_rows(doc):
    """{pairing: {"server": who, "client": who}} of the table in "What is
    run", with "reference" written as the grader's "ref"."""
    who = {"student": "student", "reference": "ref"}
    return {m.group(1): {"server": who.get(m.group(2)),
                         "client": who.get(m.group(3))}
            for m in re.finditer(r"^\| (p\d+) \| (\w+) \| (\w+) \|$",
                                 section(doc, "What is run"), re.M)}


def main(argv):
    path = argv[1] if len(argv) > 1 else "docs/grading.md"
    rows = table_rows(path)
    with open(path, encoding="utf-8") as f:
        pairings = pairing_rows(f.read())
    every = lab.read_pairings()[0]
    if list(pairings.items()) != list(every.items()):
        sys.exit("pairings.tsv %s\ngrading.md %s" % (every, pairings))
    judges = [(s, lab.POINTS.get(s)) for s in REGISTRY]
    if not (judges == lab.STEPS and lab.ITEMS == rows):
        sys.exit("registered %s\nsteps.h %s\ngrading.md %s" % (
            judges, lab.ITEMS, rows))
    for s, _ in lab.STEPS:
        for side in SIDES:
            if not judges_of(s, side):
                sys.exit("no judge of %s's %s side" % (s, side))
        away = [fn.__module__ for _, fn in REGISTRY[s]
                if fn.__module__ != "labgrader.judges." + s]
        if away:
            sys.exit("%s judged outside judges/%s.py: %s" % (s, s, away))
    print(" ".join(s for s, _ in rows), "|", " ".join(pairings))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

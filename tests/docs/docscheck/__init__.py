"""The checks behind tests/docs/docs.sh, one module per concern; the command
line is tests/docs/docs_check.py.

  links     relative links and images resolve
  lines     quoted "lab STEP ..." lines: FAIL/hint messages of the source,
            ok lines shaped like a fresh run's
  tables    marked tables against recordings read with tshark: answers
            (pcap), counters, the PSNs the prose names
  prose     what the answers' prose states, against their tables
  exchange  the lab's TCP messages against lab/lab.h and demo.pcap
  icrc      the ICRC's documented masks against every recorded packet
  handout   an unpacked student handout (make dist) is true in itself

What the grader already reads (lab/steps.h, a capture's RoCE packets) is
read with its code, grader/labgrader, so that each fact has one
reader; the grader is stdlib-only, like these checks.
"""
import os
import re
import sys

# tests/.. written as before the split: it is in tshark's messages.
ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "..")
# No __pycache__ in the grader's folder, which guests and handouts see as
# it is.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "grader"))
from labgrader.lab import read_steps  # noqa: E402

STEPS = [n for n, _, _ in read_steps()[0]]
LAB = re.compile(r"lab (\w+) (ok|FAIL:|hint:)(.*)$")
NUM = r"(?:0x[0-9a-f]+|\d+)"


def lab_lines(path):
    """(line number, step, kind, rest) of every lab line, prose or code."""
    with open(path, encoding="utf-8") as f:
        for num, line in enumerate(f, 1):
            m = LAB.search(line.strip().strip("`"))
            if m and m.group(1) in STEPS and line.lstrip().startswith(("lab ", "`lab ")):
                yield num, m.group(1), m.group(2), m.group(3).strip()


def num(v):
    return int(v, 16) if v.startswith("0x") else int(v)

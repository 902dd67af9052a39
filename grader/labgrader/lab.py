"""The lab's facts, read from lab/steps.h and lab/lab.h (their one home):
the steps, their points and parts, the constants the steps use; and,
from grader/pairings.tsv, the pairings each submission runs in."""
import os
import re
import sys

from .verbs import (WR_CMP_SWP, WR_FETCH_ADD, WR_RDMA_READ, WR_SEND,
                    WR_SEND_IMM, WR_WRITE, WR_WRITE_IMM)


# grader/, where grader.py and its tools are; the lab one folder up.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAB = os.path.join(HERE, "..", "lab")


def read_settings(path=os.path.join(HERE, "settings.sh")):
    """The whole-number settings of grader/settings.sh (NAME=DIGITS at a
    line's start), the one home of a run's limits, for the Python side
    (the shell sources the file)."""
    with open(path, encoding="utf-8") as f:
        return {m.group(1): int(m.group(2)) for m in
                re.finditer(r"^([A-Z][A-Z0-9_]*)=(\d+)$", f.read(), re.M)}


SETTINGS = read_settings()


def read_steps(path=os.path.join(LAB, "steps.h"), kind="LAB_STEP"):
    """[(step, points, part)] and LAB_PARTS from lab/steps.h, the one home
    of the step list and of the parts a course does; kind="LAB_CHECK":
    its graded checks instead (a part's points that no step function
    earns: part three's loss)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    steps = [(m.group(1), int(m.group(2)), int(m.group(3))) for m in
             re.finditer(r"^%s\((\w+), (\d+), (\d+)\)$" % kind, text,
                         re.M)]
    parts = re.search(r"^#define LAB_PARTS (\d+)$", text, re.M)
    if (not steps and kind == "LAB_STEP") or not parts:
        sys.exit("grader: no LAB_STEP lines or no LAB_PARTS in " + path)
    return steps, int(parts.group(1))


def read_define(name, path=os.path.join(LAB, "lab.h")):
    """An integer #define of lab/lab.h (the constants the steps use)."""
    with open(path, encoding="utf-8") as f:
        m = re.search(r"^#define %s\s+(0x[0-9a-fA-F]+|\d+)[uUlL]*\s*$" %
                      name, f.read(), re.M)
    if not m:
        sys.exit("grader: no #define %s in %s" % (name, path))
    return int(m.group(1), 0)


STEP_TABLE, LAB_PARTS = read_steps()
CHECK_TABLE, _ = read_steps(kind="LAB_CHECK")
# Every step of lab/steps.h with its points, whatever the parts: the
# judges and docs/grading.md's table cover them all.
STEPS = [(s, pts) for s, pts, _ in STEP_TABLE]
# The checks (LAB_CHECK): graded like a step, earned by no step's code.
CHECKS = [(s, pts) for s, pts, _ in CHECK_TABLE]
# Every item a result may hold, in its order: the steps, then the checks.
ITEMS = STEPS + CHECKS
POINTS = dict(ITEMS)
PART = {s: part for s, _, part in STEP_TABLE + CHECK_TABLE}
# The steps graded: those of parts 1..LAB_PARTS; GRADED adds the checks
# of those parts.  Part 1 is the core, scored on the "Score:" line; each
# later part has a line of its own.
STEP_NAMES = [s for s, _, part in STEP_TABLE if part <= LAB_PARTS]
GRADED_CHECKS = [(s, pts) for s, pts, part in CHECK_TABLE
                 if part <= LAB_PARTS]
GRADED = [(s, pts) for s, pts, part in STEP_TABLE
          if part <= LAB_PARTS] + GRADED_CHECKS
PART_LINE = {1: "Score", 2: "Part two", 3: "Part three"}
ATOMIC_ADD = read_define("LAB_ATOMIC_ADD")
ATOMIC_SWAP = read_define("LAB_ATOMIC_SWAP")
WIRE_SIZE = read_define("LAB_WIRE_SIZE")
# The buffers' size: the grader runs the lab without -s.
BUF_SIZE = read_define("LAB_DEFAULT_SIZE")


def read_pairings(path=os.path.join(HERE, "pairings.tsv"), parts=None):
    """{pairing: {"server": who, "client": who}}, {pairing: title} and
    {pairing: the wire's rules, "none" for a clean wire}, in the order they
    run, of the parts 1..parts (default: every part), from
    grader/pairings.tsv (their one home, which the guests' shell reads
    too)."""
    pairings, titles, wires = {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, server, client, part, wire, title = \
                line.rstrip("\n").split("\t")
            if parts is not None and int(part) > parts:
                continue
            pairings[name] = {"server": server, "client": client}
            titles[name] = title
            wires[name] = wire
    if not pairings:
        sys.exit("grader: no pairings in " + path)
    return pairings, titles, wires


# The pairings of the parts graded; PAIR_WIRE: a pairing's wire rules.
PAIRINGS, PAIR_TITLE, PAIR_WIRE = read_pairings(parts=LAB_PARTS)


# grader.py steps's selections: which steps each prints.
STEP_SELECTIONS = {
    None: lambda part: True,                    # every part's
    "--graded": lambda part: part <= LAB_PARTS,  # the parts the course does
    "--later": lambda part: part > LAB_PARTS,    # the parts it leaves out
    "--checks": lambda part: True,               # every part's checks
}


def cmd_steps(which):
    """lab/steps.h for the shell, awk and docs checks, so that they need
    no parser of their own: NAME POINTS PART per step, in order, of every
    part, of the parts graded (--graded) or of those after them (--later);
    with --checks, the same of every check (LAB_CHECK); or, with --parts,
    LAB_PARTS; with --guest, LAB_PARTS and the steps graded on one line
    (grader/batch's config for the guest driver)."""
    if which == "--parts":
        print(LAB_PARTS)
        return 0
    if which == "--guest":
        print(LAB_PARTS, *[s for s, _, part in STEP_TABLE
                           if part <= LAB_PARTS])
        return 0
    for s, pts, part in CHECK_TABLE if which == "--checks" else STEP_TABLE:
        if STEP_SELECTIONS[which](part):
            print(s, pts, part)
    return 0


# Each data step's work requests, as the client posts them (IBV_WR_*).
STEP_WR = {"send": (WR_SEND,), "send_imm": (WR_SEND_IMM,),
           "write": (WR_WRITE,), "write_imm": (WR_WRITE_IMM,),
           "read": (WR_RDMA_READ,), "atomic": (WR_CMP_SWP, WR_FETCH_ADD)}

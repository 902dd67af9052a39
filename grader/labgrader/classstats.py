"""A course's results, sorted so that its statistics do not mislead:
what was handed in (a real submission, a compile error, no submission at
all, an environment error) and, of real submissions only, each step's
pass rate, its steps still TODO, and each hint's count.  report.md and
report.html (coursereport.py) both read them from here."""
import json
import os

from .lab import GRADED, LAB_PARTS
from .lms import identities
from .points import part_totals
from .rounds import todo_steps
from .text import read

REAL = "graded"
KINDS = (REAL, "compile error", "no submission", "environment error")
TODO = "the step is still a TODO (lab_todo in main.c)"


def kind(r):
    """What a result stands for.  A refused or empty hand-in is graded as
    a compile error that says why (grader/grade-all: compile.log, "no main.c
    in ..." or "...: refused: ..."): not a program that failed to build."""
    if r.get("env_error"):
        return "environment error"
    ce = r.get("compile_error")
    if not ce:
        return REAL
    first = ce.strip().splitlines()[0] if ce.strip() else ""
    if first.startswith("no main.c in ") or ": refused: " in first:
        return "no submission"
    return "compile error"


def parts_of(r):
    """{part: (score, max)} of every graded part."""
    return {p: (g, m) for p, g, m in part_totals(r)}


def load(out):
    """Each student of OUT with a result, in name order: a dict of name,
    result, folder, kind, parts, people and todo (steps whose lab_todo
    call is still in its main.c)."""
    sdir = os.path.join(out, "students")
    rows = []
    for name in sorted(os.listdir(sdir)):
        d = os.path.join(sdir, name)
        try:
            with open(os.path.join(d, "result.json")) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        rows.append({"name": name, "result": r, "dir": d, "kind": kind(r),
                     "parts": parts_of(r), "people": identities(d),
                     "todo": set(todo_steps(read(os.path.join(
                         d, "main.c")) or "")),
                     "regraded": (read(os.path.join(d, "regraded"), 300)
                                  or "").strip()})
    return rows


def counts(rows):
    """{kind: how many} in KINDS' order."""
    return {k: sum(x["kind"] == k for x in rows) for k in KINDS}


def step_stats(rows):
    """[(step, points, passed, real, todo, {hint: n})] over real
    submissions: a step whose TODO is still in the student's main.c is
    counted as TODO, not under the hint of its failure (a TODO step
    that other steps depend on fails with their symptoms: RNR, say)."""
    real = [x for x in rows if x["kind"] == REAL]
    out = []
    for s, pts in GRADED:
        ok = todo = 0
        hints = {}
        for x in real:
            st = x["result"]["steps"].get(s)
            if not st:
                continue
            if st["passed"]:
                ok += 1
            elif s in x["todo"]:
                todo += 1
            elif st.get("hint"):
                hints[st["hint"]] = hints.get(st["hint"], 0) + 1
        out.append((s, pts, ok, len(real), todo, hints))
    return out


def hint_counts(rows):
    """[(hint, failed steps, students)] over real submissions, most
    first; the steps still TODO as one line of their own."""
    steps, students = {}, {}
    for x in rows:
        if x["kind"] != REAL:
            continue
        seen = set()
        for s, _ in GRADED:
            st = x["result"]["steps"].get(s)
            if not st or st["passed"]:
                continue
            h = TODO if s in x["todo"] else st.get("hint")
            if not h:
                continue
            steps[h] = steps.get(h, 0) + 1
            seen.add(h)
        for h in seen:
            students[h] = students.get(h, 0) + 1
    return sorted(((h, n, students[h]) for h, n in steps.items()),
                  key=lambda t: (-t[1], t[0]))


def total(x):
    """(score, max) over every graded part."""
    ps = x["parts"].values()
    return sum(g for g, _ in ps), sum(m for _, m in ps)


def full_marks(x):
    return x["kind"] == REAL and all(
        x["parts"].get(p, (0, 1))[0] == x["parts"].get(p, (0, 1))[1]
        for p in range(1, LAB_PARTS + 1))

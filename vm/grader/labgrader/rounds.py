"""Stand-ins: each step judged on its own code.

A student's program stops at its first failing step, and a reference peer
that met a wrong value stops too, so one mistake used to cost every step
after it.  When a step fails, its later steps are judged again on a
program built from the student's main.c with the reference's version of
that step linked in its place (vm/grader/compile.sh): one more round per
failed step, until every step of the student's own is judged.

A step's verdict comes from the first round that passed it, else from the
round in which it was the first step to fail (its own mistake, with its
own evidence), else from the last round.  A step stood in for is never
given points by a round it was stood in for in.  Steps whose TODO is
still in main.c (lab_todo(ctx, "NAME")) fail wherever they are reached,
so they are stood in for from the second round on without a round each.
"""
import json
import os
import re

from .hints import HINTS
from .lab import STEP_NAMES
from .reports import part_totals
from .text import read, write_atomic

# The rounds of a student: NAME/round-K/ with its result.json and standins
# (the steps stood in for, on one line; none in round 1).
ROUND_DIR = re.compile(r"^round-(\d+)$")


def todo_steps(source):
    """The steps whose lab_todo call is still in the source (comments
    removed): they fail whenever they are reached."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", source, flags=re.S)
    return [s for s in STEP_NAMES
            if re.search(r'\blab_todo\s*\(\s*ctx\s*,\s*"%s"\s*\)' % s, text)]


def first_failure(result, standins):
    """(failed, blamed): the first step, in order, that is neither stood in
    for nor passed, and the step its cause is in: itself, or an earlier
    step not yet stood in for whose code the judge named (the "cause" of
    a step's result, from its hint: hints.CAUSE).  (None, None): none."""
    for s in STEP_NAMES:
        st = result["steps"].get(s)
        if s not in standins and st and not st["passed"]:
            c = st.get("cause")
            ok = c in STEP_NAMES and c not in standins and \
                STEP_NAMES.index(c) < STEP_NAMES.index(s)
            return s, c if ok else s
    return None, None


def next_standins(rounds, source):
    """The steps to stand in for in the next round, or None when every
    step of the student's own is judged.  rounds: [(standins, result)] in
    order, round 1 first (no stand-ins)."""
    standins, result = rounds[-1]
    if result.get("compile_error") or result.get("env_error"):
        return None
    f, blamed = first_failure(result, standins)
    if f is None:
        return None
    todo = set(todo_steps(source))
    nxt = set(standins) | {blamed} | todo
    # Judged again: what this round did not pass, of the student's own,
    # after the step stood in for (the failed step itself, when the
    # cause was an earlier one).
    later = STEP_NAMES[STEP_NAMES.index(blamed) + 1:]
    left = [s for s in later if s not in nxt and
            not result["steps"].get(s, {"passed": True})["passed"]]
    if not left:
        return None
    return [s for s in STEP_NAMES if s in nxt]


def merge(rounds, source):
    """One result from the rounds: each step's verdict from the round
    that decides it (the module's rule), with where it came from."""
    base = json.loads(json.dumps(rounds[-1][1]))
    if len(rounds) == 1:
        return base
    todo = set(todo_steps(source))
    # The round in which each blamed step was blamed, for which failure.
    firsts = {}
    for k, (standins, result) in enumerate(rounds[:-1]):
        f, blamed = first_failure(result, standins)
        if f is not None and blamed not in firsts:
            firsts[blamed] = (k, f)
    steps = {}
    for s in STEP_NAMES:
        own = [(k, r) for k, (si, r) in enumerate(rounds) if s not in si]
        passed = [(k, r) for k, r in own if r["steps"][s]["passed"]]
        blamed_for = None
        if s in firsts:
            k, f = firsts[s]
            r = rounds[k][1]
            blamed_for = f if f != s else None
        elif passed:
            k, r = passed[0]
        else:
            k, r = own[-1]
        if blamed_for:
            # This step's code holds the cause of a later step's failure:
            # the loss is this step's, with that step's evidence.
            fs = r["steps"][blamed_for]
            st = dict(r["steps"][s], score=0, passed=False, hint=fs["hint"],
                      evidence=["  seen in step %s, whose failure comes "
                                "from this step's code:" % blamed_for] +
                      fs["evidence"])
        else:
            st = dict(r["steps"][s])
        if s in todo and not st["passed"] and s not in firsts:
            st["evidence"] = ["  lab_todo(ctx, \"%s\") is still in your "
                              "step_%s: not implemented" % (s, s)]
            st["hint"] = HINTS["todo"]
        st["round"] = k + 1
        st["standins"] = list(rounds[k][0])
        steps[s] = st
    base["steps"] = steps
    base["rounds"] = [{"round": k + 1, "standins": list(si)}
                      for k, (si, _) in enumerate(rounds)]
    # What the student sees of the program's own lines: round 1's, the
    # program as written.
    base["own_lines"] = rounds[0][1].get("own_lines", [])
    base["wire"] = rounds[0][1].get("wire", {})
    for p, got, tot in part_totals(base):
        base["parts"][str(p)].update(score=got, max=tot)
    base["score"] = base["parts"]["1"]["score"]
    return base


def load(student):
    """[(standins, result)] of a student's rounds so far, round 1 first:
    STUDENT/round-K/{result.json,standins}."""
    rounds = []
    ks = sorted(int(m.group(1)) for m in
                (ROUND_DIR.match(n) for n in os.listdir(student)) if m)
    for k in ks:
        d = os.path.join(student, "round-%d" % k)
        with open(os.path.join(d, "result.json")) as f:
            result = json.load(f)
        standins = (read(os.path.join(d, "standins")) or "").split()
        if [s for s in standins if s not in STEP_NAMES] or \
                (k == 1) != (not standins):
            raise ValueError("round %d: stand-ins %r" % (k, standins))
        rounds.append((standins, result))
    if not rounds or ks != list(range(1, len(ks) + 1)):
        raise ValueError("no rounds 1..K in " + student)
    return rounds


def cmd_next_round(student):
    """The stand-ins of the student's next round, on one line; nothing
    when every step of the student's own is judged."""
    rounds = load(student)
    nxt = None
    if len(rounds) <= len(STEP_NAMES):
        source = read(os.path.join(student, "main.c")) or ""
        nxt = next_standins(rounds, source)
    if nxt:
        print(" ".join(nxt))
    return 0


def cmd_merge_rounds(student):
    """STUDENT/result.json from its rounds."""
    rounds = load(student)
    result = merge(rounds, read(os.path.join(student, "main.c")) or "")
    result["name"] = rounds[0][1].get("name")
    write_atomic(os.path.join(student, "result.json"),
                 json.dumps(result, indent=1))
    return 0

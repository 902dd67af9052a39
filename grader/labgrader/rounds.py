"""Stand-ins: each step judged on its own code.

A student's program stops at its first failing step, and a reference peer
that met a wrong value stops too, so one mistake used to cost every step
after it.  When a step fails, its later steps are judged again on a
program built from the student's main.c with the reference's version of
that step linked in its place (grader/guest/compile.sh): one more round per
failed step, until every step of the student's own is judged.

A step's verdict comes from the first round that passed it, else from the
round in which it was the first step to fail (its own mistake, with its
own evidence), else from the last round.  A step stood in for is never
given points by a round it was stood in for in.  Steps whose TODO is
still in main.c (lab_todo(ctx, "NAME")) fail wherever they are reached,
so they are stood in for from the second round on without a round each.

Which round decides a step, and what a step charged or cleared is worth,
is points.py's; this module runs the experiments and writes the text.
"""
import json
import os
import re

from .hints import HINTS
from .lab import GRADED_CHECKS, SETTINGS, STEP_NAMES
from .points import (charged, check_round, cleared, deciding_round,
                     first_failure, lost, part_totals, won)
from .provenance import record
from .text import read, write_atomic

# The rounds of a student: NAME/round-K/ with its result.json and standins
# (the steps stood in for, on one line; none in round 1).
# The seconds of runs a student's rounds may use before no more are run
# (run_seconds): a correct submission's three pairings take about 4 s,
# a round whose program fails by a wait about 20 s (so one hang and the
# rounds after it fit), one that talks until it is stopped 36 s (3 x
# RUN_TIMEOUT: no round follows it).  A student's runs so cost at most
# this budget plus one round: a program whose every step talks for 11 s
# and then fails cost 80 s of runs in two rounds at 45 s, 35 s in one
# now, against 4 s for the reference (issue 39).  Steps a round would
# have judged again keep the last round's verdict, with a note that says
# so.
ROUND_BUDGET_S = 30
# Nor after two rounds in a row that the guest cut short at their first
# step of the student's own (grader/guest/driver, cut_after), each longer
# than a program's waits (-t): each step ran its waits out before its
# first line.  A program whose every step talks for 11 s and then fails
# took four rounds of the budget, 4.1 times a correct submission's whole
# grading; two now.  No seed of a mistake has two such rounds: a cut
# round follows a failed first step, a long one a stall.
STALL_S = SETTINGS["PROG_TIMEOUT_DEFAULT"]
ROUND_DIR = re.compile(r"^round-(\d+)$")


def todo_steps(source):
    """The steps whose lab_todo call is still in the source (comments
    removed): they fail whenever they are reached."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", source, flags=re.S)
    return [s for s in STEP_NAMES
            if re.search(r'\blab_todo\s*\(\s*ctx\s*,\s*"%s"\s*\)' % s, text)]


def stuck(result, standins):
    """The first step stood in for that failed all the same: the
    reference's own version of it met what the student's earlier code
    left (a receive posted with a short buffer or another MR's lkey, a
    length advertised wrong), so the cause is in an earlier step."""
    for s in STEP_NAMES:
        st = result["steps"].get(s)
        if s in standins and st and not st["passed"]:
            return s
    return None


def search(rounds):
    """The experiment that finds an earlier step's code at fault, as
    (stuck, tried, found): the round before the last had a stand-in that
    still failed (stuck), the last round also stood in for the nearest
    earlier step of the student's own (tried); found: that made the stuck
    step pass.  None when the last round was no such experiment."""
    if len(rounds) < 2:
        return None
    (before, rb), (now, rn) = rounds[-2], rounds[-1]
    s = stuck(rb, before)
    added = set(now) - set(before)
    if not s or len(added) != 1:
        return None
    t = added.pop()
    if STEP_NAMES.index(t) >= STEP_NAMES.index(s):
        return None
    st = rn["steps"].get(s)
    return s, t, bool(st and st["passed"])


def found_causes(rounds):
    """{stuck step: the earlier step whose code the experiments found at
    fault}, over every round."""
    out = {}
    for k in range(2, len(rounds) + 1):
        r = search(rounds[:k])
        if r and r[2]:
            out.setdefault(r[0], r[1])
    return out


def next_standins(rounds, source):
    """The steps to stand in for in the next round, or None when every
    step of the student's own is judged.  rounds: [(standins, result)] in
    order, round 1 first (no stand-ins)."""
    standins, result = rounds[-1]
    if result.get("compile_error") or result.get("env_error"):
        return None
    todo = set(todo_steps(source))
    r = search(rounds)
    if r and r[2]:
        # Found: the stuck step is judged again on its own code, with
        # the step at fault stood in for instead.
        s, t, _ = r
        nxt = (set(standins) - {s}) | {t} | todo
        return [x for x in STEP_NAMES if x in nxt]
    s = stuck(result, standins)
    if s:
        # Try the nearest earlier step of the student's own, one a round.
        mine = [x for x in STEP_NAMES[:STEP_NAMES.index(s)]
                if x not in standins and x not in todo]
        if mine:
            nxt = set(standins) | {mine[-1]} | todo
            return [x for x in STEP_NAMES if x in nxt]
    f, cause, _ = first_failure(result, standins)
    if f is None:
        return None
    nxt = set(standins) | {cause} | todo
    # Judged again: what this round did not pass, of the student's own,
    # after the step stood in for (the failed step itself, when the
    # cause was an earlier one).
    later = STEP_NAMES[STEP_NAMES.index(cause) + 1:]
    left = [s for s in later if s not in nxt and
            not result["steps"].get(s, {"passed": True})["passed"]]
    # A failed check (part three's loss) is judged again too: a timeout
    # of 0 fails connect and loss, and loss, with the reference's
    # connect, passes (the fault is connect's alone).
    left += [c for c, _ in GRADED_CHECKS
             if not result["steps"].get(c, {"passed": True})["passed"]]
    if not left:
        return None
    return [s for s in STEP_NAMES if s in nxt]


def note_unjudged(result):
    """Each failed step after the first says so when the rounds stopped
    at the budget (merge)."""
    if not result.get("rounds_stopped"):
        return
    failed = [s for s in STEP_NAMES if not result["steps"][s]["passed"]]
    for s in failed[1:]:
        result["steps"][s]["evidence"].append(
            "  " + result["rounds_stopped"])


def merge(rounds, source):
    """One result from the rounds: each step's verdict from the round
    that decides it (the module's rule, points.py), with where it came
    from."""
    base = json.loads(json.dumps(rounds[-1][1]))
    stop = stop_note(rounds)
    if stop and next_standins(rounds, source):
        base["rounds_stopped"] = stop
    if len(rounds) == 1:
        note_unjudged(base)
        return base
    todo = set(todo_steps(source))
    # The round in which each blamed step was blamed, for which failure:
    # a failure whose cause an experiment found in an earlier step's code
    # is that step's (within the failure's part), not the failed step's.
    found = found_causes(rounds)
    # A round whose stand-in failed all the same says nothing of the
    # steps after it: they met the earlier code's fault.
    firsts = charged([(k, si, r) for k, (si, r) in enumerate(rounds[:-1])
                      if not stuck(r, si)], found)
    steps = {}
    for s in STEP_NAMES:
        k, blamed_for = deciding_round(rounds, s, firsts)
        r = rounds[k][1]
        clear = None if blamed_for or r["steps"][s]["passed"] or \
            s in todo else cleared(rounds, s, k)
        if blamed_for:
            # This step's code holds the cause of a later step's failure:
            # the loss is this step's, with that step's evidence.
            fs = r["steps"][blamed_for]
            hint = fs["hint"]
            if found.get(blamed_for) == s:
                # Found by experiment, not named by the judge.
                hint = HINTS["found"] % (blamed_for, s, blamed_for) + \
                    (" (%s's hint: %s)" % (blamed_for, hint) if hint
                     else "")
            st = lost(r["steps"][s], hint=hint,
                      evidence=["  seen in step %s, whose failure comes "
                                "from this step's code:" % blamed_for] +
                      fs["evidence"])
        elif clear:
            j, later = clear
            st = won(r["steps"][s], hint=None,
                     evidence=r["steps"][s]["evidence"] + [
                         "  not this step's code: round %d, with the "
                         "reference's %s in place of yours, saw the same, "
                         "and your %s failed (the loss is there)" % (
                             j + 1, s, later)])
        else:
            st = dict(r["steps"][s])
        if s in todo and not st["passed"] and s not in firsts:
            st["evidence"] = ["  lab_todo(ctx, \"%s\") is still in your "
                              "step_%s: not implemented" % (s, s)]
            st["hint"] = HINTS["todo"]
        st["round"] = k + 1
        st["standins"] = list(rounds[k][0])
        steps[s] = st
    for s, _ in GRADED_CHECKS:
        # A check (part three's loss): the round points.check_round says.
        k = check_round(rounds, s)
        if s in rounds[k][1]["steps"]:
            steps[s] = dict(rounds[k][1]["steps"][s], round=k + 1,
                            standins=list(rounds[k][0]))
    base["steps"] = steps
    note_unjudged(base)
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


def run_seconds(rounds):
    """What a student's rounds cost the guests so far, as on a quiet
    host (result.json's guest_cpu, starved.py): a pairing that a stretched
    limit ended (limit, starved.stretched_end) counts its window over
    the stretch; one whose programs ended themselves, its window less
    what the host made the guests wait for a CPU (a program that talks
    11 s, then fails, costs 11 s at any load).  Subtracting the waits
    from a stretched window too undercounted round_staller under load
    (10 rounds in a fresh clone's make test with 2 busy loops)."""
    total = 0.0
    for _, result in rounds:
        for cpu in (result.get("guest_cpu") or {}).values():
            busy = max(0.0, cpu["window"] - max(cpu["server"][1],
                                                cpu["client"][1]))
            if "stretch" in cpu and cpu.get("limit", 1):
                total += cpu["window"] / max(1.0, cpu["stretch"])
            else:
                total += busy
    return total


def over_budget(rounds):
    """The rounds so far used ROUND_BUDGET_S: no more (a program whose
    every step talks until it is stopped would get a round per step, 36 s
    each)."""
    return run_seconds(rounds) > ROUND_BUDGET_S


def cut_seconds(result):
    """How long the student's run took in the pairing after which the
    round was cut, as on a quiet host (student.py, own_s: its off-CPU
    time as it was, its CPU time over the stretch); without that
    measure, the round's runs as the budget counts them."""
    own = (result.get("own_s") or {}).get(result["cut"][0])
    return own if own is not None else run_seconds([(None, result)])


def stalled(rounds):
    """The last two rounds were each cut at the student's first own step
    after more than STALL_S (ROUND_BUDGET_S's comment).  Measured on the
    student's run, not on the pairing's window: a window less the guests'
    CPU wait, which their own polling fills while a program sleeps, gave
    a program that talks for 11 s three rounds in CI at a stretch of 4
    to 5."""
    return len(rounds) >= 2 and all(
        r.get("cut") and cut_seconds(r) > STALL_S for _, r in rounds[-2:])


def stop_note(rounds):
    """Why no more rounds are run, or None."""
    if stalled(rounds):
        why = "two in a row whose first step of your own ran longer " \
            "than its waits and failed (%.0f s of runs)"
    elif over_budget(rounds):
        why = "%%.0f s of runs (%d s per student)" % ROUND_BUDGET_S
    else:
        return None
    return "not judged again on your own code: this submission's " \
        "rounds stopped after " + why % run_seconds(rounds)


def cmd_next_round(student):
    """The stand-ins of the student's next round, on one line; nothing
    when every step of the student's own is judged; "-" when some are
    not, but the rounds so far used the student's budget or stalled
    (stop_note): the batch merges the rounds, whose result says so, even
    after round 1 alone."""
    rounds = load(student)
    nxt = None
    if len(rounds) <= len(STEP_NAMES):
        source = read(os.path.join(student, "main.c")) or ""
        nxt = next_standins(rounds, source)
    if nxt:
        print("-" if stop_note(rounds) else " ".join(nxt))
    return 0


def cmd_merge_rounds(student):
    """STUDENT/result.json from its rounds."""
    rounds = load(student)
    result = merge(rounds, read(os.path.join(student, "main.c")) or "")
    result["name"] = rounds[0][1].get("name")
    result["graded"] = record(student)
    # Every round's pairings ran: the student's run is their sum.
    secs = [r.get("seconds") for _, r in rounds if r.get("seconds")]
    result["seconds"] = round(sum(secs), 2) if secs else None
    write_atomic(os.path.join(student, "result.json"),
                 json.dumps(result, indent=1))
    return 0

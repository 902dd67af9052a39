"""Points: what the judges' verdicts are worth, decided here alone.

A step passes only if it passed in every pairing that judged it; a
failure whose hint names an earlier step's code is charged to that step
(CAUSE, by the hint's key); over a student's rounds (rounds.py) each
step takes the verdict of the round that decides it; and the parts'
totals add the steps up.  Nothing here reads a hint's or the evidence's
wording: the judges' verdicts carry the hint's key (hints.hint) and
whether the step was reached (Check.not_reached).  The text a student
reads is made where it always was (student.py, rounds.py, reports.py).
"""
from .hints import key_of
from .lab import ITEMS, PART, STEP_NAMES

# The hints (by key) whose cause is in the code of an earlier step than
# the one that failed: the access flags of an MR (create_resources) or of
# the QP (qp_to_init), the receives posted and the read credits given
# before RTR (connect).  Each step is judged on its own code (rounds.py):
# the loss goes to that step, and the failed step is judged again with
# the reference's version of that step in place of the student's.
CAUSE = {
    "late_recv": "connect", "rnr": "connect", "rd_credits": "connect",
    "read_mr": "create_resources", "read_local": "create_resources",
    "mr_remote": "create_resources",
    "read_qp": "qp_to_init", "atomic_qp": "qp_to_init",
    "qp_remote": "qp_to_init",
    # A status 12 whose request the peer answered, given up by the QP's
    # own timer (late.own_timer): the RTS attributes are connect's.
    "retry_none": "connect", "retry_timer": "connect",
}

# The hints (by key) whose cause CAUSE names but whose loss a check
# takes, not the cause's step: a retry_cnt of 0 resends nothing, which
# only a wire that loses packets needs (part three's loss), so a busy
# host that made one answer late on a clean wire costs connect nothing;
# the failed step is judged again with the reference's connect, and a
# course without part three charges no one.
CHARGE = {"retry_none": "loss"}


def earlier(a, b):
    """Step a comes before step b in lab/steps.h."""
    return STEP_NAMES.index(a) < STEP_NAMES.index(b)


# ---- one grading run: a step's pairings into its verdict ----

def step_passed(checks):
    """The all-pairings rule: a step passes only if it passed in every
    pairing and side that judged it (checks: [(pairing, side, Check)]);
    a step no pairing judged has earned nothing."""
    return bool(checks) and all(c.ok for _, _, c in checks)


def not_reached(checks):
    """The failed check to report when every failure of the step is
    that the program stopped before it (Check.not_reached; a failure
    with nothing seen says nothing against it either): the step's own
    evidence is then only where the program stopped.  None otherwise."""
    bad = [c for _, _, c in checks if not c.ok]
    if bad and all(c.not_reached or not c.seen for c in bad):
        return bad[0]
    return None


def cause(step, hint):
    """The earlier step whose code a failure of step with this hint is
    charged to (CAUSE, by the hint's key), or None: the step's own."""
    c = CAUSE.get(key_of(hint))
    return c if c in STEP_NAMES and earlier(c, step) else None


def charge(hint):
    """The check that takes the loss of a failure with this hint in
    place of its cause (CHARGE), or None."""
    return CHARGE.get(key_of(hint))


# ---- a student's rounds: which round decides each step ----

def first_failure(result, standins):
    """(failed, cause, blamed): the first step, in order, that is neither
    stood in for nor passed; the step its cause is in, which the next
    round stands in for: itself, or an earlier step not yet stood in for
    whose code the judge named (the "cause" of a step's result: CAUSE);
    and the step that loses the points: the check the result names
    ("charge": CHARGE), else the cause, when it is of the failed step's
    part, else the failed step itself (a core step's code that only part
    two finds wanting costs part two, so a course of the core alone
    never sees it).  (None, None, None): none."""
    for s in STEP_NAMES:
        st = result["steps"].get(s)
        if s not in standins and st and not st["passed"]:
            c = st.get("cause")
            ok = c in STEP_NAMES and c not in standins and earlier(c, s)
            if not ok:
                return s, s, s
            if st.get("charge"):
                return s, c, st["charge"]
            return s, c, c if PART[c] == PART[s] else s
    return None, None, None


def charged(trials, found):
    """{blamed step: (round index, failed step)}: the round in which each
    step was first charged with a failure, and which.  trials: [(k,
    standins, result)], the rounds whose stand-ins all passed (one that
    failed all the same says nothing of the steps after it); found:
    {failed step: the earlier step an experiment found at fault}, which
    takes the loss within the failure's part."""
    firsts = {}
    for k, standins, result in trials:
        f, _, blamed = first_failure(result, standins)
        if f is not None and blamed == f and f in found and \
                PART[found[f]] == PART[f]:
            blamed = found[f]
        if f is not None and blamed not in firsts:
            firsts[blamed] = (k, f)
    return firsts


def deciding_round(rounds, s, firsts):
    """(k, blamed_for): the round whose verdict step s takes: the one it
    was charged in (blamed_for: the later step whose failure it caused,
    None when its own), else the first that passed it on its own code,
    else the last on its own code.  A step is never given points by a
    round it was stood in for in."""
    if s in firsts:
        k, f = firsts[s]
        return k, (f if f != s else None)
    own = [(k, r) for k, (si, r) in enumerate(rounds) if s not in si]
    passed = [k for k, r in own if r["steps"][s]["passed"]]
    return (passed[0] if passed else own[-1][0]), None


def cleared(rounds, s, k):
    """(round, later step) when step s, failed in round k on its own code,
    failed again with the same hint when the reference's version of it
    stood in, while a later step of the student's own failed in that
    round: the evidence s's judge read was made by later code (RTR's
    source GID index, which connect sets, fails open_device's and
    exchange's judges), so the loss is that later step's, not s's.  A
    failure that every stand-in keeps, with no step of the student's own
    left to fail after it, clears nothing: some step keeps the loss.
    None otherwise."""
    hint = rounds[k][1]["steps"][s].get("hint")
    if not hint:
        return None
    for j in range(k + 1, len(rounds)):
        standins, result = rounds[j]
        st = result["steps"].get(s)
        later, _, _ = first_failure(result, standins)
        if s in standins and st and not st["passed"] and \
                st.get("hint") == hint and later is not None and \
                earlier(s, later):
            return j, later
    return None


def check_round(rounds, s):
    """The round whose verdict a check (part three's loss) takes.  A
    check is no step's code, so no round stands it in: the last round
    that judged it (the student's client reached its send) with a data
    step of the student's own, the reference's version of every step
    that failed before in place: a fault of a failed step's code (a
    timeout of 0 in connect's) costs that step alone, as every fault
    does.  Never a round that stands in a step for a failure charged to
    this check (CHARGE: the connect whose retry_cnt of 0 a late answer
    showed on a clean wire), whose loss would so be waived.  Else round
    1's (a skeleton's, all of whose steps later rounds stand in, earns
    nothing)."""
    data = [d for d in STEP_NAMES[STEP_NAMES.index("send"):]
            if d != "teardown"] if "send" in STEP_NAMES else []
    waived = {c for si, r in rounds for _, c, b in [first_failure(r, si)]
              if b == s}
    judged = [k for k, (si, r) in enumerate(rounds)
              if r["steps"].get(s, {}).get("judged") and
              [d for d in data if d not in si] and not waived & set(si)]
    return judged[-1] if judged else 0


def lost(st, **text):
    """A step's verdict with its points lost (charged a failure)."""
    return dict(st, score=0, passed=False, **text)


def won(st, **text):
    """A step's verdict with its points given back (cleared)."""
    return dict(st, passed=True, score=st["max"], **text)


# ---- the totals ----

def result_steps(result, steps=None):
    """The steps and checks asked for (default: all) that the result
    has, in the order of lab/steps.h."""
    return [s for s, _ in ITEMS if s in result["steps"] and
            (not steps or s in steps)]


def part_totals(result, steps=None):
    """[(part, score, max)] over those steps, by part."""
    parts = {}
    for s in result_steps(result, steps):
        st = result["steps"][s]
        p = st.get("part", PART.get(s, 1))
        got, tot = parts.get(p, (0, 0))
        parts[p] = (got + st["score"], tot + st["max"])
    return [(p, got, tot) for p, (got, tot) in sorted(parts.items())]

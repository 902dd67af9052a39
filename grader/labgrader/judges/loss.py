"""The judge of check loss, part three (lab/steps.h's LAB_CHECK;
docs/grading.md, "Scoring and evidence"): the student's client, against
the reference's server on a wire that loses packets (a pairing of
grader/pairings.tsv with rules), passes every step it passes against
the same server on a clean wire.  RC's promise is that the adapter, not
the program, recovers: what a program can break is its QP's retry
attributes and its own waits, which a clean wire never tests."""
from ..hints import hint
from ..lab import PAIR_TITLE, PAIRINGS, STEP_NAMES
from ..text import num
from ..verbs import QPS_RTS


def clean_passes(checks, roles):
    """The steps the student's side passed in every clean pairing whose
    server and client are played as in roles."""
    return [s for s in STEP_NAMES if all(
        c.ok for p, side, c in checks[s]
        if side == "client" and PAIRINGS[p] == roles)]


def judge_loss(checks, lossy, sides):
    """(passed, evidence lines, hint, judged: the lossy pairing showed
    something, the client's send having passed on a clean wire).
    checks: {step: [(pairing, side, Check)]} of the clean pairings;
    lossy: {pairing: {step: Check}} of the student's client in each
    lossy pairing; sides: {pairing: the student client's Side there}."""
    if not lossy:
        return False, ["  the lossy pairing did not run"], None, False
    ev, first, judged = [], None, True
    for p, res in lossy.items():
        want = clean_passes(checks, PAIRINGS[p])
        clean = [q for q in PAIRINGS if q not in lossy and
                 PAIRINGS[q] == PAIRINGS[p]]
        if "send" not in want:
            ev.append("  not judged: your client's send did not pass on a "
                      "clean wire (%s), so no loss could be recovered"
                      % ", ".join(clean))
            judged = False
            # A retry_cnt of 0 that a late answer on the clean wire
            # showed (late.own_timer) is still this check's to name.
            first = first or rts_hint(sides[p])
            continue
        bad = [s for s in want if not res[s].ok]
        if not bad:
            continue
        ev.append("  %s (%s), your client: passed on a clean wire (%s), "
                  "failed here: %s" % (p, PAIR_TITLE[p], ", ".join(clean),
                                       " ".join(bad)))
        c = res[bad[0]]
        for x in c.exp:
            ev.append("    expected: " + x)
        for x in c.seen:
            ev.append("    seen:     " + x)
        first = first or rts_hint(sides[p]) or c.hint or hint("loss")
    return not ev, ev, first, judged


def rts_hint(S):
    """The hint the kernel's view of the client QP's RTS gives: a
    retry_cnt or a timeout that leaves no recovery (kfacts.c)."""
    rts = [e for e in S.calls("k_modify")
           if num(e.get("state")) == QPS_RTS and e.get("_ret") == "0"]
    if not rts:
        return None
    if num(rts[-1].get("retry_cnt")) == 0:
        return hint("loss_retry")
    if num(rts[-1].get("timeout")) == 0:
        return hint("timeout")
    return None

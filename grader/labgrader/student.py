"""One student: every pairing, both sides, judged into result.json."""
import json
import os

from .evidence.peer import Side, parse_facts
from .evidence.listing import summary
from .evidence.wire import parse_pcap
from .hints import HINTS, hint
from .judges import judge_side
from .judges.loss import judge_loss
from .late import own_timer, retries_ran_out
from .lab import (GRADED, GRADED_CHECKS, PAIRINGS, PAIR_TITLE, PAIR_WIRE,
                  PART, PART_LINE, STEP_NAMES)
from .points import (cause, charge, not_reached, part_totals,
                     step_passed)
from .provenance import pairing_seconds, record
from .starved import (own_seconds, pairing_cpu, prog_timeout, prog_wait,
                      starved_guest, starved_text, stretch_of,
                      stretched_end, timing_shaped)
from .text import num, read
from .verbs import WC_REQUEST_ERRORS


def pcap_summary(path, limit=12):
    lines = summary(path)
    if len(lines) > limit + 1:
        lines = lines[:limit + 1] + ["  ... %d more" % (len(lines) -
                                                         limit - 1)]
    return lines


def pair_failed(p, checks, lossy):
    """Some step of the student's failed in pairing p."""
    if p in lossy:
        return any(not c.ok for c in lossy[p].values())
    return any(not c.ok for s in STEP_NAMES for pp, _, c in checks[s]
               if pp == p)


def failed_on_fact(p, pair, checks):
    """Pairing p failed on a fact no host's speed changes: the first of
    the student's steps that failed in it, in the steps' order, failed
    on one (judges.common.Check.fixed), or a student side's kernel
    completed its request with a status that says what was wrong with it
    (WC_REQUEST_ERRORS).  The waits and the retries that follow are its
    consequences, never the machine's.  Not the reference's completions:
    a student program that a starved wait ended may free its MR before
    its QP, and a request of the reference's in flight then meets a
    remote access error that says nothing of the step that waited."""
    for s in STEP_NAMES:
        failed = [c for pp, _, c in checks[s] if pp == p and not c.ok]
        if failed:
            if any(c.fixed for c in failed):
                return True
            break
    return any(num(e.get("status")) in WC_REQUEST_ERRORS
               for s in ("server", "client") if pair[s].who == "student"
               for e in pair[s].calls("kwc"))


def cut_round(result, cut, standins):
    """A round the guest cut short after a pairing in which the first
    step of the student's own code failed (cut: [pairing, step]): no
    step of the student's own passes in it, since the pairings that
    would have judged them did not run; the next round judges them."""
    after, step = (cut + ["?", "?"])[:2]
    # For the rounds (rounds.py, stalled): where this round stopped.
    result["cut"] = [after, step]
    stood = (standins or "").split()
    for s in STEP_NAMES:
        st = result["steps"].get(s)
        if s in stood or not st:
            continue
        if not st["passed"]:
            if s == step:
                st["evidence"].append(
                    "  the pairings after %s did not run: they could "
                    "judge nothing more of yours in this round" % after)
            continue
        st.update(score=0, passed=False, hint=None, evidence=[
            "  not judged in this round: its pairings stopped after %s, "
            "where your %s failed" % (after, step)])


def own_timer_hints(p, pair, packets, facts, checks):
    """The hint of a step whose status 12 its QP's own timer made, the
    peer having answered (late.own_timer): its cause is connect's code
    (points.CAUSE), not the request the step posted."""
    own = own_timer(p, pair, packets, facts)
    for s in STEP_NAMES:
        for pp, side, c in checks[s]:
            if pp == p and side in own and not c.ok and \
                    pair[side].codes.get(s) == "WC_RETRY_EXC_ERR":
                c.hint = hint(own[side])


def cmd_analyze(resdir, rundir, dest):
    facts = {s: parse_facts(read(os.path.join(rundir, "facts." + s)))
             for s in ("server", "client")}
    result = {"name": os.path.basename(resdir.rstrip("/")), "steps": {},
              "env_error": None, "compile_error": None}
    if os.path.exists(os.path.join(resdir, "compile-failed")):
        result["compile_error"] = read(os.path.join(resdir,
                                                    "compile.log"), 4000)
    env = [read(os.path.join(resdir, "env-error"))] + [
        read(os.path.join(resdir, p, "env-error")) for p in PAIRINGS]
    env = [e.strip() for e in env if e]
    if not os.path.exists(os.path.join(resdir, "done")):
        env.append("the grading run did not finish")
    # checks: the clean pairings' verdicts, which the steps' own rest on;
    # lossy: each lossy pairing's (its wire has rules), which only the
    # check loss reads; sides: the student's client there.
    checks = {s: [] for s in STEP_NAMES}
    lossy, sides, lines_out = {}, {}, []
    cut = None
    for p, roles in PAIRINGS.items():
        pdir = os.path.join(resdir, p)
        # Not run: the guest cut the round short (grader/guest/driver,
        # cut_after): "PAIRING STEP", after which and why.
        mark = read(os.path.join(pdir, "cut"), 200)
        cut = cut or (mark or "").split()
        if result["compile_error"] or not os.path.isdir(pdir) or \
                mark is not None:
            continue
        pair = {s: Side(pdir, s, roles[s]) for s in ("server", "client")}
        pl = (read(os.path.join(resdir, "payload." + p)) or
              "\n0\n").splitlines()
        pair["payload"] = pl + [""] * (3 - len(pl))
        pcap = os.path.join(resdir, p + ".pcap")
        packets = parse_pcap(pcap)
        if packets == [] and any(pair[s].who == "ref" and
                                 pair[s].ok("send") for s in pair if
                                 s != "payload"):
            # A completed SEND crossed the wire: the capture lost it.
            env.append("%s: the capture is empty although the reference's "
                       "SEND completed" % p)
            packets = None
        for side in ("server", "client"):
            if roles[side] != "student":
                continue
            r = judge_side(p, pair, side, facts, packets)
            if PAIR_WIRE[p] != "none":
                lossy[p], sides[p] = r, pair[side]
                continue
            for s in STEP_NAMES:
                checks[s].append((p, side, r[s]))
        lines_out.append((p, pair, packets))
    # A failure that a wait or a silence ended, in a pairing whose guests
    # the host starved of CPU, is the machine's (starved.py).
    cpu = result["guest_cpu"] = pairing_cpu(resdir, rundir, PAIRINGS)
    # For the rounds (rounds.py, stalled): each pairing's longest student
    # run, as on a quiet host.
    result["own_s"] = {}
    stretch = {p: stretch_of(os.path.join(resdir, p))
               for p, _, _ in lines_out}
    for p, pair, _ in lines_out:
        runs = [pair[s].cpu for s in ("server", "client")
                if pair[s].who == "student" and pair[s].cpu]
        if runs:
            result["own_s"][p] = round(max(own_seconds(r, stretch[p])
                                           for r in runs), 2)
    timeout = prog_timeout(rundir)
    for p, pair, packets in lines_out:
        # A student's -t in this pairing: a wait code it printed is
        # believed when its run lasted that long (starved.waited_out).
        wait_s = prog_wait(timeout, stretch[p])
        if p in cpu:
            # For the rounds' cost (rounds.py, run_seconds): a
            # stretched limit ended it.
            cpu[p]["limit"] = stretched_end(pair, wait_s)
        g = starved_guest(cpu[p]) if p in cpu else None
        if not pair_failed(p, checks, lossy):
            continue
        # (A QP pointed at the wrong peer, say, gets no answer however
        # fast the host: seen as an environment error under six busy
        # loops, dgid_own.)
        fact = failed_on_fact(p, pair, checks)
        if g and not fact and timing_shaped(pair, wait_s):
            env.append(starved_text(p, cpu[p], g))
        # A retry count that ran out although the peer had answered, or
        # while a guest waited for a CPU as long as the QP's whole timer
        # budget (late.py); not on a lossy wire, whose drops are the
        # exercise.
        late = retries_ran_out(p, pair, packets, facts, cpu.get(p)) \
            if PAIR_WIRE[p] == "none" and not fact else None
        if late:
            env.append(late)
        elif PAIR_WIRE[p] == "none":
            own_timer_hints(p, pair, packets, facts, checks)
    env = list(dict.fromkeys(env))
    if env:
        result["env_error"] = "; ".join(env)
    # Verdicts and evidence text.
    for s, pts in GRADED:
        if s not in checks:
            continue
        cs = checks[s]
        ok = step_passed(cs)
        if result["compile_error"]:
            ev, hint = ["your program did not compile"], HINTS["compile"]
        else:
            ev, hint = [], None
            unreached = not_reached(cs)
            if unreached:
                # Only where the program stopped: no pairing's lines.
                cs = []
                ev = ["  " + unreached.seen[0]]
            for p, side, c in cs:
                if c.ok:
                    continue
                hint = hint or c.hint
                ev.append("  %s (%s), your %s:" % (p, PAIR_TITLE[p], side))
                for x in c.exp:
                    ev.append("    expected: " + x)
                for x in c.seen:
                    ev.append("    seen:     " + x)
        result["steps"][s] = {"score": pts if ok else 0, "max": pts,
                              "part": PART[s], "passed": ok,
                              "evidence": ev, "hint": hint}
        # A cause in an earlier step's code (rounds.py stands it in,
        # and points.py blames it within the failed step's part).
        earlier = cause(s, hint) if not ok else None
        if earlier:
            result["steps"][s]["cause"] = earlier
            check = charge(hint)
            if check:
                result["steps"][s]["charge"] = check
    if cut:
        cut_round(result, cut, read(os.path.join(resdir, "standins")))
    for s, pts in GRADED_CHECKS:
        # The checks: loss, part three's (judges/loss.py).
        if result["compile_error"]:
            ok, ev, hint, judged = False, [
                "your program did not compile"], HINTS["compile"], False
        else:
            ok, ev, hint, judged = judge_loss(checks, lossy, sides)
        result["steps"][s] = {"score": pts if ok else 0, "max": pts,
                              "part": PART[s], "passed": ok,
                              "evidence": ev, "hint": None if ok else hint,
                              "judged": judged}
    # Student's own lines, marked by the evidence of their own pairing and
    # side (a client that worked in p2 is not blamed for its server), and
    # the wire of failed pairings.
    verdict = {(p, side, s): c.ok for s in STEP_NAMES
               for p, side, c in checks[s]}
    verdict.update({(p, "client", s): c.ok for p, r in lossy.items()
                    for s, c in r.items()})
    own = []
    for p, pair, _ in lines_out:
        for side in ("server", "client"):
            S = pair[side]
            if S.who != "student":
                continue
            why = S.limit or S.note or S.idle
            own.append("  %s, your %s (exit status %s%s):" % (
                p, side, S.rc, ", " + why if why else ""))
            for s in STEP_NAMES:
                st = result["steps"][s]
                if S.ok(s):
                    good = verdict.get((p, side, s), st["passed"])
                    mark = "GOOD   " if good else "BAD    "
                    own.append("    %s%s" % (mark, S.line(s)[2][:160]))
                elif S.fails.get(s):
                    own.append("    BAD     lab %s FAIL: %s" % (
                        s, S.fails[s][:140]))
                    if S.hints.get(s):
                        own.append("            lab %s hint: %s" % (
                            s, S.hints[s][:140]))
                else:
                    own.append("    MISSING lab %s ok" % s)
    result["own_lines"] = own
    wire = {}
    for p, pair, _ in lines_out:
        if pair_failed(p, checks, lossy):
            wire[p] = pcap_summary(os.path.join(resdir, p + ".pcap"))
    result["wire"] = wire
    # "score"/"max_score": the core (part 1), as before parts existed;
    # "parts": every part graded, the core included.
    result["parts"] = {str(p): {"title": PART_LINE.get(p, "Part %d" % p),
                                "score": got, "max": tot}
                       for p, got, tot in part_totals(result)}
    result["score"] = result["parts"]["1"]["score"]
    result["max_score"] = result["parts"]["1"]["max"]
    # Which grader judged which source when (a round's folder has no
    # source of its own: merge-rounds records the student's).
    result["graded"] = record(dest)
    result["seconds"] = pairing_seconds(resdir, PAIRINGS)
    os.makedirs(dest, exist_ok=True)
    tmp = os.path.join(dest, "result.json.tmp")
    with open(tmp, "w") as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, os.path.join(dest, "result.json"))
    return 0

"""The judge of step teardown (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import KINDS, created, leaks
from ..hints import HINTS
from .registry import judge


@judge("teardown")
def judge_teardown(ev, c):
    """Every object destroyed, with 0, in a valid order."""
    S, tr = ev.S, ev.tr
    if S.timed_out() or S.note:
        pass  # killed: judged in the other pairings
    elif not any(e["_fn"] == "ibv_open_device" and created(e["_ret"])
                 for e in tr):
        if c.ok:
            c.bad("a device opened and closed", "no device opened",
                  HINTS["teardown_line"])
    else:
        # Closing a device is not the step: its points are for releasing
        # what the program made (a program that only opened and closed
        # the device once earned them).  When an earlier step made
        # nothing, the round that stands in for it judges this step on
        # the objects the stand-in made (rounds.py).
        made = sorted({KINDS[e["_fn"]] for e in tr if e["_fn"] in KINDS and
                       KINDS[e["_fn"]] not in ("device", "device list") and
                       created(e["_ret"])})
        if not made:
            c.bad("the PD, channel, CQ, MRs and QP your program created, "
                  "destroyed", "nothing created but the device",
                  HINTS["teardown_nothing"])
        live, order_bad = leaks(tr)
        # A device closed before objects that were never destroyed at all
        # is a leak, not an order: no destroy failed or came late.
        if live and all(x.startswith("ibv_close_device with ")
                        for x in order_bad):
            c.hint = c.hint or HINTS["teardown_leak"]
        if order_bad:
            c.bad("every destroy returns 0, in reverse order of creation",
                  "; ".join(order_bad[:3]), HINTS["teardown_order"])
        if live:
            c.bad("no verbs object left", "never destroyed: " + ", ".join(
                "%s %s" % (v[0], p) for p, v in live.items()),
                HINTS["teardown_leak"])

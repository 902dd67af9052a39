"""The judge of step teardown (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import created, leaks
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
        live, order_bad = leaks(tr)
        if order_bad:
            c.bad("every destroy returns 0, in reverse order of creation",
                  "; ".join(order_bad[:3]), HINTS["teardown_order"])
        if live:
            c.bad("no verbs object left", "never destroyed: " + ", ".join(
                "%s %s" % (v[0], p) for p, v in live.items()),
                HINTS["teardown_leak"])

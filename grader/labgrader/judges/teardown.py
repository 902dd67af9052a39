"""The judge of step teardown (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import KINDS, KMADE, created, kleaks, kmade, leaks
from ..hints import hint
from .registry import judge

# What the kernel does not hold as an object of the uverbs interface that
# a program destroys by a verbs call: the device list is the program's
# own memory, a channel and a device are its files.  Their leaks are read
# from the program's calls into libibverbs, and can only cost points:
# the points rest on the kernel's PD, CQ, MR and QP (kfacts.c).
USER_KINDS = ("device list", "device", "channel")
USER_DESTROYS = ("ibv_free_device_list", "ibv_close_device",
                 "ibv_destroy_comp_channel")


@judge("teardown")
def judge_teardown(ev, c):
    """Every object destroyed by the program, as the kernel saw it, with
    0, in a valid order."""
    S, tr = ev.S, ev.tr
    if S.timed_out() or S.note:
        pass  # killed: judged in the other pairings
    elif not any(e["_fn"] == "ibv_open_device" and created(e["_ret"])
                 for e in tr):
        if c.ok:
            c.bad("a device opened and closed", "no device opened",
                  hint("teardown_line"))
    else:
        # Closing a device is not the step: its points are for releasing
        # what the program made (a program that only opened and closed
        # the device once earned them).  When an earlier step made
        # nothing, the round that stands in for it judges this step on
        # the objects the stand-in made (rounds.py).  Made and destroyed
        # are the kernel's record: a create or destroy call the kernel
        # never saw did nothing.
        made = sorted({KMADE[e["_fn"]] for e in tr
                       if e["_fn"] in KMADE and kmade(e)})
        if not made:
            c.bad("the PD, channel, CQ, MRs and QP your program created, "
                  "destroyed", "nothing created in the kernel but the "
                  "device", hint("teardown_nothing"))
        live, order_bad = kleaks(tr)
        ulive, uorder = leaks([e for e in tr if KINDS.get(e["_fn"]) in
                               USER_KINDS or e["_fn"] in USER_DESTROYS])
        live.update(ulive)
        # A device closed before objects that were never destroyed at all
        # is a leak, not an order: no destroy failed or came late.  The
        # kernel destroys what is left when the device's file closes: a
        # leak.
        if live and not order_bad and all(
                x.startswith("ibv_close_device with ") for x in uorder):
            c.hint = c.hint or hint("teardown_leak")
        order_bad += uorder
        if order_bad:
            c.bad("every destroy returns 0, in reverse order of creation",
                  "; ".join(order_bad[:3]), hint("teardown_order"))
        if live:
            c.bad("no verbs object left", "never destroyed: " + ", ".join(
                "%s %s" % (v[0], p) for p, v in live.items()),
                hint("teardown_leak"))

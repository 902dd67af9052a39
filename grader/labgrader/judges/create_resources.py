"""The judge of step create_resources (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import created, kmade
from ..hints import hint
from ..lab import BUF_SIZE
from ..text import num
from ..verbs import ACCESS_REMOTE_WRITE, QPT_RC
from .registry import judge


@judge("create_resources")
def judge_create_resources(ev, c):
    """The objects exist in the kernel, with the access later steps need:
    the kernel's record of each (grader/guest/kfacts.c), never the program's
    calls (a call the kernel never saw made nothing): facts (fixed)."""
    S, side, qps, mrs = ev.S, ev.side, ev.qps, ev.mrs
    cqs = S.calls("k_cq", kmade)
    if S.ok("create_resources"):
        missing = [n for n, fn in (("PD", "k_pd"), ("CQ", "k_cq"))
                   if not S.calls(fn, kmade)]
        if not qps or num(qps[-1].get("type")) != QPT_RC:
            missing.append("RC QP")
        if not mrs:
            missing.append("MR")
        if missing:
            c.bad("PD, channel, CQ, MR, RC QP created (in the kernel)",
                  "not created: " + ", ".join(missing), hint("objects"),
                  fixed=True)
        short = short_mrs(S, mrs)
        if short:
            c.bad("the MR at each buffer covering it (%d bytes at %s)" %
                  (short[0][2], short[0][0]), "the kernel's MR there: %d "
                  "bytes" % short[0][1], hint("mr_len"), fixed=True)
        if side == "server" and not any(
                num(m.get("access"), 0) & ACCESS_REMOTE_WRITE
                for m in mrs):
            c.bad("an MR with access LOCAL_WRITE|REMOTE_WRITE (0x3)",
                  "MR access: " + ", ".join(
                      m.get("access", "?") for m in mrs),
                  hint("mr_remote"), fixed=True)
        # The kernel gives a CQ made on a completion channel that
        # channel's event queue as its context (ib_cq.cq_context).
        if cqs and off_channel(cqs):
            c.bad("ibv_create_cq() on the completion channel",
                  "the kernel's CQ has no completion channel",
                  hint("cq_channel"))
    # Also when the step failed (the scaffolding refuses such a CQ): the
    # hint, when the program made a channel (its call, a hint's evidence)
    # and no CQ of the kernel's is on one.
    elif cqs and off_channel(cqs) and S.calls(
            "ibv_create_comp_channel", lambda e: created(e["_ret"])):
        c.bad("ibv_create_cq() on the completion channel",
              "the kernel's CQ has no completion channel",
              hint("cq_channel"))


def off_channel(cqs):
    """No CQ of the kernel's is on a completion channel."""
    return not any(num(e.get("ch"), 0) for e in cqs)


def short_mrs(S, mrs):
    """[(address, MR length, buffer length)] of the kernel's MRs that
    start at the program's buffer (ctx->buf, as its create_resources line
    gives it) and end before the buffer does.  Other MRs (a program's own
    extra ones) are not the lab's buffer."""
    addr = S.val("create_resources", "buf")
    a = num(addr, -1)
    return [(addr, num(m.get("len"), 0), BUF_SIZE) for m in mrs
            if a > 0 and num(m.get("start"), -2) == a and
            num(m.get("len"), 0) < BUF_SIZE]

"""The judge of step create_resources (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import kmade
from ..hints import HINTS
from ..text import num
from ..verbs import ACCESS_REMOTE_WRITE, QPT_RC
from .registry import judge


@judge("create_resources")
def judge_create_resources(ev, c):
    """The objects exist in the kernel, with the access later steps need:
    the kernel's record of each (vm/grader/kfacts.c), never the program's
    calls (a call the kernel never saw made nothing)."""
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
                  "not created: " + ", ".join(missing), HINTS["objects"])
        if side == "server" and not any(
                num(m.get("access"), 0) & ACCESS_REMOTE_WRITE
                for m in mrs):
            c.bad("an MR with access LOCAL_WRITE|REMOTE_WRITE (0x3)",
                  "MR access: " + ", ".join(
                      m.get("access", "?") for m in mrs),
                  HINTS["mr_remote"])

    # Also when the step failed: the scaffolding refuses such a CQ.  The
    # kernel gives a CQ made on a completion channel that channel's event
    # queue as its context (ib_cq.cq_context); without one, none.
    if cqs and not any(num(e.get("ch"), 0) for e in cqs):
        c.bad("ibv_create_cq() on the completion channel",
              "the kernel's CQ has no completion channel",
              HINTS["cq_channel"])

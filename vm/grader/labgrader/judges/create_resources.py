"""The judge of step create_resources (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import created
from ..hints import HINTS
from ..text import num
from ..verbs import ACCESS_REMOTE_WRITE, QPT_RC
from .registry import judge


@judge("create_resources")
def judge_create_resources(ev, c):
    """The objects exist, with the access later steps need."""
    S, side, qps, mrs = ev.S, ev.side, ev.qps, ev.mrs
    if S.ok("create_resources"):
        missing = [n for n, fn in (("PD", "ibv_alloc_pd"),
                                   ("CQ", "ibv_create_cq"),
                                   ("channel", "ibv_create_comp_channel"))
                   if not S.calls(fn, lambda e: created(e["_ret"]))]
        if not qps or num(qps[-1].get("type")) != QPT_RC:
            missing.append("RC QP")
        if not mrs:
            missing.append("MR")
        if missing:
            c.bad("PD, channel, CQ, MR, RC QP created",
                  "not created: " + ", ".join(missing), HINTS["objects"])
        if side == "server" and not any(
                num(m.get("access"), 0) & ACCESS_REMOTE_WRITE
                for m in mrs):
            c.bad("an MR with access LOCAL_WRITE|REMOTE_WRITE (0x3)",
                  "MR access: " + ", ".join(
                      m.get("access", "?") for m in mrs),
                  HINTS["mr_remote"])

    # Also when the step failed: the scaffolding refuses such a CQ.
    chans = {e["_ret"] for e in S.calls(
        "ibv_create_comp_channel", lambda e: created(e["_ret"]))}
    cqs = S.calls("ibv_create_cq", lambda e: created(e["_ret"]))
    if chans and cqs and not any(e.get("ch") in chans for e in cqs):
        c.bad("ibv_create_cq() on the completion channel",
              "ibv_create_cq(ch=%s)" % cqs[-1].get("ch"),
              HINTS["cq_channel"])

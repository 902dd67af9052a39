"""The judge of step qp_to_init (docs/grading.md, "Scoring and
evidence")."""
from ..hints import HINTS
from ..text import num
from ..verbs import ACCESS_REMOTE_WRITE
from .registry import judge


@judge("qp_to_init")
def judge_qp_to_init(ev, c):
    """The traced INIT transition; REMOTE_WRITE on the server's QP."""
    S, side, init = ev.S, ev.side, ev.init
    if S.ok("qp_to_init"):
        good = [e for e in init if e["_ret"] == "0"]
        if not good:
            c.bad("ibv_modify_qp(INIT) = 0", "no successful INIT "
                  "transition", HINTS["init"])
        elif side == "server" and not num(good[-1].get("access"),
                                         0) & ACCESS_REMOTE_WRITE:
            c.bad("qp_access_flags with IBV_ACCESS_REMOTE_WRITE (0x2)",
                  "qp_access_flags=%s" % good[-1].get("access"),
                  HINTS["qp_remote"])

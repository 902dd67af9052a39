"""The judge of step qp_to_init (docs/grading.md, "Scoring and
evidence")."""
from ..hints import hint
from ..text import num
from ..verbs import ACCESS_REMOTE_WRITE
from .registry import judge


@judge("qp_to_init")
def judge_qp_to_init(ev, c):
    """The traced INIT transition: a P_Key index of the port's table;
    REMOTE_WRITE on the server's QP: the kernel's record, facts
    (fixed)."""
    S, side, init, pkeys = ev.S, ev.side, ev.init, ev.me["pkeys"]
    if S.ok("qp_to_init"):
        good = [e for e in init if e["_ret"] == "0"]
        index = num(good[-1].get("pkey_index"), 0) if good else 0
        if not good:
            c.bad("ibv_modify_qp(INIT) = 0", "no successful INIT "
                  "transition", hint("init"), fixed=True)
        elif pkeys is not None and not pkeys.get(index):
            # rxe takes any index below max_pkeys; an adapter refuses
            # one its table does not hold.
            c.bad("pkey_index of an entry of the port's P_Key table (%s)"
                  % ", ".join("%d: 0x%04x" % p for p in sorted(
                      pkeys.items())),
                  "pkey_index=%d" % index, hint("pkey"), fixed=True)
        elif side == "server" and not num(good[-1].get("access"),
                                         0) & ACCESS_REMOTE_WRITE:
            c.bad("qp_access_flags with IBV_ACCESS_REMOTE_WRITE (0x2)",
                  "qp_access_flags=%s" % good[-1].get("access"),
                  hint("qp_remote"), fixed=True)

"""The judge of step exchange (docs/grading.md, "Scoring and
evidence")."""
from ..hints import hint
from ..text import num
from ..verbs import ACCESS_REMOTE_WRITE
from .causes import exch_hint
from .registry import judge


@judge("exchange")
def judge_exchange(ev, c):
    """What the peer received is this side's real QP, MR, GID: the
    reference's record of the values it received, facts (fixed)."""
    S, P, side, me, mrs, rtr = ev.S, ev.P, ev.side, ev.me, ev.mrs, ev.rtr
    qpn = ev.qpn
    if S.ok("exchange") and P.who == "ref" and not P.ok("exchange"):
        why = P.fails.get("exchange", "no exchange line")
        h = hint("exch_mtu") if P.failed("exchange", "EXCH_MTU") \
            else hint("exch_bad")
        c.bad("the reference accepts your exchange message",
              "reference: " + why, h)
    elif S.ok("exchange") and P.who == "ref":
        got = P.line("exchange")[1]
        if qpn is not None and num(got.get("remote_qpn")) != qpn:
            c.bad("remote_qpn=0x%06x (your QP)" % qpn,
                  "reference received remote_qpn=%s" %
                  got.get("remote_qpn"), exch_hint(
                      "QPN", num(got.get("remote_qpn")), qpn,
                      hint("exch_qpn")), fixed=True)
        if side == "server":
            tgt = [m for m in mrs if num(m.get("access"), 0) &
                   ACCESS_REMOTE_WRITE] or mrs
            addr = num(got.get("remote_addr"))
            rkey = num(got.get("remote_rkey"))
            if tgt and not any(num(m["addr"]) <= (addr or -1) <
                               num(m["addr"]) + num(m["len"])
                               for m in tgt):
                c.bad("remote_addr=%s (your MR)" % tgt[0]["addr"],
                      "reference received remote_addr=%s" %
                      got.get("remote_addr"), exch_hint(
                          "address", addr, num(tgt[0]["addr"]),
                          hint("exch_addr")), fixed=True)
            if tgt and rkey not in [num(m.get("rkey")) for m in tgt]:
                c.bad("remote_rkey=%s" % tgt[0].get("rkey"),
                      "reference received remote_rkey=%s" %
                      got.get("remote_rkey"), exch_hint(
                          "rkey", rkey, num(tgt[0].get("rkey")),
                          hint("exch_addr")), fixed=True)
        # The kernel has an SGID index only for an RTR with a GRH.
        idx = num(rtr[-1].get("sgid_idx")) if rtr and num(
            rtr[-1].get("is_global")) else num(
            S.val("open_device", "gid_idx"))
        gid = me["gids"].get(idx, ("?", ""))[0]
        if got.get("remote_gid") != gid:
            c.bad("remote_gid=%s" % gid, "reference received remote_gid"
                  "=%s" % got.get("remote_gid"), hint("exch_gid"),
                  fixed=True)
        if num(got.get("remote_mtu")) != me["mtu"]:
            c.bad("remote_mtu=%d" % me["mtu"], "reference received "
                  "remote_mtu=%s" % got.get("remote_mtu"),
                  hint("exch_mtu"), fixed=True)

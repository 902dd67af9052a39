"""The judge of step connect (docs/grading.md, "Scoring and
evidence")."""
from ..hints import hint
from ..text import num
from ..verbs import OP_ACK, OP_RESPONSE
from .registry import judge


@judge("connect")
def judge_connect(ev, c):
    """RTR/RTS towards the peer's real values; ACKs on the wire.  The
    QP's attributes as the kernel applied them are facts (fixed): a QP
    pointed elsewhere gets no answer at any host's speed."""
    S, P, me, peer, ip, rtr = ev.S, ev.P, ev.me, ev.peer, ev.ip, ev.rtr
    rts, qpn, packets = ev.rts, ev.qpn, ev.packets
    if S.ok("connect") or (rtr and S.ok("exchange")):
        r = [e for e in rtr if e["_ret"] == "0"]
        t = [e for e in rts if e["_ret"] == "0"]
        pqpn = num(P.val("create_resources", "qpn"))
        ppsn = num(P.val("exchange", "local_psn"))
        mypsn = num(P.val("exchange", "remote_psn"))
        if rtr:
            e = r[-1] if r else rtr[-1]
            if not num(e.get("is_global")):
                c.bad("ah_attr.is_global=1 (GRH)", "is_global=0",
                      hint("grh"), fixed=True)
            # enum ibv_mtu: IBV_MTU_256 (1) .. IBV_MTU_4096 (5), 128 << it
            # bytes; any other value is printed as it is, never shifted (a
            # raw 1024 made a 300-digit number).
            raw = num(e.get("path_mtu"), 0)
            lim = min(me["mtu"], peer["mtu"])
            if not 1 <= raw <= 5:
                want = lim.bit_length() - 8
                c.bad("path_mtu=IBV_MTU_%d (%d), an enum ibv_mtu" %
                      (lim, want), "path_mtu=%s, no enum ibv_mtu value%s" % (
                          e.get("path_mtu"), " (bytes, not the enum?)"
                          if raw in (256, 512, 1024, 2048, 4096) else ""),
                      hint("mtu_enum", lim, want), fixed=True)
            elif 128 << raw > lim:
                c.bad("path_mtu <= %d" % lim, "path_mtu=%d" % (128 << raw),
                      hint("mtu"), fixed=True)
            if pqpn is not None and num(e.get("dest_qpn")) != pqpn:
                c.bad("dest_qpn=0x%06x" % pqpn, "dest_qpn=%s" %
                      e.get("dest_qpn"), hint("qpn"), fixed=True)
            if ppsn is not None and num(e.get("rq_psn")) != ppsn:
                c.bad("rq_psn=0x%06x (the peer's PSN)" % ppsn,
                      "rq_psn=%s" % e.get("rq_psn"), hint("psn"),
                      fixed=True)
            pgids = {g for g, t in peer["gids"].values()
                     if t == "RoCE v2" and
                     g.startswith("0000:0000:0000:0000:0000:ffff:")}
            if num(e.get("is_global")) and pgids and \
                    e.get("dgid") not in pgids:
                c.bad("grh.dgid=%s (the peer's GID)" % sorted(pgids)[0],
                      "grh.dgid=%s" % e.get("dgid"), hint("dgid"),
                      fixed=True)
            if num(e.get("is_global")) and num(e.get("hop_limit")) == 0:
                c.bad("grh.hop_limit >= 1", "grh.hop_limit=0",
                      hint("hop_limit"), fixed=True)
        if not r:
            c.bad("ibv_modify_qp(RTR) = 0", "RTR: " + (
                "returned " + rtr[-1]["_ret"] if rtr else "never called"),
                hint("rtr"), fixed=bool(rtr))
        if not t and r:
            c.bad("ibv_modify_qp(RTS) = 0", "RTS: " + (
                "returned " + rts[-1]["_ret"] if rts else "never called"),
                hint("rtr"), fixed=bool(rts))
        elif t and mypsn is not None and num(t[-1].get("sq_psn")) != mypsn:
            c.bad("sq_psn=0x%06x (what you advertised)" % mypsn,
                  "sq_psn=%s" % t[-1].get("sq_psn"), hint("psn"),
                  fixed=True)
        if t and num(t[-1].get("mask"), 0) & 0x200 and \
                num(t[-1].get("timeout")) == 0:
            c.bad("timeout between 1 and 31 (an ACK wait with a bound)",
                  "timeout=0 (wait forever)", hint("timeout"), fixed=True)
        if packets and ip and qpn is not None:
            # READ responses and atomic ACKs come to the client's QP too;
            # only requests call for an ACK.
            reqs = [x for x in packets if x["qp"] == qpn and
                    x["dst"] == ip and x["op"] not in OP_RESPONSE]
            acks = [x for x in packets if x["src"] == ip and
                    x["aeth"] is not None]
            # Unanswered requests blame the set-up only when the
            # program was there to answer (a crash's QP may be gone
            # before the first request, or not: timing).
            if reqs and not acks and not S.left_early():
                c.bad("ACKs from your QP 0x%06x" % qpn,
                      "%d requests to it, no ACK" % len(reqs),
                      hint("psn") if r and num(r[-1].get("rq_psn")) !=
                      ppsn else hint("rtr"))
            big = [x for x in packets if x["src"] == ip and
                   x["op"] != OP_ACK and x["len"] > min(me["mtu"],
                                                        peer["mtu"])]
            if big:
                c.bad("payload <= %d bytes per packet" %
                      min(me["mtu"], peer["mtu"]),
                      "frame %d carries %d bytes" % (big[0]["frame"],
                                                     big[0]["len"]),
                      hint("mtu"))

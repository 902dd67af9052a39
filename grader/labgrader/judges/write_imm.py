"""The judge of step write_imm (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import good_wcs
from ..evidence.peer import mr_of
from ..hints import hint
from ..text import num
from ..verbs import WC_RECV_RDMA_WITH_IMM, WR_WRITE_IMM
from .causes import order_hint, posted_imm
from .registry import judge


def good_writes(ev):
    """The client's WRITEs with immediate of the message, with the
    immediate, into an MR of the server, acknowledged."""
    return [m for m in ev.delivered("write_imm", ev.bmsg, ev.imm)
            if m["reth"] and mr_of(ev.srv_mrs, m["reth"][0], m["reth"][1],
                                   len(ev.bmsg))]


@judge("write_imm", side="server")
def server(ev, c):
    """Printed the message and the immediate, and took the receive
    completion that carries them; three receives posted before the
    barrier."""
    S, wire, msg, imm = ev.S, ev.wire, ev.msg, ev.imm
    good = good_writes(ev)
    wcs = good_wcs(ev.tr, WC_RECV_RDMA_WITH_IMM, ev.jqpn)
    if S.ok("write_imm"):
        got = num(S.val("write_imm", "imm"))
        text = S.val("write_imm", "received") or ""
        if text != msg:
            # Read before the data came: no completion, the WRITE payload
            # still there, or a length not the completion's (the line shows
            # the buffer as it is when printed, the length as taken).
            old = bool(text) and ev.wmsg.startswith(text[:64])
            early = not wcs or old or num(S.val("write_imm", "len")) not in [
                num(e.get("byte_len")) for e in wcs]
            c.bad("received the %d-byte message in your buffer" % len(msg),
                  "received %s bytes, other bytes%s" % (
                      S.val("write_imm", "len"),
                      " (the write step's)" if old else ""),
                  hint("wimm_wait") if early else hint("write_data"))
        if got != imm:
            c.bad("imm=0x%08x" % imm, "imm=%s" % S.val("write_imm", "imm"),
                  order_hint("recv", got, imm) or hint("wimm_wait"))
        # The message and the immediate were received before (send,
        # send_imm): only the completion shows that this step got them.
        mine = [e for e in wcs if num(e.get("byte_len")) == len(msg) and
                num(e.get("imm"), imm) == imm]
        if not mine:
            c.bad("the receive completion of the WRITE with immediate "
                  "polled (IBV_WC_RECV_RDMA_WITH_IMM, byte_len=%d, "
                  "imm=0x%08x)" % (len(msg), imm),
                  "none in your trace" if not wcs else
                  "byte_len=%s imm=%s" % (wcs[0].get("byte_len"),
                                          wcs[0].get("imm")),
                  hint("wimm_wait"))
        if wire and not good:
            ev.no_wire(c, "a WRITE with immediate of the %d-byte message "
                       "to your MR" % len(msg), "write_imm")
    if S.reached("write_imm"):
        ev.receive_race(c, "write_imm", 3)


@judge("write_imm", side="client")
def client(ev, c):
    """An RDMA WRITE with the immediate in network order into the
    server's MR, acknowledged; the reference received both."""
    S, P, wire, msg, imm = ev.S, ev.P, ev.wire, ev.msg, ev.imm
    good = good_writes(ev)
    sent = [m for m in ev.msgs if m["kind"] == "write_imm"]
    want = "an RDMA WRITE with immediate 0x%08x of the %d-byte message to " \
        "the server's MR, acknowledged" % (imm, len(msg))
    if S.ok("write_imm") and wire and not good:
        m = sent[0] if sent else None
        if m is None:
            c.bad(want, "no WRITE with immediate from you (kinds: %s)" %
                  (", ".join(x["kind"] or "?" for x in ev.msgs) or
                   "none"), hint("wimm_opcode"))
        elif m["imm"] != imm:
            c.bad(want, "immediate 0x%08x on the wire" % m["imm"],
                  order_hint("send", m["imm"], imm) or
                  hint("wimm_opcode"), fixed=True)
        elif not m["reth"] or not mr_of(ev.srv_mrs, m["reth"][0],
                                        m["reth"][1]):
            c.bad(want, "RETH va=0x%x rkey=0x%x: not the server's MR" %
                  m["reth"][:2] if m["reth"] else "no RETH",
                  hint("rkey"), fixed=True)
        else:
            ev.no_wire(c, "a WRITE with immediate of the %d-byte "
                       "message" % len(msg), "write_imm")
    if P.who == "ref" and S.ok("write_imm") and (
            P.val("write_imm", "received") != msg or
            num(P.val("write_imm", "imm")) != imm):
        pimm = num(P.val("write_imm", "imm"))
        c.bad("the reference received the message with imm=0x%08x" %
              imm, "reference: " + (P.fails.get("write_imm") or
                                    "imm=%s" % P.val("write_imm", "imm")),
              order_hint("send", pimm, imm) or hint("wimm_opcode"))
    if not S.ok("write_imm") and S.failed("write_imm", "IMM_ORDER"):
        c.hint = order_hint("send", posted_imm(ev, WR_WRITE_IMM), imm) or \
            hint("imm_htonl")
    elif not S.ok("write_imm") and S.failed("write_imm", "NO_WR"):
        c.hint = hint("wimm_opcode")

"""The judge of step send_imm (docs/grading.md, "Scoring and evidence"):
the message and its immediate, in network order."""
from ..hints import hint
from ..text import num
from ..verbs import OP_SEND, OP_SEND_IMM, WR_SEND_IMM
from .causes import order_hint, posted_imm
from .registry import judge


@judge("send_imm", side="server")
def server(ev, c):
    """Printed the message and the immediate, which the wire carried; two
    receives posted before the barrier."""
    S, msg, imm = ev.S, ev.msg, ev.imm
    if S.ok("send_imm"):
        got = num(S.val("send_imm", "imm"))
        if S.val("send_imm", "received") != msg:
            c.bad("received the %d-byte message" % len(msg),
                  "received other bytes", hint("send_data"))
        if got != imm:
            c.bad("imm=0x%08x" % imm, "imm=%s" % S.val("send_imm",
                                                      "imm"),
                  order_hint("recv", got, imm) or hint("imm_flag"))
        if ev.wire and not ev.delivered("send_imm", ev.bmsg, imm):
            ev.no_wire(c, "a SEND with immediate 0x%08x" % imm,
                       "send_imm")
    elif S.failed("send_imm", "NO_IMM"):
        c.hint = hint("imm_flag")
    ev.receive_race(c, "send_imm", 2)


@judge("send_imm", side="client")
def client(ev, c):
    """A SEND with the immediate in network order on the wire; the
    reference received both."""
    S, P, msg, imm, wire = ev.S, ev.P, ev.msg, ev.imm, ev.wire
    ops = ev.wire_ops(ev.ip, OP_SEND)
    imms = [x for x in ops if x["op"] in OP_SEND_IMM]
    if wire and S.ok("send") and not imms:
        c.bad("SEND with immediate (opcode 3/5) on the wire",
              "no SEND with immediate from you (opcodes: %s)" %
              ",".join(str(x["op"]) for x in ops) if ops else
              "no SEND with immediate", hint("opcode"))
    elif imms and imms[0]["imm"] != imm:
        c.bad("immediate 0x%08x on the wire" % imm,
              "immediate 0x%08x on the wire (frame %d)" %
              (imms[0]["imm"], imms[0]["frame"]),
              order_hint("send", imms[0]["imm"], imm) or
              hint("send_data"), fixed=True)
    elif S.ok("send_imm") and wire and \
            not ev.delivered("send_imm", ev.bmsg, imm):
        ev.no_wire(c, "a SEND with immediate of the %d-byte message" %
                   len(msg), "send_imm")
    pimm = num(P.val("send_imm", "imm"))
    if P.who == "ref" and S.ok("send_imm") and (
            P.val("send_imm", "received") != msg or pimm != imm):
        pf = P.fails.get("send_imm") or ""
        c.bad("the reference received the message with imm=0x%08x" %
              imm, "reference: " + (pf or "imm=%s" % P.val(
                  "send_imm", "imm")),
              hint("opcode") if P.failed("send_imm", "NO_IMM") else
              order_hint("send", pimm, imm) or hint("send_data"))
    if not S.ok("send_imm") and S.failed("send_imm", "IMM_ORDER"):
        c.hint = order_hint("send", posted_imm(ev, WR_SEND_IMM), imm) or \
            hint("imm_htonl")
    if not S.ok("send_imm") and S.failed("send_imm", "NO_WR"):
        c.hint = hint("opcode")

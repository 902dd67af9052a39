"""The judge of step send (docs/grading.md, "Scoring and evidence"): the
message on the wire, acknowledged; received on time."""
from ..hints import hint
from ..verbs import OP_SEND
from .registry import judge


@judge("send", side="server")
def server(ev, c):
    """Printed the message, which the wire carried; its receive was
    posted before the barrier."""
    S, P, msg, bmsg = ev.S, ev.P, ev.msg, ev.bmsg
    if S.ok("send") and S.val("send", "received") != msg:
        got = S.val("send", "received") or ""
        c.bad("received=%d random bytes" % len(msg),
              "received %d bytes%s" % (len(got), ", different" if
                                       got else ""), hint("send_data"))
    if S.ok("send") and ev.wire and not ev.delivered("send", bmsg):
        ev.no_wire(c, "a SEND of the %d-byte message" % len(msg), "send")
    ev.receive_race(c, "send", 1)
    if not S.ok("send") and c.hint is None and \
            P.failed("send", "WC_RNR_RETRY_EXC_ERR"):
        c.hint = hint("rnr")


@judge("send", side="client")
def client(ev, c):
    """The reference received the message; the wire carried it, its
    first packet a SEND FIRST or ONLY."""
    S, P, msg, bmsg = ev.S, ev.P, ev.msg, ev.bmsg
    ops = ev.wire_ops(ev.ip, OP_SEND)
    if S.ok("send") and P.who == "ref" and \
            P.val("send", "received") != msg:
        c.bad("the reference received the %d-byte message" % len(msg),
              "reference: " + (P.fails.get("send") or
                               "received other bytes"),
              hint("opcode") if P.failed("send", "WRONG_COMPLETION")
              else hint("send_data"))
    if S.ok("send") and ev.wire and ops and ops[0]["op"] not in (0, 4):
        c.bad("SEND FIRST/ONLY (opcode 0/4)", "first SEND packet "
              "opcode %d" % ops[0]["op"], hint("opcode"))
    elif S.ok("send") and ev.wire and not ev.delivered("send", bmsg):
        ev.no_wire(c, "a SEND of the %d-byte message" % len(msg), "send")

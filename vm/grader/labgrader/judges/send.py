"""The judge of step send (docs/grading.md, "Scoring and
evidence")."""
from ..hints import HINTS
from ..verbs import OP_SEND


def judge_send(ev, c):
    """The message on the wire, acknowledged; received on time."""
    S, P, side, ip, msg, bmsg = ev.S, ev.P, ev.side, ev.ip, ev.msg, ev.bmsg
    wire, wire_ops, delivered = ev.wire, ev.wire_ops, ev.delivered
    no_wire, receive_race = ev.no_wire, ev.receive_race
    if side == "server":
        if S.ok("send") and S.val("send", "received") != msg:
            got = S.val("send", "received") or ""
            c.bad("received=%d random bytes" % len(msg),
                  "received %d bytes%s" % (len(got), ", different" if
                                           got else ""), HINTS["send_data"])
        if S.ok("send") and wire and not delivered("send", bmsg):
            no_wire(c, "a SEND of the %d-byte message" % len(msg), "send")
        receive_race(c, "send", 1)
        if not S.ok("send") and c.hint is None and "RNR" in (
                P.fails.get("send") or "") + (P.hints.get("send") or ""):
            c.hint = HINTS["rnr"]
    else:
        ops = wire_ops(ip, OP_SEND)
        if S.ok("send") and P.who == "ref" and \
                P.val("send", "received") != msg:
            c.bad("the reference received the %d-byte message" % len(msg),
                  "reference: " + (P.fails.get("send") or
                                   "received other bytes"),
                  HINTS["opcode"] if "slot" in (P.fails.get("send") or "")
                  else HINTS["send_data"])
        if S.ok("send") and wire and ops and ops[0]["op"] not in (0, 4):
            c.bad("SEND FIRST/ONLY (opcode 0/4)", "first SEND packet "
                  "opcode %d" % ops[0]["op"], HINTS["opcode"])
        elif S.ok("send") and wire and not delivered("send", bmsg):
            no_wire(c, "a SEND of the %d-byte message" % len(msg), "send")

"""The judge of step write (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import write_done_early
from ..evidence.peer import write_received
from ..hints import hint
from ..text import num
from ..verbs import ACCESS_REMOTE_WRITE, OP_WRITE, WR_WRITE
from .causes import order_hint, posted_hint, reth_hint
from .registry import judge


@judge("write", side="server")
def server(ev, c):
    """The payload as an RDMA WRITE into this server's MR: printed, on
    the wire, and the client's WRITE allowed."""
    S, P, mrs, init = ev.S, ev.P, ev.mrs, ev.init
    wmsg, bwmsg, wire, delivered = ev.wmsg, ev.bwmsg, ev.wire, ev.delivered
    no_wire = ev.no_wire
    # A student client's notice before its WRITE's completion is the
    # cause of what this server then read, and of what the wire
    # carried: that is the hint, whatever check below fails.
    if P.who == "student" and write_done_early(P.trace, ev.ip,
                                                ev.peer_jqpn):
        c.hint = hint("early_notice")
    if S.ok("write") and not write_received(
            S.val("write", "received"), wmsg, ev.msg):
        got = S.val("write", "received") or ""
        c.bad("received the %d-byte WRITE payload" % len(wmsg),
              "received %d bytes%s" % (len(got), " (before the data "
                                       "arrived?)" if len(got) <
                                       len(wmsg) else ""),
              hint("early_read") if len(got) < len(wmsg) or
              not P.ok("write") else hint("write_data"))
    rkeys = [num(m.get("rkey")) for m in mrs]
    if S.ok("write") and wire and not [
            m for m in delivered("write", bwmsg)
            if m["reth"] and m["reth"][1] in rkeys]:
        no_wire(c, "an RDMA WRITE of the %d-byte payload to your "
                "MR" % len(wmsg), "write")
    if not S.ok("write") or not P.ok("write"):
        pf = P.fails.get("write") or ""
        allowed = any(num(m.get("access"), 0) & ACCESS_REMOTE_WRITE
                      for m in mrs) and any(
            num(e.get("access"), 0) & ACCESS_REMOTE_WRITE
            for e in init if e["_ret"] == "0")
        if P.failed("write", "WC_REM_ACCESS_ERR"):
            c.bad("the client's WRITE succeeds", "client: " + pf,
                  hint("adv_wrong") if allowed
                  else hint("write_access"))


@judge("write", side="client")
def client(ev, c):
    """The payload as an RDMA WRITE to the MR the reference advertised,
    its completion taken before the write notice went."""
    S, P, tr = ev.S, ev.P, ev.tr
    wmsg, bwmsg, cli_ip = ev.wmsg, ev.bwmsg, ev.cli_ip
    wire, wire_ops, delivered = ev.wire, ev.wire_ops, ev.delivered
    no_wire = ev.no_wire
    writes = wire_ops(cli_ip, OP_WRITE)
    # First, as the cause: the server reads on the notice, so one
    # sent before the WRITE's completion lets it read too early, and
    # the client may reuse its buffer (the driver clears it for read)
    # before the device has sent it all.  Seen on kernel 6.12's rxe:
    # the reference received other bytes.
    early = write_done_early(tr, ev.peer.get("ip"), ev.jqpn)
    if S.ok("write") and early is not False:
        c.bad("the WRITE's completion before lab_send_write_done()",
              "the write notice went out before the WRITE completed"
              if early else "no write notice to the peer in the "
              "kernel's trace of your process", hint("early_notice")
              if early else hint("no_notice"))
    if P.who == "ref" and S.ok("write") and not write_received(
            P.val("write", "received"), wmsg, ev.msg):
        c.bad("the reference received the %d-byte WRITE payload" %
              len(wmsg), "reference: " + (P.fails.get("write") or
                                          "other bytes"),
              hint("write_data"))
    pa = num(P.val("create_resources", "buf"))
    pk = num(P.val("create_resources", "rkey"))
    first = [x for x in writes if x["reth"]]
    if first and pk is not None and first[0]["reth"][1] != pk:
        c.bad("RETH rkey=0x%x" % pk, "RETH rkey=0x%x (frame %d)" %
              (first[0]["reth"][1], first[0]["frame"]),
              order_hint("rkey", first[0]["reth"][1], pk) or
              reth_hint(ev, *first[0]["reth"][:2]))
    if first and pa is not None and first[0]["reth"][0] != pa:
        c.bad("RETH va=0x%x" % pa, "RETH va=0x%x (frame %d)" %
              (first[0]["reth"][0], first[0]["frame"]),
              order_hint("addr", first[0]["reth"][0], pa) or
              reth_hint(ev, *first[0]["reth"][:2]))
    refused = S.failed("write", "WC_REM_ACCESS_ERR")
    adv = (num(S.val("exchange", "remote_addr")),
           num(S.val("exchange", "remote_rkey")))
    if refused and first and P.who == "student" and \
            first[0]["reth"][:2] == adv:
        c.hint = hint("peer_adv", "WRITE")
    elif refused and c.hint is None:
        c.hint = posted_hint(ev, (WR_WRITE,))
    if wire and S.ok("write") and not writes:
        c.bad("RDMA WRITE packets from you", "none", hint("opcode"))
    elif wire and S.ok("write") and not delivered("write", bwmsg):
        no_wire(c, "an RDMA WRITE of the %d-byte payload" % len(wmsg),
                "write")

"""The judge of step read (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import good_wcs
from ..evidence.peer import mr_of
from ..evidence.wire import NAK_TEXT
from ..hints import hint
from ..verbs import ACCESS_REMOTE_READ, WC_RDMA_READ, WR_RDMA_READ
from .access import blame_server_access, local_protection_hint
from .causes import posted_hint, reth_hint
from .registry import judge


def describe_reads(reads):
    """What the wire shows of the client's READs, for a seen: line."""
    if not reads:
        return "no READ REQUEST from the client to the server's QP"
    r = reads[0]
    va, rkey, ln = r["reth"]
    head = "READ REQUEST (frame %d) va=0x%x rkey=0x%x len=%d" % (
        r["frame"], va, rkey, ln)
    if r["nak"] is not None:
        return head + ", answered by a NAK (%s)" % NAK_TEXT.get(
            r["nak"], "0x%02x" % r["nak"])
    if not r["done"]:
        return head + ", no whole READ RESPONSE (%d bytes seen)" % len(
            r["data"])
    return head + ", answered with %d bytes, other bytes" % len(r["data"])


def good_reads(ev):
    """The client's READs of the server's MR answered whole with the
    WRITE payload."""
    return [r for r in ev.reads if r["done"] and
            r["data"].rstrip(b"\0") == ev.bwmsg and
            mr_of(ev.srv_mrs, r["reth"][0], r["reth"][1],
                  max(r["reth"][2], 1))]


def wanted(ev):
    return "an RDMA READ of the %d-byte payload from the server's MR, " \
        "answered whole with it" % len(ev.wmsg)


@judge("read", side="server")
def server(ev, c):
    """The server does nothing in this step: its device answers.  It is
    judged by the client's READ of its MR, and blamed only for what is
    its own: access, credits, or a READ that reached it unanswered."""
    S, P, wire, reads, mrs = ev.S, ev.P, ev.wire, ev.reads, ev.srv_mrs
    good, want = good_reads(ev), wanted(ev)
    pf = P.fails.get("read") or ""
    if not S.reached("read"):
        return  # it stopped before: judge_own_lines says where
    reached = [r for r in reads if mr_of(mrs, r["reth"][0], r["reth"][1])]
    unanswered = [r for r in reached if not r["done"]]
    if S.ok("read") and not (P.who == "ref" and not P.ok("read")) and \
            not unanswered and (not wire or good or not P.ok("read")):
        return
    # A refused READ also puts the server's QP in ERR, so its own read
    # line fails too: the cause, when it is one of these, is the hint.
    blame_server_access(ev, c, ACCESS_REMOTE_READ,
                        "IBV_ACCESS_REMOTE_READ (0x4)", "read", "READs")
    if wire and (unanswered or not good):
        c.bad(want, describe_reads(reached or reads), None)
    if pf:
        c.bad("the client's READ succeeds", "client: " + pf, None)


@judge("read", side="client")
def client(ev, c):
    """An RDMA READ of the server's MR brought back the WRITE payload,
    and this client took its successful completion."""
    S, P, wire, reads, mrs = ev.S, ev.P, ev.wire, ev.reads, ev.srv_mrs
    good, want = good_reads(ev), wanted(ev)
    if S.ok("read") and wire and not good:
        r = reads[0] if reads else None
        h = hint("read_op") if r is None else \
            reth_hint(ev, *r["reth"][:2]) if r["nak"] == 0x62 or \
            not mr_of(mrs, r["reth"][0], r["reth"][1]) \
            else hint("read_data")
        c.bad(want, describe_reads(reads), h)
    if S.ok("read") and not good_wcs(ev.tr, WC_RDMA_READ, ev.jqpn):
        c.bad("a successful RDMA READ completion polled by your process",
              "none in its trace", hint("read_traced"))
    if not S.ok("read") and S.reached("read"):
        why = ev.no_credits()
        if why:
            c.bad("max_rd_atomic >= 1 (READs in flight)", why, None,
                  fixed=True)
            c.hint = hint("rd_credits")
        elif S.failed("read", "WC_LOC_PROT_ERR"):
            c.hint = local_protection_hint(ev, (WR_RDMA_READ,))
        elif S.failed("read", "WC_REM_ACCESS_ERR") and \
                P.who == "student" and good_mr(reads, mrs):
            c.hint = hint("peer_adv", "READ")
        elif S.failed("read", "WC_REM_ACCESS_ERR"):
            c.hint = posted_hint(ev, (WR_RDMA_READ,))
        elif S.failed("read", "WC_REM_INV_REQ_ERR"):
            c.hint = hint("rd_credits")
        elif not S.fails.get("read") and c.hint is None and not reads:
            c.hint = hint("read_op")


def good_mr(reads, mrs):
    """The client's first READ targets an MR of the server (so an access
    error is the server's)."""
    return bool(reads) and mr_of(mrs, reads[0]["reth"][0],
                                 reads[0]["reth"][1]) is not None

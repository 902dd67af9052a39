"""The judge of step atomic (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import good_wcs, notice_early, signal_at
from ..evidence.peer import mr_of
from ..evidence.wire import NAK_TEXT
from ..hints import hint
from ..lab import ATOMIC_ADD, ATOMIC_SWAP
from ..text import num
from ..verbs import (ACCESS_REMOTE_ATOMIC, U64, WC_COMP_SWAP, WC_FETCH_ADD,
                     WR_CMP_SWP, WR_FETCH_ADD)
from .access import blame_server_access, local_protection_hint
from .causes import posted_hint
from .registry import judge


def describe_atomics(ats):
    if not ats:
        return ["no atomic request from the client to the server's QP"]
    out = []
    for a in ats[:3]:
        out.append("%s (frame %d) va=0x%x rkey=0x%x %s=0x%016x%s: %s" % (
            "FETCH_ADD" if a["kind"] == "fetch_add" else "CMP_SWAP",
            a["frame"], a["va"], a["rkey"],
            "add" if a["kind"] == "fetch_add" else "swap", a["swap_add"],
            "" if a["kind"] == "fetch_add" else
            " compare=0x%016x" % a["compare"],
            "NAK (%s)" % NAK_TEXT.get(a["nak"], "0x%02x" % a["nak"])
            if a["nak"] is not None else "no ATOMIC ACKNOWLEDGE"
            if a["orig"] is None else "original 0x%016x" % a["orig"]))
    return out


def seen_atomics(ev):
    """The first two atomics on the wire, on one line: a wrong value may
    be in either."""
    return "; ".join(describe_atomics(ev.atomics)[:2])


def atomic_target(ev):
    """The word's address and start value as the server advertised them:
    the reference's lines when it plays, else the student server's."""
    for X, key in ((ev.cli, "remote_addr"), (ev.srv, "addr")):
        if X.who == "ref" and X.ok("atomic"):
            return num(X.val("atomic", key)), num(X.val("atomic", "start"))
    if ev.srv.ok("atomic"):
        return num(ev.srv.val("atomic", "addr")), \
            num(ev.srv.val("atomic", "start"))
    return None, None


def client_swap(ev):
    """The swap value the client was to use: LAB_ATOMIC_SWAP for a
    student's client; the reference client's own random one (lab_ref_swap
    in lab/lab.h), from the kernel's trace of its post, else from the
    wire; None where neither holds it."""
    if ev.cli.who != "ref":
        return ATOMIC_SWAP
    for e in ev.cli.calls("ibv_post_send", lambda e:
                          num(e.get("opcode")) == WR_CMP_SWP):
        if e.get("swap") is not None:
            return num(e["swap"])
    cs = [a for a in ev.atomics if a["kind"] == "cmp_swap"]
    return cs[0]["swap_add"] if cs else None


def atomics_ok(ev, addr, start):
    """FETCH_ADD then CMP_SWAP on the word at addr, in an MR of the server
    with its rkey, each acknowledged with the value the word held; a
    wrong thing, as (what, hint), or None."""
    ats = ev.atomics
    fa = [a for a in ats if a["kind"] == "fetch_add"]
    cs = [a for a in ats if a["kind"] == "cmp_swap"]
    # Where first: a refused request is never followed by the next one.
    for a in ats[:2]:
        if a["va"] % 8:
            return "an 8-byte aligned address", hint("atomic_align")
        if addr is not None and a["va"] != addr:
            return "va=0x%x (the advertised word)" % addr, hint("rkey")
        if not mr_of(ev.srv_mrs, a["va"], a["rkey"], 8):
            return "the rkey of the server's MR holding the word", \
                hint("atomic_mr") if ev.side == "server" else hint("rkey")
    if not fa or not cs or ats.index(fa[0]) > ats.index(cs[0]):
        return "FETCH_ADD then CMP_SWAP", hint("atomic_ops")
    # The start as advertised; when the reference that knew it failed
    # before printing it, the FETCH_ADD's original value stands in (the
    # reference's failure says the rest).
    if start is None:
        start = fa[0]["orig"]
    if start is None:
        return "an ATOMIC ACKNOWLEDGE for the FETCH_ADD", None
    swap = client_swap(ev)
    if fa[0]["swap_add"] != ATOMIC_ADD or \
            cs[0]["swap_add"] != swap or \
            cs[0]["compare"] != (start + ATOMIC_ADD) & U64:
        return "add=0x%x, then compare=start+0x%x swap=0x%016x" % (
            ATOMIC_ADD, ATOMIC_ADD, swap or 0), hint("atomic_ops")
    if fa[0]["orig"] != start or cs[0]["orig"] != (start + ATOMIC_ADD) & U64:
        return "original values 0x%016x, then 0x%016x" % (
            start, (start + ATOMIC_ADD) & U64), None
    return None


def outcome(ev):
    """What both sides' judges start from: the atomics wanted, what is
    wrong with those on the wire (None: nothing, or no capture), and the
    misaligned addresses among the word's."""
    S, P, wire = ev.S, ev.P, ev.wire
    addr, start = atomic_target(ev)
    want = "FETCH_ADD then CMP_SWAP on the server's word, acknowledged " \
        "with its start value and start+%d" % ATOMIC_ADD
    wrong = atomics_ok(ev, addr, start) if wire else None
    # Where the atomics went: the wire, and the clients' posts (traced,
    # the reference's too: a device refuses an unaligned atomic when it
    # is posted, and then nothing reaches the wire).
    vas = [a["va"] for a in ev.atomics] + [
        num(e.get("raddr"), 0) for X in (S, P) for e in X.calls(
            "ibv_post_send", lambda e: num(e.get("opcode")) in
            (WR_CMP_SWP, WR_FETCH_ADD))] + ([addr] if addr else [])
    return want, wrong, [v for v in vas if v % 8]


@judge("atomic", side="server")
def server(ev, c):
    """Its word aligned, in an MR the client may use; the client's
    atomics on it, on the wire; the final value read after them."""
    S, P, wire = ev.S, ev.P, ev.wire
    want, wrong, misaligned = outcome(ev)
    f = S.fails.get("atomic") or ""
    pf = P.fails.get("atomic") or ""
    # Server: its word, aligned, in an MR the client may use; the client's
    # atomics on it, on the wire; the final value read after them.
    if S.ok("atomic"):
        a = num(S.val("atomic", "addr"), 0)
        if a % 8:
            c.bad("addr 8-byte aligned", "addr=0x%x" % a,
                  hint("atomic_align"))
        elif not [m for m in ev.srv_mrs if m["addr"] <= a and a + 8 <=
                  m["addr"] + m["len"] and m["access"] &
                  ACCESS_REMOTE_ATOMIC]:
            c.bad("addr inside an MR with IBV_ACCESS_REMOTE_ATOMIC (0x8)",
                  "addr=0x%x; MRs: %s" % (a, ", ".join(
                      "0x%x+%d access=0x%x" % (m["addr"], m["len"],
                                               m["access"])
                      for m in ev.srv_mrs)), hint("atomic_mr"))
        # The reference client swapped in a random value of its own:
        # a server that reports it read the word after the swap, and no
        # line it prints can stand in for that read.
        swap = client_swap(ev) if P.who == "ref" else None
        final = num(S.val("atomic", "final"))
        if P.ok("atomic") and swap is not None and final != swap:
            c.bad("the word read after lab_recv_atomic_done(): 0x%016x, "
                  "the reference client's swap (random each run)" % swap,
                  "final=0x%016x" % (final or 0), hint("atomic_final"))
    client_ok = P.ok("atomic") or P.who == "student"
    before, cause = c.hint, False
    if S.reached("atomic") and (not S.ok("atomic") or not P.ok("atomic")):
        if misaligned:
            c.bad("an 8-byte aligned word", "address 0x%x" % misaligned[0],
                  None)
            c.hint = hint("atomic_align")
        elif blame_server_access(ev, c, ACCESS_REMOTE_ATOMIC,
                                 "IBV_ACCESS_REMOTE_ATOMIC (0x8)", "atomic",
                                 "atomics"):
            pass
        elif P.failed("atomic", "ATOMIC_ORIG"):
            c.bad("the word holds the advertised start value",
                  "client: " + pf, None)
            c.hint = hint("atomic_start")
        elif S.failed("atomic", "ATOMIC_FINAL") and client_ok:
            c.bad("the word read after lab_recv_atomic_done()",
                  "lab atomic FAIL: " + f, None)
            c.hint = hint("atomic_final")
        cause = c.hint is not before  # a branch above named the cause
        if P.who == "ref" and pf:
            c.bad("the reference's atomics succeed", "client: " + pf, None)
    if wire and wrong and not cause and S.reached("atomic") and (
            S.ok("atomic") or P.who == "ref"):
        c.bad(want + ": " + wrong[0], seen_atomics(ev), wrong[1])


@judge("atomic", side="client")
def client(ev, c):
    """FETCH_ADD then CMP_SWAP on the server's aligned word, answered
    with the values it held, both completions taken before the atomic
    notice; the reference's word ends as what the client swapped in."""
    S, P = ev.S, ev.P
    want, wrong, misaligned = outcome(ev)
    pf = P.fails.get("atomic") or ""
    if S.ok("atomic") and wrong:
        c.bad(want + ": " + wrong[0], seen_atomics(ev), wrong[1])
    if S.ok("atomic") and not (good_wcs(ev.tr, WC_FETCH_ADD, ev.jqpn) and
                               good_wcs(ev.tr, WC_COMP_SWAP, ev.jqpn)):
        c.bad("successful FETCH_ADD and COMP_SWAP completions of your "
              "QP", "not both in the kernel's trace",
              hint("atomic_traced"))
    early = notice_early(ev.tr, signal_at(
        ev.tr, "client", "atomic_done", ev.peer.get("ip")),
        [WC_FETCH_ADD, WC_COMP_SWAP], ev.jqpn)
    if S.ok("atomic") and early is not False:
        c.bad("both atomics' completions before lab_send_atomic_done()",
              "the atomic notice went out before them" if early else
              "no atomic notice to the peer in the kernel's trace of "
              "your process", hint("atomic_notice") if early
              else hint("atomic_no_notice"))
    if P.who == "ref" and S.ok("atomic") and not P.ok("atomic"):
        c.bad("the reference's word ends as 0x%016x (LAB_ATOMIC_SWAP)" %
              ATOMIC_SWAP, "reference: " + (pf or "no atomic line"),
              hint("atomic_ops"))
    if not S.ok("atomic") and S.reached("atomic"):
        why = ev.no_credits()
        if misaligned:
            c.hint = hint("atomic_align")
        elif why:
            c.bad("max_rd_atomic >= 1 (atomics in flight)", why, None,
                  fixed=True)
            c.hint = hint("rd_credits")
        elif S.failed("atomic", "WC_LOC_PROT_ERR"):
            c.hint = local_protection_hint(
                ev, (WR_FETCH_ADD, WR_CMP_SWP))
        elif S.failed("atomic", "WC_REM_ACCESS_ERR"):
            c.hint = hint("atomic_mr") if P.who == "student" and \
                ev.atomics and mr_of(ev.srv_mrs, ev.atomics[0]["va"],
                                     ev.atomics[0]["rkey"], 8) \
                else posted_hint(ev, (WR_FETCH_ADD, WR_CMP_SWP))

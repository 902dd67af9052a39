"""Who refused a READ or an atomic: the server's MR that the request
named, its QP, its credits, or the client's own MR (a local protection
error)."""
from ..evidence.peer import mr_of
from ..hints import hint
from ..text import num
from ..verbs import (ACCESS_LOCAL_WRITE, ACCESS_REMOTE_READ, WR_CMP_SWP,
                     WR_FETCH_ADD, WR_RDMA_READ)


def targets(ev, flag):
    """(va, rkey) of each of the client's READs (flag REMOTE_READ) or
    atomics (REMOTE_ATOMIC) on the server's QP: on the wire, else as the
    client posted them (a refused request may never reach the wire)."""
    if flag == ACCESS_REMOTE_READ:
        got = [r["reth"][:2] for r in ev.reads if r["reth"]]
        ops = (WR_RDMA_READ,)
    else:
        got = [(a["va"], a["rkey"]) for a in ev.atomics]
        ops = (WR_CMP_SWP, WR_FETCH_ADD)
    return got or [(num(e.get("raddr"), 0), num(e.get("rkey")))
                   for e in ev.cli.calls("ibv_post_send", lambda e:
                                         num(e.get("opcode")) in ops)]


def remote_access(ev, flag):
    """What of the student server's lacks the access flag (remote read or
    atomic) for the client's requests, and its MRs in question: ("MR",
    mrs) when an MR the requests name (by rkey and address) lacks it, or,
    when they name none, every MR does; ("QP", mrs) when its QP lacks it;
    (None, mrs) else.  The MR a request names, not any MR: a second MR
    with the flag does not let a READ into the first."""
    named = []
    for va, rkey in targets(ev, flag):
        m = mr_of(ev.srv_mrs, va, rkey)
        if m is not None and m not in named:
            named.append(m)
    mrs = named or ev.srv_mrs
    if named and not all(m["access"] & flag for m in named) or \
            not any(m["access"] & flag for m in mrs):
        return "MR", [m for m in mrs if not m["access"] & flag]
    init = ev.ok_init()
    if init is not None and not num(init.get("access"), 0) & flag:
        return "QP", mrs
    return None, mrs


def blame_server_access(ev, c, flag, name, kind, what):
    """A READ or atomic the server's device refused: the MR it named or
    the QP lacks FLAG (NAME, e.g. "IBV_ACCESS_REMOTE_READ (0x4)"), or its
    QP gives no credits for WHAT ("READs").  Marks c with the cause and
    its hint (hint(KIND_mr), [KIND_qp], ["rd_credits"]); False when none
    is."""
    miss, mrs = remote_access(ev, flag)
    cred = ev.no_credits()
    if miss == "MR":
        c.bad("the MR the client's %s named, with %s" % (what, name),
              "MR " + ", ".join("0x%x+%d rkey=0x%x access=0x%x" % (
                  m["addr"], m["len"], m["rkey"] or 0, m["access"])
                  for m in mrs), None)
        c.hint = hint(kind + "_mr")
    elif miss == "QP":
        c.bad("qp_access_flags with " + name,
              "qp_access_flags=%s" % ev.ok_init().get("access"), None)
        c.hint = hint(kind + "_qp")
    elif cred:
        c.bad("max_dest_rd_atomic >= 1 (%s the QP answers)" % what, cred,
              None)
        c.hint = hint("rd_credits")
    else:
        return False
    return True


def local_protection_hint(ev, opcodes):
    """A READ or atomic (a post of one of the opcodes) refused by the
    client's own device, a local protection error: the cause is in
    create_resources when the MR its SGE lies in lacks LOCAL_WRITE (the
    device writes the result there), in the step's own SGE otherwise (an
    lkey not that MR's, an address in no MR)."""
    posts = ev.S.calls("ibv_post_send",
                       lambda e: num(e.get("opcode")) in opcodes)
    if posts:
        a = num(posts[-1].get("laddr"), 0)
        mine = [m for m in ev.mrs if num(m.get("addr"), 0) <= a <
                num(m.get("addr"), 0) + num(m.get("len"), 0)]
        if mine and not any(num(m.get("access"), 0) & ACCESS_LOCAL_WRITE
                            for m in mine):
            return hint("read_local")
    return hint("sge_lkey")

"""The hint of a failed step that no judge explained, from its FAIL line's
code (lab/codes.h) and the evidence around it: the call the kernel's
trace shows refused, what the peer did.  Every code has its hint here
(tests/lab/codes_check.py holds CODE_HINTS to lab/codes.h), so that a
failure whose cause is known never gets the generic one: "a completion
failed" was once told of a bad length, a closed peer, teardown's
pointers and an opcode the driver refused (issue 25)."""
import re

from ..codes import CODES
from ..evidence.kernel import leaks
from ..hints import hint
from ..lab import STEP_WR
from ..text import conversion, num
from ..verbs import SEND_SIGNALED, WR_NAMES

# A step's request that is not there, or not the step's (NO_WR).
OPCODE_HINT = {"send": "opcode", "send_imm": "opcode", "write": "write_data",
               "write_imm": "wimm_opcode", "read": "read_op",
               "atomic": "atomic_ops"}


# The hint for a value that a wrong conversion between host and network
# order made (text.conversion), by who converted it: the sender (the
# immediate it posted, a key or an address it took from ctx->remote) or
# the receiver (the immediate it read from wc.imm_data).  A receiver that
# printed htons() of the right value read right what a sender's htons()
# put on the wire.
ORDER_HINTS = {k: hint(v) for k, v in {
    ("send", "swap"): "imm_htonl", ("send", "htons"): "imm_htons",
    ("recv", "swap"): "imm_ntohl", ("recv", "ntohs"): "imm_ntohs",
    ("recv", "htons"): "imm_htons",
    ("rkey", "swap"): "order_rkey", ("addr", "swap64"): "order_addr"}.items()}


def order_hint(way, got, want):
    """The byte-order hint for got where want was right, or None when no
    wrong conversion makes one of the other."""
    return ORDER_HINTS.get((way, conversion(got, want)))


# A conversion as a hint names it.
CONVERSION_NAMES = {"swap": "htonl() of", "htons": "htons() of",
                    "ntohs": "ntohs() of", "swap64": "htobe64() of",
                    "cut32": "the low 32 bits of"}


def exch_hint(field, got, want, default):
    """The hint for an advertised field (QPN, rkey, address) the peer
    received as got where want was right."""
    conv = conversion(got, want)
    if conv is None:
        return default
    return hint("exch_order", field, CONVERSION_NAMES[conv])


def reth_hint(ev, va, rkey):
    """The hint for a READ, WRITE or atomic whose remote address or rkey
    is not what the client received in the exchange: a conversion of it
    where none was needed, else the wrong one taken."""
    want_va = num(ev.S.val("exchange", "remote_addr"))
    want_rkey = num(ev.S.val("exchange", "remote_rkey"))
    order = order_hint("rkey", rkey, want_rkey) or \
        order_hint("addr", va, want_va)
    if order or None in (va, rkey, want_va, want_rkey) or \
            (va, rkey) == (want_va, want_rkey):
        return order or hint("rkey")
    return hint("rkey_seen", " and ".join(
        "%s 0x%x where the peer advertised 0x%x" % (what, got, want)
        for what, got, want in (("rkey", rkey, want_rkey),
                                ("address", va, want_va)) if got != want))


def posted_hint(ev, opcodes):
    """reth_hint for this client's last post of one of the opcodes (the
    trace's remote address and rkey, an atomic's too)."""
    posts = ev.S.calls("ibv_post_send", lambda e: num(e.get("opcode")) in
                       opcodes)
    if not posts:
        return hint("rkey")
    return reth_hint(ev, num(posts[-1].get("raddr")),
                     num(posts[-1].get("rkey")))


def posted_imm(ev, opcode):
    """The immediate of this side's last post of opcode, as the wire
    carries it (the trace's, read in network order), or None."""
    posts = ev.S.calls("ibv_post_send", lambda e: num(e.get("opcode")) ==
                       opcode)
    return num(posts[-1].get("imm")) if posts else None


def refused_post(ev, fn):
    """The last call of fn (ibv_post_send, ibv_post_recv) in the trace
    that did not return 0, or None."""
    bad = ev.S.calls(fn, lambda e: e["_ret"] not in ("0", ""))
    return bad[-1] if bad else None


def wrong_opcode(ev, step, how, post=None):
    """The hint for a request the driver or device refused (how: the
    error) whose opcode is not the step's, or None: this side's post
    (else its last one: a program stops at the step that failed)."""
    if post is None:
        posts = ev.S.calls("ibv_post_send")
        post = posts[-1] if posts else None
    want = STEP_WR.get(step)
    op = num(post.get("opcode")) if post is not None else None
    if op is None or not want or op in want:
        return None
    return hint("post_opcode", 
        how, WR_NAMES.get(op, "%d (no IBV_WR_ value)" % op),
        " or ".join(WR_NAMES[w] for w in want))


def errno_hint(ev, step, code):
    """A verb or system call failed with errno code[6:]: which one, from
    the FAIL line's words (the scaffolding's lab_fail_verb() names it:
    text that chooses a hint, never a point) and the trace."""
    err = code[len("ERRNO_"):]
    line = ev.S.fails.get(step) or ""
    if err == "OTHER":
        m = re.search(r"\(errno (\d+)\)$", line)
        err = "errno " + m.group(1) if m else "an error"
    m = re.match(r"^(\w+)(?:\([^)]*\))? failed: ", line)
    verb = m.group(1) if m else "a call"
    if verb.startswith("ibv_post"):
        if err == "ENOMEM":
            return hint("queue_full", verb)
        e = refused_post(ev, verb)
        if verb != "ibv_post_send" or e is None:
            return hint("post_bad", verb + ": " + err)
        if num(e.get("opcode")) in STEP_WR["atomic"] and \
                num(e.get("raddr"), 0) % 8:
            return hint("atomic_align")
        return wrong_opcode(ev, step, verb + ": " + err, e) or \
            hint("post_bad", verb + ": " + err)
    if verb == "ibv_modify_qp":
        return modify_hint(ev, step)
    if verb == "ibv_reg_mr":
        return hint("reg_mr", err)
    if verb.startswith(("ibv_create", "ibv_alloc")):
        return hint("create", verb, err)
    if verb.startswith(("ibv_destroy", "ibv_dealloc", "ibv_dereg",
                        "ibv_close")):
        return hint("teardown_order")
    if err in ("ECONNRESET", "EPIPE", "ENOTCONN"):
        return peer_closed(ev, step)
    return hint("errno", verb, err)


# The attributes each transition needs in its mask (ibv_modify_qp(3)),
# by the state it moves to: INIT, RTR, RTS.
QP_MASKS = {
    1: (("STATE", 0x1), ("PKEY_INDEX", 0x10), ("PORT", 0x20),
        ("ACCESS_FLAGS", 0x8)),
    2: (("STATE", 0x1), ("AV", 0x80), ("PATH_MTU", 0x100),
        ("DEST_QPN", 0x100000), ("RQ_PSN", 0x1000),
        ("MAX_DEST_RD_ATOMIC", 0x20000), ("MIN_RNR_TIMER", 0x8000)),
    3: (("STATE", 0x1), ("SQ_PSN", 0x10000), ("TIMEOUT", 0x200),
        ("RETRY_CNT", 0x400), ("RNR_RETRY", 0x800),
        ("MAX_QP_RD_ATOMIC", 0x2000)),
}
QPS_NAMES = {1: "INIT", 2: "RTR", 3: "RTS"}


def modify_hint(ev, step):
    """A refused ibv_modify_qp: the attributes its mask lacks for the
    state it asked for, from the trace; else the step's own hint."""
    bad = ev.S.calls("ibv_modify_qp", lambda e: e["_ret"] not in ("0", ""))
    state = num(bad[-1].get("state")) if bad else None
    if state in QP_MASKS:
        mask = num(bad[-1].get("mask"), 0)
        lack = [n for n, bit in QP_MASKS[state] if not mask & bit]
        if lack:
            return hint("qp_mask", QPS_NAMES[state], mask, ", ".join(
                "IBV_QP_" + n for n in lack))
    return hint("init" if step == "qp_to_init" else "rtr")


def peer_closed(ev, step):
    """The TCP connection closed under this step: the peer failed, the
    student's own peer left early, or the peer was done and this side
    waited for what its step never brings."""
    P = ev.P
    done = P.rc == 0 and P.stopped_at() is None
    if done and P.who == "student":
        return hint("peer_left", P.side)
    if done:
        return hint("peer_done", step)
    return hint("peer_closed")


def not_done(ev, step):
    if step != "teardown":
        return hint("not_done")
    live, _ = leaks(ev.tr)
    return hint("teardown_leak") if live else hint("teardown_null")


def no_completion(ev, step):
    """No completion within -t: a request of the step's posted
    unsignaled never makes one."""
    want = STEP_WR.get(step, ())
    posts = ev.S.calls("ibv_post_send", lambda e: e["_ret"] == "0" and
                       num(e.get("opcode")) in want)
    if posts and not num(posts[-1].get("flags"), 0) & SEND_SIGNALED:
        return hint("unsignaled", posts[-1].get("flags"))
    return hint("no_wc")


# The hints are made here, at import: a key not in HINTS fails then,
# not in the one grading that needs it.
def fixed(key):
    text = hint(key)
    return lambda ev, step: text


def by_step(other, **keys):
    texts = {s: hint(k) for s, k in keys.items()}
    text = hint(other)
    return lambda ev, step: texts.get(step, text)


# code -> fn(Evidence, step) -> the hint, or None (then the program's own
# hint line, else the generic one).
CODE_HINTS = {
    "STUDENT": fixed("own_check"), "TODO": fixed("todo"),
    "MISUSE": fixed("misuse"), "NOT_DONE": not_done,
    "NO_DEVICE": fixed("no_device"), "PORT_NOT_ACTIVE": fixed("port"),
    "PORT_NO_LID": fixed("port"), "GID_CHOICE": fixed("gid"),
    "CQ_CHANNEL": fixed("cq_channel"),
    "QP_STATE": by_step(qp_to_init="init", connect="rtr", other="qp_err"),
    "RESOLVE": fixed("tcp"), "NO_SERVER": fixed("tcp"),
    "NO_CLIENT": fixed("tcp"), "PEER_CLOSED": peer_closed,
    "PEER_SILENT": fixed("peer_silent"), "BAD_SYNC": fixed("bad_sync"),
    "EXCH_SIZE": fixed("exch_recv"), "EXCH_MAGIC": fixed("exch_recv"),
    "EXCH_VERSION": fixed("exch_recv"), "EXCH_QPN": fixed("exch_recv"),
    "EXCH_PSN": fixed("psn"), "EXCH_LEN": fixed("exch_recv"),
    "EXCH_MTU": fixed("exch_mtu"), "PEER_NO_GID": fixed("exch_gid"),
    "PEER_NO_LID": fixed("grh"), "DEST_QPN": fixed("qpn"),
    "PSN": fixed("psn"), "BUF_TOO_SMALL": fixed("length"),
    "NO_WR": lambda ev, step: hint(OPCODE_HINT.get(step, "opcode")),
    "IMM_ORDER": fixed("imm_htonl"), "WRONG_COMPLETION": fixed("wrong_wc"),
    "NO_IMM": by_step(write_imm="wimm_wait", other="imm_flag"),
    "RECV_LEN": fixed("recv_len"), "NO_COMPLETION": no_completion,
    "POLL_CQ": fixed("poll_cq"), "READ_DATA": fixed("read_data"),
    "ATOMIC_ORIG": fixed("atomic_start"),
    "ATOMIC_FINAL": fixed("atomic_final"),
    "WC_LOC_LEN_ERR": fixed("loc_len"),
    "WC_LOC_QP_OP_ERR": lambda ev, step: wrong_opcode(
        ev, step, "IBV_WC_LOC_QP_OP_ERR") or hint("loc_qp_op"),
    "WC_LOC_PROT_ERR": fixed("sge_lkey"),
    "WC_WR_FLUSH_ERR": fixed("flushed"),
    "WC_LOC_ACCESS_ERR": fixed("read_local"),
    "WC_REM_INV_REQ_ERR": fixed("rem_inv"),
    "WC_REM_ACCESS_ERR": lambda ev, step: hint("write_access")
    if ev.side == "server" else posted_hint(ev, STEP_WR.get(step, ())),
    "WC_REM_OP_ERR": fixed("rem_op"), "WC_RETRY_EXC_ERR": fixed("retry"),
    "WC_RNR_RETRY_EXC_ERR": fixed("rnr"), "WC_OTHER": fixed("wc_other"),
}
for _c in CODES:
    if _c.startswith("WC_") and _c not in CODE_HINTS:
        CODE_HINTS[_c] = (lambda name: lambda ev, step: hint("wc_status",
                                                             name))(_c[3:])
    elif _c.startswith("ERRNO_"):
        CODE_HINTS[_c] = (lambda code: lambda ev, step: errno_hint(
            ev, step, code))(_c)


def code_hint(ev, step):
    """The hint the evidence gives for step's FAIL line, by its code; None
    when the line has no code or the code leaves it to the program's
    own hint line."""
    code = ev.S.codes.get(step)
    return CODE_HINTS[code](ev, step) if code in CODE_HINTS else None

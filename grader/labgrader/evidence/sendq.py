"""A send queue counted by the verbs' rules, from the kernel's trace.

A request takes a slot of its QP's send queue when posted, and keeps it
until a completion is polled: its own, or a later signaled request's
(an unsignaled request has none).  A post into a queue whose max_send_wr
slots are all held is the program's mistake whether or not the driver
took it: rxe frees a slot when the request is acknowledged, so it took
it or refused it (ENOMEM) by the timing of an ACK.  Judged this way, the
verdict is the same on every run."""
from .kernel import kmade
from ..lab import STEP_WR
from ..text import num
from ..verbs import SEND_SIGNALED, WC_RECV

# The step that posts each request (lab.py's STEP_WR, turned round).
WR_STEP = {op: step for step, ops in STEP_WR.items() for op in ops}


def overflows(trace):
    """[(post, holder, depth)]: each request posted when its QP's send
    queue already held max_send_wr (depth) requests; holder, the oldest
    unsignaled request among them (None: all were signaled, and none of
    their completions polled)."""
    queues, out = {}, []
    for e in trace:
        fn, qpn = e["_fn"], num(e.get("qpn"))
        if fn == "k_qp" and kmade(e):
            queues[qpn] = (num(e.get("max_send_wr"), 0),
                           num(e.get("sig_all"), 0), [])
        elif fn == "ibv_post_send" and qpn in queues:
            depth, sig_all, held = queues[qpn]
            if depth and len(held) >= depth:
                out.append((e, next((h for s, h in held if not s), None),
                            depth))
            if e["_ret"] == "0":
                held.append((sig_all or num(e.get("flags"), 0) &
                             SEND_SIGNALED, e))
        elif fn == "wc" and qpn in queues and \
                num(e.get("opcode"), WC_RECV) < WC_RECV:
            held = queues[qpn][2]
            while held and not held.pop(0)[0]:
                pass  # unsignaled: freed by the signaled one after it
    return out


def step_of(post):
    """The step whose request this is, by its opcode (None: unknown)."""
    return WR_STEP.get(num(post.get("opcode"), -1))

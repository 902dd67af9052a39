"""A requester that gave up on an answer its peer had sent.

An RC requester resends a request that no ACK answered within its
transport timer (4.096 us * 2^timeout), retry_cnt times, and then
completes it with IBV_WC_RETRY_EXC_ERR (status 12).  On a busy host the
responder's guest, or the requester's own, can be kept from a CPU for
longer than that budget: then the requester gives up although the
responder answered, and a correct program would lose the step to the
machine (recorded in a course-sized batch under load: a correct client
with timeout 14 and retry_cnt 6, 0.47 s, lost write_imm).

The capture, in the server guest, shows what the responder sent.  When
the requester's kernel wrote status 12 for a QP and the responder did
acknowledge that QP's last request (an ACK, a READ response or an atomic
ACK to that QP, at or after the request's PSN), the request was
well-formed, addressed right and answered: the failure is the
machine's, an environment error (the pairing is graded again).  Only
the kernel's records count for a student's side (its completion's
status, its QP's timer), never its lines.  A timer budget below
BUDGET_MIN_S is the program's own gamble: an answer that takes a few
milliseconds under TCG can miss it on a quiet host, and grading it
again would not change that.

Where the capture shows no answer, the host's samples may still explain
the silence: a guest of the pairing waited for a CPU, in the pairing's
window, at least as long as the whole budget (starved.py's numbers).
On a quiet host a guest waits 0.1-0.2 s in a pairing, under the floor:
there a status 12 is the program's.
"""
from .evidence.kernel import kmade
from .evidence.peer import connections
from .evidence.wire import psn_after
from .lab import read_define
from .text import num
from .verbs import OP_RESPONSE, QPS_RTS, WC_RETRY_EXC_ERR

# The reference's budget: (LAB_QP_RETRY_CNT + 1) * 4.096 us *
# 2^LAB_QP_TIMEOUT = 7 * 134 ms, about 0.94 s.  A quarter of it.
BUDGET_MIN_S = 0.25


def budget_s(timeout, retry_cnt):
    """How long a request may go unanswered before status 12: the
    first send and retry_cnt resends, one timer each."""
    if not timeout:
        return None
    return (retry_cnt + 1) * 4.096e-6 * (1 << timeout)


# The reference's QP has lab.h's timer: about 0.94 s.
REF_RETRY_CNT = read_define("LAB_QP_RETRY_CNT")
REF_BUDGET_S = budget_s(read_define("LAB_QP_TIMEOUT"), REF_RETRY_CNT)


def gave_up_timer(X):
    """(QPN, peer QPN, timeout, retry_cnt) of the student side X's QP
    whose request its kernel completed with status 12, its timer as the
    kernel applied it at RTS, or None."""
    qpns = {e["_ret"]: num(e.get("qpn")) for e in X.calls("k_qp", kmade)}
    for e in X.calls("kwc"):
        if num(e.get("status")) != WC_RETRY_EXC_ERR:
            continue
        q = num(e.get("qpn"))
        rts = [m for m in X.calls("k_modify")
               if m.get("_ret") == "0" and num(m.get("state")) == QPS_RTS
               and qpns.get(m.get("qp")) == q]
        dest = [d for qq, d in connections(X) if qq == q]
        if not rts or not dest:
            return None
        return (q, dest[-1], num(rts[-1].get("timeout"), 0),
                num(rts[-1].get("retry_cnt"), 0))
    return None


def student_gave_up(X):
    """(QPN, peer QPN, budget) of the student side X's QP whose request
    its kernel completed with status 12, or None."""
    g = gave_up_timer(X)
    return None if g is None else (g[0], g[1], budget_s(g[2], g[3]))


def ref_gave_up(X):
    """The same for the reference side X: its own lines (trusted) and
    lab.h's timer (REF_BUDGET_S)."""
    if "WC_RETRY_EXC_ERR" not in X.codes.values():
        return None
    q = num(X.val("create_resources", "qpn"))
    peer = num(X.val("exchange", "remote_qpn"))
    return (q, peer, REF_BUDGET_S) if None not in (q, peer) else None


def gave_up(X):
    """gave-up facts of side X (student_gave_up, ref_gave_up)."""
    return ref_gave_up(X) if X.who == "ref" else student_gave_up(X)


def retries_ran_out(p, pair, packets, facts, cpu):
    """Why pairing p's status 12 is the machine's (a text), or None:
    the peer answered (late_answer), or a guest waited for a CPU as
    long as the budget (starved_retry).  packets: the pairing's (None:
    no capture); cpu: starved.pairing_cpu's entry (None: no samples)."""
    for side, other in (("server", "client"), ("client", "server")):
        gave = gave_up(pair[side])
        if gave is None or gave[2] is None or gave[2] < BUDGET_MIN_S:
            continue
        why = late_answer(p, side, other, gave, packets, facts) or \
            starved_retry(p, side, gave, cpu)
        if why:
            return why
    return None


def own_timer(p, pair, packets, facts):
    """{side: hint key} for each student side of clean pairing p whose QP
    gave up on a request its peer answered (the capture) within a timer
    budget under BUDGET_MIN_S, the program's own: the request was right
    and only the QP's RTS timer (connect's code) was not, so the step
    that posted it is judged again with the reference's connect.
    "retry_none": a retry_cnt of 0 on a timer that the lab's retry count
    makes a fair budget, which only a wire that loses packets needs
    (part three's check, loss; recorded: the seed retry_cnt_0's READ
    given up on a clean wire in a make test on a busy host);
    "retry_timer": a timer too short for any machine."""
    out = {}
    for side, other in (("server", "client"), ("client", "server")):
        X = pair[side]
        g = gave_up_timer(X) if X.who == "student" else None
        if g is None:
            continue
        q, peer_q, timeout, retry_cnt = g
        gave = (q, peer_q, budget_s(timeout, retry_cnt))
        if gave[2] is None or gave[2] >= BUDGET_MIN_S or \
                not late_answer(p, side, other, gave, packets, facts):
            continue
        fair = budget_s(timeout, REF_RETRY_CNT) >= BUDGET_MIN_S
        out[side] = "retry_none" if retry_cnt == 0 and fair else \
            "retry_timer"
    return out


def late_answer(p, side, other, gave, packets, facts):
    """The peer (other) answered the last request of side's QP that
    gave up (gave: gave_up's facts)."""
    q, peer_q, budget = gave
    me, them = facts[side].get("ip"), facts[other].get("ip")
    reqs = [x for x in packets or [] if x["src"] == me and
            x["dst"] == them and x["qp"] == peer_q and
            x["op"] not in OP_RESPONSE]
    if not reqs:
        return None
    ans = [x for x in packets if x["src"] == them and x["dst"] == me
           and x["qp"] == q and x["op"] in OP_RESPONSE and
           (x["aeth"] is None or x["aeth"] >> 5 == 0) and
           psn_after(x["psn"], reqs[-1]["psn"])]
    if not ans:
        return None
    return ("%s: the machine was too busy: the %s acknowledged PSN "
            "0x%06x (frame %d), yet the %s's QP had given up on it "
            "(status 12, a timer budget of %.2f s), so its "
            "retries ran out on the host's time, not on the "
            "program" % (p, other, ans[0]["psn"], ans[0]["frame"],
                         side, budget))


def starved_retry(p, side, gave, cpu):
    """A guest of the pairing waited for a CPU at least the whole
    budget of side's QP that gave up."""
    if not cpu:
        return None
    g = max(("server", "client"), key=lambda x: cpu[x][1])
    if cpu[g][1] < gave[2]:
        return None
    return ("%s: the machine was too busy: the %s's QP gave up "
            "(status 12, a timer budget of %.2f s) in %.1f s "
            "in which the %s guest waited %.1f s for a CPU" % (
                p, side, gave[2], cpu["window"], g,
                min(cpu[g][1], cpu["window"])))

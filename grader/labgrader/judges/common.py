"""What every judge shares: the Check of a step, the Evidence of one
student side in one pairing, and the verdicts common to all steps."""
from ..evidence.kernel import kmade, recvs_before, signal_at
from ..evidence.peer import judged_qpn, qpn_of, server_mrs
from ..evidence.wire import (acked, rnr_naks, wire_atomics, wire_messages,
                             wire_reads)
from ..codes import known
from .causes import code_hint, wrong_opcode
from ..hints import hint
from ..lab import STEP_NAMES
from ..text import num
from ..verbs import (QPS_INIT, QPS_RTR, QPS_RTS, QP_MAX_DEST_RD_ATOMIC,
                     QP_MAX_QP_RD_ATOMIC)


# Each step of lab/steps.h has its judges in its own module of this
# package (judges/STEP.py), beside the row of the evidence table of
# docs/grading.md ("Scoring and evidence") that it implements.  A judge
# gets the Evidence of one student side in one pairing and the step's
# Check, already marked by the step's own line (judge_own_lines), and
# adds what the evidence disagrees with.
class Check:
    """Outcome of one step for one student side in one pairing.
    not_reached: the step the program stopped in before this one, while
    that is all this check saw (points.py does not blame such a step for
    what an earlier one did).  fixed: a failure that rests on a fact no
    host's speed changes (bad(..., fixed=True)): the kernel's record of
    the program's own objects, or the values the reference received from
    it, or what its requests carried on the wire (an immediate, a RETH);
    never a wait or a missing answer.  On a starved host such a
    failure stays the program's (student.py, starved.py)."""

    def __init__(self):
        self.ok, self.exp, self.seen, self.hint = True, [], [], None
        self.not_reached = None
        self.fixed = False

    def bad(self, expected, seen, hint, fixed=False):
        self.ok = False
        self.fixed = self.fixed or fixed
        if expected:
            self.exp.append(expected)
        if seen:
            self.seen.append(seen)
            # Seen to fail on its own: more than not reached.
            self.not_reached = None
        if self.hint is None and hint:
            self.hint = hint

    def unreached(self, stop):
        """The program stopped in step stop, before this one."""
        self.bad(None, "not reached: stopped in step %s" % stop, None)
        self.not_reached = stop


class Evidence:
    """What the judges of one student side in one pairing share: the
    student's Side S and its peer P, the guests' facts (me, peer), the
    packets (None: no capture), the traced calls, the payloads, and the
    messages the client sent to the server's QP."""

    def __init__(self, pair, side, facts, packets):
        other = "client" if side == "server" else "server"
        self.side, self.S, self.P = side, pair[side], pair[other]
        self.facts, self.packets = facts, packets
        self.me, self.peer = facts[side], facts[other]
        self.ip = self.me.get("ip")
        S = self.S
        self.tr = S.trace
        # The objects and transitions as the kernel made them (kfacts.c),
        # never as the program's calls into libibverbs say: a call the
        # kernel never saw made nothing.
        self.qps = S.calls("k_qp", kmade)
        self.mrs = S.calls("k_mr", kmade)
        mods = S.calls("k_modify")
        self.rtr = [e for e in mods if num(e.get("state")) == QPS_RTR]
        self.rts = [e for e in mods if num(e.get("state")) == QPS_RTS]
        self.init = [e for e in mods if num(e.get("state")) == QPS_INIT]
        self.qpn = num(self.qps[-1].get("qpn")) if self.qps else None

        pl = pair["payload"]
        self.msg, self.imm, self.wmsg = pl[0], num(pl[1]), pl[2]
        self.bmsg, self.bwmsg = self.msg.encode(), self.wmsg.encode()
        self.srv_ip = facts["server"].get("ip")
        self.cli_ip = facts["client"].get("ip")

        # What the client sent to the server's QP, message by message: the
        # evidence of every data step, on both sides (a printed line alone
        # earns nothing).
        self.wire = packets is not None
        self.msgs = wire_messages(packets, self.cli_ip,
                                  qpn_of(pair["server"]))
        self.cli_qpn = qpn_of(pair["client"])
        self.naks = rnr_naks(packets, self.srv_ip, self.msgs) \
            if side == "server" else []
        # The QP the peer talks to, on each side: the race judges read
        # its events alone.
        self.jqpn = judged_qpn(S, self.P)
        self.peer_jqpn = judged_qpn(self.P, S)
        at = signal_at(self.tr, side, "barrier", self.peer.get("ip"))
        self.posted = recvs_before(self.tr, at, self.jqpn)
        self.barrier = at is not None

        # Part two: the client's READs and atomics on the server's QP, and
        # the server's MRs they must target.
        self.srv, self.cli = pair["server"], pair["client"]
        srv_qpn = qpn_of(pair["server"])
        self.reads = wire_reads(packets, self.cli_ip, self.srv_ip, srv_qpn)
        self.atomics = wire_atomics(packets, self.cli_ip, self.srv_ip,
                                    srv_qpn)
        self.srv_mrs = server_mrs(pair["server"])

    def ok_init(self):
        """The successful INIT transition's attributes, or None."""
        good = [e for e in self.init if e["_ret"] == "0"]
        return good[-1] if good else None

    def credits(self, state, mask, key):
        """The read credits the student set in the last successful
        RTR/RTS transition, or None when it did not set them there."""
        good = [e for e in (self.rtr if state == QPS_RTR else self.rts)
                if e["_ret"] == "0"]
        if not good or not num(good[-1].get("mask"), 0) & mask:
            return None
        return num(good[-1].get(key))

    def no_credits(self):
        """Why this side gives READs and atomics no credits: its RTR
        max_dest_rd_atomic (server) or RTS max_rd_atomic (client) is 0."""
        if self.side == "server":
            v = self.credits(QPS_RTR, QP_MAX_DEST_RD_ATOMIC,
                             "max_dest_rd_atomic")
            return "RTR max_dest_rd_atomic=0" if v == 0 else None
        v = self.credits(QPS_RTS, QP_MAX_QP_RD_ATOMIC, "max_rd_atomic")
        return "RTS max_rd_atomic=0" if v == 0 else None

    def wire_ops(self, src, kinds):
        return [x for x in (self.packets or []) if x["src"] == src and
                x["op"] in kinds]

    def delivered(self, kind, data, want_imm=None):
        # A trailing NUL sent along with the string is no mistake.
        return [m for m in self.msgs if m["kind"] == kind and
                m["data"].rstrip(b"\0") == data and
                (want_imm is None or m["imm"] == want_imm) and
                acked(self.packets, self.srv_ip, m, self.cli_qpn)]

    def no_wire(self, c, what, kind):
        got = [m for m in self.msgs if m["kind"] == kind]
        other = got and got[0]["data"].rstrip(b"\0") not in (self.bmsg,
                                                             self.bwmsg)
        c.bad("%s to the server's QP on the wire, acknowledged" % what,
              "none" if not got else "%s of %d bytes%s" % (
                  kind, len(got[0]["data"]), ", other bytes" if other
                  else ", not acknowledged"),
              hint("wire") if not other else hint("write_data")
              if kind == "write" else hint("send_data"))

    def receive_race(self, c, kind, need):
        """Server: the receive for this message existed before the
        barrier, and no RNR NAK answered the message.  Not judged when
        the program stopped before this step: its receives and barrier
        are then another step's (a round-staller's send got the RNR
        hint for receives it never reached)."""
        if not self.S.reached(kind):
            return
        naks, posted, barrier = self.naks, self.posted, self.barrier
        if [x for k, x in naks if k == kind]:
            c.bad("your QP accepts the %s" % kind.replace("_", " with "),
                  "RNR NAK from your QP (receiver not ready), PSN 0x%06x" %
                  [x for k, x in naks if k == kind][0]["psn"],
                  hint("late_recv") if barrier and posted < need
                  else hint("rnr"))
        elif not barrier:
            c.bad("%d receives posted, then lab_barrier()" % need,
                  "no barrier byte to the peer in the kernel's trace of "
                  "your process", hint("late_recv"))
        elif posted < need:
            c.bad("%d receives posted before lab_barrier()" % need,
                  "%d posted before it" % posted, hint("late_recv"))


# The hint for a step that failed with a code (docs/protocol.md, "Failure
# codes"), whatever the step.
FAIL_HINTS = {
    "TODO": "todo",
    "WC_RNR_RETRY_EXC_ERR": "rnr",
    "WC_REM_ACCESS_ERR": "write_access",
    "WC_LOC_PROT_ERR": "send_data",
    "WC_LOC_QP_OP_ERR": "send_data",
    "IMM_ORDER": "imm_htonl",
    "PSN": "psn",
    "EXCH_PSN": "psn",
}
known(*FAIL_HINTS)


def fail_hint(ev, S, step, side):
    """A hint for a step that printed no ok line, from its FAIL line's
    code."""
    if S.failed(step, "WC_LOC_QP_OP_ERR"):
        # Refused by the device for its opcode, or for its SGE.
        other = wrong_opcode(ev, step, "IBV_WC_LOC_QP_OP_ERR")
        if other:
            return other
    if side == "client" and S.failed(step, "WC_REM_ACCESS_ERR"):
        return None  # rkey or address: the wire checks tell which
    # RTR resolves the peer's GID: a wrong one is never reached.
    if step == "connect" and S.failed(step, "ERRNO_ETIMEDOUT"):
        return hint("gid")
    key = FAIL_HINTS.get(S.codes.get(step))
    return hint(key) if key else None


def judge_own_lines(ev, res):
    """Common to every step: the step's own line; missing lines name where
    it stopped."""
    S, side = ev.S, ev.side
    stop = S.stopped_at()
    for s in STEP_NAMES:
        if S.ok(s):
            continue
        c = res[s]
        if S.limit and s == (stop or "teardown"):
            c.bad("lab %s ok" % s, "%s in step %s" % (S.limit, s),
                  hint("limit", S.limit))
        elif S.fails.get(s):
            c.bad("lab %s ok" % s, "lab %s FAIL: %s" % (s, S.fails[s]),
                  fail_hint(ev, S, s, side))
        elif S.timed_out() and s == (stop or "teardown"):
            c.bad("lab %s ok" % s, "timed out in step %s" % s,
                  hint("hung", s))
        elif S.note and s == (stop or "teardown"):
            # The guest stopped it (a signal, not a crash): whether that
            # or its silence came first is a matter of timing.
            c.bad("lab %s ok" % s, "stopped in step %s after the peer "
                  "failed" % s, None)
        elif S.rc is not None and S.rc >= 128 and S.rc not in (137,) \
                and s == (stop or "teardown"):
            why = hint("flood") if S.rc == 153 else hint("crash")
            c.bad("lab %s ok" % s, "killed by signal %d in step %s" %
                  (S.rc - 128, s), why)
        elif stop and STEP_NAMES.index(s) > STEP_NAMES.index(stop) \
                and s != "teardown":
            c.unreached(stop)
        else:
            c.bad("lab %s ok" % s, "no line for %s" % s, None)


def fallback_hints(ev, res):
    """Fallbacks: the peer stopped first, the cause the FAIL line's code
    and the evidence name (causes.py), the program's own hint, then a
    generic one for a FAIL line without a code."""
    S, P = ev.S, ev.P
    ps = P.stopped_at()
    for s in STEP_NAMES:
        c = res[s]
        if c.ok or c.hint is not None:
            continue
        if ps and (STEP_NAMES.index(ps) < STEP_NAMES.index(s) or
                   ps == s and S.note) and \
                (P.fails.get(ps) or P.rc not in (0, None)):
            c.hint = hint("peer_quit", ps)
        elif S.fails.get(s):
            c.hint = code_hint(ev, s) or S.hints.get(s) or hint("fail")

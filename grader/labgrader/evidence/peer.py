"""One program's side of a pairing: its lines, its trace, how it ended;
the reference peer's lines are trusted, a student's are not."""
import os
import re

from .kernel import kmade, parse_ktrace
from ..codes import WAIT_CODES, known, split_code
from ..lab import POINTS, SETTINGS, STEP_NAMES
from ..text import kv, num, read
from ..verbs import QPS_RTR


def parse_output(out, err):
    """Step lines of one program: {step: (status, kv, line)}, and each
    step's first FAIL line's reason and code, and first hint."""
    steps, fails, codes, hints = {}, {}, {}, {}
    for line in (out or "").splitlines():
        m = re.match(r"^lab (\w+) ok( .*)?$", line)
        if m and m.group(1) in POINTS and m.group(1) not in steps:
            steps[m.group(1)] = ("ok", kv(m.group(2) or ""), line)
    for line in (err or "").splitlines():
        m = re.match(r"^lab (\w+) (FAIL|hint): (.*)$", line)
        if not m:
            continue
        if m.group(2) == "hint":
            hints.setdefault(m.group(1), m.group(3))
        elif m.group(1) not in fails:
            fails[m.group(1)], codes[m.group(1)] = split_code(m.group(3))
    return steps, fails, codes, hints


def parse_facts(text):
    """A guest's port, as grader/guest/driver's facts() wrote it: the
    GID table (index: (gid, type)), the P_Key table (index: P_Key, None
    when the guest did not say), the active MTU in bytes, the rest as
    text."""
    f = {"gids": {}, "pkeys": None}
    for line in (text or "").splitlines():
        k, _, v = line.partition("=")
        if re.match(r"^gid\.\d+$", k):
            gid, _, t = v.partition(" type=")
            f["gids"][int(k[4:])] = (gid, t.replace("_", " "))
        elif re.match(r"^pkey\.\d+$", k):
            f["pkeys"] = f["pkeys"] or {}
            f["pkeys"][int(k[5:])] = num(v, 0)
        else:
            f[k] = v
    m = re.match(r"(\d+)", f.get("active_mtu", ""))
    f["mtu"] = int(m.group(1)) if m else 1024
    return f


def write_received(got, wmsg, msg):
    """What a server printed for the write step is the WRITE payload.  With
    part two, the client's WRITE with immediate puts the message at the
    same address later.  The barrier at the start of read keeps it from
    landing before the server printed, unless a client skips that
    barrier: then a correct server may show the payload partly or wholly
    overwritten, which is not the server's fault.  Any byte of either is
    the work done; any other byte (an early read) is not."""
    if got is None or len(got) != len(wmsg):
        return False
    if got == wmsg or "write_imm" not in STEP_NAMES:
        return got == wmsg
    return all(g == w or (i < len(msg) and g == msg[i])
               for i, (g, w) in enumerate(zip(got, wmsg)))


def server_mrs(X):
    """The MRs of the server X: the kernel's for a student (with their
    access), printed by the reference (access None: the reference's is
    right)."""
    if X.who == "ref":
        a = num(X.val("create_resources", "buf"))
        n = num(X.val("create_resources", "len"))
        k = num(X.val("create_resources", "rkey"))
        return [] if None in (a, n, k) else [
            {"addr": a, "len": n, "rkey": k, "access": None}]
    return [{"addr": num(m.get("addr"), -1), "len": num(m.get("len"), 0),
             "rkey": num(m.get("rkey")), "access": num(m.get("access"), 0)}
            for m in X.calls("k_mr", kmade)]


def mr_of(mrs, va, rkey, size=1):
    """The MR among mrs whose rkey is rkey and which holds [va, va+size)."""
    for m in mrs:
        if m["rkey"] == rkey and m["addr"] <= va and \
                va + size <= m["addr"] + m["len"]:
            return m
    return None


def run_cpu(text):
    """(cpu_s, wall_s) of a SIDE.cpu file, "CPU_US WALL_US", or None."""
    w = (text or "").split()
    if len(w) != 2 or not all(x.isdigit() for x in w):
        return None
    cpu, wall = int(w[0]) / 1e6, int(w[1]) / 1e6
    return (min(cpu, wall), wall)


class Side:
    def __init__(self, pdir, side, who):
        self.side, self.who = side, who
        self.out = read(os.path.join(pdir, side + ".out"))
        self.err = read(os.path.join(pdir, side + ".err"))
        self.rc = num((read(os.path.join(pdir, side + ".rc")) or
                       "").strip())
        self.note = (read(os.path.join(pdir, side + ".note")) or
                     "").strip()
        # Stopped by the guest for its silence: a hang, as a timeout is.
        self.idle = (read(os.path.join(pdir, side + ".idle")) or
                     "").strip()
        # A limit of the sandbox it exhausted, as its guest saw it (the
        # cgroup's OOM kills or fork refusals, the capture's growth):
        # written by the guest driver, never by the program.
        self.limit = (read(os.path.join(pdir, side + ".limit")) or
                      "").strip()
        # A student's run as its guest measured it (the guest driver's
        # note_cpu, never the program): (CPU seconds, wall seconds).
        self.cpu = run_cpu(read(os.path.join(pdir, side + ".cpu"), 100))
        self.steps, self.fails, self.codes, self.hints = parse_output(
            self.out, self.err)
        self.trace = parse_ktrace(read(os.path.join(pdir, side +
                                                    ".ktrace"),
                                       SETTINGS["KTRACE_MAX_BYTES"]))

    def line(self, step):
        return self.steps.get(step, (None, {}, None))

    def ok(self, step):
        return self.line(step)[0] == "ok"

    def val(self, step, key):
        return self.line(step)[1].get(key)

    def failed(self, step, *codes):
        """The step's FAIL line names one of the codes (lab/codes.h)."""
        return self.codes.get(step) in known(*codes)

    def calls(self, fn, ok=None):
        r = [e for e in self.trace if e["_fn"] == fn]
        if ok is not None:
            r = [e for e in r if ok(e)]
        return r

    def stopped_at(self):
        for s in STEP_NAMES[:-1]:
            if not self.ok(s):
                return s
        return None

    def reached(self, step):
        """The program got to step: it did not stop at an earlier one."""
        stop = self.stopped_at()
        return stop is None or STEP_NAMES.index(stop) >= \
            STEP_NAMES.index(step)

    def timed_out(self):
        return (self.rc in (124, 137) or self.idle) and not self.note

    def left_early(self):
        """It ended on its own, not waiting: a signal of its own (a
        crash), or a FAIL line whose code no wait prints.  Packets that
        came for it afterwards found its objects gone, or going: when
        is a matter of timing, so they are no evidence of its set-up."""
        if self.timed_out() or self.note or self.limit:
            return False
        if self.rc is not None and self.rc >= 128:
            return True
        stop = self.stopped_at()
        return bool(stop) and stop in self.codes and \
            self.codes[stop] not in WAIT_CODES

    def text_lines(self):
        return (self.out or "").splitlines() + (self.err or "").splitlines()


def qpn_of(X):
    """A side's QPN: the kernel's for a student, printed by the reference."""
    if X.who == "ref":
        return num(X.val("create_resources", "qpn"))
    q = X.calls("k_qp", kmade)
    return num(q[-1].get("qpn")) if q else None


def connections(X):
    """(QPN, dest QPN) of X's successful RTR transitions as the kernel
    made them, in order (k_modify names its QP by the kernel's ib_qp,
    which k_qp returned with its number)."""
    qpns = {e["_ret"]: num(e.get("qpn")) for e in X.calls("k_qp", kmade)}
    return [(qpns.get(e.get("qp")), num(e.get("dest_qpn"))) for e in
            X.calls("k_modify", lambda e: e["_ret"] == "0" and
                    num(e.get("state")) == QPS_RTR)]


def judged_qpn(X, Y):
    """The QPN of X's QP that its peer Y talks to, whose events alone the
    race judges read (another QP's receives, completions and requests
    neither help nor hurt): the number the reference peer received in
    the exchange; else the last QP of X that a QP of Y connected to and
    that connected back to it; else X's last QP."""
    if Y.who == "ref" and num(Y.val("exchange", "remote_qpn")) is not None:
        return num(Y.val("exchange", "remote_qpn"))
    mine = connections(X)
    for theirs, q in reversed(connections(Y)):
        if (q, theirs) in mine:
            return q
    return qpn_of(X)

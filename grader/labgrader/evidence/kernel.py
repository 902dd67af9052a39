"""The guest kernel's trace of one run (grader/guest/probes.c): the verbs
calls, completions and TCP sends of a program, in order."""
import re
import struct

from ..lab import WIRE_SIZE
from ..text import bswap32, kv, num, read
from ..verbs import SEND_SIGNALED, WC_RDMA_WRITE, WC_RECV, WR_COMPLETION


def parse_trace(text):
    """The in-process tracer's lines (tests/lab/tracer.c), which only
    the fault tests read (grader.py leaks): never evidence for grading."""
    ev = []
    for line in (text or "").splitlines():
        if line.startswith("key="):
            line = line.partition(" ")[2]
        name, _, rest = line.partition(" ")
        args, _, res = rest.partition(" = ")
        e = kv(args)
        r = res.split(" ", 1)
        e["_fn"], e["_ret"] = name, r[0] if r else ""
        if len(r) > 1:
            e.update(kv(r[1]))
        ev.append(e)
    return ev


# One line of the kernel's trace (/sys/kernel/tracing/trace, with no
# command names recorded): TASK-PID [CPU] FLAGS TIME: EVENT: (PLACE) FIELDS.
KT_LINE = re.compile(r"^\s*\S*-(\d+)\s+\[\d+\]\s+\S+\s+\d+\.\d+: "
                     r"(\w+): \([^)]*\)((?: \w+=-?\w+)*)$")
WR_ATOMICS = (5, 6)  # IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD
QP_AV = 0x80         # IBV_QP_AV
AH_GRH = 1           # IB_AH_GRH, of the kernel's rdma_ah_attr.ah_flags

# The extended API's calls that make an object the classic call makes:
# one record whichever call made it.
EX_CREATES = {"ibv_create_qp_ex": "ibv_create_qp",
              "ibv_create_cq_ex": "ibv_create_cq"}
# The extended API's work requests (ibv_wr_*), by the IBV_WR_* opcode
# each puts in the send queue.
EX_OPCODES = {"ibv_wr_rdma_write": 0, "ibv_wr_rdma_write_imm": 1,
              "ibv_wr_send": 2, "ibv_wr_send_imm": 3,
              "ibv_wr_rdma_read": 4, "ibv_wr_atomic_cmp_swp": 5,
              "ibv_wr_atomic_fetch_add": 6}
EX_SGES = ("ibv_wr_set_sge", "ibv_wr_set_sge_list", "ibv_wr_set_inline_data",
           "ibv_wr_set_inline_data_list")
# A poll of the extended CQ that returned 0 took one completion.
EX_POLLS = ("ibv_start_poll_ret", "ibv_next_poll_ret")
# The fields of one send request, as the judges read them.
WR_FIELDS = ("opcode", "flags", "imm", "raddr", "rkey", "araddr", "arkey",
             "cmp_add", "swap", "num_sge", "laddr", "len")


def send_wr(qpn, f, n):
    """One ibv_post_send record from a request's fields f: the immediate
    in host order, an atomic's remote address and rkey where a READ's or
    a WRITE's are, no SGE when it has none; n, how many requests the list
    that posted it held."""
    e = {"_fn": "ibv_post_send", "_ret": "", "qpn": qpn, "n": str(n)}
    e.update((k, f[k]) for k in WR_FIELDS if k in f)
    e["imm"] = "0x%08x" % bswap32(num(f.get("imm"), 0))
    if num(f.get("opcode"), -1) in WR_ATOMICS:
        e["raddr"], e["rkey"] = f.get("araddr"), f.get("arkey")
    if num(f.get("num_sge"), 0) <= 0:
        e["laddr"], e["len"] = "0x0", "0"
    return e


def ex_wr(name, f):
    """The record of one ibv_wr_<op> request (its SGE comes after it)."""
    g = {k: "0x0" for k in WR_FIELDS}
    g.update(f, opcode=str(EX_OPCODES[name]), num_sge="0", len="0")
    g["araddr"], g["arkey"] = g["raddr"], g["rkey"]
    return send_wr(f.get("qpn"), g, 1)


def ex_sge(e, name, f):
    """A request's SGE (or inline data), set by ibv_wr_set_*."""
    many = name.endswith("_list")
    e["num_sge"] = f.get("num_sge", "0") if many else "1"
    e["laddr"], e["len"] = f.get("laddr"), f.get("len")
    if num(e["num_sge"], 0) <= 0 or (not many and not num(e["len"], 0)
                                     and name == "ibv_wr_set_sge"):
        e["num_sge"], e["laddr"], e["len"] = "0", "0x0", "0"


class Polls:
    """Which of the completions the kernel wrote the program's polls have
    taken.  A poll names no CQ in the trace, and takes the oldest
    completions of its own CQ (a QP's send completions go to its send
    CQ, its receives' to its receive CQ).  So the j-th completion of a
    CQ is taken for certain once the polls have taken more than the
    other CQs held: at least j of them came from its CQ.  With one CQ,
    as the lab has, that is the kernel's order exactly; with several,
    a completion counts from the first poll that must have taken it,
    never from one that another CQ's completion may have answered (a
    loopback QP's WRITE on a CQ of its own is no completion of the real
    QP's WRITE)."""

    def __init__(self):
        self.cqs, self.written, self.pending = {}, {}, []
        self.total = self.polled = 0

    def created(self, e):
        """A QP: its completions go to its CQs."""
        self.cqs[num(e.get("qpn"))] = (e.get("send_cq"), e.get("recv_cq"))

    def write(self, e):
        qpn = num(e.get("qpn"))
        send, recv = self.cqs.get(qpn, (("qp", qpn), ("qp", qpn)))
        cq = recv if num(e.get("opcode"), 0) >= WC_RECV else send
        self.written[cq] = self.written.get(cq, 0) + 1
        self.total += 1
        self.pending.append((cq, self.written[cq], e))

    def poll(self, took):
        """A poll took that many: the completions now taken for certain,
        as "wc" events, in the kernel's order."""
        self.polled += max(took, 0)
        out, left = [], []
        for cq, j, e in self.pending:
            if self.polled >= j + self.total - self.written[cq]:
                out.append(dict(e, _fn="wc"))
            else:
                left.append((cq, j, e))
        self.pending = left
        return out


def parse_ktrace(text):
    """The guest kernel's trace of one run (grader/guest/probes.c), as the
    judges read it: one event per call, {"_fn": name, "_ret": value,
    field: value}, an entry probe joined with the next return probe of
    the same function on the same thread; the kernel's completions as
    "kwc" events when it wrote them and as "wc" events when a poll of the
    program took them; the bytes sent over TCP as "tcp" events (daddr,
    the peer's address; _ret, how many went).  Only lines of the probes' own
    shape count: a field holds a number, never text.

    The records do not depend on the API that made them: a QP or CQ of
    ibv_create_qp_ex or ibv_create_cq_ex is an ibv_create_qp or
    ibv_create_cq; each request of a list is an ibv_post_send of its own
    (n: how many the list held), whether the list was chained work
    requests (the first two are read) or ibv_wr_* calls between
    ibv_wr_start and ibv_wr_complete (posted by the complete, with its
    result; an ibv_wr_abort posts none); ibv_start_poll and
    ibv_next_poll take one completion each time they return 0."""
    ev, pending, polls, batch = [], {}, Polls(), {}
    for line in (text or "").splitlines():
        m = KT_LINE.match(line)
        if not m:
            continue
        tid, name, f = m.group(1), m.group(2), kv(m.group(3))
        if name == "ibv_poll_cq_ret" or name in EX_POLLS:
            # The poll took completions the kernel wrote: each taken for
            # certain is a "wc" event now (Polls).
            took = num(f.get("ret"), 0) if name == "ibv_poll_cq_ret" \
                else int(num(f.get("ret"), -1) == 0)
            ev.extend(polls.poll(took))
            continue
        if name.endswith("_ret"):
            for e in pending.pop((tid, name[:-4]), []):
                e["_ret"] = f.get("ret", "")
                e.update((k, v) for k, v in f.items() if k != "ret")
                if e["_fn"] == "ibv_create_qp" and created(e["_ret"]):
                    polls.created(e)
            continue
        # The extended API's requests wait in their QP's list until
        # ibv_wr_complete posts them.
        if name == "ibv_wr_start" or name == "ibv_wr_abort":
            batch[f.get("qp")] = []
            continue
        if name in EX_OPCODES:
            batch.setdefault(f.get("qp"), []).append(ex_wr(name, f))
            continue
        if name in EX_SGES:
            if batch.get(f.get("qp")):
                ex_sge(batch[f.get("qp")][-1], name, f)
            continue
        if name == "ibv_wr_complete":
            wrs = batch.pop(f.get("qp"), [])
            for e in wrs:
                e["n"] = str(len(wrs))
            ev.extend(wrs)
            pending[(tid, name)] = wrs
            continue
        e = {"_fn": EX_CREATES.get(name, name), "_ret": ""}
        e.update(f)
        if name in EX_CREATES:
            e["via"] = name
        if name == "wc":
            # ib_uverbs_wc's immediate is in network order.
            e["imm"] = "0x%08x" % (bswap32(num(f.get("imm"), 0)) if
                                   num(f.get("flags"), 0) & 2 else 0)
            e["_ret"], e["_fn"] = "0", "kwc"
            polls.write(e)
        elif name in ("ibv_modify_qp", "k_modify"):
            e["dgid"] = "-"
            if num(f.get("mask"), 0) & QP_AV:
                raw = struct.pack("<QQ", num(f.get("dgid_a"), 0),
                                  num(f.get("dgid_b"), 0))
                e["dgid"] = ":".join("%02x%02x" % (raw[i], raw[i + 1])
                                     for i in range(0, 16, 2))
            if name == "k_modify":
                # The kernel's rdma_ah_attr says GRH in its ah_flags.
                e["is_global"] = str(num(f.get("ah_flags"), 0) & AH_GRH)
        elif name == "k_qp":
            # enum ib_sig_type: IB_SIGNAL_ALL_WR is 0.
            e["sig_all"] = str(int(num(f.get("sig_type"), 1) == 0))
        elif name == "k_mr":
            # Remote accesses name the MR by its iova.
            e["addr"] = f.get("iova")
        elif name == "ibv_post_send":
            # The first request of the list, and the second when next
            # says there is one (its fields end in 2).
            n = 1 + (num(f.get("next"), 0) != 0) + \
                (num(f.get("next"), 0) != 0 and num(f.get("next2"), 0) != 0)
            wrs = [send_wr(f.get("qpn"), f, n)]
            if n > 1:
                wrs.append(send_wr(f.get("qpn"), {
                    k: f[k + "2"] for k in WR_FIELDS if k + "2" in f}, n))
            ev.extend(wrs)
            pending[(tid, name)] = wrs
            continue
        elif name == "tcp":
            e["daddr"] = ".".join(str(b) for b in struct.pack(
                "<I", num(f.get("daddr"), 0)))
        elif name == "ibv_post_recv":
            # A request's next is read only through the one before it:
            # after a NULL, the kernel's failed read leaves the field
            # whatever the buffer held.
            n = 1
            while n < 4 and num(f.get("n%d" % n), 0):
                n += 1
            e["n"] = str(n)
        if name in ("ibv_free_device_list", "wc"):
            e["_ret"] = "0"  # nothing to return
        else:
            pending[(tid, name)] = [e]
        ev.append(e)
    return ev


# What each side sends its peer over TCP, in order (docs/protocol.md): the
# barrier and the notices are bytes at known places of that stream, and
# the kernel's trace holds every TCP send with its length, in the order of
# the verbs calls and completions around it.
STREAMS = {
    "server": [("exchange", WIRE_SIZE), ("barrier", 1), ("read_barrier", 1),
               ("atomic_target", 17)],
    "client": [("exchange", WIRE_SIZE), ("barrier", 1), ("write_done", 5),
               ("read_barrier", 1), ("atomic_done", 1)],
}


def signal_at(tr, side, signal, peer_ip):
    """The index in tr of the TCP send that carried the first byte of
    side's signal to peer_ip, or None when it never went."""
    off = 0
    for name, n in STREAMS[side]:
        if name == signal:
            break
        off += n
    sent = 0
    for i, e in enumerate(tr):
        if e["_fn"] != "tcp" or e.get("daddr") != peer_ip:
            continue
        n = max(num(e["_ret"], 0), 0)
        if sent <= off < sent + n:
            return i
        sent += n
    return None


def recvs_before(tr, at, qpn):
    """Receive requests posted (returned 0) to QP qpn before event at:
    another QP's receives take none of its messages."""
    return sum(num(e.get("n"), 1) for e in tr[:at or 0]
               if e["_fn"] == "ibv_post_recv" and e["_ret"] == "0" and
               num(e.get("qpn")) == qpn)


def taken(tr, qpn):
    """The send requests of QP qpn that the program has seen complete, by
    the verbs' rules: [(i, opcode, ok)], i the index in tr of the
    completion it took ("wc") that completed the request, opcode the
    request's completion opcode (IBV_WC_*), ok whether it succeeded.  A
    successful completion completes its own request and every
    unsignaled one posted before it on the same send queue (sq_sig_all
    signals them all); a failed one, only the oldest request (rxe's
    completer, do_complete, writes one for a failed unsignaled request
    too: from its source, not yet seen in a run).  A completion of
    another QP completes nothing here."""
    sig_all, held, out = 0, [], []
    for i, e in enumerate(tr):
        fn = e["_fn"]
        if num(e.get("qpn")) != qpn:
            continue
        if fn == "ibv_create_qp" and created(e["_ret"]):
            sig_all = num(e.get("sig_all"), 0)
        elif fn == "ibv_post_send" and e["_ret"] == "0":
            held.append((sig_all or num(e.get("flags"), 0) & SEND_SIGNALED,
                         WR_COMPLETION.get(num(e.get("opcode"), -1))))
        elif fn == "wc" and num(e.get("opcode"), WC_RECV) < WC_RECV:
            ok = num(e.get("status")) == 0
            while held:
                signaled, op = held.pop(0)
                if signaled or not ok:
                    break
                out.append((i, op, True))
            # The completion's own request: its opcode is the wc's.
            out.append((i, num(e.get("opcode")), ok))
    return out


def notice_early(tr, at, opcodes, qpn):
    """The notice at event at went before the program had seen a
    successful completion of each opcode in opcodes on QP qpn (True:
    early, or never seen), after them (False), or never went (None: a
    missing fact, never a pass).  Seen, not only written by the kernel:
    whether the ACK beat the notice is the timing of one run; seen by
    the verbs' rules (taken): an unsignaled request is complete once a
    later signaled one's completion of its send queue is polled."""
    if at is None:
        return None
    left = list(opcodes)
    for i, op, ok in taken(tr, qpn):
        if i < at and ok and op in left:
            left.remove(op)
    return bool(left)


def write_done_early(tr, peer_ip, qpn):
    """A client's write notice: before its WRITE on QP qpn completed
    (True), after (False), never sent (None)."""
    return notice_early(tr, signal_at(tr, "client", "write_done", peer_ip),
                        [WC_RDMA_WRITE], qpn)


def good_wcs(tr, opcode, qpn):
    """The successful completions of that opcode of QP qpn the program
    has seen, in order: a receive's as the kernel wrote it, a send
    request's by the verbs' rules (taken: then the completion that
    completed it)."""
    if opcode >= WC_RECV:
        return [e for e in tr if e["_fn"] == "wc" and
                num(e.get("qpn")) == qpn and
                num(e.get("opcode")) == opcode and
                num(e.get("status")) == 0]
    return [tr[i] for i, op, ok in taken(tr, qpn) if ok and op == opcode]


def created(ret):
    return ret not in ("(nil)", "0x0", "", None)


# What each create and destroy in a trace is called, and which argument of
# a destroy names the object.
KINDS = {"ibv_get_device_list": "device list", "ibv_open_device": "device",
         "ibv_alloc_pd": "PD", "ibv_create_comp_channel": "channel",
         "ibv_create_cq": "CQ", "ibv_reg_mr": "MR", "ibv_create_qp": "QP"}
DESTROYS = {"ibv_free_device_list": "list", "ibv_close_device": "ctx",
            "ibv_dealloc_pd": "pd", "ibv_destroy_comp_channel": "ch",
            "ibv_destroy_cq": "cq", "ibv_dereg_mr": "mr",
            "ibv_destroy_qp": "qp"}


# The kernel's own record of the program's objects (grader/guest/kfacts.c):
# each create, what it made and which argument names it, and each destroy
# with the argument that names its object.
KMADE = {"k_pd": "PD", "k_cq": "CQ", "k_mr": "MR", "k_qp": "QP"}
KFREES = {"k_pd_free": "pd", "k_cq_free": "cq", "k_mr_free": "mr",
          "k_qp_free": "qp"}
# Why uverbs_destroy_uobject removed an object (enum rdma_remove_reason):
# the program's own destroy, or one never handed to the program (a create
# the kernel undid); any other (its file closed, its process ended) is
# the kernel cleaning up after the program.
REMOVE_DESTROY, REMOVE_ABORT = 0, 3
ERR_PTR = (1 << 64) - 4095  # the kernel's ERR_PTR values lie above


def kmade(e):
    """The kernel pointer of the object a kernel create record made, or
    None when it made none: the PD's and CQ's are their argument (the
    driver returned 0), the MR's and QP's the pointer returned."""
    fn = e.get("_fn")
    if fn in ("k_pd", "k_cq"):
        return e.get(fn[2:]) if e.get("_ret") == "0" else None
    if fn in ("k_mr", "k_qp"):
        r = num(e.get("_ret"), 0)
        return e["_ret"] if 0 < r < ERR_PTR else None
    return None


def kleaks(tr):
    """The kernel's view of a teardown: the objects (PD, CQ, MR, QP) the
    program's process made and did not destroy itself ({pointer: (kind,
    record)}: those the kernel destroyed when their file closed or the
    process ended are leaks too), and the program's destroys the kernel
    refused or the driver failed."""
    live, bad, why = {}, [], {}
    for e in tr:
        fn = e["_fn"]
        if fn in KMADE and kmade(e):
            live[kmade(e)] = (KMADE[fn], e)
        elif fn == "k_uobj_free":
            obj = e.get("obj")
            why[obj] = num(e.get("why"))
            if why[obj] == REMOVE_DESTROY and e["_ret"] not in ("0", "") \
                    and obj in live:
                bad.append("the kernel refused to destroy %s %s (%s)" % (
                    live[obj][0], obj, e["_ret"]))
        elif fn in KFREES:
            obj = e.get(KFREES[fn])
            reason = why.pop(obj, None)
            # A driver's failure is uverbs_destroy_uobject's too: said
            # above, for the program's own destroys.
            if obj in live and e["_ret"] == "0" and \
                    reason in (REMOVE_DESTROY, REMOVE_ABORT):
                live.pop(obj)
    return live, bad


def leaks(tr):
    """Objects a trace created and never destroyed, and the destroys that
    failed or came out of order (a device closed before its children)."""
    live, order_bad = {}, []
    for e in tr:
        fn = e["_fn"]
        if fn in KINDS and created(e["_ret"]):
            live[e["_ret"]] = (KINDS[fn], e)
        elif fn in DESTROYS:
            ptr = e.get(DESTROYS[fn])
            if fn != "ibv_free_device_list" and e["_ret"] != "0":
                order_bad.append("%s(%s) returned %s" % (fn, ptr, e["_ret"]))
                continue
            k = live.pop(ptr, None)
            rest = [v[0] for v in live.values() if v[0] != "device list"]
            if k and k[0] == "device" and rest:
                order_bad.append("ibv_close_device with %s still alive" %
                                 ", ".join(sorted(set(rest))))
    return live, order_bad


def cmd_leaks(path):
    tr = parse_trace(read(path))
    live, order_bad = leaks(tr)
    for p in order_bad:
        print("bad teardown: " + p)
    for p, v in live.items():
        print("never destroyed: %s %s" % (v[0], p))
    if live or order_bad:
        return 1
    print("%d objects created, all released" % sum(
        e["_fn"] in KINDS and created(e["_ret"]) for e in tr))
    return 0

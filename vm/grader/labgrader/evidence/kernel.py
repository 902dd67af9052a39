"""The guest kernel's trace of one run (vm/grader/probes.c): the verbs
calls, completions and TCP sends of a program, in order."""
import re
import struct

from ..lab import WIRE_SIZE
from ..text import bswap32, kv, num, read
from ..verbs import WC_RDMA_WRITE


def parse_trace(text):
    """The in-process tracer's lines (vm/grader/tracer.c), which only
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


def parse_ktrace(text):
    """The guest kernel's trace of one run (vm/grader/probes.c), as the
    judges read it: one event per call, {"_fn": name, "_ret": value,
    field: value}, an entry probe joined with the next return probe of
    the same function on the same thread; the kernel's completions as
    "kwc" events when it wrote them and as "wc" events when a poll of the
    program took them; the bytes sent over TCP as "tcp" events (daddr,
    the peer's address; _ret, how many went).  Only lines of the probes' own
    shape count: a field holds a number, never text."""
    ev, pending, kernel = [], {}, []
    for line in (text or "").splitlines():
        m = KT_LINE.match(line)
        if not m:
            continue
        tid, name, f = m.group(1), m.group(2), kv(m.group(3))
        if name == "ibv_poll_cq_ret":
            # The poll took the oldest completions the kernel wrote, in
            # the kernel's order (exact with one CQ; with more, matched
            # across them in that order): each is a "wc" event now.
            for _ in range(max(num(f.get("ret"), 0), 0)):
                if kernel:
                    ev.append(dict(kernel.pop(0), _fn="wc"))
            continue
        if name.endswith("_ret"):
            e = pending.pop((tid, name[:-4]), None)
            if e is not None:
                e["_ret"] = f.pop("ret", "")
                e.update(f)
            continue
        e = {"_fn": name, "_ret": ""}
        e.update(f)
        if name == "wc":
            # ib_uverbs_wc's immediate is in network order.
            e["imm"] = "0x%08x" % (bswap32(num(f.get("imm"), 0)) if
                                   num(f.get("flags"), 0) & 2 else 0)
            e["_ret"], e["_fn"] = "0", "kwc"
            kernel.append(e)
        elif name == "ibv_modify_qp":
            e["dgid"] = "-"
            if num(f.get("mask"), 0) & QP_AV:
                raw = struct.pack("<QQ", num(f.get("dgid_a"), 0),
                                  num(f.get("dgid_b"), 0))
                e["dgid"] = ":".join("%02x%02x" % (raw[i], raw[i + 1])
                                     for i in range(0, 16, 2))
        elif name == "ibv_post_send":
            op = num(f.get("opcode"), -1)
            e["imm"] = "0x%08x" % bswap32(num(f.get("imm"), 0))
            if op in WR_ATOMICS:
                e["raddr"], e["rkey"] = f.get("araddr"), f.get("arkey")
            e["n"] = "2" if num(f.get("next"), 0) else "1"
            if num(f.get("num_sge"), 0) <= 0:
                e["laddr"], e["len"] = "0x0", "0"
        elif name == "tcp":
            e["daddr"] = ".".join(str(b) for b in struct.pack(
                "<I", num(f.get("daddr"), 0)))
        elif name == "ibv_post_recv":
            e["n"] = str(1 + sum(1 for k in ("n1", "n2", "n3")
                                 if num(f.get(k), 0)))
        if name in ("ibv_free_device_list", "wc"):
            e["_ret"] = "0"  # nothing to return
        else:
            pending[(tid, name)] = e
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


def recvs_before(tr, at):
    """Receive requests posted (returned 0) before event at."""
    return sum(num(e.get("n"), 1) for e in tr[:at or 0]
               if e["_fn"] == "ibv_post_recv" and e["_ret"] == "0")


def notice_early(tr, at, opcodes):
    """The notice at event at went before the program had taken a
    successful completion of each opcode in opcodes from its CQ (True:
    early, or never taken), after them (False), or never went (None: a
    missing fact, never a pass).  Taken, not only written by the kernel:
    whether the ACK beat the notice is the timing of one run."""
    if at is None:
        return None
    left = list(opcodes)
    for e in tr[:at]:
        if e["_fn"] == "wc" and num(e.get("status")) == 0 and \
                num(e.get("opcode")) in left:
            left.remove(num(e.get("opcode")))
    return bool(left)


def write_done_early(tr, peer_ip):
    """A client's write notice: before its WRITE completed (True), after
    (False), never sent (None)."""
    return notice_early(tr, signal_at(tr, "client", "write_done", peer_ip),
                        [WC_RDMA_WRITE])


def good_wcs(tr, opcode):
    """The successful completions of that opcode polled, in order."""
    return [e for e in tr if e["_fn"] == "wc" and
            num(e.get("opcode")) == opcode and num(e.get("status")) == 0]


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

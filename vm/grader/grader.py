#!/usr/bin/env python3
"""Host-side logic of the rdma-lab grader (stdlib only).

  grader.py payloads RESDIR...         fresh random payloads for p1..p3
  grader.py unpack SUBMISSION DEST     copy the main.c of a submission
  grader.py names SUBS                 each submission's folder, and
                                       names that collide (grade-all)
  grader.py clean                      stdin without terminal controls
  grader.py analyze RESDIR RUNDIR DEST  judge one student: DEST/result.json
  grader.py show RESULT [STEP...]      score lines and evidence (student)
  grader.py results RESULT FILE [STEP...]  Gradescope results.json
  grader.py report OUT                 OUT/report.csv and OUT/report.md
  grader.py merge OUT SHARD...         the shards' students in OUT, and
                                       OUT's report
  grader.py progress OUT TOTAL PID...  a progress line until the PIDs end
  grader.py leaks TRACE                objects a traced run never released
  grader.py packets PCAP               the RoCEv2 packets the grader sees
  grader.py slice RESDIR RUNDIR        RESDIR/pN.pcap: pairing N's packets,
                                       cut from the guest's one capture

Evidence comes from what happened, not from what the student's program
printed: the reference peer's lines (the reference is trusted), the
packets captured in the server guest, the ibv_* calls seen by the
LD_PRELOAD tracer, and the guests' sysfs.  A student's own lines are shown
as GOOD, BAD or MISSING, and are only believed for data that the student
side could not know without receiving it (the random payloads).
"""
import bz2
import csv
import errno
import gzip
import io
import json
import lzma
import os
import posixpath
import random
import re
import resource
import signal
import stat
import string
import struct
import subprocess
import sys
import tarfile
import zipfile
import zlib

LAB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "lab")


def read_steps(path=os.path.join(LAB, "steps.h")):
    """[(step, points, part)] and LAB_PARTS from lab/steps.h, the one home
    of the step list and of the parts a course does."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    steps = [(m.group(1), int(m.group(2)), int(m.group(3))) for m in
             re.finditer(r"^LAB_STEP\((\w+), (\d+), (\d+)\)$", text, re.M)]
    parts = re.search(r"^#define LAB_PARTS (\d+)$", text, re.M)
    if not steps or not parts:
        sys.exit("grader: no LAB_STEP lines or no LAB_PARTS in " + path)
    return steps, int(parts.group(1))


def read_define(name, path=os.path.join(LAB, "lab.h")):
    """An integer #define of lab/lab.h (the constants the steps use)."""
    with open(path, encoding="utf-8") as f:
        m = re.search(r"^#define %s\s+(0x[0-9a-fA-F]+|\d+)[uUlL]*\s*$" %
                      name, f.read(), re.M)
    if not m:
        sys.exit("grader: no #define %s in %s" % (name, path))
    return int(m.group(1), 0)


STEP_TABLE, LAB_PARTS = read_steps()
# Every step of lab/steps.h with its points, whatever the parts: the
# judges and docs/grading.md's table cover them all.
STEPS = [(s, pts) for s, pts, _ in STEP_TABLE]
POINTS = dict(STEPS)
PART = {s: part for s, _, part in STEP_TABLE}
# The steps graded: those of parts 1..LAB_PARTS.  Part 1 is the core,
# scored on the "Score:" line; each later part has a line of its own.
GRADED = [(s, pts) for s, pts, part in STEP_TABLE if part <= LAB_PARTS]
STEP_NAMES = [s for s, _ in GRADED]
PART_LINE = {1: "Score", 2: "Part two"}
ATOMIC_ADD = read_define("LAB_ATOMIC_ADD")
ATOMIC_SWAP = read_define("LAB_ATOMIC_SWAP")
WIRE_SIZE = read_define("LAB_WIRE_SIZE")
PAIRINGS = {
    "p1": {"server": "student", "client": "ref"},
    "p2": {"server": "ref", "client": "student"},
    "p3": {"server": "student", "client": "student"},
}
PAIR_TITLE = {
    "p1": "your server, reference client",
    "p2": "reference server, your client",
    "p3": "your server, your client",
}
HERE = os.path.dirname(os.path.abspath(__file__))

# ibv constants (verbs.h)
ACCESS_LOCAL_WRITE, ACCESS_REMOTE_WRITE = 1, 2
ACCESS_REMOTE_READ, ACCESS_REMOTE_ATOMIC = 4, 8
QPS_INIT, QPS_RTR, QPS_RTS = 1, 2, 3
QPT_RC = 2
QP_MAX_QP_RD_ATOMIC, QP_MAX_DEST_RD_ATOMIC = 0x2000, 0x20000
WR_RDMA_READ, WR_CMP_SWP, WR_FETCH_ADD = 4, 5, 6
WC_RDMA_WRITE, WC_RDMA_READ, WC_COMP_SWAP, WC_FETCH_ADD = 1, 2, 3, 4
WC_RECV_RDMA_WITH_IMM = 129
# BTH opcodes of RC (their names: vm/opcodes.tsv)
OP_SEND = {0, 1, 2, 3, 4, 5}
OP_SEND_IMM = {3, 5}
OP_WRITE = {6, 7, 8, 9, 10, 11}
OP_ACK = 17
OP_FIRST = {0, 6}
OP_END = {2, 3, 4, 5, 8, 9, 10, 11}
OP_READ_REQ = 12
OP_READ_RESP = {13, 14, 15, 16}  # FIRST, MIDDLE, LAST, ONLY
OP_ATOMIC_ACK, OP_CMP_SWAP, OP_FETCH_ADD = 18, 19, 20
OP_RESPONSE = OP_READ_RESP | {OP_ACK, OP_ATOMIC_ACK}
PSN_MOD = 1 << 24
U64 = (1 << 64) - 1

HINTS = {
    "todo": "the step is still a TODO: implement it in lab/main.c",
    "gid": "pick the RoCE v2 GID whose address is IPv4-mapped "
    "(::ffff:a.b.c.d), not index 0 (fe80:: link-local): "
    "use lab_choose_gid()",
    "port": "report the port's real attributes: ibv_query_port() into "
    "ctx->port_attr",
    "mr_remote": "the WRITE target MR needs IBV_ACCESS_LOCAL_WRITE | "
    "IBV_ACCESS_REMOTE_WRITE in ibv_reg_mr()",
    "objects": "create the PD, channel, CQ, MRs and an RC QP and store "
    "them in ctx",
    "qp_remote": "the server QP's qp_access_flags lack "
    "IBV_ACCESS_REMOTE_WRITE (ibv_modify_qp to INIT)",
    "init": "INIT needs STATE, PKEY_INDEX, PORT, ACCESS_FLAGS",
    "exch_addr": "advertise ctx->buf's full 64-bit address and the rkey "
    "of its MR (byte order / truncation?)",
    "exch_qpn": "advertise ctx->qp->qp_num as the QPN",
    "exch_gid": "advertise the GID of the index you chose (ctx->gid)",
    "exch_mtu": "the exchange mtu field is the active MTU in bytes "
    "(lab_mtu_bytes()), not the enum",
    "exch_bad": "the peer rejected your exchange message: fill every "
    "field of ctx->local (24-bit PSN, bytes MTU, length)",
    "grh": "RoCE needs a GRH: ah_attr.is_global = 1 with grh.dgid, "
    "grh.sgid_index and grh.hop_limit",
    "mtu": "path MTU above the active MTU: use the smaller of the two "
    "sides' active MTUs (wrong MTU)",
    "psn": "wrong PSN: rq_psn must be the peer's advertised PSN and "
    "sq_psn the one you advertised",
    "qpn": "dest_qp_num must be the peer's QPN from the exchange",
    "rtr": "the QP did not reach RTS: check the RTR/RTS attributes and "
    "masks",
    "rnr": "no receive posted (RNR): post the receives before moving "
    "to RTR",
    "send_data": "the receiver got other bytes: check the SGE address "
    "and length (lkey, not rkey)",
    "opcode": "wrong opcode: use IBV_WR_SEND_WITH_IMM for send_imm "
    "(IBV_WR_SEND for send)",
    "imm_htonl": "byte order: the immediate goes on the wire as "
    "htonl(--imm)",
    "imm_ntohl": "byte order: read the immediate with "
    "ntohl(wc.imm_data)",
    "imm_flag": "check wc.wc_flags & IBV_WC_WITH_IMM and store the "
    "immediate",
    "rkey": "wrong rkey or address: use the rkey and address the peer "
    "advertised (ctx->remote)",
    "write_access": "REMOTE_WRITE missing on the target's MR or QP "
    "(remote access error)",
    "early_read": "read the buffer before the WRITE completed: wait "
    "for the write notice (lab_recv_write_done())",
    "write_data": "the WRITE did not deliver the payload: check the "
    "opcode, SGE and remote address",
    "teardown_order": "teardown order: destroy the QP, then MRs, CQ, "
    "channel, PD, device; check every return value",
    "teardown_leak": "leak: free the device list, and destroy every "
    "verbs object before ibv_close_device()",
    "teardown_line": "teardown must run (and print its line) after "
    "every run that opened the device",
    "wc": "a completion failed: see the FAIL line and its hint",
    "crash": "the program crashed (signal): run it under gdb or "
    "valgrind",
    "flood": "the program wrote too much output and was stopped",
    "limit": "the program %s, a limit of the grader's sandbox: free "
    "what you allocate, start no processes, post only the lab's work",
    "compile": "the program does not compile: run make and fix the "
    "errors",
    "traced": "the work must be done by your own program's verbs "
    "calls (ibv_open_device, ...), not only printed",
    "wire": "the data must cross the wire through your QP: nothing "
    "else earns the data steps",
    "cq_channel": "create the CQ on the completion channel "
    "(ibv_create_cq(..., ctx->channel, 0)): lab_wait_wc() sleeps on it",
    "dgid": "grh.dgid must be the peer's GID from the exchange "
    "(ctx->remote.gid)",
    "hop_limit": "grh.hop_limit 0 drops the packets at the first "
    "router: use LAB_HOP_LIMIT",
    "timeout": "an RTS timeout of 0 waits for an ACK forever: use "
    "LAB_QP_TIMEOUT",
    "late_recv": "receiver not ready (RNR): too few receives were "
    "posted before lab_barrier() told the peer it may send; post all "
    "LAB_RECV_SLOTS before RTR",
    "early_notice": "the write notice went out before the WRITE's "
    "completion: wait for it (lab_wait_wc()) before "
    "lab_send_write_done()",
    "peer_adv": "the WRITE used what the peer advertised, and the "
    "peer's advertisement was wrong: see its exchange step",
    "adv_wrong": "the MR and QP allow REMOTE_WRITE, but the rkey or "
    "address you advertised is not your MR's: see the exchange step",
    "peer_quit": "the peer stopped first (step %s): this side's "
    "failure follows from it; fix that step",
    # Part two.
    "read_op": "use IBV_WR_RDMA_READ with wr.rdma.remote_addr and rkey as "
    "the server advertised, strlen(-w) bytes into ctx->buf",
    "read_data": "the READ brought back other bytes: read strlen(-w) bytes "
    "from the address the server advertised (ctx->remote.addr)",
    "read_mr": "REMOTE_READ missing: the server's MR needs "
    "IBV_ACCESS_REMOTE_READ in ibv_reg_mr() for the client's RDMA READ",
    "read_qp": "REMOTE_READ missing: the server QP's qp_access_flags lack "
    "IBV_ACCESS_REMOTE_READ (ibv_modify_qp to INIT)",
    "rd_credits": "no read credits: READs and atomics need RTR "
    "max_dest_rd_atomic >= 1 on the server and RTS max_rd_atomic >= 1 on "
    "the client",
    "read_local": "the READ's data and an atomic's original value are "
    "written into the client's own MR: register it with "
    "IBV_ACCESS_LOCAL_WRITE (and use its lkey)",
    "read_traced": "the READ must be done by your own program: post an "
    "IBV_WR_RDMA_READ and wait for its completion",
    "wimm_opcode": "use IBV_WR_RDMA_WRITE_WITH_IMM for write_imm, with "
    "imm_data = htonl(--imm), to the address and rkey the server "
    "advertised",
    "wimm_wait": "wait for the receive completion of the WRITE with "
    "immediate (IBV_WC_RECV_RDMA_WITH_IMM) before reading the buffer: its "
    "immediate is the signal that the data is there; store its byte_len "
    "and ntohl(imm_data)",
    "atomic_align": "the atomic word must be 8-byte aligned: the device "
    "refuses an atomic on any other address (IBV_WC_REM_INV_REQ_ERR)",
    "atomic_mr": "the atomic word must lie inside an MR registered with "
    "IBV_ACCESS_REMOTE_ATOMIC, and the client must use that MR's rkey",
    "atomic_qp": "REMOTE_ATOMIC missing: the server QP's qp_access_flags "
    "lack IBV_ACCESS_REMOTE_ATOMIC (ibv_modify_qp to INIT)",
    "atomic_ops": "FETCH_AND_ADD LAB_ATOMIC_ADD first, then "
    "COMPARE_AND_SWAP with compare = what the add returned + "
    "LAB_ATOMIC_ADD and swap = LAB_ATOMIC_SWAP, both on the advertised "
    "word (wr.atomic, not wr.rdma)",
    "atomic_start": "the word at the address you advertise must hold the "
    "start value you advertise: write it before lab_send_atomic_target()",
    "atomic_final": "read the word only after lab_recv_atomic_done(): the "
    "client's atomics change it",
    "atomic_notice": "the atomic notice went out before both atomics "
    "completed: wait for each completion before lab_send_atomic_done()",
    "atomic_traced": "the atomics must be done by your own program: post "
    "them and wait for their completions",
}


# --- small parsers --------------------------------------------------------
def unquote(v):
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        v = v[1:-1]
        return re.sub(r'\\x([0-9a-f]{2})|\\(.)',
                      lambda m: chr(int(m.group(1), 16)) if m.group(1)
                      else m.group(2), v)
    return v


KV = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def kv(text):
    return {k: unquote(v) for k, v in KV.findall(text)}


def read(path, limit=2000000):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def parse_output(out, err):
    """Step lines of one program: {step: (status, kv, line)}."""
    steps, fails, hints = {}, {}, {}
    for line in (out or "").splitlines():
        m = re.match(r"^lab (\w+) ok( .*)?$", line)
        if m and m.group(1) in POINTS and m.group(1) not in steps:
            steps[m.group(1)] = ("ok", kv(m.group(2) or ""), line)
    for line in (err or "").splitlines():
        m = re.match(r"^lab (\w+) (FAIL|hint): (.*)$", line)
        if not m:
            continue
        d = fails if m.group(2) == "FAIL" else hints
        d.setdefault(m.group(1), m.group(3))
    return steps, fails, hints


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


def num(v, default=None):
    try:
        return int(v, 0)
    except (TypeError, ValueError):
        return default


def parse_facts(text):
    f = {"gids": {}}
    for line in (text or "").splitlines():
        k, _, v = line.partition("=")
        if k.startswith("gid."):
            gid, _, t = v.partition(" type=")
            f["gids"][int(k[4:])] = (gid, t.replace("_", " "))
        else:
            f[k] = v
    m = re.match(r"(\d+)", f.get("active_mtu", ""))
    f["mtu"] = int(m.group(1)) if m else 1024
    return f


def pcap_records(data):
    """(time, record, frame) for each whole record of a pcap file's bytes;
    a file still being written may end in part of one."""
    if len(data) < 24:
        return
    le = data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")
    e = "<" if le else ">"
    ns = data[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    frac = 1e9 if ns else 1e6
    off = 24
    while off + 16 <= len(data):
        sec, sub, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
        end = off + 16 + incl
        if end > len(data):
            return
        yield sec + sub / frac, data[off:end], data[off + 16:end]
        off = end


def icrc_ok(ip, udp, b):
    """RoCEv2's invariant CRC of one packet is right: CRC-32 over 8 bytes
    of 1s (IB's masked LRH), the IP and UDP headers with their variant
    fields set to 1s, and the BTH (its resv8a byte masked) to the end of
    the payload; stored little-endian in the last 4 bytes.  A packet
    somebody made up without computing it does not count."""
    ip = bytearray(ip)
    if ip[0] >> 4 == 4:
        ip[1], ip[8], ip[10:12] = 0xff, 0xff, b"\xff\xff"
    else:
        ip[0] |= 0x0f
        ip[1:4], ip[7] = b"\xff\xff\xff", 0xff
    udp = bytearray(udp[:8])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(b[:12])
    bth[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) +
                     b[12:-4])
    return crc == int.from_bytes(b[-4:], "little")


def parse_pcap(path):
    """RoCEv2 packets with a right ICRC: dicts with src, dst, op, qp, psn,
    reth, imm, aeth, atomic (an atomic request's swap/add and compare
    data) and orig (an ATOMIC ACKNOWLEDGE's original value)."""
    pk = []
    try:
        data = open(path, "rb").read()
    except OSError:
        return None
    for n, (_, _, frame) in enumerate(pcap_records(data), 1):
        if len(frame) < 14:
            continue
        et = struct.unpack(">H", frame[12:14])[0]
        p = frame[14:]
        if et == 0x0800 and len(p) >= 20 and p[9] == 17:
            ihl = (p[0] & 15) * 4
            src = ".".join(str(b) for b in p[12:16])
            dst = ".".join(str(b) for b in p[16:20])
            ip, udp = p[:ihl], p[ihl:]
        elif et == 0x86DD and len(p) >= 40 and p[6] == 17:
            src, dst, udp = p[8:24].hex(), p[24:40].hex(), p[40:]
            ip = p[:40]
        else:
            continue
        if len(udp) < 20 or struct.unpack(">H", udp[2:4])[0] != 4791:
            continue
        ulen = struct.unpack(">H", udp[4:6])[0]
        b = udp[8:ulen]
        if len(b) < 16 or not icrc_ok(ip, udp, b):
            continue
        op = b[0]
        x = {"frame": n, "src": src, "dst": dst, "op": op,
             "qp": int.from_bytes(b[5:8], "big"),
             "psn": int.from_bytes(b[9:12], "big"), "reth": None,
             "imm": None, "aeth": None, "atomic": None, "orig": None}
        h = 12
        if op in (6, 10, 11, OP_READ_REQ) and len(b) >= h + 16:
            va, rkey, ln = struct.unpack(">QII", b[h:h + 16])
            x["reth"] = (va, rkey, ln)
            h += 16
        if op in (OP_CMP_SWAP, OP_FETCH_ADD) and len(b) >= h + 28:
            # AtomicETH: VA, rkey, swap (or add) data, compare data.
            va, rkey, swap, cmp = struct.unpack(">QIQQ", b[h:h + 28])
            x["reth"], x["atomic"] = (va, rkey, None), (swap, cmp)
            h += 28
        if op in (3, 5, 9, 11):
            x["imm"] = struct.unpack(">I", b[h:h + 4])[0]
            h += 4
        if op in (13, 15, 16, 17, 18):
            x["aeth"] = b[h]
            h += 4
        if op == OP_ATOMIC_ACK and len(b) >= h + 8:
            x["orig"] = struct.unpack(">Q", b[h:h + 8])[0]
            h += 8
        end = max(h, len(b) - ((b[1] >> 4) & 3) - 4)
        x["len"], x["data"] = end - h, b[h:end]
        pk.append(x)
    return pk


def cmd_slice(resdir, rundir):
    """Each pairing's window (capture file, start, end in the guest's
    clock) selects its records."""
    for p in PAIRINGS:
        w = (read(os.path.join(resdir, p + ".window")) or "").split()
        if len(w) != 3 or "/" in w[0]:
            continue
        t0, t1 = float(w[1]), float(w[2])
        try:
            data = open(os.path.join(rundir, w[0]), "rb").read()
        except OSError:
            continue
        keep = [data[:24]] + [r for t, r, _ in pcap_records(data)
                              if t0 <= t <= t1]
        write_atomic(os.path.join(resdir, p + ".pcap"), b"".join(keep))
    return 0


def bswap32(v):
    return struct.unpack("<I", struct.pack(">I", v & 0xffffffff))[0]


# --- payloads and submissions ----------------------------------------------
def cmd_payloads(resdir):
    rnd = random.SystemRandom()
    alnum = string.ascii_letters + string.digits
    os.makedirs(resdir, exist_ok=True)
    for p in PAIRINGS:
        msg = "".join(rnd.choice(alnum) for _ in range(rnd.randint(
            1100, 2500)))
        wmsg = "".join(rnd.choice(alnum) for _ in range(rnd.randint(
            1100, 3000)))
        while True:
            imm = rnd.getrandbits(32)
            if imm != bswap32(imm):
                break
        with open(os.path.join(resdir, "payload." + p), "w") as f:
            f.write("%s\n0x%08x\n%s\n" % (msg, imm, wmsg))


# --- a submission: hostile input, read within bounds ----------------------
# What the host reads of one submission.  Honest ones are far below each
# limit (a lab folder is a few files, its main.c some 20 KB); without them
# a small archive of 200,000 empty members cost 176 MB and 3.5 s, linearly.
MAIN_MAX = 2000000       # main.c itself, as the host's compile reads it
MEMBERS_MAX = 10000      # entries examined: a folder's or an archive's
BYTES_MAX = 20000000     # bytes read from one archive, decompressed
SECONDS_MAX = 5          # to read one submission
MEMORY_MAX = 512 << 20   # the unpack's address space: a backstop only


class Refused(Exception):
    """A submission the host will not read; the text says why."""


def kind_of(mode):
    """What a file that is not a regular file is, in words."""
    for test, what in ((stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return what + ", not a regular file"
    return "not a regular file"


def open_regular(path, dir_fd=None):
    """A binary file of path if it is a regular file, else Refused with
    what it is.  lstat first, so that a device is never even opened (an
    open can act: a tape rewinds); then the open itself follows no link
    (O_NOFOLLOW: a link put in place since is ELOOP) and cannot block
    (O_NONBLOCK: a FIFO put in place since), and fstat checks what was
    opened.  Only the last component is guarded: the folder is the
    instructor's, or one that os.fwalk opened without following links."""
    try:
        st = os.lstat(path, dir_fd=dir_fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(kind_of(st.st_mode))
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |
                     os.O_NOCTTY, dir_fd=dir_fd)
    except OSError as e:
        raise Refused(kind_of(stat.S_IFLNK) if e.errno == errno.ELOOP else
                      "unreadable (%s)" % e.strerror) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise Refused(kind_of(st.st_mode))
    return os.fdopen(fd, "rb")


class Capped:
    """A file's bytes, at most `cap` of them: an archive's decompressed
    stream, so that a small bomb cannot make tarfile read gigabytes."""

    def __init__(self, f, cap):
        self.f, self.left = f, cap

    def read(self, n=-1):
        if n is None or n < 0 or n > self.left:
            # tarfile asks for one member's data or one header at a time:
            # more than is left is refused before a byte is read.
            more = self.f.read(self.left + 1)
            if len(more) > self.left:
                raise Refused("more than %d MB once decompressed" %
                              (BYTES_MAX // 1000000))
            self.left -= len(more)
            return more
        data = self.f.read(n)
        self.left -= len(data)
        return data


def rank(name):
    """Which main.c of a submission is used: the one under a folder lab/,
    else the shallowest (the smallest rank)."""
    return ("/lab/" not in "/" + name, name.count("/"), name)


class Pick:
    """The main.c chosen so far (its rank, its bytes, or the name of one
    too large to use), the entries seen and the bytes read, and what was
    skipped, for the log."""

    def __init__(self, label):
        self.label, self.skipped = label, []
        self.best = self.data = self.big = None
        self.seen = self.bytes = 0

    def count(self):
        self.seen += 1
        if self.seen > MEMBERS_MAX:
            raise Refused("more than %d entries" % MEMBERS_MAX)

    def better(self, name):
        return self.best is None or rank(name) < self.best

    def take(self, name, size, read):
        """main.c at name, of size bytes; read() gives at most
        MAIN_MAX + 1 of them.  One too large is refused only if it stays
        the best: a better one may come later in an archive."""
        data = read() if size <= MAIN_MAX else b""
        # Every candidate read counts: an archive of 10,000 main.c files,
        # each better than the one before, is one way to read gigabytes.
        self.bytes += len(data)
        if self.bytes > BYTES_MAX:
            raise Refused("more than %d MB read" % (BYTES_MAX // 1000000))
        too_big = size > MAIN_MAX or len(data) > MAIN_MAX  # or it lied
        self.best = rank(name)
        self.data, self.big = (None, name) if too_big else (data, None)

    def skip(self, name, why):
        self.skipped.append("%s: %s is %s: skipped" % (
            self.label, safe(name), why))


def unpack_folder(pick, top):
    """main.c in a folder: os.fwalk opens each folder without following a
    link, and never descends into a linked one."""
    for path, dirs, files, dfd in os.fwalk(top, follow_symlinks=False):
        rel = os.path.relpath(path, top)
        rel = "" if rel == "." else rel + "/"
        if rel.count("/") > 32:
            raise Refused("folders nested deeper than 32")
        for fn in dirs + files:
            pick.count()
        for fn in files:
            if fn != "main.c" or not pick.better(rel + fn):
                continue
            try:
                f = open_regular(fn, dir_fd=dfd)
            except Refused as e:
                pick.skip(rel + fn, str(e))
                continue
            with f:
                pick.take(rel + fn, os.fstat(f.fileno()).st_size,
                          lambda: f.read(MAIN_MAX + 1))


def zip_end(f):
    """(members, central directory bytes) that a zip's end record
    declares: zipfile reads all of the central directory when it opens
    an archive, before a member can be counted.  None: no end record."""
    size = f.seek(0, 2)
    f.seek(max(0, size - 65557))
    tail = f.read()
    # The last record with its 22 bytes whole; a zip64 locator before it
    # would make zipfile read other sizes: no lab needs zip64.
    i = tail.rfind(b"PK\x05\x06", 0, max(0, len(tail) - 18))
    if i < 0:
        return None
    if i >= 20 and tail[i - 20:i - 16] == b"PK\x06\x07":
        return (1 << 32, 1 << 32)
    return struct.unpack("<HI", tail[i + 10:i + 16])


def unpack_zip(pick, f):
    end = zip_end(f)
    if end is None:
        raise Refused("a damaged zip (no end record)")
    n, cd = end
    if n > MEMBERS_MAX or cd > MEMBERS_MAX * 300:
        raise Refused("more than %d entries" % MEMBERS_MAX)
    f.seek(0)
    with zipfile.ZipFile(f) as z:
        for info in z.infolist():
            pick.count()
            name = info.filename
            if posixpath.basename(name) != "main.c" or \
                    not pick.better(name):
                continue
            # A zip made on Unix keeps the file's type and mode in the top
            # of external_attr (a link's member holds its target's path).
            kind = stat.S_IFMT(info.external_attr >> 16)
            if info.is_dir() or kind not in (0, stat.S_IFREG):
                pick.skip(name, kind_of(kind) if kind else "a folder")
            elif info.flag_bits & 1:
                pick.skip(name, "encrypted")
            else:
                # z.open reads at most the declared size, and so does a
                # bounded read(); the declared size is checked first.
                def read(info=info):
                    with z.open(info) as m:
                        return m.read(MAIN_MAX + 1)
                pick.take(name, info.file_size, read)


def tar_stream(f):
    """A tar's bytes, decompressed here (gzip, bzip2, xz) and capped:
    tarfile's own decompression knows no bound."""
    magic = f.read(6)
    f.seek(0)
    if magic[:2] == b"\x1f\x8b":
        f = gzip.GzipFile(fileobj=f, mode="rb")
    elif magic[:3] == b"BZh":
        f = bz2.BZ2File(f)
    elif magic == b"\xfd7zXZ\x00":
        f = lzma.LZMAFile(f)
    return Capped(f, BYTES_MAX)


def unpack_tar(pick, t):
    """main.c in a tar read as a stream: one member at a time, none kept
    but the one chosen; a link (symbolic or hard) named main.c is never
    followed."""
    for m in t:
        pick.count()
        t.members = []  # tarfile keeps every member read: keep none
        if posixpath.basename(m.name) != "main.c" or \
                not pick.better(m.name):
            continue
        if m.issym() or m.islnk():
            pick.skip(m.name, "a %s link, not a regular file" % (
                "symbolic" if m.issym() else "hard"))
        elif not m.isreg():
            pick.skip(m.name, "not a regular file")
        else:
            pick.take(m.name, m.size,
                      lambda m=m: t.extractfile(m).read(MAIN_MAX + 1))


def read_submission(sub, label):
    """The Pick of a submission: a regular file (main.c, a zip or a tar,
    told by their bytes) or a folder; never a link, a FIFO or a device.
    Refused when it is none of those or passes a limit."""
    pick = Pick(label)
    try:
        st = os.lstat(sub)
    except OSError as e:
        raise Refused("unreadable (%s)" % e.strerror) from None
    if stat.S_ISDIR(st.st_mode):
        unpack_folder(pick, sub)
        return pick
    with open_regular(sub) as f:
        if zipfile.is_zipfile(f):
            unpack_zip(pick, f)
            return pick
        f.seek(0)
        try:
            t = tarfile.open(fileobj=tar_stream(f), mode="r|")
        except tarfile.TarError:
            t = None  # not a tar: the file is main.c itself
        if t is not None:
            with t:
                unpack_tar(pick, t)
            return pick
        f.seek(0)
        pick.take(os.path.basename(sub), os.fstat(f.fileno()).st_size,
                  lambda: f.read(MAIN_MAX + 1))
    return pick


def on_alarm(signum, frame):
    raise Refused("took more than %d s to read" % SECONDS_MAX)


def cmd_unpack(sub, dest):
    """The main.c of a submission (file, folder, tar or zip) -> dest.
    One line on stderr and status 1 when it is refused or has no main.c;
    the main.c files skipped (links, devices) are noted on stderr too."""
    label = safe(os.path.basename(sub.rstrip("/")) or sub)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(SECONDS_MAX)
    try:
        pick = read_submission(sub, label)
    except Refused as e:
        print("%s: refused: %s" % (label, e), file=sys.stderr)
        return 1
    except MemoryError:
        print("%s: refused: needs more than %d MB of memory to read" % (
            label, MEMORY_MAX >> 20), file=sys.stderr)
        return 1
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError,
            zlib.error, lzma.LZMAError, RuntimeError, ValueError,
            NotImplementedError) as e:
        print("%s: refused: a damaged archive (%s)" % (
            label, safe(str(e))[:200]), file=sys.stderr)
        return 1
    finally:
        signal.alarm(0)
    for line in pick.skipped:
        print(line, file=sys.stderr)
    if pick.big is not None:
        print("%s: refused: %s is larger than %d MB" % (
            label, safe(pick.big), MAIN_MAX // 1000000), file=sys.stderr)
        return 1
    if pick.data is None:
        print("no main.c in %s" % label, file=sys.stderr)
        return 1
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "main.c"), "wb") as f:
        f.write(pick.data)
    return 0


def student_name(entry):
    """The folder under students/ of a SUBS entry: its name less a
    submission's suffixes (removed in this order, as vm/grade-all always
    did), every byte outside A-Za-z0-9._- made _."""
    name = os.fsencode(entry)
    for suffix in (b".tar.gz", b".tgz", b".tar", b".zip", b".c"):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    return re.sub(rb"[^A-Za-z0-9._-]", b"_", name).decode()


def cmd_names(subs):
    """For vm/grade-all: each entry of SUBS (bytewise order, no dotfiles:
    as its shell glob listed them), its folder, and a refusal when names
    collide.  Two entries whose names become one folder ("a b.c" and
    a_b.c) would grade one student and silently drop the other: the first
    of them carries the refusal, naming all of them, and the others "=".
    Records of three NUL-terminated fields: entry, folder, refusal."""
    try:
        entries = sorted((e for e in os.listdir(subs)
                          if not e.startswith(".")), key=os.fsencode)
    except OSError as e:
        print("grader.py names: %s: %s" % (safe(subs), e.strerror),
              file=sys.stderr)
        return 2
    folders = {}
    for e in entries:
        folders.setdefault(student_name(e), []).append(e)
    out = sys.stdout.buffer
    for e in entries:
        name = student_name(e)
        same = folders[name]
        why = ""
        if len(same) > 1:
            quoted = ['"%s"' % safe(x) for x in same]
            why = "=" if e != same[0] else \
                "%s and %s: refused: the names become one folder, " \
                "students/%s; rename all but one and grade again" % (
                    ", ".join(quoted[:-1]), quoted[-1], name)
        for field in (e, name, why):
            out.write(os.fsencode(field) + b"\0")
    out.flush()
    return 0


def cmd_clean():
    """stdin to stdout, every character a terminal would act on written
    out (\\xNN) but newlines and tabs; bytes that are not UTF-8 as
    \\xNN: the programs' outputs in log.txt, which an instructor may
    cat."""
    data = sys.stdin.buffer.read().decode("utf-8", "backslashreplace")
    sys.stdout.buffer.write(safe(data, lines=True).encode())
    return 0


# --- evidence: messages on the wire and the order of traced events -------
def psn_after(a, b):
    """PSN a comes at or after b (24-bit, wrapping)."""
    return (a - b) % PSN_MOD < PSN_MOD // 2


def wire_messages(packets, src, qp):
    """The requests src sent to QP qp, joined into messages in PSN order
    (a retransmission counts once): dicts with kind (send, send_imm,
    write, write_imm), data, imm, reth, psn (first) and last."""
    reqs, seen = [], set()
    for x in packets or []:
        if x["src"] == src and x["qp"] == qp and x["op"] <= 11 and \
                x["psn"] not in seen:
            seen.add(x["psn"])
            reqs.append(x)
    if not reqs:
        return []
    base = reqs[0]["psn"]
    reqs.sort(key=lambda x: (x["psn"] - base) % PSN_MOD)
    msgs, cur = [], None
    for x in reqs:
        op = x["op"]
        if op in OP_FIRST or op in (4, 5, 10, 11) or cur is None:
            cur = {"psn": x["psn"], "data": b"", "imm": None,
                   "reth": x["reth"], "kind": None}
            msgs.append(cur)
        cur["data"] += x["data"]
        cur["last"] = x["psn"]
        if op in OP_END:
            cur["imm"] = x["imm"]
            cur["kind"] = {2: "send", 4: "send", 3: "send_imm",
                           5: "send_imm", 8: "write", 10: "write",
                           9: "write_imm", 11: "write_imm"}[op]
            cur = None
    return msgs


def wire_reads(packets, cli, srv, qp):
    """The READ REQUESTs cli sent to QP qp (a retransmission counts once),
    each with what srv answered: data (the READ RESPONSE payloads from the
    request's PSN on, FIRST/MIDDLE.../LAST or ONLY, joined), done (the
    response came whole and its AETH is an ACK) and nak (the syndrome of a
    NAK for its PSN, or None)."""
    resp, out, seen = {}, [], set()
    for x in packets or []:
        if x["src"] == srv and x["op"] in OP_READ_RESP:
            resp.setdefault(x["psn"], x)
    for x in packets or []:
        if x["src"] != cli or x["qp"] != qp or x["op"] != OP_READ_REQ or \
                x["psn"] in seen:
            continue
        seen.add(x["psn"])
        r = {"psn": x["psn"], "frame": x["frame"], "reth": x["reth"],
             "data": b"", "done": False, "nak": nak_for(packets, srv, x)}
        psn, first = x["psn"], True
        while psn in resp:
            y = resp[psn]
            if (y["op"] in (13, 16)) != first:
                break
            r["data"] += y["data"]
            if y["op"] in (15, 16):
                r["done"] = y["aeth"] is not None and y["aeth"] >> 5 == 0
                break
            psn, first = (psn + 1) % PSN_MOD, False
        out.append(r)
    return out


def wire_atomics(packets, cli, srv, qp):
    """The atomic requests cli sent to QP qp, in PSN order (a
    retransmission counts once): dicts with kind (fetch_add, cmp_swap),
    va, rkey, swap_add, compare, psn, frame, orig (the original value of
    srv's ATOMIC ACKNOWLEDGE for that PSN, if its AETH is an ACK) and nak
    (the syndrome of a NAK for its PSN, or None)."""
    acks, out, seen = {}, [], set()
    for x in packets or []:
        if x["src"] == srv and x["op"] == OP_ATOMIC_ACK and \
                x["aeth"] is not None and x["aeth"] >> 5 == 0:
            acks.setdefault(x["psn"], x["orig"])
    reqs = [x for x in packets or [] if x["src"] == cli and x["qp"] == qp
            and x["op"] in (OP_CMP_SWAP, OP_FETCH_ADD) and x["atomic"]]
    for x in reqs:
        if x["psn"] in seen:
            continue
        seen.add(x["psn"])
        out.append({"kind": "cmp_swap" if x["op"] == OP_CMP_SWAP else
                    "fetch_add", "va": x["reth"][0], "rkey": x["reth"][1],
                    "swap_add": x["atomic"][0], "compare": x["atomic"][1],
                    "psn": x["psn"], "frame": x["frame"],
                    "orig": acks.get(x["psn"]),
                    "nak": nak_for(packets, srv, x)})
    if out:
        base = out[0]["psn"]
        out.sort(key=lambda a: (a["psn"] - base) % PSN_MOD)
    return out


def nak_for(packets, srv, req):
    """The AETH syndrome of a NAK (not RNR) srv sent for req's PSN."""
    for x in packets or []:
        if x["src"] == srv and x["op"] == OP_ACK and x["psn"] == req["psn"] \
                and x["aeth"] is not None and x["aeth"] >> 5 == 3:
            return x["aeth"]
    return None


NAK_TEXT = {0x60: "PSN sequence error", 0x61: "invalid request",
            0x62: "remote access error", 0x63: "remote operational error"}


def acked(packets, src, msg, qp):
    """An ACK from src to QP qp (the sender's) covers the message's last
    packet."""
    return any(x["src"] == src and x["qp"] == qp and x["aeth"] is not None
               and x["aeth"] >> 5 == 0 and psn_after(x["psn"], msg["last"])
               for x in packets or [])


def rnr_naks(packets, src, msgs):
    """The step each RNR NAK from src answered, matched by PSN to the
    message that began there."""
    out = []
    for x in packets or []:
        if x["src"] != src or x["aeth"] is None or x["aeth"] >> 5 != 1:
            continue
        m = [m for m in msgs if psn_after(x["psn"], m["psn"]) and
             psn_after(m.get("last", m["psn"]), x["psn"])]
        out.append((m[0]["kind"] if m else None, x))
    return out


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
    """The MRs of the server X: traced for a student (with their access),
    printed by the reference (access None: the reference's is right)."""
    if X.who == "ref":
        a = num(X.val("create_resources", "buf"))
        n = num(X.val("create_resources", "len"))
        k = num(X.val("create_resources", "rkey"))
        return [] if None in (a, n, k) else [
            {"addr": a, "len": n, "rkey": k, "access": None}]
    return [{"addr": num(m.get("addr"), -1), "len": num(m.get("len"), 0),
             "rkey": num(m.get("rkey")), "access": num(m.get("access"), 0)}
            for m in X.calls("ibv_reg_mr", lambda e: created(e["_ret"]))]


def mr_of(mrs, va, rkey, size=1):
    """The MR among mrs whose rkey is rkey and which holds [va, va+size)."""
    for m in mrs:
        if m["rkey"] == rkey and m["addr"] <= va and \
                va + size <= m["addr"] + m["len"]:
            return m
    return None


# --- evidence: one program's side and the verbs objects it made --------------
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
        self.steps, self.fails, self.hints = parse_output(self.out,
                                                          self.err)
        self.trace = parse_ktrace(read(os.path.join(pdir, side +
                                                    ".ktrace"), 8000000))

    def line(self, step):
        return self.steps.get(step, (None, {}, None))

    def ok(self, step):
        return self.line(step)[0] == "ok"

    def val(self, step, key):
        return self.line(step)[1].get(key)

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

    def text_lines(self):
        return (self.out or "").splitlines() + (self.err or "").splitlines()


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


# --- judging: one judge per step ---------------------------------------------
# Each step of lab/steps.h has its judge below, in the order of the evidence
# table of docs/grading.md ("Scoring and evidence"), so that the table and
# the code read side by side.  A judge gets the Evidence of one student side
# in one pairing and the step's Check, already marked by the step's own
# line (judge_own_lines), and adds what the evidence disagrees with.
class Check:
    """Outcome of one step for one student side in one pairing."""

    def __init__(self):
        self.ok, self.exp, self.seen, self.hint = True, [], [], None

    def bad(self, expected, seen, hint):
        self.ok = False
        if expected:
            self.exp.append(expected)
        if seen:
            self.seen.append(seen)
        if self.hint is None and hint:
            self.hint = hint


def qpn_of(X):
    """A side's QPN: traced for a student, printed by the reference."""
    if X.who == "ref":
        return num(X.val("create_resources", "qpn"))
    q = X.calls("ibv_create_qp", lambda e: created(e["_ret"]))
    return num(q[-1].get("qpn")) if q else None


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
        self.qps = S.calls("ibv_create_qp", lambda e: created(e["_ret"]))
        self.mrs = S.calls("ibv_reg_mr", lambda e: created(e["_ret"]))
        mods = S.calls("ibv_modify_qp")
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
        at = signal_at(self.tr, side, "barrier", self.peer.get("ip"))
        self.posted, self.barrier = recvs_before(self.tr, at), at is not None

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

    def remote_access(self, flag):
        """What of the student server's MRs and QP lacks the access flag
        (remote read or atomic): "MR", "QP" or None."""
        if not any(m["access"] & flag for m in self.srv_mrs):
            return "MR"
        init = self.ok_init()
        if init is not None and not num(init.get("access"), 0) & flag:
            return "QP"
        return None

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
              HINTS["wire"] if not other else HINTS["write_data"]
              if kind == "write" else HINTS["send_data"])

    def receive_race(self, c, kind, need):
        """Server: the receive for this message existed before the
        barrier, and no RNR NAK answered the message."""
        naks, posted, barrier = self.naks, self.posted, self.barrier
        if [x for k, x in naks if k == kind]:
            c.bad("your QP accepts the %s" % kind.replace("_", " with "),
                  "RNR NAK from your QP (receiver not ready), PSN 0x%06x" %
                  [x for k, x in naks if k == kind][0]["psn"],
                  HINTS["late_recv"] if barrier and posted < need
                  else HINTS["rnr"])
        elif not barrier:
            c.bad("%d receives posted, then lab_barrier()" % need,
                  "no barrier byte to the peer in the kernel's trace of "
                  "your process", HINTS["late_recv"])
        elif posted < need:
            c.bad("%d receives posted before lab_barrier()" % need,
                  "%d posted before it" % posted, HINTS["late_recv"])


def fail_hint(S, step, side):
    """A hint for a step that printed no ok line."""
    msg = S.fails.get(step, "")
    if side == "client" and ("remote access" in msg or "(10)" in msg):
        return None  # rkey or address: the wire checks tell which
    if "not implemented" in msg:
        return HINTS["todo"]
    if "RNR" in msg or "(13)" in msg:
        return HINTS["rnr"]
    if "remote access" in msg or "(10)" in msg:
        return HINTS["write_access"]
    if "local protection" in msg or "(4)" in msg or "(2)" in msg:
        return HINTS["send_data"]
    if "htonl" in msg:
        return HINTS["imm_htonl"]
    if step == "connect" and "RTR" in msg and "Connection timed out" in msg:
        return HINTS["gid"]
    if "psn" in msg.lower():
        return HINTS["psn"]
    return None


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
                  HINTS["limit"] % S.limit)
        elif S.fails.get(s):
            c.bad("lab %s ok" % s, "lab %s FAIL: %s" % (s, S.fails[s]),
                  fail_hint(S, s, side))
        elif S.timed_out() and s == (stop or "teardown"):
            c.bad("lab %s ok" % s, "timed out in step %s" % s,
                  "the program hung in step %s" % s)
        elif S.rc is not None and S.rc >= 128 and S.rc not in (137,) \
                and s == (stop or "teardown"):
            hint = HINTS["flood"] if S.rc == 153 else HINTS["crash"]
            c.bad("lab %s ok" % s, "killed by signal %d in step %s" %
                  (S.rc - 128, s), hint)
        elif S.note and s == (stop or "teardown"):
            c.bad("lab %s ok" % s, "stopped in step %s after the peer "
                  "failed" % s, None)
        elif stop and STEP_NAMES.index(s) > STEP_NAMES.index(stop) \
                and s != "teardown":
            c.bad(None, "not reached: stopped in step %s" % stop, None)
        else:
            c.bad("lab %s ok" % s, "no line for %s" % s, None)


def judge_open_device(ev, c):
    """Port, GID and MTU against sysfs / ibv_devinfo."""
    S, me, rtr = ev.S, ev.me, ev.rtr
    if S.ok("open_device") and not S.calls(
            "ibv_open_device", lambda e: created(e["_ret"])):
        c.bad("ibv_open_device() by your program", "no device opened in "
              "the kernel's trace of your process", HINTS["traced"])
    if S.ok("open_device"):
        idx = num(S.val("open_device", "gid_idx"), -1)
        if rtr and num(rtr[-1].get("is_global")):
            idx = num(rtr[-1].get("sgid_idx"), idx)
        gid, typ = me["gids"].get(idx, ("", ""))
        if num(S.val("open_device", "mtu")) != me["mtu"]:
            c.bad("mtu=%d (active_mtu of %s)" % (me["mtu"], me.get("dev")),
                  "mtu=%s" % S.val("open_device", "mtu"), HINTS["port"])
        if not gid.startswith("0000:0000:0000:0000:0000:ffff:") or \
                typ != "RoCE v2":
            good = [i for i, (g, t) in sorted(me["gids"].items())
                    if t == "RoCE v2" and
                    g.startswith("0000:0000:0000:0000:0000:ffff:")]
            c.bad("GID index %s (RoCE v2, IPv4-mapped)" %
                  (good[0] if good else "?"),
                  "GID index %d = %s (%s)" % (idx, gid or "empty",
                                               typ or "?"), HINTS["gid"])
        elif S.val("open_device", "gid") not in (None, gid) and \
                idx == num(S.val("open_device", "gid_idx"), -1):
            c.bad("gid=%s (sysfs gids/%d)" % (gid, idx),
                  "gid=%s" % S.val("open_device", "gid"), HINTS["gid"])


def judge_create_resources(ev, c):
    """The objects exist, with the access later steps need."""
    S, side, qps, mrs = ev.S, ev.side, ev.qps, ev.mrs
    if S.ok("create_resources"):
        missing = [n for n, fn in (("PD", "ibv_alloc_pd"),
                                   ("CQ", "ibv_create_cq"),
                                   ("channel", "ibv_create_comp_channel"))
                   if not S.calls(fn, lambda e: created(e["_ret"]))]
        if not qps or num(qps[-1].get("type")) != QPT_RC:
            missing.append("RC QP")
        if not mrs:
            missing.append("MR")
        if missing:
            c.bad("PD, channel, CQ, MR, RC QP created",
                  "not created: " + ", ".join(missing), HINTS["objects"])
        if side == "server" and not any(
                num(m.get("access"), 0) & ACCESS_REMOTE_WRITE
                for m in mrs):
            c.bad("an MR with access LOCAL_WRITE|REMOTE_WRITE (0x3)",
                  "MR access: " + ", ".join(
                      m.get("access", "?") for m in mrs),
                  HINTS["mr_remote"])

    # Also when the step failed: the scaffolding refuses such a CQ.
    chans = {e["_ret"] for e in S.calls(
        "ibv_create_comp_channel", lambda e: created(e["_ret"]))}
    cqs = S.calls("ibv_create_cq", lambda e: created(e["_ret"]))
    if chans and cqs and not any(e.get("ch") in chans for e in cqs):
        c.bad("ibv_create_cq() on the completion channel",
              "ibv_create_cq(ch=%s)" % cqs[-1].get("ch"),
              HINTS["cq_channel"])


def judge_qp_to_init(ev, c):
    """The traced INIT transition; REMOTE_WRITE on the server's QP."""
    S, side, init = ev.S, ev.side, ev.init
    if S.ok("qp_to_init"):
        good = [e for e in init if e["_ret"] == "0"]
        if not good:
            c.bad("ibv_modify_qp(INIT) = 0", "no successful INIT "
                  "transition", HINTS["init"])
        elif side == "server" and not num(good[-1].get("access"),
                                         0) & ACCESS_REMOTE_WRITE:
            c.bad("qp_access_flags with IBV_ACCESS_REMOTE_WRITE (0x2)",
                  "qp_access_flags=%s" % good[-1].get("access"),
                  HINTS["qp_remote"])


def judge_exchange(ev, c):
    """What the peer received is this side's real QP, MR, GID."""
    S, P, side, me, mrs, rtr = ev.S, ev.P, ev.side, ev.me, ev.mrs, ev.rtr
    qpn = ev.qpn
    if S.ok("exchange") and P.who == "ref" and not P.ok("exchange"):
        why = P.fails.get("exchange", "no exchange line")
        hint = HINTS["exch_mtu"] if "MTU" in why else HINTS["exch_bad"]
        c.bad("the reference accepts your exchange message",
              "reference: " + why, hint)
    elif S.ok("exchange") and P.who == "ref":
        got = P.line("exchange")[1]
        if qpn is not None and num(got.get("remote_qpn")) != qpn:
            c.bad("remote_qpn=0x%06x (your QP)" % qpn,
                  "reference received remote_qpn=%s" %
                  got.get("remote_qpn"), HINTS["exch_qpn"])
        if side == "server":
            tgt = [m for m in mrs if num(m.get("access"), 0) &
                   ACCESS_REMOTE_WRITE] or mrs
            addr = num(got.get("remote_addr"))
            rkey = num(got.get("remote_rkey"))
            if tgt and not any(num(m["addr"]) <= (addr or -1) <
                               num(m["addr"]) + num(m["len"])
                               for m in tgt):
                c.bad("remote_addr=%s (your MR)" % tgt[0]["addr"],
                      "reference received remote_addr=%s" %
                      got.get("remote_addr"), HINTS["exch_addr"])
            if tgt and rkey not in [num(m.get("rkey")) for m in tgt]:
                c.bad("remote_rkey=%s" % tgt[0].get("rkey"),
                      "reference received remote_rkey=%s" %
                      got.get("remote_rkey"), HINTS["exch_addr"])
        idx = num(rtr[-1].get("sgid_idx")) if rtr else num(
            S.val("open_device", "gid_idx"))
        gid = me["gids"].get(idx, ("?", ""))[0]
        if got.get("remote_gid") != gid:
            c.bad("remote_gid=%s" % gid, "reference received remote_gid"
                  "=%s" % got.get("remote_gid"), HINTS["exch_gid"])
        if num(got.get("remote_mtu")) != me["mtu"]:
            c.bad("remote_mtu=%d" % me["mtu"], "reference received "
                  "remote_mtu=%s" % got.get("remote_mtu"), HINTS["exch_mtu"])


def judge_connect(ev, c):
    """RTR/RTS towards the peer's real values; ACKs on the wire."""
    S, P, me, peer, ip, rtr = ev.S, ev.P, ev.me, ev.peer, ev.ip, ev.rtr
    rts, qpn, packets = ev.rts, ev.qpn, ev.packets
    if S.ok("connect") or (rtr and S.ok("exchange")):
        r = [e for e in rtr if e["_ret"] == "0"]
        t = [e for e in rts if e["_ret"] == "0"]
        pqpn = num(P.val("create_resources", "qpn"))
        ppsn = num(P.val("exchange", "local_psn"))
        mypsn = num(P.val("exchange", "remote_psn"))
        if rtr:
            e = r[-1] if r else rtr[-1]
            if not num(e.get("is_global")):
                c.bad("ah_attr.is_global=1 (GRH)", "is_global=0",
                      HINTS["grh"])
            mtu = 128 << num(e.get("path_mtu"), 0)
            lim = min(me["mtu"], peer["mtu"])
            if mtu > lim:
                c.bad("path_mtu <= %d" % lim, "path_mtu=%d" % mtu,
                      HINTS["mtu"])
            if pqpn is not None and num(e.get("dest_qpn")) != pqpn:
                c.bad("dest_qpn=0x%06x" % pqpn, "dest_qpn=%s" %
                      e.get("dest_qpn"), HINTS["qpn"])
            if ppsn is not None and num(e.get("rq_psn")) != ppsn:
                c.bad("rq_psn=0x%06x (the peer's PSN)" % ppsn,
                      "rq_psn=%s" % e.get("rq_psn"), HINTS["psn"])
            pgids = {g for g, t in peer["gids"].values()
                     if t == "RoCE v2" and
                     g.startswith("0000:0000:0000:0000:0000:ffff:")}
            if num(e.get("is_global")) and pgids and \
                    e.get("dgid") not in pgids:
                c.bad("grh.dgid=%s (the peer's GID)" % sorted(pgids)[0],
                      "grh.dgid=%s" % e.get("dgid"), HINTS["dgid"])
            if num(e.get("is_global")) and num(e.get("hop_limit")) == 0:
                c.bad("grh.hop_limit >= 1", "grh.hop_limit=0",
                      HINTS["hop_limit"])
        if not r:
            c.bad("ibv_modify_qp(RTR) = 0", "RTR: " + (
                "returned " + rtr[-1]["_ret"] if rtr else "never called"),
                HINTS["rtr"])
        if not t and r:
            c.bad("ibv_modify_qp(RTS) = 0", "RTS: " + (
                "returned " + rts[-1]["_ret"] if rts else "never called"),
                HINTS["rtr"])
        elif t and mypsn is not None and num(t[-1].get("sq_psn")) != mypsn:
            c.bad("sq_psn=0x%06x (what you advertised)" % mypsn,
                  "sq_psn=%s" % t[-1].get("sq_psn"), HINTS["psn"])
        if t and num(t[-1].get("mask"), 0) & 0x200 and \
                num(t[-1].get("timeout")) == 0:
            c.bad("timeout between 1 and 31 (an ACK wait with a bound)",
                  "timeout=0 (wait forever)", HINTS["timeout"])
        if packets and ip and qpn is not None:
            # READ responses and atomic ACKs come to the client's QP too;
            # only requests call for an ACK.
            reqs = [x for x in packets if x["qp"] == qpn and
                    x["dst"] == ip and x["op"] not in OP_RESPONSE]
            acks = [x for x in packets if x["src"] == ip and
                    x["aeth"] is not None]
            if reqs and not acks:
                c.bad("ACKs from your QP 0x%06x" % qpn,
                      "%d requests to it, no ACK" % len(reqs),
                      HINTS["psn"] if r and num(r[-1].get("rq_psn")) !=
                      ppsn else HINTS["rtr"])
            big = [x for x in packets if x["src"] == ip and
                   x["op"] != OP_ACK and x["len"] > min(me["mtu"],
                                                        peer["mtu"])]
            if big:
                c.bad("payload <= %d bytes per packet" %
                      min(me["mtu"], peer["mtu"]),
                      "frame %d carries %d bytes" % (big[0]["frame"],
                                                     big[0]["len"]),
                      HINTS["mtu"])


def judge_send(ev, c):
    """The message on the wire, acknowledged; received on time."""
    S, P, side, ip, msg, bmsg = ev.S, ev.P, ev.side, ev.ip, ev.msg, ev.bmsg
    wire, wire_ops, delivered = ev.wire, ev.wire_ops, ev.delivered
    no_wire, receive_race = ev.no_wire, ev.receive_race
    if side == "server":
        if S.ok("send") and S.val("send", "received") != msg:
            got = S.val("send", "received") or ""
            c.bad("received=%d random bytes" % len(msg),
                  "received %d bytes%s" % (len(got), ", different" if
                                           got else ""), HINTS["send_data"])
        if S.ok("send") and wire and not delivered("send", bmsg):
            no_wire(c, "a SEND of the %d-byte message" % len(msg), "send")
        receive_race(c, "send", 1)
        if not S.ok("send") and c.hint is None and "RNR" in (
                P.fails.get("send") or "") + (P.hints.get("send") or ""):
            c.hint = HINTS["rnr"]
    else:
        ops = wire_ops(ip, OP_SEND)
        if S.ok("send") and P.who == "ref" and \
                P.val("send", "received") != msg:
            c.bad("the reference received the %d-byte message" % len(msg),
                  "reference: " + (P.fails.get("send") or
                                   "received other bytes"),
                  HINTS["opcode"] if "slot" in (P.fails.get("send") or "")
                  else HINTS["send_data"])
        if S.ok("send") and wire and ops and ops[0]["op"] not in (0, 4):
            c.bad("SEND FIRST/ONLY (opcode 0/4)", "first SEND packet "
                  "opcode %d" % ops[0]["op"], HINTS["opcode"])
        elif S.ok("send") and wire and not delivered("send", bmsg):
            no_wire(c, "a SEND of the %d-byte message" % len(msg), "send")


def judge_send_imm(ev, c):
    """The message and its immediate, in network order."""
    S, P, side, ip, msg, imm = ev.S, ev.P, ev.side, ev.ip, ev.msg, ev.imm
    bmsg, wire, wire_ops = ev.bmsg, ev.wire, ev.wire_ops
    delivered, no_wire = ev.delivered, ev.no_wire
    receive_race = ev.receive_race
    if side == "server":
        if S.ok("send_imm"):
            got = num(S.val("send_imm", "imm"))
            if S.val("send_imm", "received") != msg:
                c.bad("received the %d-byte message" % len(msg),
                      "received other bytes", HINTS["send_data"])
            if got != imm:
                c.bad("imm=0x%08x" % imm, "imm=%s" % S.val("send_imm",
                                                          "imm"),
                      HINTS["imm_ntohl"] if got == bswap32(imm)
                      else HINTS["imm_flag"])
            if wire and not delivered("send_imm", bmsg, imm):
                no_wire(c, "a SEND with immediate 0x%08x" % imm,
                        "send_imm")
        elif "immediate" in (S.fails.get("send_imm") or ""):
            c.hint = HINTS["imm_flag"]
        receive_race(c, "send_imm", 2)
    else:
        ops = wire_ops(ip, OP_SEND)
        imms = [x for x in ops if x["op"] in OP_SEND_IMM]
        if wire and S.ok("send") and not imms:
            c.bad("SEND with immediate (opcode 3/5) on the wire",
                  "no SEND with immediate from you (opcodes: %s)" %
                  ",".join(str(x["op"]) for x in ops) if ops else
                  "no SEND with immediate", HINTS["opcode"])
        elif imms and imms[0]["imm"] != imm:
            c.bad("immediate 0x%08x on the wire" % imm,
                  "immediate 0x%08x on the wire (frame %d)" %
                  (imms[0]["imm"], imms[0]["frame"]),
                  HINTS["imm_htonl"] if imms[0]["imm"] == bswap32(imm)
                  else HINTS["send_data"])
        elif S.ok("send_imm") and wire and \
                not delivered("send_imm", bmsg, imm):
            no_wire(c, "a SEND with immediate of the %d-byte message" %
                    len(msg), "send_imm")
        pimm = num(P.val("send_imm", "imm"))
        if P.who == "ref" and S.ok("send_imm") and (
                P.val("send_imm", "received") != msg or pimm != imm):
            pf = P.fails.get("send_imm") or ""
            c.bad("the reference received the message with imm=0x%08x" %
                  imm, "reference: " + (pf or "imm=%s" % P.val(
                      "send_imm", "imm")),
                  HINTS["opcode"] if "immediate" in pf else
                  HINTS["imm_htonl"] if pimm == bswap32(imm) else
                  HINTS["send_data"])
        if not S.ok("send_imm") and "htonl" in (S.fails.get("send_imm")
                                                or ""):
            c.hint = HINTS["imm_htonl"]
        if not S.ok("send_imm") and "no matching work request" in (
                S.fails.get("send_imm") or ""):
            c.hint = HINTS["opcode"]


def judge_write(ev, c):
    """The payload as an RDMA WRITE to the advertised MR."""
    S, P, side, tr, mrs, init = ev.S, ev.P, ev.side, ev.tr, ev.mrs, ev.init
    wmsg, bwmsg, cli_ip = ev.wmsg, ev.bwmsg, ev.cli_ip
    wire, wire_ops, delivered = ev.wire, ev.wire_ops, ev.delivered
    no_wire = ev.no_wire
    writes = wire_ops(cli_ip, OP_WRITE)
    if side == "server":
        # A student client's notice before its WRITE's completion is the
        # cause of what this server then read, and of what the wire
        # carried: that is the hint, whatever check below fails.
        if P.who == "student" and write_done_early(P.trace, ev.ip):
            c.hint = HINTS["early_notice"]
        if S.ok("write") and not write_received(
                S.val("write", "received"), wmsg, ev.msg):
            got = S.val("write", "received") or ""
            c.bad("received the %d-byte WRITE payload" % len(wmsg),
                  "received %d bytes%s" % (len(got), " (before the data "
                                           "arrived?)" if len(got) <
                                           len(wmsg) else ""),
                  HINTS["early_read"] if len(got) < len(wmsg) or
                  not P.ok("write") else HINTS["write_data"])
        rkeys = [num(m.get("rkey")) for m in mrs]
        if S.ok("write") and wire and not [
                m for m in delivered("write", bwmsg)
                if m["reth"] and m["reth"][1] in rkeys]:
            no_wire(c, "an RDMA WRITE of the %d-byte payload to your "
                    "MR" % len(wmsg), "write")
        if not S.ok("write") or not P.ok("write"):
            pf = P.fails.get("write") or ""
            allowed = any(num(m.get("access"), 0) & ACCESS_REMOTE_WRITE
                          for m in mrs) and any(
                num(e.get("access"), 0) & ACCESS_REMOTE_WRITE
                for e in init if e["_ret"] == "0")
            if "remote access" in pf or "(10)" in pf:
                c.bad("the client's WRITE succeeds", "client: " + pf,
                      HINTS["adv_wrong"] if allowed
                      else HINTS["write_access"])
    else:
        # First, as the cause: the server reads on the notice, so one
        # sent before the WRITE's completion lets it read too early, and
        # the client may reuse its buffer (the driver clears it for read)
        # before the device has sent it all.  Seen on kernel 6.12's rxe:
        # the reference received other bytes.
        early = write_done_early(tr, ev.peer.get("ip"))
        if S.ok("write") and early is not False:
            c.bad("the WRITE's completion before lab_send_write_done()",
                  "the write notice went out before the WRITE completed"
                  if early else "no write notice to the peer in the "
                  "kernel's trace of your process", HINTS["early_notice"])
        if P.who == "ref" and S.ok("write") and not write_received(
                P.val("write", "received"), wmsg, ev.msg):
            c.bad("the reference received the %d-byte WRITE payload" %
                  len(wmsg), "reference: " + (P.fails.get("write") or
                                              "other bytes"),
                  HINTS["write_data"])
        pa = num(P.val("create_resources", "buf"))
        pk = num(P.val("create_resources", "rkey"))
        first = [x for x in writes if x["reth"]]
        if first and pk is not None and first[0]["reth"][1] != pk:
            c.bad("RETH rkey=0x%x" % pk, "RETH rkey=0x%x (frame %d)" %
                  (first[0]["reth"][1], first[0]["frame"]), HINTS["rkey"])
        if first and pa is not None and first[0]["reth"][0] != pa:
            c.bad("RETH va=0x%x" % pa, "RETH va=0x%x (frame %d)" %
                  (first[0]["reth"][0], first[0]["frame"]), HINTS["rkey"])
        wf = S.fails.get("write") or ""
        adv = (num(S.val("exchange", "remote_addr")),
               num(S.val("exchange", "remote_rkey")))
        if ("remote access" in wf or "(10)" in wf) and first and \
                P.who == "student" and first[0]["reth"][:2] == adv:
            c.hint = HINTS["peer_adv"]
        elif ("remote access" in wf or "(10)" in wf) and c.hint is None:
            c.hint = HINTS["rkey"]
        if wire and S.ok("write") and not writes:
            c.bad("RDMA WRITE packets from you", "none", HINTS["opcode"])
        elif wire and S.ok("write") and not delivered("write", bwmsg):
            no_wire(c, "an RDMA WRITE of the %d-byte payload" % len(wmsg),
                    "write")


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


def judge_read(ev, c):
    """An RDMA READ of the server's MR brought back the WRITE payload."""
    S, P, side, wire, wmsg = ev.S, ev.P, ev.side, ev.wire, ev.wmsg
    reads, mrs = ev.reads, ev.srv_mrs
    good = [r for r in reads if r["done"] and
            r["data"].rstrip(b"\0") == ev.bwmsg and
            mr_of(mrs, r["reth"][0], r["reth"][1], max(r["reth"][2], 1))]
    want = "an RDMA READ of the %d-byte payload from the server's MR, " \
        "answered whole with it" % len(wmsg)
    if side == "client":
        f = S.fails.get("read") or ""
        if S.ok("read") and wire and not good:
            r = reads[0] if reads else None
            hint = HINTS["read_op"] if r is None else HINTS["rkey"] if \
                r["nak"] == 0x62 or not mr_of(mrs, r["reth"][0],
                                              r["reth"][1]) \
                else HINTS["read_data"]
            c.bad(want, describe_reads(reads), hint)
        if S.ok("read") and not good_wcs(ev.tr, WC_RDMA_READ):
            c.bad("a successful RDMA READ completion polled by your process",
                  "none in its trace", HINTS["read_traced"])
        if not S.ok("read") and S.reached("read"):
            why = ev.no_credits()
            if why:
                c.bad("max_rd_atomic >= 1 (READs in flight)", why, None)
                c.hint = HINTS["rd_credits"]
            elif "(4)" in f or "local protection" in f:
                c.hint = HINTS["read_local"]
            elif ("(10)" in f or "remote access" in f) and \
                    P.who == "student" and good_mr(reads, mrs):
                c.hint = HINTS["peer_adv"].replace("WRITE", "READ")
            elif "(10)" in f or "remote access" in f:
                c.hint = HINTS["rkey"]
            elif "(9)" in f or "invalid request" in f:
                c.hint = HINTS["rd_credits"]
            elif "not implemented" not in f and not f and c.hint is None \
                    and not reads:
                c.hint = HINTS["read_op"]
        return
    # The server does nothing in this step: its device answers.  It is
    # judged by the client's READ of its MR, and blamed only for what is
    # its own: access, credits, or a READ that reached it unanswered.
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
    miss = ev.remote_access(ACCESS_REMOTE_READ)
    cred = ev.no_credits()
    if miss == "MR":
        c.bad("an MR with IBV_ACCESS_REMOTE_READ (0x4)", "MR access: " +
              ", ".join("0x%x" % m["access"] for m in mrs), None)
        c.hint = HINTS["read_mr"]
    elif miss == "QP":
        c.bad("qp_access_flags with IBV_ACCESS_REMOTE_READ (0x4)",
              "qp_access_flags=%s" % ev.ok_init().get("access"), None)
        c.hint = HINTS["read_qp"]
    elif cred:
        c.bad("max_dest_rd_atomic >= 1 (READs the QP answers)", cred, None)
        c.hint = HINTS["rd_credits"]
    if wire and (unanswered or not good):
        c.bad(want, describe_reads(reached or reads), None)
    if pf:
        c.bad("the client's READ succeeds", "client: " + pf, None)


def good_mr(reads, mrs):
    """The client's first READ targets an MR of the server (so an access
    error is the server's)."""
    return bool(reads) and mr_of(mrs, reads[0]["reth"][0],
                                 reads[0]["reth"][1]) is not None


def judge_write_imm(ev, c):
    """The message as an RDMA WRITE with immediate into the server's MR;
    the server's receive completion carries the immediate."""
    S, P, side, wire = ev.S, ev.P, ev.side, ev.wire
    msg, bmsg, imm = ev.msg, ev.bmsg, ev.imm
    good = [m for m in ev.delivered("write_imm", bmsg, imm) if m["reth"]
            and mr_of(ev.srv_mrs, m["reth"][0], m["reth"][1], len(bmsg))]
    sent = [m for m in ev.msgs if m["kind"] == "write_imm"]
    want = "an RDMA WRITE with immediate 0x%08x of the %d-byte message to " \
        "the server's MR, acknowledged" % (imm, len(msg))
    if side == "client":
        f = S.fails.get("write_imm") or ""
        if S.ok("write_imm") and wire and not good:
            m = sent[0] if sent else None
            if m is None:
                c.bad(want, "no WRITE with immediate from you (kinds: %s)" %
                      (", ".join(x["kind"] or "?" for x in ev.msgs) or
                       "none"), HINTS["wimm_opcode"])
            elif m["imm"] != imm:
                c.bad(want, "immediate 0x%08x on the wire" % m["imm"],
                      HINTS["imm_htonl"] if m["imm"] == bswap32(imm)
                      else HINTS["wimm_opcode"])
            elif not m["reth"] or not mr_of(ev.srv_mrs, m["reth"][0],
                                            m["reth"][1]):
                c.bad(want, "RETH va=0x%x rkey=0x%x: not the server's MR" %
                      m["reth"][:2] if m["reth"] else "no RETH",
                      HINTS["rkey"])
            else:
                ev.no_wire(c, "a WRITE with immediate of the %d-byte "
                           "message" % len(msg), "write_imm")
        if P.who == "ref" and S.ok("write_imm") and (
                P.val("write_imm", "received") != msg or
                num(P.val("write_imm", "imm")) != imm):
            pimm = num(P.val("write_imm", "imm"))
            c.bad("the reference received the message with imm=0x%08x" %
                  imm, "reference: " + (P.fails.get("write_imm") or
                                        "imm=%s" % P.val("write_imm", "imm")),
                  HINTS["imm_htonl"] if pimm == bswap32(imm)
                  else HINTS["wimm_opcode"])
        if not S.ok("write_imm") and "htonl" in f:
            c.hint = HINTS["imm_htonl"]
        elif not S.ok("write_imm") and "no matching work request" in f:
            c.hint = HINTS["wimm_opcode"]
        return
    wcs = good_wcs(ev.tr, WC_RECV_RDMA_WITH_IMM)
    if S.ok("write_imm"):
        got = num(S.val("write_imm", "imm"))
        text = S.val("write_imm", "received") or ""
        if text != msg:
            # Read before the data came: no completion, the WRITE payload
            # still there, or a length not the completion's (the line shows
            # the buffer as it is when printed, the length as taken).
            old = bool(text) and ev.wmsg.startswith(text[:64])
            early = not wcs or old or num(S.val("write_imm", "len")) not in [
                num(e.get("byte_len")) for e in wcs]
            c.bad("received the %d-byte message in your buffer" % len(msg),
                  "received %s bytes, other bytes%s" % (
                      S.val("write_imm", "len"),
                      " (the write step's)" if old else ""),
                  HINTS["wimm_wait"] if early else HINTS["write_data"])
        if got != imm:
            c.bad("imm=0x%08x" % imm, "imm=%s" % S.val("write_imm", "imm"),
                  HINTS["imm_ntohl"] if got == bswap32(imm)
                  else HINTS["wimm_wait"])
        # The message and the immediate were received before (send,
        # send_imm): only the completion shows that this step got them.
        mine = [e for e in wcs if num(e.get("byte_len")) == len(msg) and
                num(e.get("imm"), imm) == imm]
        if not mine:
            c.bad("the receive completion of the WRITE with immediate "
                  "polled (IBV_WC_RECV_RDMA_WITH_IMM, byte_len=%d, "
                  "imm=0x%08x)" % (len(msg), imm),
                  "none in your trace" if not wcs else
                  "byte_len=%s imm=%s" % (wcs[0].get("byte_len"),
                                          wcs[0].get("imm")),
                  HINTS["wimm_wait"])
        if wire and not good:
            ev.no_wire(c, "a WRITE with immediate of the %d-byte message "
                       "to your MR" % len(msg), "write_imm")
    if S.reached("write_imm"):
        ev.receive_race(c, "write_imm", 3)


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
            return "an 8-byte aligned address", HINTS["atomic_align"]
        if addr is not None and a["va"] != addr:
            return "va=0x%x (the advertised word)" % addr, HINTS["rkey"]
        if not mr_of(ev.srv_mrs, a["va"], a["rkey"], 8):
            return "the rkey of the server's MR holding the word", \
                HINTS["atomic_mr"] if ev.side == "server" else HINTS["rkey"]
    if not fa or not cs or ats.index(fa[0]) > ats.index(cs[0]):
        return "FETCH_ADD then CMP_SWAP", HINTS["atomic_ops"]
    # The start as advertised; when the reference that knew it failed
    # before printing it, the FETCH_ADD's original value stands in (the
    # reference's failure says the rest).
    if start is None:
        start = fa[0]["orig"]
    if start is None:
        return "an ATOMIC ACKNOWLEDGE for the FETCH_ADD", None
    if fa[0]["swap_add"] != ATOMIC_ADD or \
            cs[0]["swap_add"] != ATOMIC_SWAP or \
            cs[0]["compare"] != (start + ATOMIC_ADD) & U64:
        return "add=0x%x, then compare=start+0x%x swap=0x%016x" % (
            ATOMIC_ADD, ATOMIC_ADD, ATOMIC_SWAP), HINTS["atomic_ops"]
    if fa[0]["orig"] != start or cs[0]["orig"] != (start + ATOMIC_ADD) & U64:
        return "original values 0x%016x, then 0x%016x" % (
            start, (start + ATOMIC_ADD) & U64), None
    return None


def judge_atomic(ev, c):
    """FETCH_ADD then CMP_SWAP on the server's aligned word, answered with
    the values it held; the word ends as LAB_ATOMIC_SWAP."""
    S, P, side, wire = ev.S, ev.P, ev.side, ev.wire
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
    misaligned = [v for v in vas if v % 8]
    f = S.fails.get("atomic") or ""
    pf = P.fails.get("atomic") or ""
    if side == "client":
        if S.ok("atomic") and wrong:
            c.bad(want + ": " + wrong[0], describe_atomics(ev.atomics)[0],
                  wrong[1])
        if S.ok("atomic") and not (good_wcs(ev.tr, WC_FETCH_ADD) and
                                   good_wcs(ev.tr, WC_COMP_SWAP)):
            c.bad("successful FETCH_ADD and COMP_SWAP completions of your "
                  "QP", "not both in the kernel's trace",
                  HINTS["atomic_traced"])
        early = notice_early(ev.tr, signal_at(
            ev.tr, "client", "atomic_done", ev.peer.get("ip")),
            [WC_FETCH_ADD, WC_COMP_SWAP])
        if S.ok("atomic") and early is not False:
            c.bad("both atomics' completions before lab_send_atomic_done()",
                  "the atomic notice went out before them" if early else
                  "no atomic notice to the peer in the kernel's trace of "
                  "your process", HINTS["atomic_notice"])
        if P.who == "ref" and S.ok("atomic") and not P.ok("atomic"):
            c.bad("the reference's word ends as 0x%016x (LAB_ATOMIC_SWAP)" %
                  ATOMIC_SWAP, "reference: " + (pf or "no atomic line"),
                  HINTS["atomic_ops"])
        if not S.ok("atomic") and S.reached("atomic"):
            why = ev.no_credits()
            if misaligned:
                c.hint = HINTS["atomic_align"]
            elif why:
                c.bad("max_rd_atomic >= 1 (atomics in flight)", why, None)
                c.hint = HINTS["rd_credits"]
            elif "(4)" in f or "local protection" in f:
                c.hint = HINTS["read_local"]
            elif "(10)" in f or "remote access" in f:
                c.hint = HINTS["atomic_mr"] if P.who == "student" and \
                    ev.atomics and mr_of(ev.srv_mrs, ev.atomics[0]["va"],
                                         ev.atomics[0]["rkey"], 8) \
                    else HINTS["rkey"]
        return
    # Server: its word, aligned, in an MR the client may use; the client's
    # atomics on it, on the wire; the final value read after them.
    if S.ok("atomic"):
        a = num(S.val("atomic", "addr"), 0)
        if a % 8:
            c.bad("addr 8-byte aligned", "addr=0x%x" % a,
                  HINTS["atomic_align"])
        elif not [m for m in ev.srv_mrs if m["addr"] <= a and a + 8 <=
                  m["addr"] + m["len"] and m["access"] &
                  ACCESS_REMOTE_ATOMIC]:
            c.bad("addr inside an MR with IBV_ACCESS_REMOTE_ATOMIC (0x8)",
                  "addr=0x%x; MRs: %s" % (a, ", ".join(
                      "0x%x+%d access=0x%x" % (m["addr"], m["len"],
                                               m["access"])
                      for m in ev.srv_mrs)), HINTS["atomic_mr"])
    client_ok = P.ok("atomic") or P.who == "student"
    before, cause = c.hint, False
    if S.reached("atomic") and (not S.ok("atomic") or not P.ok("atomic")):
        miss = ev.remote_access(ACCESS_REMOTE_ATOMIC)
        cred = ev.no_credits()
        if misaligned:
            c.bad("an 8-byte aligned word", "address 0x%x" % misaligned[0],
                  None)
            c.hint = HINTS["atomic_align"]
        elif miss == "MR":
            c.bad("an MR with IBV_ACCESS_REMOTE_ATOMIC (0x8)",
                  "MR access: " + ", ".join("0x%x" % m["access"]
                                            for m in ev.srv_mrs), None)
            c.hint = HINTS["atomic_mr"]
        elif miss == "QP":
            c.bad("qp_access_flags with IBV_ACCESS_REMOTE_ATOMIC (0x8)",
                  "qp_access_flags=%s" % ev.ok_init().get("access"), None)
            c.hint = HINTS["atomic_qp"]
        elif cred:
            c.bad("max_dest_rd_atomic >= 1 (atomics the QP answers)", cred,
                  None)
            c.hint = HINTS["rd_credits"]
        elif "expected the start" in pf:
            c.bad("the word holds the advertised start value",
                  "client: " + pf, None)
            c.hint = HINTS["atomic_start"]
        elif "LAB_ATOMIC_SWAP" in f and client_ok:
            c.bad("the word read after lab_recv_atomic_done()",
                  "lab atomic FAIL: " + f, None)
            c.hint = HINTS["atomic_final"]
        cause = c.hint is not before  # a branch above named the cause
        if P.who == "ref" and pf:
            c.bad("the reference's atomics succeed", "client: " + pf, None)
    if wire and wrong and not cause and S.reached("atomic") and (
            S.ok("atomic") or P.who == "ref"):
        c.bad(want + ": " + wrong[0], describe_atomics(ev.atomics)[0],
              wrong[1])


def judge_teardown(ev, c):
    """Every object destroyed, with 0, in a valid order."""
    S, tr = ev.S, ev.tr
    if S.timed_out() or S.note:
        pass  # killed: judged in the other pairings
    elif not any(e["_fn"] == "ibv_open_device" and created(e["_ret"])
                 for e in tr):
        if c.ok:
            c.bad("a device opened and closed", "no device opened",
                  HINTS["teardown_line"])
    else:
        live, order_bad = leaks(tr)
        if order_bad:
            c.bad("every destroy returns 0, in reverse order of creation",
                  "; ".join(order_bad[:3]), HINTS["teardown_order"])
        if live:
            c.bad("no verbs object left", "never destroyed: " + ", ".join(
                "%s %s" % (v[0], p) for p, v in live.items()),
                HINTS["teardown_leak"])


# The judges by step, in the order of lab/steps.h and of the evidence table
# of docs/grading.md, every part's; the points come from lab/steps.h
# (STEPS), and only the steps of parts 1..LAB_PARTS are judged.
JUDGES = {
    "open_device": judge_open_device,
    "create_resources": judge_create_resources,
    "qp_to_init": judge_qp_to_init,
    "exchange": judge_exchange,
    "connect": judge_connect,
    "send": judge_send,
    "send_imm": judge_send_imm,
    "write": judge_write,
    "read": judge_read,
    "write_imm": judge_write_imm,
    "atomic": judge_atomic,
    "teardown": judge_teardown,
}


def fallback_hints(ev, res):
    """Fallbacks: the peer stopped first, the program's own hint, then a
    generic one."""
    S, P = ev.S, ev.P
    ps = P.stopped_at()
    for s in STEP_NAMES:
        c = res[s]
        if c.ok or c.hint is not None:
            continue
        if ps and (STEP_NAMES.index(ps) < STEP_NAMES.index(s) or
                   ps == s and S.note) and \
                (P.fails.get(ps) or P.rc not in (0, None)):
            c.hint = HINTS["peer_quit"] % ps
        elif S.fails.get(s):
            c.hint = S.hints.get(s) or HINTS["wc"]


def judge_side(pid, pair, side, facts, packets):
    """{step: Check} for the student's side of pairing pid."""
    ev = Evidence(pair, side, facts, packets)
    res = {s: Check() for s in STEP_NAMES}
    judge_own_lines(ev, res)
    for s in STEP_NAMES:  # the steps of the parts graded
        JUDGES[s](ev, res[s])
    fallback_hints(ev, res)
    return res


# --- judging a student: every pairing, both sides ----------------------------
def pcap_summary(path, limit=12):
    try:
        r = subprocess.run([os.path.join(HERE, "..", "wire-summary"), path],
                           capture_output=True, text=True, timeout=30)
        lines = r.stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return []
    if len(lines) > limit + 1:
        lines = lines[:limit + 1] + ["  ... %d more" % (len(lines) -
                                                         limit - 1)]
    return lines


def cmd_analyze(resdir, rundir, dest):
    facts = {s: parse_facts(read(os.path.join(rundir, "facts." + s)))
             for s in ("server", "client")}
    result = {"name": os.path.basename(resdir.rstrip("/")), "steps": {},
              "env_error": None, "compile_error": None}
    if os.path.exists(os.path.join(resdir, "compile-failed")):
        result["compile_error"] = read(os.path.join(resdir,
                                                    "compile.log"), 4000)
    env = [read(os.path.join(resdir, "env-error"))] + [
        read(os.path.join(resdir, p, "env-error")) for p in PAIRINGS]
    env = [e.strip() for e in env if e]
    if not os.path.exists(os.path.join(resdir, "done")):
        env.append("the grading run did not finish")
    checks = {s: [] for s in STEP_NAMES}
    lines_out = []
    for p, roles in PAIRINGS.items():
        pdir = os.path.join(resdir, p)
        if result["compile_error"] or not os.path.isdir(pdir):
            continue
        pair = {s: Side(pdir, s, roles[s]) for s in ("server", "client")}
        pl = (read(os.path.join(resdir, "payload." + p)) or
              "\n0\n").splitlines()
        pair["payload"] = pl + [""] * (3 - len(pl))
        pcap = os.path.join(resdir, p + ".pcap")
        packets = parse_pcap(pcap)
        if packets == [] and any(pair[s].who == "ref" and
                                 pair[s].ok("send") for s in pair if
                                 s != "payload"):
            # A completed SEND crossed the wire: the capture lost it.
            env.append("%s: the capture is empty although the reference's "
                       "SEND completed" % p)
            packets = None
        for side in ("server", "client"):
            if roles[side] != "student":
                continue
            r = judge_side(p, pair, side, facts, packets)
            for s in STEP_NAMES:
                checks[s].append((p, side, r[s]))
        lines_out.append((p, pair))
    if env:
        result["env_error"] = "; ".join(env)
    # Verdicts and evidence text.
    for s, pts in GRADED:
        cs = checks[s]
        ok = bool(cs) and all(c.ok for _, _, c in cs)
        if result["compile_error"]:
            ev, hint = ["your program did not compile"], HINTS["compile"]
        else:
            ev, hint = [], None
            bad = [c for _, _, c in cs if not c.ok]
            if bad and all(x.startswith("not reached") for c in bad
                           for x in c.seen):
                cs = []
                ev = ["  " + bad[0].seen[0]]
            for p, side, c in cs:
                if c.ok:
                    continue
                hint = hint or c.hint
                ev.append("  %s (%s), your %s:" % (p, PAIR_TITLE[p], side))
                for x in c.exp:
                    ev.append("    expected: " + x)
                for x in c.seen:
                    ev.append("    seen:     " + x)
        result["steps"][s] = {"score": pts if ok else 0, "max": pts,
                              "part": PART[s], "passed": ok,
                              "evidence": ev, "hint": hint}
    # Student's own lines, marked by the evidence of their own pairing and
    # side (a client that worked in p2 is not blamed for its server), and
    # the wire of failed pairings.
    verdict = {(p, side, s): c.ok for s in STEP_NAMES
               for p, side, c in checks[s]}
    own = []
    for p, pair in lines_out:
        for side in ("server", "client"):
            S = pair[side]
            if S.who != "student":
                continue
            why = S.limit or S.note or S.idle
            own.append("  %s, your %s (exit status %s%s):" % (
                p, side, S.rc, ", " + why if why else ""))
            for s in STEP_NAMES:
                st = result["steps"][s]
                if S.ok(s):
                    good = verdict.get((p, side, s), st["passed"])
                    mark = "GOOD   " if good else "BAD    "
                    own.append("    %s%s" % (mark, S.line(s)[2][:160]))
                elif S.fails.get(s):
                    own.append("    BAD     lab %s FAIL: %s" % (
                        s, S.fails[s][:140]))
                    if S.hints.get(s):
                        own.append("            lab %s hint: %s" % (
                            s, S.hints[s][:140]))
                else:
                    own.append("    MISSING lab %s ok" % s)
    result["own_lines"] = own
    wire = {}
    for p, pair in lines_out:
        failed = any(not c.ok for s in STEP_NAMES
                     for pp, _, c in checks[s] if pp == p)
        if failed:
            wire[p] = pcap_summary(os.path.join(resdir, p + ".pcap"))
    result["wire"] = wire
    # "score"/"max_score": the core (part 1), as before parts existed;
    # "parts": every part graded, the core included.
    result["parts"] = {str(p): {"title": PART_LINE.get(p, "Part %d" % p),
                                "score": got, "max": tot}
                       for p, got, tot in part_totals(result)}
    result["score"] = result["parts"]["1"]["score"]
    result["max_score"] = result["parts"]["1"]["max"]
    os.makedirs(dest, exist_ok=True)
    tmp = os.path.join(dest, "result.json.tmp")
    with open(tmp, "w") as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, os.path.join(dest, "result.json"))
    return 0


# --- text a student controls, on its way to a terminal or a page ----------
# What a terminal acts on: the C0 controls but tab, DEL, the C1 controls
# (U+009B alone is a CSI on some terminals), and the marks that reorder
# what is shown (bidirectional overrides and isolates).  Newline too,
# unless the text is lines: a student's line must not make one of ours.
# A file name's bytes that are not UTF-8 (U+DC80..U+DCFF, as Python reads
# them) are written as the bytes they were.
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f"
                    "\u202a-\u202e\u2066-\u2069\udc80-\udcff]")
UNSAFE_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e"
                          "\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")


def escape_char(m):
    c = ord(m.group(0))
    if 0xdc80 <= c <= 0xdcff:
        c -= 0xdc00
    return "\\x%02x" % c if c < 0x100 else "\\u%04x" % c


def safe(text, lines=False):
    """text with every character a terminal would act on written out as
    \\xNN (escape sequences become harmless text, never colours, titles
    or a cleared screen)."""
    return (UNSAFE_LINES if lines else UNSAFE).sub(escape_char, str(text))


def mdtext(text):
    """Student-controlled text as plain text in a cell of report.md: no
    HTML, image, link, emphasis, code span, math or cell of its own.
    Every character that markdown acts on is escaped with a backslash
    (':' too: a web autolink needs "http:"; an e-mail address may still
    become a mailto: link, which runs nothing); then &, <, > and |
    become entities, which no escape may touch after: a table splits its
    cells on | before it reads markdown, and renderers differ on a
    backslash before it, never on an entity."""
    text = re.sub(r"([\\`*_{}\[\]()#+\-.!~:$])", r"\\\1", safe(text))
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    return text.replace(">", "&gt;").replace("|", "&#124;")


# --- reporting: the student's text, Gradescope, the batch --------------------
def result_steps(result, steps=None):
    """The steps asked for (default: all) that the result has, in the
    order of lab/steps.h."""
    return [s for s, _ in STEPS if s in result["steps"] and
            (not steps or s in steps)]


def part_totals(result, steps=None):
    """[(part, score, max)] over those steps, by part."""
    parts = {}
    for s in result_steps(result, steps):
        st = result["steps"][s]
        p = st.get("part", PART.get(s, 1))
        got, tot = parts.get(p, (0, 0))
        parts[p] = (got + st["score"], tot + st["max"])
    return [(p, got, tot) for p, (got, tot) in sorted(parts.items())]


def render(result, steps=None):
    """The student's text; each part's steps with its score line under
    them ("Score:" for the core, "Part two:" for part 2)."""
    steps = result_steps(result, steps)
    o = []
    if result.get("env_error"):
        o.append("ENVIRONMENT ERROR (not your fault): " +
                 result["env_error"])
    if result.get("compile_error"):
        o.append("Your program does not compile:")
        o += ["  " + x for x in result["compile_error"].splitlines()[:20]]
    got = tot = 0
    for p, pgot, ptot in part_totals(result, steps):
        for s in steps:
            st = result["steps"][s]
            if st.get("part", PART.get(s, 1)) != p:
                continue
            o.append("%-17s %d/%d  %s" % (s, st["score"], st["max"],
                                          "OK" if st["passed"] else "FAIL"))
        o.append("%s: %d/%d" % (PART_LINE.get(p, "Part %d" % p), pgot, ptot))
        got, tot = got + pgot, tot + ptot
    failed = [s for s in steps if not result["steps"][s]["passed"]]
    for s in failed:
        st = result["steps"][s]
        o.append("")
        o.append("== %s: FAIL" % s)
        o += st["evidence"][:24]
        if st["hint"]:
            o.append("  hint: " + st["hint"])
    if failed and result.get("own_lines"):
        o.append("")
        o.append("== your program's lines")
        o += result["own_lines"]
    if failed and result.get("wire"):
        for p, lines in sorted(result["wire"].items()):
            o.append("")
            o.append("== packets of %s (%s)" % (p, PAIR_TITLE[p]))
            o += ["  " + x for x in lines] or ["  (no RoCE packets)"]
    # The student's lines, hints and compiler messages are in there: each
    # line stays one line, with nothing a terminal would act on.
    return "\n".join(safe(x) for x in o), got, tot


def cmd_show(path, steps):
    result = json.load(open(path))
    text, got, tot = render(result, steps)
    print(text)
    return 0 if got == tot and not result.get("env_error") else 1


def cmd_results(path, dest, steps):
    """Gradescope's results.json: one test per step, numbered PART.N so
    that each part's tests sit together; the score is every part's."""
    result = json.load(open(path))
    tests, n = [], {}
    for s in sorted(result_steps(result, steps), key=lambda s: result[
            "steps"][s].get("part", PART.get(s, 1))):
        st = result["steps"][s]
        p = st.get("part", PART.get(s, 1))
        n[p] = n.get(p, 0) + 1
        out = st["evidence"] + (["hint: " + st["hint"]] if st["hint"]
                                else [])
        tests.append({"name": s, "number": "%d.%d" % (p, n[p]),
                      "score": st["score"], "max_score": st["max"],
                      "output": "\n".join(safe(x) for x in out) or "ok",
                      "output_format": "text"})
    # Plain text, never HTML or markdown: Gradescope's default format
    # renders some HTML, and the output quotes what the student printed.
    doc = {"score": sum(t["score"] for t in tests), "tests": tests,
           "output": render(result, steps)[0], "output_format": "text",
           "test_output_format": "text", "test_name_format": "text"}
    tmp = dest + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, dest)
    return 0


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)
    os.replace(tmp, path)


def cmd_report(out):
    sdir = os.path.join(out, "students")
    rows = []
    for name in sorted(os.listdir(sdir)):
        p = os.path.join(sdir, name, "result.json")
        if os.path.exists(p):
            rows.append(json.load(open(p)))
    later = range(2, LAB_PARTS + 1)  # the parts after the core

    def status(r):
        return "environment error" if r.get("env_error") else \
            "compile error" if r.get("compile_error") else "graded"

    def part(r, p):
        """(score, max) of part p, from the result's steps."""
        t = [(g, m) for q, g, m in part_totals(r) if q == p]
        return t[0] if t else (0, sum(POINTS[s] for s in STEP_NAMES
                                      if PART[s] == p))

    buf = io.StringIO()
    # \n, not csv's \r\n: grade-all greps the rows by their last field.
    # Columns by name: score and max are the core's, partN and partN_max
    # each later part's, status stays last.
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student"] + STEP_NAMES + ["score", "max"] +
               [c % p for p in later for c in ("part%d", "part%d_max")] +
               ["status"])
    for r in rows:
        w.writerow([r["name"]] + [r["steps"][s]["score"] if s in r["steps"]
                                  else "" for s in STEP_NAMES] +
                   [r["score"], r["max_score"]] +
                   [v for p in later for v in part(r, p)] + [status(r)])
    write_atomic(os.path.join(out, "report.csv"), buf.getvalue())
    full = sum(all(part(r, p)[0] == part(r, p)[1]
                   for p in range(1, LAB_PARTS + 1)) for r in rows)
    md = ["# rdma-lab grades", "",
          "%d submissions graded; full marks%s: %d; environment errors: %d;"
          " compile errors: %d." % (
              len(rows), " (every part)" if later else "", full,
              sum(bool(r.get("env_error")) for r in rows),
              sum(bool(r.get("compile_error")) for r in rows)), "",
          "| step | part | points | passed | most common failure |"
          if later else "| step | points | passed | most common failure |",
          "|---|---:|---:|---:|---|" if later else "|---|---:|---:|---|"]
    for s, pts in GRADED:
        ok = sum(r["steps"].get(s, {}).get("passed", False) for r in rows)
        hints = {}
        for r in rows:
            st = r["steps"].get(s)
            if st and not st["passed"] and st["hint"]:
                hints[st["hint"]] = hints.get(st["hint"], 0) + 1
        common = max(hints.items(), key=lambda x: x[1]) if hints else None
        md.append("| %s |%s %d | %d/%d | %s |" % (
            s, " %d |" % PART[s] if later else "", pts, ok, len(rows),
            "%s (%d)" % (mdtext(common[0]), common[1]) if common else "-"))
    titles = [PART_LINE.get(p, "Part %d" % p).lower() for p in later]
    md += ["", "| student | score |%s status |" % "".join(
        " %s |" % t for t in titles),
        "|---|---:|%s---|" % ("---:|" * len(titles))]
    for r in rows:
        md.append("| %s | %d/%d |%s %s |" % (
            mdtext(r["name"]), r["score"], r["max_score"], "".join(
                " %d/%d |" % part(r, p) for p in later), status(r)))
    write_atomic(os.path.join(out, "report.md"), "\n".join(md) + "\n")
    return 0


def cmd_merge(out, shards):
    """Join the output folders of vm/grade-all --shard runs: each
    student's folder is copied into OUT/students, once."""
    import shutil
    dest = os.path.join(out, "students")
    os.makedirs(dest, exist_ok=True)
    seen = {}
    for sh in shards:
        sdir = os.path.join(sh, "students")
        if not os.path.isdir(sdir):
            sys.exit("merge: %s has no students/ folder: not a grade-all "
                     "output" % sh)
        for name in sorted(os.listdir(sdir)):
            if name in seen:
                sys.exit("merge: %s is in both %s and %s" % (
                    name, seen[name], sh))
            seen[name] = sh
            src = os.path.join(sdir, name)
            if not os.path.exists(os.path.join(src, "result.json")):
                print("merge: %s has no result in %s (grade that shard "
                      "again)" % (name, sh), file=sys.stderr)
            shutil.rmtree(os.path.join(dest, name), ignore_errors=True)
            shutil.copytree(src, os.path.join(dest, name))
    cmd_report(out)
    print("merged %d students from %d shards into %s" % (
        len(seen), len(shards), out))
    return 0


def cmd_progress(out, total, pids):
    """One line while batches run: graded/total, how many fell short of
    full marks, environment errors, time left.  On a terminal it is
    rewritten in place; into a file, a line each time the count moves."""
    import time
    tty = sys.stderr.isatty()
    sdir = os.path.join(out, "students")
    start, last, base = time.time(), None, None

    def alive():
        for p in pids:
            try:
                os.kill(p, 0)
                return True
            except OSError:
                pass
        return False

    while True:
        running = alive()
        done = short = env = 0
        for name in os.listdir(sdir) if os.path.isdir(sdir) else []:
            try:
                with open(os.path.join(sdir, name, "result.json")) as f:
                    r = json.load(f)
            except (OSError, ValueError):
                continue
            done += 1
            env += bool(r.get("env_error"))
            short += r.get("score") != r.get("max_score")
        if base is None:
            base = done  # kept from an earlier run: not this run's pace
        rate = (done - base) / max(time.time() - start, 1)
        left = "?" if rate <= 0 else "%d s" % ((total - done) / rate)
        line = "graded %d/%d, %d below full marks, %d environment " \
            "errors, about %s left" % (done, total, short, env, left)
        if tty:
            print("\r\033[K" + line, end="" if running else "\n",
                  file=sys.stderr, flush=True)
        elif (done, env) != last or not running:
            print(line, file=sys.stderr, flush=True)
        last = (done, env)
        if not running:
            return 0
        time.sleep(2)


# Each command's arguments: at least, at most (None: any number more).
ARGS = {"payloads": (1, None), "unpack": (2, 2), "names": (1, 1),
        "clean": (0, 0), "analyze": (3, 3), "show": (1, None),
        "results": (2, None), "report": (1, 1), "merge": (2, None),
        "progress": (2, None), "leaks": (1, 1), "packets": (1, 1),
        "slice": (2, 2)}


def usage_line(cmd):
    """The command's usage, from its line of the docstring at the top."""
    for line in __doc__.splitlines():
        use = re.split(r"\s{2,}", line.strip())[0]
        if use.split()[:2] == ["grader.py", cmd]:
            return use
    return "grader.py " + cmd


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd, args = (argv[1], argv[2:]) if len(argv) >= 2 else ("", [])
    if cmd not in ARGS:
        print("usage: grader.py COMMAND ARG... (%s; see grader.py --help)"
              % " ".join(ARGS) if not cmd else "grader.py: unknown command "
              "'%s' (see grader.py --help)" % safe(cmd), file=sys.stderr)
        return 2
    least, most = ARGS[cmd]
    if len(args) < least or (most is not None and len(args) > most) or \
            (cmd == "progress" and not all(re.fullmatch(r"\d+", a)
                                           for a in args[1:])):
        print("usage: %s" % usage_line(cmd), file=sys.stderr)
        return 2
    if cmd in ("show", "results") and not os.path.isfile(args[0]):
        print("grader.py %s: no result file %s" % (cmd, safe(args[0])),
              file=sys.stderr)
        return 2
    if cmd in ("show", "results", "report", "names", "clean"):
        # The commands that read results and write reports: a file that
        # is missing, unreadable or not JSON is one line, not a traceback.
        try:
            return run(cmd, args)
        except (OSError, ValueError, KeyError, TypeError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror \
                else "not a result: no %s" % e if isinstance(e, KeyError) \
                else str(e)
            print("grader.py %s: %s: %s" % (
                cmd, safe(getattr(e, "filename", None) or args[0]),
                safe(why)), file=sys.stderr)
            return 2
    return run(cmd, args)


def run(cmd, args):
    bad = [a for a in args if a in POINTS] if cmd in ("show",
                                                      "results") else []
    if cmd == "payloads":
        for a in args:
            cmd_payloads(a)
        return 0
    if cmd == "unpack":
        # A backstop under the caps of read_submission: whatever a
        # library does with a hostile archive, this process stays small.
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MAX, MEMORY_MAX))
        return cmd_unpack(args[0], args[1])
    if cmd == "names":
        return cmd_names(args[0])
    if cmd == "clean":
        return cmd_clean()
    if cmd == "analyze":
        return cmd_analyze(args[0], args[1], args[2])
    if cmd == "show":
        return cmd_show(args[0], bad or None)
    if cmd == "results":
        return cmd_results(args[0], args[1], [a for a in args[2:]] or None)
    if cmd == "report":
        return cmd_report(args[0])
    if cmd == "merge":
        return cmd_merge(args[0], args[1:])
    if cmd == "progress":
        return cmd_progress(args[0], int(args[1]), [int(a) for a in args[2:]])
    if cmd == "slice":
        return cmd_slice(args[0], args[1])
    if cmd == "leaks":
        return cmd_leaks(args[0])
    for x in parse_pcap(args[0]) or []:  # packets
        print(" ".join("-" if v is None else str(v) for v in (
            x["frame"], x["src"], x["dst"], x["op"], x["qp"], x["psn"],
            *(x["reth"] or (None,) * 3), x["imm"], x["aeth"],
            *(x["atomic"] or (None,) * 2), x["orig"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""The wire: RoCEv2 packets of a pcap file whose ICRC is right, and the
messages, READs and atomics they carry."""
import os
import struct
import zlib

from ..lab import PAIRINGS
from ..text import read, write_atomic
from ..verbs import (OP_ACK, OP_ATOMIC_ACK, OP_CMP_SWAP, OP_END, OP_FETCH_ADD,
                     OP_FIRST, OP_READ_REQ, OP_READ_RESP, PSN_MOD)


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


def roce_frames(data):
    """(frame number, src, dst, IP header, UDP header to the frame's end,
    BTH to the ICRC's end) of each RoCEv2 packet (UDP port 4791 over IPv4
    or IPv6) of a pcap file's bytes, its ICRC not checked: the docs'
    check of the ICRC's masks (tests/docs/docscheck/icrc.py) reads them
    too."""
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
        yield n, src, dst, ip, udp, udp[8:ulen]


def packet(n, src, dst, b):
    """One RoCEv2 packet (frame number, addresses, BTH to the ICRC's end,
    at least the BTH's 12 bytes) as a dict: src, dst, op, qp, psn,
    ack_req, reth, imm, aeth and msn, atomic (an atomic request's
    swap/add and compare data), orig (an ATOMIC ACKNOWLEDGE's original
    value), and the payload (data, len).  A header cut short is left
    out (None)."""
    op = b[0]
    x = {"frame": n, "src": src, "dst": dst, "op": op,
         "qp": int.from_bytes(b[5:8], "big"),
         "psn": int.from_bytes(b[9:12], "big"), "ack_req": b[8] >> 7,
         "reth": None, "imm": None, "aeth": None, "msn": None,
         "atomic": None, "orig": None}
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
    if op in (3, 5, 9, 11) and len(b) >= h + 4:
        x["imm"] = struct.unpack(">I", b[h:h + 4])[0]
        h += 4
    if op in (13, 15, 16, 17, 18) and len(b) >= h + 4:
        x["aeth"] = b[h]
        x["msn"] = int.from_bytes(b[h + 1:h + 4], "big")
        h += 4
    if op == OP_ATOMIC_ACK and len(b) >= h + 8:
        x["orig"] = struct.unpack(">Q", b[h:h + 8])[0]
        h += 8
    end = max(h, len(b) - ((b[1] >> 4) & 3) - 4)
    x["len"], x["data"] = end - h, b[h:end]
    return x


def parse_pcap(path):
    """The RoCEv2 packets (packet()) of a pcap file whose ICRC is right;
    None when it cannot be read."""
    try:
        data = open(path, "rb").read()
    except OSError:
        return None
    return [packet(n, src, dst, b)
            for n, src, dst, ip, udp, b in roce_frames(data)
            if len(b) >= 16 and icrc_ok(ip, udp, b)]


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

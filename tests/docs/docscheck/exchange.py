"""The lab's TCP messages as the texts describe them, against lab/lab.h
and the recorded run (tshark reads the TCP payloads: the grader reads no
TCP)."""
import os
import re

from . import ROOT, num
from .tables import NO_TSHARK, tshark


def wire(files):
    """The lab's TCP messages as the texts describe them, against lab/lab.h
    and the recorded run (docs/runs/demo.pcap, demo-client.txt): the
    exchange message's table has contiguous fields that fill LAB_WIRE_SIZE
    bytes and LAB_WIRE_MAGIC, and, read with it, the recorded messages
    carry the magic, version 1 and the QPN, PSN, length and MTU of the
    client's exchange line; every "N-byte exchange message" is that size;
    each message that "sends N bytes: `0xXX`" or "the single byte `0xXX`"
    is, on the wire, that many bytes starting with that byte."""
    with open(os.path.join(ROOT, "lab", "lab.h"), encoding="utf-8") as f:
        lab_h = f.read()
    size = int(re.search(r"#define LAB_WIRE_SIZE\s+(\d+)", lab_h).group(1))
    magic = int(re.search(r"#define LAB_WIRE_MAGIC\s+(0x[0-9a-f]+)",
                          lab_h).group(1), 16)
    try:
        segs = tshark("docs/runs/demo.pcap", "tcp.len > 0",
                      ["ip.src", "tcp.len", "tcp.payload"])
    except FileNotFoundError:
        print(NO_TSHARK)
        return False
    with open(os.path.join(ROOT, "docs", "runs", "demo-client.txt"),
              encoding="utf-8") as f:
        line = [l for l in f if l.startswith("lab exchange ok")][0]
    mine = dict(re.findall(r"(\w+)=(\S+)", line))
    bad, n, table = [], 0, None
    for md in files:
        with open(md, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"\b(\d+)(?:-byte| bytes,?) (?:exchange "
                             r"message|fixed size)|exactly (\d+) bytes|"
                             r"send (\d+) bytes; read (\d+) bytes", text):
            for v in filter(None, m.groups()):
                n += 1
                if int(v) != size:
                    bad.append("%s: %s bytes, LAB_WIRE_SIZE is %d"
                               % (md, v, size))
        for want, byte in re.findall(r"sends (\d+) bytes: `0x([0-9a-f]{2})`",
                                     text) + [("1", b) for b in re.findall(
                                         r"single byte `0x([0-9a-f]{2})`", text)]:
            n += 1
            # The exchange messages ("RLAB...") are told apart by size.
            lens = {s["tcp.len"] for s in segs if s["tcp.len"] != str(size)
                    and s["tcp.payload"].replace(":", "").startswith(byte)}
            if lens != {want}:
                bad.append("%s: a message of %s bytes starting 0x%s; the "
                           "recorded run has %s" % (md, want, byte,
                                                    sorted(lens) or "none"))
        rows = re.findall(r"^\|\s*(\d+) \|\s*(\d+) \| `(\w+)`", text, re.M)
        if rows and "Exchange message" in text:
            table = [(int(o), int(z), name) for o, z, name in rows]
            m = re.search(r"`magic`\s*\|\s*`(0x[0-9a-f]+)`", text)
            n += 1
            if not m or int(m.group(1), 16) != magic:
                bad.append("%s: the magic is not LAB_WIRE_MAGIC 0x%x"
                           % (md, magic))
    if not table:
        print("no exchange message table found")
        return False
    at = 0
    for off, width, name in table:
        n += 1
        if off != at:
            bad.append("exchange message: %s at %d, expected %d"
                       % (name, off, at))
        at = off + width
    if at != size:
        bad.append("exchange message: fields end at %d, LAB_WIRE_SIZE is %d"
                   % (at, size))
    msgs = [s for s in segs if s["tcp.len"] == str(size)]
    if len(msgs) != 2:
        bad.append("demo.pcap: %d messages of %d bytes, not 2"
                   % (len(msgs), size))
    for s in msgs:
        b = bytes.fromhex(s["tcp.payload"].replace(":", ""))
        got = {name: int.from_bytes(b[o:o + w], "big")
               for o, w, name in table}
        want = {"magic": magic, "version": 1}
        if s["ip.src"] == "192.0.2.2":
            want.update(qpn=num(mine["local_qpn"]), psn=num(mine["local_psn"]))
        else:
            want.update(qpn=num(mine["remote_qpn"]), psn=num(mine["remote_psn"]),
                        addr=num(mine["remote_addr"]), rkey=num(mine["remote_rkey"]),
                        len=num(mine["remote_len"]), mtu=num(mine["remote_mtu"]))
        for k, v in want.items():
            n += 1
            if got.get(k) != v:
                bad.append("demo.pcap: the message from %s read with the "
                           "table has %s=%s, the recording %s"
                           % (s["ip.src"], k, got.get(k), v))
    for b in bad:
        print(b)
    print("%d facts of the lab's TCP messages checked against lab/lab.h and "
          "docs/runs/" % n)
    return not bad and n > 0


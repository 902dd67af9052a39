#!/usr/bin/env python3
"""Draws a message sequence chart (SVG) of an rdma-lab run from its capture.

    images/ladder.py CAPTURE.pcap OUT.svg

tshark decodes the capture; each TCP segment that opens, carries data or
closes the connection, and each RoCE v2 packet, becomes one arrow between
the client's and the server's lifelines, labelled with what a student
should check: opcode, destination QP, PSN, immediate, RETH, AETH. Pure TCP
ACKs are left out: they carry nothing the lab sends. Times are relative to
the first frame, so the same capture always gives the same picture.
A request sent again (its from, to, QP and PSN seen before) says RESENT;
in vm/wire/relay's pcapng a frame the wire dropped is a dashed arrow that
ends in an X short of the receiver, and what else the wire did (its frame
comments) is written under the arrow.
"""
import os
import re
import subprocess
import sys
from xml.sax.saxutils import escape

FIELDS = ["frame.number", "frame.time_relative", "ip.src", "ip.dst",
          "tcp.flags.syn", "tcp.flags.ack", "tcp.flags.fin", "tcp.len", "tcp.payload",
          "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
          "infiniband.bth.a", "infiniband.immdt", "infiniband.reth.va",
          "infiniband.reth.r_key", "infiniband.reth.dmalen",
          "infiniband.aeth.syndrome", "infiniband.aeth.msn",
          "infiniband.atomiceth", "infiniband.atomicacketh", "frame.comment"]
# What vm/wire/relay's frame comments say it did.
WIRE = re.compile(r"(dropped|duplicated|reordered|delayed [0-9]+ ms) by the wire")

def read_opcodes():
    """Labels by opcode number, from vm/opcodes.tsv."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm",
                        "opcodes.tsv")
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f
                if not line.startswith("#")]
    return [label for _num, _name, label in sorted(rows, key=lambda r: int(r[0]))]


OPCODES = read_opcodes()

COLORS = {"tcp": "#777777", "req": "#1f5fa8", "ack": "#2e7d32", "nak": "#c62828"}


def packets(pcap):
    cmd = ["tshark", "-r", pcap, "-Y", "tcp or infiniband", "-T", "fields",
           "-E", "separator=/t", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit("ladder: tshark is missing: apt-get install tshark")
    except subprocess.CalledProcessError as e:
        sys.exit("ladder: tshark could not read %s: %s" % (pcap, e.stderr.strip()))
    for line in out.splitlines():
        yield dict(zip(FIELDS, line.split("\t")))


def hexnum(s, digits):
    return "0x%0*x" % (digits, int(s, 0)) if s else "?"


def tcp_label(p):
    """What the lab's TCP bytes mean (docs/protocol.md)."""
    flags = [n for n, f in (("SYN", "tcp.flags.syn"), ("FIN", "tcp.flags.fin"),
                            ("ACK", "tcp.flags.ack")) if p[f] in ("1", "True")]
    n = int(p["tcp.len"] or 0)
    data = bytes.fromhex(p["tcp.payload"].replace(":", ""))
    if "SYN" in flags or "FIN" in flags:
        return "TCP " + "+".join(flags), ""
    if n == 52 and data[:4] == b"RLAB":
        qpn = int.from_bytes(data[8:12], "big")
        psn = int.from_bytes(data[12:16], "big")
        rkey = int.from_bytes(data[40:44], "big")
        return "TCP exchange message (52 B)", "QPN 0x%06x PSN 0x%06x rkey 0x%x" % (qpn, psn, rkey)
    if n == 1 and data == b"R":
        return "TCP ready byte 'R' (barrier)", ""
    if n == 5 and data[:1] == b"W":
        return "TCP write notice 'W'", "length %d" % int.from_bytes(data[1:5], "big")
    if n == 17 and data[:1] == b"T":
        return "TCP atomic target 'T'", "word 0x%x start 0x%016x" % (
            int.from_bytes(data[1:9], "big"), int.from_bytes(data[9:17], "big"))
    if n == 1 and data == b"A":
        return "TCP atomic notice 'A'", ""
    return "TCP data (%d B)" % n, ""


def roce_label(p):
    op = int(p["infiniband.bth.opcode"], 0)
    name = OPCODES[op] if op < len(OPCODES) else "opcode %d" % op
    main = "%s  QP %s  PSN %s" % (name, hexnum(p["infiniband.bth.destqp"], 6),
                                  hexnum(p["infiniband.bth.psn"], 6))
    extra, kind = [], "req"
    if p["infiniband.immdt"]:
        extra.append("imm 0x" + p["infiniband.immdt"].replace(":", ""))
    # An AtomicETH shows as a RETH's VA and rkey, with two operands.
    atomic = p["infiniband.atomiceth"].replace(":", "")
    if atomic:
        extra.append("VA %s rkey %s add/swap 0x%s compare 0x%s" % (
            hexnum(p["infiniband.reth.va"], 1), hexnum(p["infiniband.reth.r_key"], 1),
            atomic[24:40].lstrip("0") or "0", atomic[40:56].lstrip("0") or "0"))
    elif p["infiniband.reth.va"]:
        extra.append("VA %s rkey %s len %s" % (hexnum(p["infiniband.reth.va"], 1),
                                               hexnum(p["infiniband.reth.r_key"], 1),
                                               p["infiniband.reth.dmalen"]))
    if p["infiniband.aeth.syndrome"]:
        syn = int(p["infiniband.aeth.syndrome"], 0)
        what = "ACK" if syn < 0x20 else "RNR NAK" if syn < 0x40 else "NAK"
        kind = "ack" if syn < 0x20 else "nak"
        extra.append("AETH %s (0x%02x) MSN %s" % (what, syn, p["infiniband.aeth.msn"]))
    if p["infiniband.atomicacketh"]:
        extra.append("orig 0x" + p["infiniband.atomicacketh"].replace(":", ""))
    if p["infiniband.bth.a"] in ("1", "True") and kind == "req":
        extra.append("ack requested")
    # A request again: requests are opcodes 0-12, 19 and 20.
    if op <= 12 or op in (19, 20):
        key = (p["ip.src"], p["ip.dst"], p["infiniband.bth.destqp"],
               p["infiniband.bth.psn"])
        if key in SENT:
            extra.append("RESENT")
        SENT.add(key)
    wire = WIRE.search(p.get("frame.comment", ""))
    if wire:
        extra.append("DROPPED by the wire" if wire.group(1) == "dropped"
                     else wire.group(0))
    return main, "  ".join(extra), kind


SENT = set()


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: images/ladder.py CAPTURE.pcap OUT.svg")
    rows = list(packets(sys.argv[1]))
    if not rows:
        sys.exit("ladder: no TCP or RoCE packets in %s" % sys.argv[1])
    # The server is the side the first SYN went to (or the first RDMA
    # request, in a capture that starts late).
    server = next((p["ip.dst"] for p in rows
                   if p["tcp.flags.syn"] in ("1", "True") and p["tcp.flags.ack"] in ("0", "False")),
                  next((p["ip.dst"] for p in rows if p["infiniband.bth.opcode"]
                        and int(p["infiniband.bth.opcode"], 0) != 17), rows[0]["ip.dst"]))
    client = next((a for p in rows for a in (p["ip.src"], p["ip.dst"]) if a != server), "?")
    xs = {client: 260, server: 860}

    items, y, any_dropped = [], 90, False
    for p in rows:
        if p["infiniband.bth.opcode"]:
            main_l, extra, kind = roce_label(p)
        else:
            is_ctl = any(p[f] in ("1", "True") for f in ("tcp.flags.syn", "tcp.flags.fin"))
            if not is_ctl and int(p["tcp.len"] or 0) == 0:
                continue  # a pure TCP ACK
            (main_l, extra), kind = tcp_label(p), "tcp"
        x1, x2 = xs.get(p["ip.src"], 560), xs.get(p["ip.dst"], 560)
        color = COLORS[kind]
        dropped = "DROPPED by the wire" in extra
        any_dropped = any_dropped or dropped
        items.append('<text x="20" y="%d" font-size="11" fill="#555">#%s  %.3f s</text>'
                     % (y + 12, p["frame.number"], float(p["frame.time_relative"])))
        if dropped:
            # It never arrived: the arrow stops three quarters of the
            # way, dashed, in an X.
            xe, ye = x1 + (x2 - x1) * 3 // 4, y + 10
            items.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.6" '
                         'stroke-dasharray="6 4"/>' % (x1, y, xe, ye, color))
            items.append('<path d="M%d,%d L%d,%d M%d,%d L%d,%d" stroke="%s" stroke-width="2.4"/>'
                         % (xe - 7, ye - 7, xe + 7, ye + 7, xe - 7, ye + 7, xe + 7, ye - 7, color))
        else:
            items.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.6" '
                         'marker-end="url(#head-%s)"/>' % (x1, y, x2, y + 14, color, kind))
        mid = (x1 + x2) // 2
        items.append('<text x="%d" y="%d" font-size="12" text-anchor="middle" fill="%s">%s</text>'
                     % (mid, y - 4, color, escape(main_l)))
        if extra:
            items.append('<text x="%d" y="%d" font-size="11" text-anchor="middle" fill="%s">%s</text>'
                         % (mid, y + 28, color, escape(extra)))
        y += 60
    height = y + 30

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="1040" height="%d" viewBox="0 0 1040 %d" '
           'font-family="DejaVu Sans Mono, monospace">' % (height, height),
           '<rect width="100%" height="100%" fill="#ffffff"/>', "<defs>"]
    for kind, color in sorted(COLORS.items()):
        out.append('<marker id="head-%s" markerWidth="10" markerHeight="8" refX="9" refY="4" '
                   'orient="auto"><path d="M0,0 L10,4 L0,8 z" fill="%s"/></marker>' % (kind, color))
    out.append("</defs>")
    for ip, role in ((client, "client"), (server, "server")):
        x = xs[ip]
        out.append('<text x="%d" y="30" font-size="14" font-weight="bold" text-anchor="middle">'
                   '%s %s</text>' % (x, role, escape(ip)))
        out.append('<line x1="%d" y1="44" x2="%d" y2="%d" stroke="#999" stroke-dasharray="5 4"/>'
                   % (x, x, height - 20))
    out.append('<text x="20" y="%d" font-size="11" fill="#555">frame, time; grey: TCP (pure ACKs '
               'left out), blue: RDMA request, green: ACK, red: NAK%s</text>'
               % (height - 6, "; dashed to an X: dropped by the wire" if any_dropped else ""))
    out += items
    out.append("</svg>")
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--help"]:  # as every script answers it
        sys.exit(print(__doc__.strip()))
    main()

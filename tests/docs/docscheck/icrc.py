"""The fields that a "<!-- icrc: DIR -->" table says the RoCEv2 ICRC
masks, against every RoCE packet of DIR/*.pcap.  The packets are read
with the grader's reader (labgrader.evidence.wire); the ICRC is computed
here from the table's rows, not with the grader's icrc_ok, whose masks
are fixed: what is checked is the docs' list of masks."""
import os
import re
import zlib

from labgrader.evidence.wire import roce_frames

from . import ROOT
from .tables import marked_tables

ICRC = re.compile(r"^<!-- icrc: (\S+) -->$")
ICRC_HEADERS = ("in front", "IPv4", "UDP", "BTH")


def roce_packets(path):
    """(frame number, IPv4 header, UDP header, BTH to the end) of each
    RoCEv2 packet over IPv4 of a capture (the table names IPv4's bytes)
    long enough for a BTH and an ICRC."""
    with open(path, "rb") as f:
        data = f.read()
    for n, _, _, ip, udp, rest in roce_frames(data):
        if ip[0] >> 4 == 4 and len(rest) >= 20:
            yield n, ip, udp[:8], rest


def masked_icrc(rows, ip, udp, rest):
    """The ICRC with the bytes of the rows set to ones."""
    part = {h: bytearray(b) for h, b in
            (("in front", b"\0" * 8), ("IPv4", ip), ("UDP", udp),
             ("BTH", rest[:12]))}
    for header, first, last in rows:
        part[header][first:last + 1] = b"\xff" * (last + 1 - first)
    data = b"".join(bytes(part[h]) for h in ICRC_HEADERS) + rest[12:-4]
    return zlib.crc32(data) == int.from_bytes(rest[-4:], "little")


def icrc(files):
    """The masked fields of a "<!-- icrc: DIR -->" table against every
    RoCE packet of DIR/*.pcap: with all rows each ICRC is right, and
    without any one row some ICRC is wrong (the list is neither short nor
    long for what was recorded)."""
    bad = n = 0
    for md in files:
        for i, m, table in marked_tables(md, ICRC):
            if table is None:
                print("%s:%d: an icrc marker must be followed by a table"
                      % (md, i))
                bad += 1
                continue
            rows = []
            for num, cells in table:
                r = re.fullmatch(r"(\d+)(?:-(\d+))?", cells[1]) \
                    if len(cells) == 3 else None
                if not r or cells[0] not in ICRC_HEADERS:
                    print("%s:%d: want | %s | N or N-M | field |"
                          % (md, num, " or ".join(ICRC_HEADERS)))
                    return False
                rows.append((cells[0], int(r.group(1)),
                             int(r.group(2) or r.group(1))))
            packets = []
            folder = os.path.join(ROOT, m.group(1))
            for pcap in sorted(os.listdir(folder)):
                if pcap.endswith(".pcap"):
                    packets += [(pcap,) + p for p in
                                roce_packets(os.path.join(folder, pcap))]
            n += len(packets)
            wrong = ["%s frame %d" % (pcap, num) for pcap, num, *p in packets
                     if not masked_icrc(rows, *p)]
            if wrong or not packets:
                print("%s:%d: with the table's masks the ICRC is wrong in %d "
                      "of %d packets: %s" % (md, i, len(wrong),
                                             len(packets), " ".join(wrong[:5])))
                bad += 1
            for k, row in enumerate(rows):
                less = rows[:k] + rows[k + 1:]
                if all(masked_icrc(less, *p[2:]) for p in packets):
                    print("%s:%d: the row %s %s is not needed: every ICRC "
                          "holds without it" % (md, i + 3 + k, row[0],
                                                "-".join(map(str, row[1:]))))
                    bad += 1
    print("%d ICRCs recomputed with the documented masks" % n)
    return bad == 0 and n > 0


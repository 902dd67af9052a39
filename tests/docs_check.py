#!/usr/bin/env python3
"""Checks behind tests/docs.sh.

    docs_check.py links FILE.md...
        every relative link and image in the files points at a file
    docs_check.py failures SOURCE.c FILE...
        every quoted "lab STEP FAIL: ..." / "hint: ..." line matches a
        message in the program's source
    docs_check.py shapes FRESH.log... -- FILE...
        every quoted "lab STEP ok ..." line has the keys, in order, and the
        kinds of values that a fresh run of the program printed
    docs_check.py answers FILE.md...
        every row of a table under a "<!-- pcap: CAPTURE -->" line is what
        tshark reads from that recorded capture (docs/answers.md)
    docs_check.py wire FILE.md...
        the exchange message's table, its size and magic, and the sizes
        and first bytes of the other TCP messages, against lab/lab.h and
        the recorded run in docs/runs/
    docs_check.py prose FILE.md...
        what the prose of each answer states (frames, hex and long decimal
        numbers, byte counts, sums, counter changes) is in its tables,
        quoted blocks or named recordings, or follows from them
    docs_check.py icrc FILE.md...
        the fields that a "<!-- icrc: DIR -->" table says the RoCEv2 ICRC
        masks are exactly what makes the ICRC of every RoCE packet of
        DIR/*.pcap right: all rows needed, none missing
    docs_check.py counters FILE.md...
        the table under a "<!-- counters: LIST -->" line names, once each,
        exactly the files of the recorded listing LIST (an `ls` of a guest's
        hw_counters), so that a counter the kernel adds or drops is noticed
    docs_check.py psns FILE.md...
        every PSN (0x and 6 hex digits) named on a line about PSNs, and its
        decimal form, is a BTH PSN of a recorded capture in docs/runs/
    docs_check.py handout DIR
        DIR is an unpacked student handout (make dist): its texts (README,
        Makefile, docs/, lab/) name no instructor's file or target, their
        relative links resolve, every path they name exists, every `make X`
        is a target that does something, every command of a code block that
        runs without the guests runs as quoted, the numbers that depend
        on the course (TODOs, receives, recv_len, points) are its own, and
        a core-only handout (LAB_PARTS 1) shows nothing of part two
"""
import os
import re
import struct
import subprocess
import sys
import zlib

# lab/steps.h as the grader reads it (labgrader.lab.read_steps, the one
# reader); no __pycache__ in the grader's folder, which guests and
# handouts see as it is.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "vm", "grader"))
from labgrader.lab import read_steps  # noqa: E402

STEPS = [n for n, _, _ in read_steps()[0]]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
LAB = re.compile(r"lab (\w+) (ok|FAIL:|hint:)(.*)$")


def lab_lines(path):
    """(line number, step, kind, rest) of every lab line, prose or code."""
    with open(path, encoding="utf-8") as f:
        for num, line in enumerate(f, 1):
            m = LAB.search(line.strip().strip("`"))
            if m and m.group(1) in STEPS and line.lstrip().startswith(("lab ", "`lab ")):
                yield num, m.group(1), m.group(2), m.group(3).strip()


def links(files):
    bad = n = 0
    for md in files:
        with open(md, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            n += 1
            path = os.path.normpath(os.path.join(os.path.dirname(md), target.split("#")[0]))
            if not os.path.exists(path):
                print("%s: broken link %s" % (md, target))
                bad += 1
    print("%d relative links checked" % n)
    return bad == 0 and n > 0


def messages(source):
    """The program's printf formats as regexes (adjacent literals joined)."""
    with open(source, encoding="utf-8") as f:
        src = f.read()
    src = re.sub(r'"\s*PRI([uxd])64\s*"', r"\1", src)
    src = re.sub(r'"\s*\n\s*"', "", src)
    pats = []
    for lit in re.findall(r'"((?:[^"\\\n]|\\.)*)"', src):
        lit = lit.replace('\\"', '"').replace("\\\\", "\\")
        parts = re.split(r"%[-0-9.*]*(?:ll|l|z|h)?[sdiuxXc]", lit)
        if sum(len(p) for p in parts) >= 8:
            pats.append(re.compile(".*".join(re.escape(p) for p in parts)))
    return pats


def failures(source, files):
    pats = messages(source)
    bad = n = 0
    for path in files:
        for num, step, kind, rest in lab_lines(path):
            if kind == "ok":
                continue
            n += 1
            if not any(p.fullmatch(rest) for p in pats):
                print("%s:%d: lab %s %s %s: no such message in %s"
                      % (path, num, step, kind, rest, source))
                bad += 1
    print("%d quoted FAIL/hint lines checked" % n)
    return bad == 0 and n > 0


def shape(rest):
    """key=kind for each value: hexN, hex, dec, str, gid, word."""
    out = []
    for key, val in re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', rest):
        if val.startswith('"'):
            kind = "str"
        elif re.fullmatch(r"0x[0-9a-f]+", val):
            # QPNs, PSNs, LIDs and the immediate have a fixed width.
            fixed = re.search(r"(qpn|psn|lid|imm)$", key)
            kind = "hex%d" % (len(val) - 2) if fixed else "hex"
        elif re.fullmatch(r"-?\d+", val):
            kind = "dec"
        elif re.fullmatch(r"([0-9a-f]{4}:){7}[0-9a-f]{4}", val):
            kind = "gid"
        else:
            kind = "word"
        out.append("%s=%s" % (key, kind))
    return " ".join(out)


def shapes(fresh, files):
    want = {}
    for log in fresh:
        for _, step, kind, rest in lab_lines(log):
            if kind == "ok":
                want.setdefault(step, set()).add(shape(rest))
    if set(want) != set(STEPS):
        print("the fresh run printed ok lines only for: %s" % " ".join(sorted(want)))
        return False
    bad = n = 0
    for path in files:
        for num, step, kind, rest in lab_lines(path):
            if kind != "ok":
                continue
            n += 1
            if shape(rest) not in want[step]:
                print("%s:%d: lab %s ok %s\n  shape:    %s\n  expected: %s"
                      % (path, num, step, rest, shape(rest), " | ".join(sorted(want[step]))))
                bad += 1
    print("%d quoted ok lines checked against the fresh run" % n)
    return bad == 0 and n > 0


PCAP = re.compile(r"^<!-- pcap: (\S+) -->$")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def same(want, got):
    """Equal as text (blanks and byte separators ignored), as numbers (0x...
    or decimal) or as flags (tshark prints 1 or True, by version)."""
    flag = {"true": "1", "false": "0"}
    want, got = (re.sub(r"[\s:]", "", v) for v in (want, got))
    want, got = (flag.get(v.lower(), v) for v in (want, got))
    if want == got:
        return True
    num = re.compile(r"0x[0-9a-fA-F]+|[0-9]+")
    if num.fullmatch(want) and num.fullmatch(got):
        return int(want, 0 if want.startswith("0x") else 10) == \
            int(got, 0 if got.startswith("0x") else 10)
    return False


def marked_tables(md, marker):
    """(line, match, rows) for each line of MD that the regex MARKER
    matches, the marker of a table that follows it (a header line, then
    its |--- rule): rows are (line, [stripped cells]) of the table's body,
    None when no such table follows."""
    with open(md, encoding="utf-8") as f:
        src = f.read().splitlines()
    for i, line in enumerate(src):
        m = marker.match(line)
        if not m:
            continue
        if len(src) < i + 4 or not src[i + 2].startswith("|---"):
            yield i + 1, m, None
            continue
        rows = []
        for num in range(i + 4, len(src) + 1):
            if not src[num - 1].startswith("|"):
                break
            rows.append((num, [c.strip() for c in
                               src[num - 1].strip("|").split("|")]))
        yield i + 1, m, rows


def pcap_tables(md):
    """(line, capture, frame or None, filter, field, [values]) per table row."""
    for line, m, rows in marked_tables(md, PCAP):
        if rows is None:
            sys.exit("%s:%d: a pcap marker must be followed by a table" % (md, line))
        for num, cells in rows:
            cells = [c.strip("`") for c in cells]
            if len(cells) != 3:
                sys.exit("%s:%d: want | packets | field | value |" % (md, num))
            flt, field, value = cells
            frame = flt if flt.isdigit() else None
            if frame:
                flt = "frame.number == " + frame
            yield num, m.group(1), frame, flt, field, value.split(",")


def tshark(pcap, flt, fields):
    """One row of field values per packet that matches flt."""
    cmd = ["tshark", "-r", os.path.join(ROOT, pcap), "-Y", flt, "-T", "fields",
           "-E", "occurrence=f", "-E", "separator=/t"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), out.stderr.strip()))
    return [dict(zip(fields, l.split("\t"))) for l in out.stdout.splitlines()]


def answers(files):
    """Each row's values, read again with tshark: one run per capture for
    the rows that name a frame, one per filter for the others."""
    bad = n = 0
    for md in files:
        rows = list(pcap_tables(md))
        packets = {}
        for pcap in sorted({r[1] for r in rows}):
            mine = [r for r in rows if r[1] == pcap]
            frames = sorted({r[2] for r in mine if r[2]}, key=int)
            fields = sorted({"frame.number"} | {r[4] for r in mine})
            try:
                if frames:
                    flt = "frame.number in {%s}" % ", ".join(frames)
                    for p in tshark(pcap, flt, fields):
                        packets[pcap, p["frame.number"]] = [p]
                for flt in sorted({r[3] for r in mine if not r[2]}):
                    packets[pcap, flt] = tshark(pcap, flt, fields)
            except FileNotFoundError:
                print("tshark is not installed (vm/deps --tests installs it)")
                return False
            except RuntimeError as e:
                print("%s: %s" % (md, e))
                return False
        for num, pcap, frame, flt, field, want in rows:
            got = [p.get(field, "") for p in packets.get((pcap, frame or flt), [])]
            n += 1
            if len(got) != len(want) or not all(map(same, want, got)):
                print("%s:%d: %s -Y '%s' -e %s\n  answer:   %s\n  recorded: %s"
                      % (md, num, pcap, flt, field,
                         ", ".join(w.strip() for w in want), ", ".join(got)))
                bad += 1
    print("%d answer facts checked against the recorded captures" % n)
    return bad == 0 and n > 0


RUN = re.compile(r"^<!-- run: (\S+)(?: lines=\d+-\d+)? -->$")
NUM = r"(?:0x[0-9a-f]+|\d+)"


def num(v):
    return int(v, 16) if v.startswith("0x") else int(v)


def sections(md):
    """Per heading: {line, title, paras: [(first line, text)], facts: the
    numbers its tables and quoted blocks hold, frames: the frame numbers
    its tables name, runs: the files its run markers quote}."""
    with open(md, encoding="utf-8") as f:
        src = f.read().splitlines()
    out, fence, para = [], False, None
    for num_, line in enumerate(src, 1):
        if line.startswith("#") and not fence:
            out.append({"line": num_, "title": line, "paras": [],
                        "facts": set(), "frames": set(), "runs": []})
            para = None
            continue
        if not out:
            continue
        sec = out[-1]
        if line.startswith("```"):
            fence, para = not fence, None
            continue
        m = RUN.match(line)
        if m:
            sec["runs"].append(m.group(1))
        if fence or line.startswith("|"):
            sec["facts"] |= {num(v) for v in re.findall(r"\b%s\b" % NUM, line)}
            cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
            if line.startswith("|") and len(cells) == 3:
                if cells[0].isdigit():
                    sec["frames"].add(int(cells[0]))
                if cells[1] == "frame.number":
                    sec["frames"] |= {int(v) for v in re.findall(r"\d+", cells[2])}
            para = None
            continue
        if not line.strip() or line.startswith("<!--"):
            para = None
            continue
        if para is None or line.startswith("- "):
            para = [num_, line]
            sec["paras"].append(para)
        else:
            para[1] += " " + line
    return out


SEP = r"(?:-|, and |, | and | to )(?!\d*[ -]bytes?\b|\d*\.\d)"
FRAMES = re.compile(r"\b[Ff]rames? (\d+(?:%s\d+)*)" % SEP)
COUNTER = re.compile(r"`(\w+)`(?: (?:grew|rose|moved))?(?: by)? ?\+?(\d+)\b|"
                     r"`(\w+)` (?:stayed 0|did not move)")
EQUATION = re.compile(r"((?:ceil\(%s / %s\)|%s)(?: [-+×] (?:%s))*) = (%s)\b"
                      % (NUM, NUM, NUM, NUM, NUM))


def recorded_numbers(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return {num(v) for v in re.findall(r"\b%s\b" % NUM, f.read())}


def change(path, counter):
    """The change column of a counter in a recorded before-and-after table."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0] == counter and re.fullmatch(r"[+-]\d+", w[3]):
                return int(w[3])
    return None


def prose(files):
    """What the prose of an answer says, against its section's tables,
    quoted blocks and recordings (and those of a question it names,
    "question N"): every frame it names is a frame of those tables; every
    hex number of 4 digits or more, decimal of 5 or more and byte count is
    in them, or in
    a recorded file it names, or follows from them (and numbers below 16)
    by a sum or product it writes out; those sums and products add up; a decimal written
    next to a hex number is that number; and a change it gives for an rxe
    counter is the change recorded."""
    bad = n = 0
    for md in files:
        secs = sections(md)
        by_q = {re.match(r"#+ (C?\d+)\.", s["title"]).group(1): s
                for s in secs if re.match(r"#+ C?\d+\.", s["title"])}
        for sec in secs:
            if sec["title"].startswith("# "):
                continue    # the file's own introduction, not an answer
            counters = [r for r in sec["runs"] if "counters-" in r]
            # The answer's facts: its tables and quoted blocks, those of
            # the questions it names, the recordings it names, and what
            # its sums and products derive from them.
            facts, frames, sums = set(sec["facts"]), set(sec["frames"]), []
            texts = []
            for first, para in sec["paras"]:
                # Options of commands are parameters, not facts.
                text = re.sub(r"`[^`]*(?:ib_|ibv_| -[a-z] )[^`]*`", "", para)
                texts.append(("%s:%d" % (md, first), para, text))
                for q in re.findall(r"\bquestions? (C?\d+)\b", text):
                    if q in by_q:
                        facts |= by_q[q]["facts"]
                        frames |= by_q[q]["frames"]
                for f in re.findall(r"`((?:[\w-]+/)*[\w-]+\.txt)`", text):
                    path = f if f.startswith("docs/") else "docs/runs/" + f
                    if os.path.exists(os.path.join(ROOT, path)):
                        facts |= recorded_numbers(path)
                for expr, res in EQUATION.findall(text):
                    n += 1
                    py = re.sub(r"ceil\((%s) / (%s)\)" % (NUM, NUM),
                                r"(-(-\1 // \2))", expr.replace("×", "*"))
                    if eval(py, {"__builtins__": {}}) != num(res):
                        print("%s:%d: %s is not %s" % (md, first, expr, res))
                        bad += 1
                    sums.append(({num(v) for v in re.findall(NUM, expr)},
                                 num(res)))
            for _ in sums:
                for operands, res in sums:
                    if res in facts:
                        facts |= operands
                    if {o for o in operands if o >= 16} <= facts:
                        facts.add(res)
            for where, para, text in texts:
                for m in FRAMES.finditer(text):
                    for v in re.findall(r"\d+", m.group(1)):
                        n += 1
                        if int(v) not in frames:
                            print("%s: frame %s is in no table of this "
                                  "answer (line %d)" % (where, v, sec["line"]))
                            bad += 1
                for v in re.findall(r"\b0x[0-9a-f]{4,}\b", text) + \
                        re.findall(r"(?<![.\w])(\d{5,})\b(?!\.\d)", text) + \
                        re.findall(r"\b(\d+)[ -]bytes?\b(?! `-)", text):
                    n += 1
                    if num(v) not in facts:
                        print("%s: %s is in no table, quoted block or named "
                              "recording of this answer (line %d)"
                              % (where, v, sec["line"]))
                        bad += 1
                for h, d in re.findall(r"(0x[0-9a-f]+) \(Wireshark: (\d+)\)",
                                       text):
                    n += 1
                    if int(h, 16) != int(d):
                        print("%s: %s is not %s" % (where, d, h))
                        bad += 1
                side = re.match(r"^- (Client|Server):", para)
                for m in COUNTER.finditer(text):
                    name, val = (m.group(1), int(m.group(2))) if m.group(1) \
                        else (m.group(3), 0)
                    mine = sorted({r for r in counters if not side or
                                   side.group(1).lower() in r})
                    got = [change(r, name) for r in mine]
                    if all(g is None for g in got):
                        continue
                    n += 1
                    if val not in got:
                        print("%s: `%s` %+d, recorded %s in %s"
                              % (where, name, val, got, " ".join(mine)))
                        bad += 1
    print("%d facts of the prose checked against its tables and recordings" % n)
    return bad == 0 and n > 0


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
        print("tshark is not installed (vm/deps --tests installs it)")
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


ICRC = re.compile(r"^<!-- icrc: (\S+) -->$")
ICRC_HEADERS = ("in front", "IPv4", "UDP", "BTH")


def pcap_frames(path):
    """The frames of a pcap file (classic format, either byte order)."""
    with open(path, "rb") as f:
        data = f.read()
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def roce_packets(path):
    """(frame number, IPv4 header, UDP header, BTH to the end) of each
    RoCEv2 packet over IPv4 of a capture."""
    for n, frame in enumerate(pcap_frames(path), 1):
        if frame[12:14] != b"\x08\x00" or frame[23] != 17:
            continue
        ip = frame[14:14 + (frame[14] & 15) * 4]
        udp = frame[14 + len(ip):]
        if len(udp) >= 28 and struct.unpack(">H", udp[2:4])[0] == 4791:
            yield n, ip, udp[:8], udp[8:]


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


COUNTERS = re.compile(r"^<!-- counters: (\S+) -->$")


def counters(files):
    """The first column of each marked table against its recorded list."""
    bad = n = 0
    for md in files:
        for i, m, rows in marked_tables(md, COUNTERS):
            n += 1
            with open(os.path.join(ROOT, m.group(1)), encoding="utf-8") as f:
                recorded = [l.strip() for l in f
                            if l.strip() and not l.startswith("$ ")]
            if rows is None:
                print("%s:%d: a counters marker must be followed by a table" % (md, i))
                bad += 1
                continue
            named = [cells[0].strip("`") for _, cells in rows]
            twice = sorted({c for c in named if named.count(c) > 1})
            missing = sorted(set(recorded) - set(named))
            extra = sorted(set(named) - set(recorded))
            if twice or missing or extra or not recorded:
                print("%s:%d: the table does not match %s: missing %s, not in "
                      "the recording %s, named twice %s"
                      % (md, i, m.group(1), missing or "none",
                         extra or "none", twice or "none"))
                bad += 1
            else:
                print("%s:%d: %d counters, as in %s"
                      % (md, i, len(recorded), m.group(1)))
    if n == 0:
        print("no <!-- counters: --> marker found")
    return bad == 0 and n > 0


def psns(files):
    """PSNs in the prose, against every recorded capture's BTH PSNs."""
    recorded = set()
    for pcap in sorted(os.listdir(os.path.join(ROOT, "docs", "runs"))):
        if pcap.endswith(".pcap"):
            try:
                rows = tshark(os.path.join("docs", "runs", pcap), "infiniband",
                              ["infiniband.bth.psn"])
            except FileNotFoundError:
                print("tshark is not installed (vm/deps --tests installs it)")
                return False
            recorded |= {int(r["infiniband.bth.psn"]) for r in rows
                         if r.get("infiniband.bth.psn", "").isdigit()}
    bad = n = 0
    for md in files:
        with open(md, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        for num, line in enumerate(text.splitlines(), 1):
            if "psn" not in line.lower():
                continue
            for v in re.findall(r"\b0x([0-9a-f]{6})\b", line):
                n += 1
                if int(v, 16) not in recorded:
                    print("%s: PSN 0x%s is in no recorded capture" % (md, v))
                    bad += 1
            for v in re.findall(r"\b([0-9]{7,8}) = 0x", line):
                n += 1
                if int(v) not in recorded:
                    print("%s: PSN %s is in no recorded capture" % (md, v))
                    bad += 1
    print("%d PSNs checked against %d recorded" % (n, len(recorded)))
    return bad == 0 and n > 0


# What a student's texts must not name: the instructor's files and targets,
# and the views' own markers.
INSTRUCTOR = re.compile(r"\bsolution/|(?<![\w/])tests/|\.ci/|answers\.md|"
                        r"grading\.md|mkdist|BEGIN SOLUTION|"
                        r"`make (?:lab|unit|format|dist|grade-all|images|build)\b|"
                        r"<!-- (?:only|handout):|^# (?:only|handout):|"
                        r"^# end (?:only|handout)", re.M)
TOP = ("lab", "docs", "vm", "images", "solution", "tests", ".ci")
# What a core-only handout (LAB_PARTS 1) must not show: part two named,
# its steps, opcodes, headers and TCP messages, and the recordings whose
# numbers count part two's packets (every recorded run did part two; the
# counters are totals of the whole run, so none of their lines is part
# one's alone).
PART_TWO = re.compile(
    r"\b[Pp]art (?:two|2)\b|RDMA_READ|READ_RESPONSE|READ REQUEST|"
    r"FETCH_ADD|FETCH ADD|CMP_SWAP|COMPARE SWAP|ATOMIC_ACK|ATOMIC ACK|"
    r"Atomic(?:Ack)?ETH|[Aa]tomic (?:target|notice)|WRITE with immediate|"
    r"WRITE_(?:ONLY_|LAST_)?WITH_IMM|`(?:read|write_imm|atomic)`|"
    r"recv_len=12288|LAB_RECV_SLOTS` \(3\)|"
    r"<!-- run: docs/runs/counters-(?:lab|rnr)-")
NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve "
    "thirteen fourteen fifteen".split())}


def handout(top):
    os.chdir(top)
    # The handout's own steps.h, whose LAB_PARTS make dist may have set.
    steps, parts = read_steps("lab/steps.h")
    mine = {n for n, _, q in steps if q <= parts}
    slots = 3 if parts >= 2 else 2
    points = {q: sum(p for _, p, pq in steps if pq == q) for q in (1, 2)}
    texts = ["README.md", "Makefile"] + sorted(
        os.path.join("docs", f) for f in os.listdir("docs") if f.endswith(".md"))
    code = ["lab/main.c", "lab/lab.h", "lab/steps.h", "lab/support.c",
            "lab/driver.c", "lab/flags.mk"]
    bad = []
    # A student builds before running: lab/rdma-lab is then there.
    r = subprocess.run(["make", "-s", "all"], capture_output=True, text=True)
    if r.returncode:
        bad.append("make fails: %s" % r.stderr.strip()[-300:])
    with open("lab/main.c", encoding="utf-8") as f:
        todos = f.read().count("return lab_todo(ctx, ")
    if todos != len(mine):
        bad.append("lab/main.c: %d TODOs, %d steps in LAB_PARTS %d"
                   % (todos, len(mine), parts))
    targets = set()
    for path in texts + code:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in INSTRUCTOR.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            bad.append("%s:%d: names the instructor's '%s'"
                       % (path, line, m.group(0)))
        for m in PART_TWO.finditer(text) if parts < 2 and path in texts \
                else ():
            line = text.count("\n", 0, m.start()) + 1
            bad.append("%s:%d: part two's '%s' in a LAB_PARTS %d handout"
                       % (path, line, m.group(0), parts))
        for num, line in enumerate(text.splitlines(), 1):
            where = "%s:%d" % (path, num)
            for w, what in re.findall(r"\b(\w+) (TODOs|receives)\b", line):
                v = NUMBERS.get(w.lower(), int(w) if w.isdigit() else None)
                want = todos if what == "TODOs" else slots
                if v is not None and v != want:
                    bad.append("%s: %s %s, the handout has %d"
                               % (where, w, what, want))
            for v in re.findall(r"LAB_RECV_SLOTS` \((\d+)\)", line):
                if int(v) != slots:
                    bad.append("%s: LAB_RECV_SLOTS (%s), it is %d"
                               % (where, v, slots))
            m = re.search(r"\blen=(\d+) .*\brecv_len=(\d+)", line)
            if m and int(m.group(2)) != slots * int(m.group(1)):
                bad.append("%s: recv_len=%s, the program prints %d"
                           % (where, m.group(2), slots * int(m.group(1))))
            for q, v in ((1, re.search(r"Score: X/(\d+)", line)),
                         (2, re.search(r"Part two: X/(\d+)", line))):
                if v and int(v.group(1)) != points[q]:
                    bad.append("%s: X/%s, lab/steps.h gives %d"
                               % (where, v.group(1), points[q]))
            m = LAB.search(line.strip().strip("`"))
            if path in texts and m and m.group(1) in STEPS and \
                    m.group(1) not in mine:
                bad.append("%s: quotes step %s, which this course does not do"
                           % (where, m.group(1)))
            for t in re.findall(r"`make ([a-z][a-z-]*)", line):
                targets.add((t, where))
            if re.match(r"^(?:\$ )?make [a-z]", line) and path != "Makefile":
                targets.add((line.split()[1 if line.startswith("make") else 2],
                             where))
            for p in re.findall(r"`((?:%s)/[\w./-]*)`" % "|".join(
                    re.escape(t) for t in TOP), line):
                if not os.path.exists(p.rstrip("/")):
                    bad.append("%s: names %s, not in the handout" % (where, p))
    n_links = []
    for md in texts[:1] + texts[2:]:
        with open(md, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        for target in LINK.findall(re.sub(r"`[^`\n]*`", "", text)):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            n_links.append(target)
            path = os.path.normpath(os.path.join(os.path.dirname(md),
                                                 target.split("#")[0]))
            if not os.path.exists(path):
                bad.append("%s: broken link %s" % (md, target))
    for t, where in sorted(targets):
        out = subprocess.run(["make", "-n", t], capture_output=True, text=True)
        if out.returncode or not out.stdout.strip():
            bad.append("%s: make %s does nothing here (%s)"
                       % (where, t, (out.stderr.strip() or "no commands")[:120]))
    ran = 0
    for md in texts:
        with open(md, encoding="utf-8") as f:
            blocks = re.findall(r"```[a-z]*\n(.*?)```", f.read(), flags=re.S)
        for block in blocks:
            lines = block.splitlines()
            for i, line in enumerate(lines):
                cmd = line[2:] if line.startswith("$ ") else None
                if cmd is None and re.match(r"^make [a-z]", line):
                    cmd = line.split("#")[0].strip()
                if not cmd:
                    continue
                prog = cmd.split()[0]
                if prog == "make":
                    r = subprocess.run(["bash", "-c", "make -n" + cmd[4:]],
                                       capture_output=True, text=True)
                    ran += 1
                    if r.returncode:
                        bad.append("%s: '%s' fails: %s"
                                   % (md, cmd, r.stderr.strip()[:200]))
                elif prog.endswith("rdma-lab") and "|" not in cmd:
                    want = lines[i + 1] if i + 1 < len(lines) else ""
                    r = subprocess.run(["bash", "-c", prog + " -t 1" +
                                        cmd[len(prog):]],
                                       capture_output=True, text=True)
                    ran += 1
                    got = (r.stderr or r.stdout).splitlines()[:1]
                    if r.returncode not in (1, 2) or \
                            (r.returncode == 2 and got != [want]) or \
                            (want.startswith(LAB_PROG_PREFIX) and got != [want]):
                        bad.append("%s: '%s' gave status %d, '%s'"
                                   % (md, cmd, r.returncode, " ".join(got)))
    for b in bad:
        print(b)
    print("LAB_PARTS %d: %d TODOs, %d texts, %d links, %d make targets, "
          "%d commands run" % (parts, todos, len(texts), len(n_links),
                               len(targets), ran))
    return not bad and ran > 0 and n_links


LAB_PROG_PREFIX = "rdma-lab: "


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "links":
        ok = links(args)
    elif cmd == "failures":
        ok = failures(args[0], args[1:])
    elif cmd == "shapes":
        cut = args.index("--")
        ok = shapes(args[:cut], args[cut + 1:])
    elif cmd == "answers":
        ok = answers(args)
    elif cmd == "wire":
        ok = wire(args)
    elif cmd == "prose":
        ok = prose(args)
    elif cmd == "icrc":
        ok = icrc(args)
    elif cmd == "counters":
        ok = counters(args)
    elif cmd == "psns":
        ok = psns(args)
    elif cmd == "handout":
        ok = handout(args[0])
    else:
        sys.exit(__doc__)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

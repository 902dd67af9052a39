"""Marked tables and the prose's PSNs against recordings, as tshark
reads them: a "<!-- pcap: CAPTURE -->" table's rows (the answer key),
a "<!-- counters: LIST -->" table's counters, PSNs named in the prose.
tshark and not the grader's reader: these are the facts a student reads
in Wireshark, with its field names."""
import os
import re
import subprocess
import sys

from . import ROOT

PCAP = re.compile(r"^<!-- pcap: (\S+) -->$")
NO_TSHARK = "tshark is not installed (vm/deps --tests installs it)"


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
                print(NO_TSHARK)
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
                print(NO_TSHARK)
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

"""What the prose of each answer states (frames, hex and long decimal
numbers, byte counts, sums, counter changes) is in its tables, quoted
blocks or named recordings, or follows from them."""
import os
import re

from . import NUM, ROOT, num

RUN = re.compile(r"^<!-- run: (\S+)(?: lines=\d+-\d+)? -->$")


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
    """The changes of a counter in a recorded before-and-after table: its
    change column (counters-*.txt: name, before, after, change), or both
    sides' (loss-*-counters.txt, make run's: name, server, client)."""
    signed = re.compile(r"[+-]\d+")
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0] == counter and signed.fullmatch(w[3]):
                return [int(w[3])]
            if len(w) == 3 and w[0] == counter and \
                    all(signed.fullmatch(v) for v in w[1:]):
                return [int(w[1]), int(w[2])]
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
            counters = [r for r in sec["runs"] if "counters" in
                        os.path.basename(r)]
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
                    got = [v for g in got if g for v in g]
                    n += 1
                    if val not in got:
                        print("%s: `%s` %+d, recorded %s in %s"
                              % (where, name, val, got, " ".join(mine)))
                        bad += 1
    print("%d facts of the prose checked against its tables and recordings" % n)
    return bad == 0 and n > 0


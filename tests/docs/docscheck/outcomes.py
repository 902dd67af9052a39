"""What the texts say rxe does, against the seeds' recorded gradings.

A text names the run behind a claim about rxe with a marker,
"(recorded: seed NAME)" or "(recorded: seeds NAME, NAME)": NAME is a
seeded mistake (tests/grader/seeds/mistakes/NAME.sed, tests/grader/seeds/hostile/NAME.sed)
whose grading in the guests is in tests/grader/judges/recorded.tar.xz.  Each
outcome the claim names must be one that recording shows:

- a row of a Markdown table with a marker: in a "step | symptom" table
  (docs/troubleshooting.md) every status "(N)", "(errno N)" and "no
  completion within" of its symptom cell, at one of its steps ("any":
  at any step); in an "errno" or a "value" table (the errno values and
  completion statuses) the errno or status of its first cell;
- anywhere else (prose, a C comment: a TODO's pitfall, lab/lab.h), the
  IBV_WC_* names, "status N", errno names and values, "no completion
  within" and "TTL N" of the clause that ends with the marker (back to
  the last ".", ";" or ":").

A status or errno is "shown" when a FAIL line of the seed's first round
(either side, any pairing) ends with its code=WC_... or code=ERRNO_...;
a TTL when every RoCE packet of the seed's recorded captures has it.
So a kernel or lab change that changes an outcome, or an edit of the
text, fails until the other follows; the line names both."""
import errno
import os
import re
import struct
import tarfile

from . import ROOT

# enum ibv_wc_status (infiniband/verbs.h), by value.
WC = ["SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
      "LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR",
      "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
      "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR",
      "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR",
      "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR"]
MARK = re.compile(r"recorded:\s+seeds?\s+")
NAME = re.compile(r"`?([a-z][a-z0-9_]*)`?(,\s+(?:and\s+)?|\s+and\s+)?")
FAIL = re.compile(r"^lab (\w+) FAIL: .* code=(\w+)$")
EVIDENCE = re.compile(r"^(?:\./)?(\w+)/res/(\w+)/p\d+(/(?:server|client)\.err|\.pcap)$")


def show(code):
    """A code as the texts name it: WC_X (status N), ERRNO_X (errno N)."""
    if code.startswith("WC_") and code[3:] in WC:
        return "%s (status %d)" % (code, WC.index(code[3:]))
    name = code[len("ERRNO_"):]
    if code.startswith("ERRNO_") and hasattr(errno, name):
        return "%s (errno %d)" % (code, getattr(errno, name))
    return code


def wc(num):
    return "WC_" + WC[num] if 0 <= num < len(WC) else "WC_%d" % num


def errno_code(num):
    return "ERRNO_" + errno.errorcode.get(num, str(num))


def named_outcomes(text):
    """The outcomes a clause of prose or a comment names, as codes."""
    out = set()
    for m in re.finditer(r"IBV_WC_([A-Z_]+)", text):
        if m.group(1) in WC[1:]:
            out.add("WC_" + m.group(1))
    for m in re.finditer(r"\bstatus (\d+)", text):
        out.add(wc(int(m.group(1))))
    for m in re.finditer(r"\berrno (\d+)", text):
        out.add(errno_code(int(m.group(1))))
    for m in re.finditer(r"\b(E[A-Z]{2,})\b", text):
        if isinstance(getattr(errno, m.group(1), None), int):
            out.add("ERRNO_" + m.group(1))
    if "no completion within" in text:
        out.add("NO_COMPLETION")
    for m in re.finditer(r"\bTTL (\d+)", text):
        out.add("TTL_" + m.group(1))
    return out


def symptom_outcomes(cell):
    """The outcomes of a symptom cell: "... (N)", "(errno N)"."""
    out = set()
    for m in re.finditer(r"\((errno )?(\d+)\)", cell):
        num = int(m.group(2))
        out.add(errno_code(num) if m.group(1) else wc(num))
    if "no completion within" in cell:
        out.add("NO_COMPLETION")
    return out


def seeds():
    names = set()
    for d in ("tests/grader/seeds/mistakes", "tests/grader/seeds/hostile"):
        for f in os.listdir(os.path.join(ROOT, d)):
            if f.endswith(".sed"):
                names.add(f[:-4])
    return names


def marker_seeds(text, at, known):
    """The seed names of the marker whose "recorded: seed(s) " ends at
    AT, and an error (or None): the first must be a seed; a later
    backticked name too; a later plain word ends the list."""
    names, pos = [], at
    while True:
        m = NAME.match(text, pos)
        if not m:
            break
        name, ticked = m.group(1), m.group(0).startswith("`")
        if name not in known:
            if not names or ticked:
                return names, "names %s, which is no seed" % name
            break
        names.append(name)
        if not m.group(2):
            break
        pos = m.end()
    return names, None if names else "names no seed"


class Text:
    """A file's claims: (line, kind, steps, outcomes, seeds, error)."""

    def __init__(self, path, known):
        self.path, self.claims = path, []
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        is_c = path.endswith((".c", ".h"))
        flat, starts, header = [], [], None
        for num, line in enumerate(lines, 1):
            if not is_c and line.startswith("|"):
                header = self.row(num, line, lines, header, known)
                line = "."
            elif is_c:
                line = re.sub(r"^\s*(/\*+|\*/|\*)?", "", line)
            starts.append((len(" ".join(flat)), num))
            flat.append(line)
        self.prose(" ".join(flat), starts, known)

    def row(self, num, line, lines, header, known):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        following = lines[num] if num < len(lines) else ""
        if following.startswith("|") and set(following) <= set("|-: "):
            return [c.lower() for c in cells]  # a header row
        if set(line) <= set("|-: ") or header is None:
            return header
        for m in MARK.finditer(line):
            names, err = marker_seeds(line, m.end(), known)
            first = header[0]
            symptom = [i for i, h in enumerate(header) if "symptom" in h]
            value = re.match(r"\d+$", cells[0])
            if symptom and len(cells) > symptom[0]:
                steps = set(re.findall(r"`(\w+)`", cells[0]))
                if "any" in cells[0]:
                    steps = set()
                outcomes = symptom_outcomes(cells[symptom[0]])
            elif first.startswith("errno") and value:
                steps, outcomes = set(), {errno_code(int(cells[0]))}
            elif first.startswith("value") and value:
                steps, outcomes = set(), {wc(int(cells[0]))}
            else:
                steps, outcomes = set(), named_outcomes(line[:m.start()])
            self.claims.append((num, steps, outcomes, names, err))
        return header

    def prose(self, text, starts, known):
        for m in MARK.finditer(text):
            cut = max(text.rfind(c, 0, m.start()) for c in (". ", ";", ":"))
            clause = text[cut + 1:m.start()]
            num = [n for at, n in starts if at <= m.start()][-1]
            names, err = marker_seeds(text, m.end(), known)
            self.claims.append((num, set(), named_outcomes(clause), names,
                                err))


def ttls(data):
    """The IPv4 TTL of every RoCE v2 packet (UDP to 4791) of a pcap."""
    out = set()
    if len(data) < 24:
        return out
    endian = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
    pos = 24
    while pos + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[pos + 8:pos + 12])[0]
        frame = data[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        if len(frame) >= 38 and frame[12:14] == b"\x08\x00" and \
                frame[23] == 17:
            ihl = (frame[14] & 15) * 4
            if frame[14 + ihl + 2:14 + ihl + 4] == b"\x12\xb7":
                out.add(frame[22])
    return out


def recordings(archive, wanted, pcaps):
    """{seed: {(step, code)}} from the first round's FAIL lines of the
    seeds WANTED, and {seed: {ttl}} from the captures of those in PCAPS."""
    shown = {n: set() for n in wanted}
    seen_ttl = {n: set() for n in pcaps}
    with tarfile.open(archive, "r:xz") as tar:
        for member in tar:
            m = EVIDENCE.match(member.name)
            if not m or m.group(1) != m.group(2) or m.group(1) not in shown:
                continue
            name = m.group(1)
            f = tar.extractfile(member)
            if f is None:
                continue
            if m.group(3) == ".pcap":
                if name in seen_ttl:
                    seen_ttl[name] |= ttls(f.read())
                continue
            for line in f.read().decode("utf-8", "replace").splitlines():
                fm = FAIL.match(line)
                if fm:
                    shown[name].add((fm.group(1), fm.group(2)))
    return shown, seen_ttl


def outcomes(args):
    """docs_check.py outcomes RECORDED.tar.xz FILE...: each claim with a
    "recorded: seed" marker in FILEs is what the seed's recording shows."""
    archive, files = args[0], args[1:]
    known = seeds()
    texts = [Text(f, known) for f in files]
    wanted = {n for t in texts for c in t.claims for n in c[3]}
    pcaps = {n for t in texts for c in t.claims for n in c[3]
             if any(o.startswith("TTL_") for o in c[2])}
    shown, seen_ttl = recordings(archive, wanted, pcaps)
    bad = claims = 0
    for t in texts:
        for num, steps, named, names, err in t.claims:
            claims += 1
            where = "%s:%d" % (t.path, num)
            if err:
                print("%s: a 'recorded: seed' marker %s" % (where, err))
                bad += 1
                continue
            for name in names:
                got = shown[name]
                if not got and not seen_ttl.get(name) and name not in pcaps:
                    if any(not o.startswith("TTL_") for o in named):
                        print("%s: names seed %s, which has no FAIL line in"
                              " %s" % (where, name, archive))
                        bad += 1
                        continue
                for o in sorted(named):
                    if o.startswith("TTL_"):
                        ttl = int(o[4:])
                        if seen_ttl.get(name) != {ttl}:
                            print("%s: says TTL %d for seed %s; its recorded"
                                  " captures show TTL %s" % (
                                      where, ttl, name,
                                      sorted(seen_ttl.get(name)) or "none"))
                            bad += 1
                        continue
                    at = {s for s, c in got if c == o}
                    if at and (not steps or at & steps):
                        continue
                    where_step = ("`%s` ends in " % "`/`".join(sorted(steps))
                                  if steps else "")
                    print("%s: says %s%s for seed %s; its recorded grading"
                          " (%s) shows: %s" % (
                              where, where_step, show(o), name, archive,
                              ", ".join("%s %s" % (s, show(c))
                                        for s, c in sorted(got)) or
                              "no FAIL line"))
                    bad += 1
    print("%d recorded claims checked in %d files, %d wrong" % (
        claims, len(files), bad))
    return bad == 0 and claims > 0

"""Quoted "lab STEP ..." lines: each FAIL and hint line is a message of
the program's source; each ok line has the keys and kinds of values of a
fresh run's."""
import re

from labgrader.codes import CODES

from . import STEPS, lab_lines


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
            m = re.fullmatch(r"(.*) code=(\S+)", rest)
            if kind == "FAIL:" and m:
                rest = m.group(1)
                if m.group(2) not in CODES:
                    print("%s:%d: lab %s FAIL: code=%s is not in lab/codes.h"
                          % (path, num, step, m.group(2)))
                    bad += 1
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


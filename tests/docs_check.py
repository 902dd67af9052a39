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
"""
import os
import re
import sys

STEPS = ("open_device create_resources qp_to_init exchange connect send "
         "send_imm write teardown").split()
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


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "links":
        ok = links(args)
    elif cmd == "failures":
        ok = failures(args[0], args[1:])
    elif cmd == "shapes":
        cut = args.index("--")
        ok = shapes(args[:cut], args[cut + 1:])
    else:
        sys.exit(__doc__)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

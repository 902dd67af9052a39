"""An unpacked student handout (make dist) is true in itself: it names
no instructor's file, its links, paths, make targets and commands work
there, its course-dependent numbers are its own, and a core-only handout
shows nothing of part two."""
import os
import re
import subprocess

from labgrader.lab import read_steps

from . import LAB, STEPS
from .links import relative_links

# What a student's texts must not name: the instructor's files and targets,
# and the views' own markers.
INSTRUCTOR = re.compile(r"\bsolution/|(?<![\w/])tests/|\.ci/|answers\.md|"
                        r"grading\.md|mkdist|BEGIN SOLUTION|"
                        r"`make (?:lab|unit|format|dist|grade-all|images|build)\b|"
                        r"<!-- (?:only|handout):|^# (?:only|handout):|"
                        r"^# end (?:only|handout)", re.M)
TOP = ("lab", "docs", "vm", "grader", "release", "images", "solution",
       "tests", ".ci")
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
# How the program's own usage errors begin: such a line quoted under a
# command is what the command prints.
LAB_PROG_PREFIX = "rdma-lab: "


def handout(top):
    os.chdir(top)
    # The handout's own steps.h, whose LAB_PARTS make dist may have set.
    steps, parts = read_steps("lab/steps.h")
    mine = {n for n, _, q in steps if q <= parts}
    slots = 3 if parts >= 2 else 2
    points = {q: sum(p for _, p, pq in steps if pq == q) for q in (1, 2)}
    texts = ["README.md", "Makefile", "vm/README.md", "grader/README.md",
             "release/README.md"] + sorted(
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
        for target, ok in relative_links(md):
            n_links.append(target)
            if not ok:
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



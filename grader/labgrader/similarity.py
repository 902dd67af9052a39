"""Pairs of submissions that share much of their code, found by sim_c
(Debian's similarity-tester: Dick Grune's tester, which compares token
streams, so a copy with its identifiers renamed, its layout redone and
its comments changed is still a copy).  The skeleton (lab/main.c) is the
base code every submission starts from: its lines are blanked out of
each source first, so that two students who changed little are not a
"pair".  It flags for a person to read; it never changes a grade.

Measured here (2026-11-28, sim_c 3.0.2, -r 24): a renamed and reformatted
copy of solution/main.c is 98 % of it; tests/grader/seeds/alt.c (expanded by
mkalt.py), an independent correct solution, is 22 % of it and it 13 % of
alt.c: the threshold sits between, at THRESHOLD."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

from .lab import LAB
from .text import read

THRESHOLD = 50   # per cent of one file found in the other
SOURCE_MAX = 300000  # bytes of a main.c compared; a larger one is noted
# sim_c -e compares every pair: 336 near-copies of the reference (55,000
# pairs above the threshold) took 89 CPU-s here, 220 s on a busy host.
# A report written again over the same sources reads CACHE instead.
SECONDS_MAX = 600
CACHE = "similarity.json"
FRAGMENTS = 3    # the longest runs shown per pair
# Fragments cost a sim_c start each (7 ms): the most similar pairs have
# them, the others their percentage (56 one-line variants of the
# reference are 1540 pairs).
FRAGMENT_PAIRS = 30
FRAGMENT_LINES = 12
PCT = re.compile(r"^(s\d+)\.c consists for (\d+) % of (s\d+)\.c material$")
RUN = re.compile(r"^(s\d+)\.c: line (\d+)-(\d+)\s*\|(s\d+)\.c: line "
                 r"(\d+)-(\d+)\s*\[(\d+)\]$")


def squeeze(line):
    return re.sub(r"\s+", "", line)


def without_base(text, base):
    """text with each line that is a line of the base (whitespace aside)
    left empty: line numbers stay those of the student's file."""
    return "".join("\n" if squeeze(x) in base else x
                   for x in text.splitlines(True))


def sim(args, cwd):
    p = subprocess.run(["sim_c"] + args, cwd=cwd, capture_output=True,
                       text=True, errors="replace", timeout=SECONDS_MAX)
    return p.stdout.splitlines()


def similar_pairs(sources, base_path=os.path.join(LAB, "main.c")):
    """sources: {name: main.c path}.  ([(pct, a, b, fragments)], notes):
    the pairs at or above THRESHOLD, most similar first; a fragment is
    (a's first line, last line, b's first line, last line, tokens, a's
    lines); notes say what was not compared.  sim_c sees only files named
    sNNNN.c in a folder of its own: a student's file name never reaches
    its command line (a "|" there would split its groups)."""
    if not shutil.which("sim_c"):
        return [], ["not checked: sim_c is not installed (apt-get install "
                    "similarity-tester)"]
    base = {squeeze(x) for x in (read(base_path) or "").splitlines()}
    base.discard("")
    notes, names, texts = [], {}, {}
    with tempfile.TemporaryDirectory() as t:
        for i, (name, path) in enumerate(sorted(sources.items())):
            text = read(path, SOURCE_MAX + 1)
            if text is None:
                continue
            if len(text.encode()) > SOURCE_MAX:
                notes.append("%s: not compared, its main.c is larger than "
                             "%d kB" % (name, SOURCE_MAX // 1000))
                continue
            key = "s%04d" % i
            names[key], texts[key] = name, text
            with open(os.path.join(t, key + ".c"), "w") as f:
                f.write(without_base(text, base))
        if len(names) < 2:
            return [], notes
        files = sorted(k + ".c" for k in names)
        try:
            lines = sim(["-p", "-e", "-s", "-T", "-t", str(THRESHOLD)] +
                        files, t)
        except subprocess.TimeoutExpired:
            return [], notes + ["not checked: sim_c took more than %d s" %
                                SECONDS_MAX]
        best = {}
        for x in lines:
            m = PCT.match(x.strip())
            if m and m.group(1) in names and m.group(3) in names:
                pair = tuple(sorted((m.group(1), m.group(3))))
                best[pair] = max(best.get(pair, 0), int(m.group(2)))
        out = []
        ranked = sorted(best.items(), key=lambda x: (-x[1], x[0]))
        for i, ((a, b), pct) in enumerate(ranked):
            out.append((pct, names[a], names[b], fragments(
                t, a, b, texts) if i < FRAGMENT_PAIRS else []))
    return out, notes


def cached_pairs(out, sources):
    """similar_pairs(sources), kept in OUT/CACHE under the sha256 of every
    source and name and of the threshold: a rerun with nothing new (the
    report is written after every grade-all) costs no sim_c."""
    h = hashlib.sha256(("%d %d %d\0" % (THRESHOLD, FRAGMENT_PAIRS,
                                        FRAGMENTS)).encode())
    for name, path in sorted(sources.items()):
        try:
            with open(path, "rb") as f:
                data = f.read(SOURCE_MAX + 1)
        except OSError:
            continue
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    key = h.hexdigest()
    path = os.path.join(out, CACHE)
    try:
        with open(path) as f:
            kept = json.load(f)
        if kept.get("key") == key:
            return [tuple(p[:3]) + ([tuple(x) for x in p[3]],)
                    for p in kept["pairs"]], kept["notes"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    pairs, notes = similar_pairs(sources)
    if not any(n.startswith("not checked") for n in notes):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"key": key, "pairs": pairs, "notes": notes}, f)
        os.replace(tmp, path)
    return pairs, notes


def fragments(t, a, b, texts):
    """The longest runs a and b share, with a's lines of each."""
    runs = []
    try:
        lines = sim(["-n", "-s", "-T", a + ".c", b + ".c"], t)
    except subprocess.TimeoutExpired:
        return runs
    for x in lines:
        m = RUN.match(x.strip())
        if not m:
            continue
        f1, l1, h1, _, l2, h2, n = m.groups()
        if f1 != a:  # the run as b's: swap it into a's terms
            l1, h1, l2, h2 = l2, h2, l1, h1
        runs.append((int(l1), int(h1), int(l2), int(h2), int(n)))
    runs.sort(key=lambda r: -r[4])
    src = texts[a].splitlines()
    return [(l1, h1, l2, h2, n, src[l1 - 1:min(h1, l1 - 1 + FRAGMENT_LINES)])
            for l1, h1, l2, h2, n in runs[:FRAGMENTS]]

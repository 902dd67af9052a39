"""The tree against the texts that describe it, and every script's --help.

homes: each home's README (vm/, grader/, release/, tests/) has one row
per file of that home, and names nothing that is not there; the README's
layout tables name every top-level folder and file; docs/grading.md's
"Where each concern lives" names every module of grader/labgrader/.
scripts: every executable outside tests/ answers --help the same way (its
header on stdout, status 0, nothing on stderr), and what runs inside a
guest refuses, in one line and with status 2, to run on a host.
"""
import os
import re
import subprocess

HOMES = ("vm", "grader", "release", "tests")
# A row's paths: the backquoted words of its first cell.
ROW = re.compile(r"^\| ([^|]+) \|", re.M)
TICKED = re.compile(r"`([^`]+)`")
# Hidden files that are not the project's own products.
DOT_OK = (".clang-format", ".devcontainer", ".dockerignore", ".github",
          ".gitignore", ".shellcheckrc")
# What runs inside a guest: run on a host, each must refuse.
GUEST_ONLY = ("vm/guest/init", "vm/guest/stage2", "grader/guest/driver")


def tracked(prefix=""):
    out = subprocess.run(["git", "ls-files", "-s", "--", prefix or "."],
                         capture_output=True, text=True, check=True).stdout
    return [(line.split()[0], line.split("\t", 1)[1])
            for line in out.splitlines()]


def row_paths(text):
    """The paths named in the first cell of each table row of TEXT, and
    the whole row, for the rows that name any."""
    for m in ROW.finditer(text):
        names = TICKED.findall(m.group(1))
        if names:
            line = text[m.start():text.find("\n", m.start())]
            yield names, line


def covered(path, names):
    return any(path == n or (n.endswith("/") and path.startswith(n))
               for n in names)


def check_home(home, bad):
    readme = os.path.join(home, "README.md")
    if not os.path.isfile(readme):
        bad.append("%s: no README.md" % home)
        return 0
    with open(readme, encoding="utf-8") as f:
        rows = list(row_paths(f.read()))
    # A row names a path from the home (`run`) or from the top
    # (`tests/run`).
    rows = [([n[len(home) + 1:] if n.startswith(home + "/") else n
              for n in ns], line) for ns, line in rows]
    names = [n for ns, _ in rows for n in ns]
    for ns, line in rows:
        for n in ns:
            made = "made by" in line
            if not made and not os.path.exists(os.path.join(home, n)):
                bad.append("%s: names %s, which is not in %s/"
                           % (readme, n, home))
    files = [p[len(home) + 1:] for _, p in tracked(home)
             if p != readme]
    for f in files:
        if not covered(f, names):
            bad.append("%s: no row for %s/%s" % (readme, home, f))
    return len(files)


def check_layout(bad):
    with open("README.md", encoding="utf-8") as f:
        text = f.read()
    layout = text[text.index("## Layout"):]
    layout = layout[:layout.index("\n## ", 3)] if "\n## " in layout[3:] \
        else layout
    names = [n for ns, _ in row_paths(layout) for n in ns]
    top = sorted({p.split("/")[0] + ("/" if "/" in p else "")
                  for _, p in tracked()})
    for t in top:
        if t in ("README.md",) or t.rstrip("/") in DOT_OK:
            continue
        if not any(n == t or n.startswith(t) or t.startswith(n)
                   for n in names):
            bad.append("README.md, Layout: no row for %s" % t)
    return len(top)


def check_modules(bad):
    with open("docs/grading.md", encoding="utf-8") as f:
        text = f.read()
    sec = text[text.index("## Where each concern lives"):]
    sec = sec[:sec.index("\n## ", 3)]
    names = [n for ns, _ in row_paths(sec) for n in ns]
    pkg = "grader/labgrader/"
    mods = [p[len(pkg):] for _, p in tracked(pkg)
            if p.endswith(".py") and not p.endswith("__init__.py")]
    for m in mods:
        if not covered(m, names):
            bad.append("docs/grading.md, Where each concern lives: no row"
                       " for %s%s" % (pkg, m))
    for n in names:
        if not os.path.exists(pkg + n):
            bad.append("docs/grading.md, Where each concern lives: names"
                       " %s, not in %s" % (n, pkg))
    return len(mods)


def homes(_args):
    bad = []
    n = sum(check_home(h, bad) for h in HOMES)
    n_top = check_layout(bad)
    n_mods = check_modules(bad)
    for b in bad:
        print(b)
    print("%d files in %d homes, %d top-level entries, %d grader modules"
          % (n, len(HOMES), n_top, n_mods))
    return not bad and n > 0


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL, **kw)


def scripts(_args):
    """--help of every executable outside tests/; the guest-only ones
    refuse a host (in a mount namespace of their own, so that a guard
    that failed could not touch the host's mounts)."""
    bad = []
    exes = [p for mode, p in tracked() if mode == "100755"
            and not p.startswith(("tests/", ".github/"))]
    for p in exes:
        r = run(["./" + p, "--help"])
        if r.returncode != 0 or len(r.stdout.splitlines()) < 2 or r.stderr:
            bad.append("%s --help: status %d, %d lines out, stderr %r"
                       % (p, r.returncode, len(r.stdout.splitlines()),
                          r.stderr[:120]))
    for p in GUEST_ONLY:
        r = run(["unshare", "--mount", "--propagation", "private",
                 "env", "-u", "LAB_ROLE", "./" + p])
        if r.returncode != 2 or len(r.stderr.splitlines()) != 1 or \
                "host" not in r.stderr:
            bad.append("%s on a host: status %d, %r (want 2 and one line)"
                       % (p, r.returncode, r.stderr[:200]))
    for b in bad:
        print(b)
    print("%d executables answer --help; %d guest scripts refuse a host"
          % (len(exes), len(GUEST_ONLY)))
    return not bad and len(exes) > 0

#!/usr/bin/env python3
"""Every command the project's scripts run is one that vm/deps knows.

    deps_check.py

Reads the command:package table from `vm/deps --list` and the commands in
command position of the shell scripts below (a small tokenizer, not a
shell: quoted strings given to sh -c, bash -c, --server and --client are
read as commands too), and prints one line per unknown command.  A fresh
Debian lacks what vm/deps does not install, and a test that calls a
missing command must not pass by accident (issue: pgrep on minbase).
Status 1 when a command is unknown, or when the scan finds nothing.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

KEYWORDS = set("if then else elif fi do done while until for in case esac ! { } time function select [[ ]] coproc".split())
BUILTINS = set(""". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait""".split())
WRAPPERS = {"timeout", "setpriv", "flock", "env", "xargs", "stdbuf", "chrt", "setsid", "nice", "ionice", "sudo", "watch", "time"}
SEP = {";", ";;", ";&", ";;&", "&&", "||", "|", "|&", "&", "(", ")", "\n", "{", "}", "!", "do", "then", "else", "elif", "while", "until", "if", "time"}
def strip_heredocs(text):
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]; out.append(line)
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        i += 1
        if m and not line.lstrip().startswith("#"):
            end = m.group(1)
            while i < len(lines) and lines[i].strip() != end:
                i += 1
            i += 1
    return "\n".join(out)
def strip_comments(text):
    out = []
    for line in text.split("\n"):
        q = None
        for i, c in enumerate(line):
            if q:
                if c == q: q = None
            elif c in "'\"": q = c
            elif c == "#" and (i == 0 or line[i-1] in " \t;"):
                line = line[:i]; break
        out.append(line)
    return "\n".join(out)
def inner_substs(tok):
    res, i = [], 0
    while True:
        j = tok.find("$(", i)
        if j < 0: return res
        if tok.startswith("$((", j):
            i = j + 3; continue
        depth, k = 1, j + 2
        while k < len(tok) and depth:
            if tok[k] == "(": depth += 1
            elif tok[k] == ")": depth -= 1
            k += 1
        res.append(tok[j+2:k-1]); i = k
def commands(text, funcs, found):
    text = strip_heredocs(text).replace("\\\n", " ")
    for _ in range(3):  # arithmetic and ${...} expansions hold no commands
        text = re.sub(r"\$?\(\([^()]*(\([^()]*\)[^()]*)*\)\)", "0", text)
        text = re.sub(r"\$\{[^{}]*\}", "$X", text)
    text = strip_comments(text)
    # coproc NAME { ...; }: NAME names the coprocess, it is no command.
    text = re.sub(r"\bcoproc\s+[A-Za-z_]\w*\s*\{", "coproc {", text)
    lex = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lex.whitespace = " \t\r"
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        toks = list(lex)
    except ValueError:
        return
    pos = True; wrap = False; cur = None; arr = False; prev = None; case_pat = False; pending = None; in_case_hdr = False; redir = False; for_hdr = False
    decl = False  # after local, declare...: NAME=( ... ) is an array
    for t in toks:
        for sub in inner_substs(t):
            commands(sub, funcs, found)
        last, prev = prev, t
        if (last == "-c" and cur in ("sh", "bash") or last in ("--server", "--client")) and " " in t:
            commands(t, funcs, found)
        if arr == "maybe":
            if t == "()":  # NAME=(): an empty array
                arr = False
                continue
            arr = t == "("
            if arr: continue
        if arr:
            arr = ")" not in t; continue
        if redir:
            redir = False; continue
        if t in ("<", ">", ">>", "<<", "<<<", ">&", "<&", "&>", ">|", "<>"):
            redir = True; continue
        if t == "case": in_case_hdr = True; pos = False; continue
        if in_case_hdr:
            if t == "in": in_case_hdr = False; case_pat = True
            continue
        punct = bool(t) and set(t) <= set("();|&\n")
        if punct and ";;" in t or t == ";&": case_pat = True; pos = False; continue
        if case_pat:
            if punct and ")" not in t: continue
            if t == "esac": case_pat = False; pos = False; continue
            if punct and ")" in t: case_pat = False; pos = True
            continue
        if t == "for": for_hdr = True; continue
        if for_hdr:
            if t == "do": for_hdr = False; pos = True
            continue
        if punct or t in SEP or t in KEYWORDS:
            pos = True; wrap = False; cur = None; decl = False; continue
        if wrap and wrap != "last" and t == "--":
            wrap = "--"; continue
        if wrap == "--":
            wrap = "last"
        if wrap:
            if t.isupper() and wrap != "last": continue
            if "/" in t:
                wrap = False; continue  # the command is a path
            if re.match(r"^[A-Za-z_][\w.+-]*$", t) and t not in BUILTINS and t not in funcs:
                found.add(t); cur = t
                wrap = t if t in WRAPPERS else False
            elif wrap == "last": wrap = False
            continue
        if not pos:
            if decl and re.match(r"^[A-Za-z_]\w*=$", t):
                arr = "maybe"
            continue
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=", t):
            arr = "maybe" if t.endswith("=") else False  # NAME=( ... )
            continue  # assignment, command may follow
        pos = False
        if t in ("exec", "command", "nohup", "builtin"):
            pos = True
            if t == "command": pending = "command"
            continue
        if pending == "command" and t.startswith("-"):
            pos = True; continue
        pending = None
        name = t
        if not re.match(r"^[A-Za-z_][\w.+-]*$", name): continue
        decl = name in ("local", "declare", "typeset", "readonly", "export")
        if name in BUILTINS or name in KEYWORDS or name in funcs: continue
        found.add(name)
        cur = name
        wrap = name if name in WRAPPERS else False

# Scripts run on the host or, with the host's userland, in the guests.
# vm/guest/init is left out: it runs busybox from the initramfs.
SCRIPTS = ["Makefile", ".ci/run", "tests/run", "tests/*.sh", "tests/unit/*.sh",
           "vm/run", "vm/demo", "vm/prepare", "vm/deps", "grader/grade",
           "vm/arch",
           "grader/grade-all", "vm/wire-summary", "vm/guest/stage2",
           "grader/batch", "grader/guest/driver", "grader/guest/compile.sh",
           "grader/settings.sh",
           "release/mkdist", "lab/*.sh",
           "docs/runs/record", "tests/grader/seeds/expect.sh",
           "tests/grader/judges/record", "release/container",
           "release/image", "grader/platforms/grade-upload",
           "grader/platforms/gradescope/*", "grader/platforms/prairielearn/*",
           "grader/platforms/github/summary", "grader/platforms/github/classroom",
           "release/publish", "release/committed"]


def script_text(path):
    text = open(path, encoding="utf-8").read()
    if os.path.basename(path) == "Makefile":
        # Only the recipes run; make's $(...) and $$ become shell's.
        recipe, in_rule = [], False
        for line in text.split("\n"):
            if not line.startswith("\t"):
                in_rule = re.match(r"^[^\s#=][^=]*:(?!=)", line) is not None
            elif in_rule:
                recipe.append(line[1:])
        text = "\n".join(recipe)
        while re.search(r"\$\([^()]*\)", text):
            text = re.sub(r"\$\([^()]*\)", "$X", text)
        text = text.replace("$$", "$")
    return text


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    listed = subprocess.run(["vm/deps", "--list"], check=True,
                            capture_output=True, text=True).stdout
    known, lab, platforms, dist = set(), set(), set(), set()
    for line in listed.splitlines():
        cmd, _pkg, use = line.split()
        known.add(cmd)
        if use == "lab":
            lab.add(cmd)
        if use == "platforms":
            platforms.add(cmd)
        if use == "dist":
            dist.add(cmd)
    # Functions of the files scripts source (vm/deps: its ubuntu_sources,
    # which tests/platforms/platforms_unit.sh takes out of it).
    lib = "".join(open(f, encoding="utf-8").read()
                  for f in ("tests/lib.sh", "tests/grader/seeds/expect.sh",
                            "grader/guest/compile.sh", "grader/settings.sh",
                            "vm/deps"))
    lib_funcs = set(re.findall(r"^\s*([A-Za-z_][\w-]*)\s*\(\)", lib, re.M))
    seen, bad = 0, 0
    for pattern in SCRIPTS:
        for path in sorted(glob.glob(pattern)):
            if os.path.isdir(path):  # a platform's folder of data
                continue
            text = script_text(path)
            funcs = set(re.findall(r"^\s*([A-Za-z_][\w-]*)\s*\(\)", text, re.M))
            found = set()
            commands(text, funcs | lib_funcs, found)
            seen += len(found)
            for cmd in sorted(found - known):
                print(f"{path}: runs '{cmd}', which vm/deps does not know")
                bad += 1
            if path.startswith("vm/"):  # the lab's own, not only the tests'
                # vm/platforms/: the lab's, and the container tools;
                # they and make dist's may package the tree (git).
                own = lab | platforms if path.startswith("vm/platforms/") \
                    else lab
                if path.startswith("vm/platforms/") or path in (
                        "release/mkdist", "release/committed"):
                    own = own | dist
                for cmd in sorted((found & known) - own):
                    print(f"{path}: runs '{cmd}', which vm/deps installs "
                          "for the tests only")
                    bad += 1
    if seen == 0:
        print("no commands found: the scan is broken")
        return 1
    print(f"{seen} command uses checked, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

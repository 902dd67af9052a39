#!/usr/bin/env python3
"""The code of a C or Python source without its comments, for the
recording's stamps.

    tests/grader/judges/uncomment.py FILE.c|FILE.py

Prints FILE.c with every /* */ and // comment removed (not inside string
or character literals), trailing blanks cut and blank lines dropped: what
the compiler reads, so that a corrected comment (a TODO's pitfall, the
reference card's notes) does not make the recording stale, while any
change to the code still does.  Nothing in these sources uses __LINE__.
FILE.py: without its docstrings and comment lines, blank lines dropped
(a docstring that names a moved path changes nothing that runs).
"""
import ast
import sys


def uncomment(text):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        else:
            out.append(c)
            i += 1
    lines = (line.rstrip() for line in "".join(out).split("\n"))
    return "".join(line + "\n" for line in lines if line)


def unpython(text):
    drop = set()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue
        d = body[0]
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)) and \
                isinstance(d, ast.Expr) and \
                isinstance(d.value, ast.Constant) and \
                isinstance(d.value.value, str):
            drop.update(range(d.lineno - 1, d.end_lineno))
    lines = (line.rstrip() for i, line in enumerate(text.split("\n"))
             if i not in drop and not line.lstrip().startswith("#"))
    return "".join(line + "\n" for line in lines if line)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    sys.stdout.write(unpython(text) if sys.argv[1].endswith(".py")
                     else uncomment(text))


if __name__ == "__main__":
    main()

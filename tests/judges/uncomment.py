#!/usr/bin/env python3
"""The code of a C source without its comments, for the recording's stamps.

    tests/judges/uncomment.py FILE.c

Prints FILE.c with every /* */ and // comment removed (not inside string
or character literals), trailing blanks cut and blank lines dropped: what
the compiler reads, so that a corrected comment (a TODO's pitfall, the
reference card's notes) does not make the recording stale, while any
change to the code still does.  Nothing in these sources uses __LINE__.
"""
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


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.stdout.write(uncomment(f.read()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks behind tests/docs/docs.sh.

    docs_check.py links FILE.md...
        every relative link and image in the files points at a file
    docs_check.py failures SOURCE.c FILE...
        every quoted "lab STEP FAIL: ..." / "hint: ..." line matches a
        message in the program's source, and a FAIL line's closing
        "code=NAME" is a code of lab/codes.h
    docs_check.py shapes FRESH.log... -- FILE...
        every quoted "lab STEP ok ..." line has the keys, in order, and the
        kinds of values that a fresh run of the program printed
    docs_check.py answers FILE.md...
        every row of a table under a "<!-- pcap: CAPTURE -->" line is what
        tshark reads from that recorded capture (docs/answers.md)
    docs_check.py wire FILE.md...
        the exchange message's table, its size and magic, and the sizes
        and first bytes of the other TCP messages, against lab/lab.h and
        the recorded run in docs/runs/
    docs_check.py prose FILE.md...
        what the prose of each answer states (frames, hex and long decimal
        numbers, byte counts, sums, counter changes) is in its tables,
        quoted blocks or named recordings, or follows from them
    docs_check.py icrc FILE.md...
        the fields that a "<!-- icrc: DIR -->" table says the RoCEv2 ICRC
        masks are exactly what makes the ICRC of every RoCE packet of
        DIR/*.pcap right: all rows needed, none missing
    docs_check.py counters FILE.md...
        the table under a "<!-- counters: LIST -->" line names, once each,
        exactly the files of the recorded listing LIST (an `ls` of a guest's
        hw_counters), so that a counter the kernel adds or drops is noticed
    docs_check.py psns FILE.md...
        every PSN (0x and 6 hex digits) named on a line about PSNs, and its
        decimal form, is a BTH PSN of a recorded capture in docs/runs/
    docs_check.py outcomes RECORDED.tar.xz FILE...
        every claim that a "(recorded: seed NAME)" marker puts on a seed's
        recorded grading (a completion status, an errno, "no completion",
        a TTL) is what that recording shows (tests/grader/judges/recorded.tar.xz)
    docs_check.py handout DIR
        DIR is an unpacked student handout (make dist): its texts (README,
        Makefile, docs/, lab/) name no instructor's file or target, their
        relative links resolve, every path they name exists, every `make X`
        is a target that does something, every command of a code block that
        runs without the guests runs as quoted, the numbers that depend
        on the course (TODOs, receives, recv_len, points) are its own, and
        a core-only handout (LAB_PARTS 1) shows nothing of part two
    docs_check.py homes
        each home's README (vm/, grader/, release/, tests/) has a row for
        each of its files and names none that is not there; the README's
        layout and docs/grading.md's modules match the tree
    docs_check.py limits SETTINGS FILE.md
        every limit of a run and a compile that FILE quotes (the phrases
        of docscheck/limits.py) has SETTINGS' value (grader/settings.sh)
    docs_check.py scripts
        every executable outside tests/ answers --help with its header
        (status 0), and the guest-only scripts refuse to run on a host
"""
import os
import sys

# The checks are the package docscheck beside this file (one module per
# concern); this is only their command line, which tests/docs/docs.sh and
# tests/grader/grade.sh call.  No __pycache__ written into the tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docscheck.exchange import wire  # noqa: E402
from docscheck.handout import handout  # noqa: E402
from docscheck.homes import homes, scripts  # noqa: E402
from docscheck.icrc import icrc  # noqa: E402
from docscheck.lines import failures, shapes  # noqa: E402
from docscheck.limits import limits  # noqa: E402
from docscheck.links import links  # noqa: E402
from docscheck.outcomes import outcomes  # noqa: E402
from docscheck.prose import prose  # noqa: E402
from docscheck.tables import answers, counters, psns  # noqa: E402


def shapes_args(args):
    cut = args.index("--")
    return shapes(args[:cut], args[cut + 1:])


# Each subcommand and what it does with its arguments.
COMMANDS = {
    "links": links,
    "failures": lambda args: failures(args[0], args[1:]),
    "shapes": shapes_args,
    "answers": answers,
    "wire": wire,
    "prose": prose,
    "icrc": icrc,
    "counters": counters,
    "psns": psns,
    "outcomes": outcomes,
    "handout": lambda args: handout(args[0]),
    "homes": homes,
    "scripts": scripts,
    "limits": limits,
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    ok = COMMANDS[sys.argv[1]](sys.argv[2:])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

"""The cause a FAIL line names in its closing key, " code=NAME": the
vocabulary, read from lab/codes.h (its one home, docs/protocol.md
"Failure codes"), and the one parser of the key.  The student's process
writes these lines: a code chooses a hint, never a point."""
import os
import re
import sys

from .lab import LAB

FAMILY = {"LAB_CODE": "", "LAB_WC": "WC_", "LAB_ERRNO": "ERRNO_"}


def read_codes(path=os.path.join(LAB, "codes.h")):
    """Every code=NAME the scaffolding can print, in the order of
    lab/codes.h."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    names = [FAMILY[m.group(1)] + m.group(2) for m in re.finditer(
        r"^(LAB_CODE|LAB_WC|LAB_ERRNO)\((\w+)\)$", text, re.M)]
    if not names:
        sys.exit("grader: no LAB_CODE lines in " + path)
    return names


CODES = frozenset(read_codes())
KEY = re.compile(r"^(.*) code=([A-Z][A-Z0-9_]*)$")


def split_code(text):
    """The text of a FAIL line after "FAIL: " as (reason, code): the
    reason as a student reads it, without the key, and the code, or None
    when the line has no key or one not in the vocabulary (a line the
    program printed by other means: its reason is then the whole text)."""
    m = KEY.match(text)
    if not m or m.group(2) not in CODES:
        return text, None
    return m.group(1), m.group(2)


def known(*names):
    """names, each a code of lab/codes.h: a judge that asks for another
    fails at once, not by never matching."""
    for n in names:
        if n not in CODES:
            raise ValueError("grader: %s is not a code of lab/codes.h" % n)
    return names


# The codes a wait running out prints (docs/protocol.md): the program was
# alive and waiting for its peer.  The retry counters' codes
# (WC_RETRY_EXC_ERR, WC_RNR_RETRY_EXC_ERR) count retries, not time.
WAIT_CODES = known("NO_SERVER", "NO_CLIENT", "PEER_SILENT", "PEER_CLOSED",
                   "NO_COMPLETION")

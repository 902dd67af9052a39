"""Small parsers (key=value lines, numbers, files read within bounds),
files written whole, and text a student controls made safe for a
terminal or a page."""
import os
import re
import struct


def unquote(v):
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        v = v[1:-1]
        return re.sub(r'\\x([0-9a-f]{2})|\\(.)',
                      lambda m: chr(int(m.group(1), 16)) if m.group(1)
                      else m.group(2), v)
    return v


KV = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def kv(text):
    return {k: unquote(v) for k, v in KV.findall(text)}


def read(path, limit=2000000):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def num(v, default=None):
    try:
        return int(v, 0)
    except (TypeError, ValueError):
        return default


def bswap32(v):
    return struct.unpack("<I", struct.pack(">I", v & 0xffffffff))[0]


def bswap64(v):
    return struct.unpack("<Q", struct.pack(">Q", v & 0xffffffffffffffff))[0]


# The wrong conversions between host and network order, each as what it
# makes of the right value v, as the guests (little-endian) make them:
# "swap" a 32-bit swap (htonl missing, or one where none was needed),
# "htons" htons() of a 32-bit value (its low half, first on the wire),
# "ntohs" ntohs() of a 32-bit field in network order (its high half),
# "swap64" a 64-bit swap (htobe64 where none was needed), "cut32" a 64-bit
# value cut to 32 bits.
CONVERSIONS = (
    ("swap", bswap32),
    ("htons", lambda v: (v & 0xffff) << 16),
    ("ntohs", lambda v: v >> 16 & 0xffff),
    ("swap64", bswap64),
    ("cut32", lambda v: v & 0xffffffff),
)


def conversion(got, want):
    """The name of the wrong conversion (CONVERSIONS) that makes got of
    want, or None: none does, or got is 0 or want itself (a value never
    set is no conversion)."""
    if got is None or want is None or not got or got == want:
        return None
    for name, fn in CONVERSIONS:
        if fn(want) == got:
            return name
    return None


# What a terminal acts on: the C0 controls but tab, DEL, the C1 controls
# (U+009B alone is a CSI on some terminals), and the marks that reorder
# what is shown (bidirectional overrides and isolates).  Newline too,
# unless the text is lines: a student's line must not make one of ours.
# A file name's bytes that are not UTF-8 (U+DC80..U+DCFF, as Python reads
# them) are written as the bytes they were.
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f"
                    "\u202a-\u202e\u2066-\u2069\udc80-\udcff]")
UNSAFE_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e"
                          "\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")


def escape_char(m):
    c = ord(m.group(0))
    if 0xdc80 <= c <= 0xdcff:
        c -= 0xdc00
    return "\\x%02x" % c if c < 0x100 else "\\u%04x" % c


def safe(text, lines=False):
    """text with every character a terminal would act on written out as
    \\xNN (escape sequences become harmless text, never colours, titles
    or a cleared screen)."""
    return (UNSAFE_LINES if lines else UNSAFE).sub(escape_char, str(text))


def mdtext(text):
    """Student-controlled text as plain text in a cell of report.md: no
    HTML, image, link, emphasis, code span, math or cell of its own.
    Every character that markdown acts on is escaped with a backslash
    (':' too: a web autolink needs "http:"; an e-mail address may still
    become a mailto: link, which runs nothing); then &, <, > and |
    become entities, which no escape may touch after: a table splits its
    cells on | before it reads markdown, and renderers differ on a
    backslash before it, never on an entity."""
    text = re.sub(r"([\\`*_{}\[\]()#+\-.!~:$])", r"\\\1", safe(text))
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    return text.replace(">", "&gt;").replace("|", "&#124;")


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)
    os.replace(tmp, path)

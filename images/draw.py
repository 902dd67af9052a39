#!/usr/bin/env python3
"""Draws the header diagrams (SVG) from the one table images/headers.tsv.

    images/draw.py TABLE OUTDIR
    images/draw.py --text FILE.txt OUT.svg   (a saved terminal transcript)

Writes OUTDIR/<diagram>.svg for every "grid" and "packet" diagram the table
names. The output depends only on the table: no dates, no randomness, a
fixed font stack, so `make images` run twice changes nothing.
"""
import sys
from collections import OrderedDict
from xml.sax.saxutils import escape

FONT = "DejaVu Sans Mono, monospace"
CHAR = 0.602  # advance of one DejaVu Sans Mono character, in font sizes


def load(path):
    headers = OrderedDict()  # name -> {title, color, fields: [...]}
    grids, packets, maps = OrderedDict(), OrderedDict(), []
    with open(path, encoding="utf-8") as f:
        for num, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            col = line.split("\t")
            kind = col[0]
            try:
                if kind == "header":
                    headers[col[1]] = dict(title=col[2], color=col[3], fields=[])
                elif kind == "field":
                    note = col[5] if len(col) > 5 else ""
                    headers[col[1]]["fields"].append(
                        dict(name=col[2], short=col[3], bits=int(col[4]), note=note))
                elif kind == "grid":
                    grids[col[1]] = col[2].split(",")
                elif kind == "packet":
                    packets.setdefault(col[1], []).append((col[2], col[3].split(",")))
                elif kind == "map":
                    maps.append(col[1:6])
                else:
                    raise ValueError("unknown row kind " + kind)
            except (IndexError, KeyError, ValueError) as e:
                sys.exit("%s:%d: bad row (%s): %s" % (path, num, e, line))
    for name, h in headers.items():
        bits = sum(f["bits"] for f in h["fields"])
        if bits % 8:
            sys.exit("%s: header %s is %d bits, not whole bytes" % (path, name, bits))
        h["bytes"] = bits // 8
    return headers, grids, packets, maps


class Svg:
    def __init__(self):
        self.items = []

    def rect(self, x, y, w, h, fill, stroke="#333"):
        self.items.append('<rect x="%g" y="%g" width="%g" height="%g" fill="%s" stroke="%s"/>'
                          % (x, y, w, h, fill, stroke))

    def line(self, x1, y1, x2, y2, color="#333", dash=False):
        extra = ' stroke-dasharray="4 3"' if dash else ""
        self.items.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s"%s/>'
                          % (x1, y1, x2, y2, color, extra))

    def text(self, x, y, s, size=12, anchor="middle", weight="normal", color="#000"):
        self.items.append('<text x="%g" y="%g" font-size="%g" text-anchor="%s" '
                          'font-weight="%s" fill="%s">%s</text>'
                          % (x, y, size, anchor, weight, color, escape(s)))

    def write(self, path, width, height):
        with open(path, "w", encoding="utf-8") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                    'viewBox="0 0 %d %d" font-family="%s">\n' % (width, height, width, height, FONT))
            f.write('<rect width="100%" height="100%" fill="#ffffff"/>\n')
            for item in self.items:
                f.write(item + "\n")
            f.write("</svg>\n")


def fits(s, width, size):
    return len(s) * CHAR * size <= width - 4


def label(svg, x, y, w, h, candidates):
    """Centres the first candidate that fits, shrinking the font if needed."""
    for size in (12, 10, 8):
        for s in candidates:
            if fits(s, w, size):
                svg.text(x + w / 2, y + h / 2 + size * 0.35, s, size)
                return


def grid(headers, names, path):
    """Every field of each header on 32-bit rows, with the notes beside it."""
    bit, row, left, top = 26, 34, 20, 50
    notes_x = left + 32 * bit + 20
    svg = Svg()
    for b in range(32):
        svg.text(left + b * bit + bit / 2, top - 8, str(b), 9, color="#555")
    svg.text(left, top - 26, "bit offset within each 32-bit word (the wire sends bit 0 first)",
             11, anchor="start", color="#555")
    y = top
    for name in names:
        h = headers[name]
        svg.text(left, y + 16, "%s: %d bytes" % (h["title"], h["bytes"]), 13, "start", "bold")
        y += 24
        pos, notes = 0, []
        for f in h["fields"]:
            start, end = pos, pos + f["bits"]
            pos = end
            segs = []  # (first bit in row, width in bits, first row, row count)
            while start < end:
                r, c = divmod(start, 32)
                if c == 0 and end - start >= 64:
                    n = (end - start) // 32
                    segs.append((0, 32, r, n))
                    start += 32 * n
                else:
                    w = min(32 - c, end - start)
                    segs.append((c, w, r, 1))
                    start += w
            big = max(range(len(segs)), key=lambda i: segs[i][1] * segs[i][3])
            for i, (c, w, r, n) in enumerate(segs):
                sx, sy, sw, sh = left + c * bit, y + r * row, w * bit, n * row
                svg.rect(sx, sy, sw, sh, h["color"])
                if i == big:
                    label(svg, sx, sy, sw, sh, ["%s (%d)" % (f["name"], f["bits"]),
                                                "%s (%d)" % (f["short"], f["bits"]),
                                                f["short"]])
                else:
                    label(svg, sx, sy, sw, sh, [f["short"] + " (cont.)", "..."])
            if f["note"]:
                notes.append("%s: %s" % (f["short"], f["note"]))
        rows = (pos + 31) // 32
        for i, n in enumerate(notes):
            svg.text(notes_x, y + 14 + i * 15, n, 11, "start", color="#333")
        y += max(rows * row, len(notes) * 15) + 14
    svg.write(path, notes_x + 560, y + 10)


def part_info(headers, part):
    if ":" in part:
        name, size = part.split(":")
        size = int(size)
        if size == 0:
            return "payload", "", 0
        pad = -size % 4
        return "payload", "%d B + %d pad" % (size, pad) if pad else "%d B" % size, size + pad
    h = headers[part]
    return h["title"].split(" (")[0], "%d B" % h["bytes"], h["bytes"]


def strips(headers, rows, maps, path):
    """One packet per row, headers as boxes, widths by size."""
    left, top, rowh, gap, scale = 20, 30, 44, 40, 9
    if not rows:
        return
    svg = Svg()
    y = top
    # A diagram with a row that starts with a header the map rows translate
    # from (the LRH) is the mapping diagram: that row goes in the middle,
    # with lines up to RoCE v1 and down to RoCE v2, and the BTH starts at
    # the same x in every row.
    sources = {m[0] for m in maps}
    ib = [i for i, (_, parts) in enumerate(rows) if parts[0] in sources]
    mapping = len(rows) == 3 and len(ib) == 1
    bth_x = left + 60 * scale
    order = [i for i in range(3) if i != ib[0]] if mapping else list(range(len(rows)))
    if mapping:
        order.insert(1, ib[0])
    boxes = {}  # (row, header) -> (x, y, w)
    width = 0
    for slot, idx in enumerate(order):
        title, parts = rows[idx]
        if not mapping:
            svg.text(left, y - 8, title, 13, "start", "bold")
        info = [part_info(headers, p) for p in parts]
        widths = [max(size * scale, 62) for _, _, size in info]
        # A box too narrow for the name and for its short form grows.
        widths = [w if fits(name, w, 12) or fits(p.upper(), w, 12)
                  else len(name) * CHAR * 12 + 8
                  for p, (name, _, _), w in zip(parts, info, widths)]
        x = left
        if mapping:
            pre = parts.index("bth")
            total = sum(widths[:pre])
            widths[:pre] = [w * (bth_x - left) / total for w in widths[:pre]]
            widths[pre:] = [max(w, 90) if parts[i + pre] != "payload:0" else 120
                            for i, w in enumerate(widths[pre:])]
        total_bytes = 0
        for part, (name, size_s, size), w in zip(parts, info, widths):
            fill = headers[part]["color"] if part in headers else "#ffffff"
            svg.rect(x, y, w, rowh, fill)
            svg.text(x + w / 2, y + 18, name if fits(name, w, 12) else part.upper(), 12)
            if size_s:
                svg.text(x + w / 2, y + 34, size_s, 10, color="#444")
            boxes[(slot, part)] = (x, y, w)
            total_bytes += size
            x += w
        if mapping:  # beside the row: the lines between rows would cross it
            svg.text(x + 12, y + rowh / 2 + 4, title, 13, "start", "bold")
            x += 12 + len(title) * CHAR * 13
        else:
            svg.text(x + 10, y + rowh / 2 + 4, "%d bytes; %d in a capture (no FCS)"
                     % (total_bytes, total_bytes - headers["fcs"]["bytes"]), 11, "start")
            x += 280
        width = max(width, x)
        y += rowh + gap
    if mapping:
        # Lines from the InfiniBand row (slot 1) to the RoCE rows, then the
        # field-by-field table.
        for src, _, dst, _, which in maps:
            for slot in ((0,) if which == "v1" else (2,) if which == "v2" else (0, 2)):
                if (1, src) in boxes and (slot, dst) in boxes:
                    sx, sy, sw = boxes[(1, src)]
                    dx, dy, dw = boxes[(slot, dst)]
                    y1 = sy if slot == 0 else sy + rowh
                    y2 = dy + rowh if slot == 0 else dy
                    svg.line(sx + sw / 2, y1, dx + dw / 2, y2, "#a33", dash=True)
        y += 6
        svg.text(left, y, "InfiniBand field", 12, "start", "bold")
        svg.text(left + 300, y, "carried on Ethernet by", 12, "start", "bold")
        svg.text(left + 720, y, "RoCE", 12, "start", "bold")
        for src, sf, dst, df, which in maps:
            y += 18
            svg.text(left, y, "%s %s" % (headers[src]["title"].split(" (")[0], sf), 11, "start")
            svg.text(left + 300, y, "%s %s" % (headers[dst]["title"].split(" (")[0], df), 11, "start")
            svg.text(left + 720, y, {"both": "v1 and v2"}.get(which, which), 11, "start")
        y += 20 + gap
        width = max(width, left + 820)
    svg.write(path, width + 20, y - gap)


def terminal(txt, path):
    """A real command's saved output (docs/runs/*.txt) as a terminal window."""
    with open(txt, encoding="utf-8") as f:
        lines = [l.rstrip("\n").expandtabs(8) for l in f]
    size, lh, pad = 13, 17, 14
    svg = Svg()
    width = int((max(len(l) for l in lines) + 2) * CHAR * size) + 2 * pad
    height = len(lines) * lh + 2 * pad
    svg.rect(0, 0, width, height, "#1e1e1e", "#1e1e1e")
    for i, l in enumerate(lines):
        svg.items.append('<text x="%d" y="%d" font-size="%d" fill="%s" xml:space="preserve">%s</text>'
                         % (pad, pad + (i + 1) * lh - 4, size,
                            "#8ae234" if l.startswith("$ ") else "#e0e0e0", escape(l)))
    svg.write(path, width, height)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--text":
        terminal(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) != 3:
        sys.exit("usage: images/draw.py TABLE OUTDIR | --text FILE.txt OUT.svg")
    headers, grids, packets, maps = load(sys.argv[1])
    out = sys.argv[2]
    for name, names in grids.items():
        grid(headers, names, "%s/%s.svg" % (out, name))
    for name, rows in packets.items():
        strips(headers, rows, maps, "%s/%s.svg" % (out, name))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--help"]:  # as every script answers it
        sys.exit(print(__doc__.strip()))
    main()

"""report.html: the course at a glance, beside report.md.  Its charts
are drawn by Chart.js (Debian's libjs-chart.js, copied into the page
with its licence line, so that the page opens anywhere, offline); its
numbers are also in tables, which the charts only draw.  Every text a
student controls (names, hints that quote them, source fragments) is
escaped; the data the charts read is JSON whose "<" is written \\u003c,
so no value can end the script that holds it."""
import html
import json
import os

from .classstats import KINDS, REAL, total
from .lab import PART_LINE
from .similarity import THRESHOLD
from .text import read, safe, write_atomic

# Debian 12's libjs-chart.js 3.9 has chart.min.js; 4.x ships
# chart.umd.js (Debian 13).  Both define the global Chart.
CHART_JS = ("/usr/share/javascript/chart.js/chart.umd.min.js",
            "/usr/share/javascript/chart.js/chart.umd.js",
            "/usr/share/javascript/chart.js/chart.min.js")
SLOWEST = 10
LABEL = {REAL: "real submissions", "compile error": "compile errors",
         "no submission": "no submission (no main.c, or refused)",
         "environment error": "environment errors"}
SHOWN_PAIRS = 100
CSS = """body{font-family:sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}
td.n{text-align:right}.chart{max-width:50em;height:18em}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto}"""


def e(text, lines=False):
    """Student-controlled text as text in the page (lines: newlines and
    tabs kept, for a <pre>)."""
    return html.escape(safe(text, lines=lines), quote=True)


def chart_js():
    for p in CHART_JS:
        text = read(p, 3000000)
        if text:
            # Inside <script>, only "</script" could end it early.
            return text.replace("</script", "<\\/script")
    return None


def table(head, rows, nums=()):
    """A table of escaped cells; columns in nums right-aligned."""
    o = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % e(h)
                                         for h in head)]
    for r in rows:
        o.append("<tr>%s</tr>" % "".join(
            '<td class="n">%s</td>' % c if i in nums else "<td>%s</td>" % c
            for i, c in enumerate(r)))
    return "".join(o) + "</table>"


def link(x):
    """The student's report, relative to the page: its folder name is
    grade-all's (A-Za-z0-9._- only), quoted all the same."""
    href = html.escape("students/%s/report.txt" % x["name"], quote=True)
    return '<a href="%s">%s</a>' % (href, e(x["result"].get("name")
                                             or x["name"]))


def who(p):
    """A submitter as the LMS named them: id, name, email."""
    return " ".join(str(p.get(k) or "") for k in ("id", "name", "email")
                    if p.get(k))


def distribution(rows):
    """{total score: students} over every student with a grade (an
    environment error has none)."""
    d = {}
    for x in rows:
        if x["kind"] != "environment error":
            d[total(x)[0]] = d.get(total(x)[0], 0) + 1
    return dict(sorted(d.items()))


def sources_of(rows):
    """{student: main.c} of those who handed one in."""
    return {x["name"]: os.path.join(x["dir"], "main.c") for x in rows
            if os.path.isfile(os.path.join(x["dir"], "main.c"))}


def similarity_section(pairs, notes):
    o = ["<h2>Similar submissions</h2>",
         "<p>Pairs of which one shares at least %d %% of its code with "
         "the other (sim_c, identifiers and layout aside), the skeleton's "
         "lines left out. A pair is for a person to read: it changes no "
         "grade.</p>" % THRESHOLD]
    o += ["<p>%s</p>" % e(n) for n in notes]
    if not pairs:
        o.append("<p id=\"similar-none\">No pair at or above %d %%.</p>" %
                 THRESHOLD)
    if len(pairs) > SHOWN_PAIRS:
        o.append("<p>The %d most similar of %d pairs (report.md lists "
                 "them all).</p>" % (SHOWN_PAIRS, len(pairs)))
    for pct, a, b, frags in pairs[:SHOWN_PAIRS]:
        o.append('<h3 class="pair">%s and %s: %d %%</h3>' % (e(a), e(b), pct))
        for l1, h1, l2, h2, n, lines in frags:
            o.append("<p>%s lines %d-%d, %s lines %d-%d, %d tokens:</p>"
                     "<pre>%s</pre>" % (e(a), l1, h1, e(b), l2, h2, n,
                                        e("\n".join(lines), lines=True)))
    return o


def write_html(out, rows, stats, hints, pairs, notes):
    real = [x for x in rows if x["kind"] == REAL]
    dist = distribution(rows)
    steps = [(s, ok, tot, todo, max(h.items(), key=lambda y: (y[1], y[0]))
              if h else None) for s, _, ok, tot, todo, h in stats]
    data = {"dist": {"labels": [str(k) for k in dist],
                     "counts": list(dist.values())},
            "steps": {"labels": [s for s, *_ in steps],
                      "rates": [round(100.0 * ok / tot, 1) if tot else 0
                                for _, ok, tot, _, _ in steps]}}
    counted = {k: sum(x["kind"] == k for x in rows) for k in KINDS}
    o = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
         "<title>rdma-lab course report</title><style>%s</style></head>"
         "<body><h1>rdma-lab course report</h1>" % CSS,
         "<p id=\"counts\">%d students: %s.</p>" % (len(rows), ", ".join(
             "%s: %d" % (LABEL[k], counted[k]) for k in KINDS))]
    o += ["<h2>Score distribution</h2>",
          '<div class="chart"><canvas id="dist"></canvas></div>',
          table(["total score", "students"],
                [(k, v) for k, v in dist.items()], nums=(0, 1))]
    o += ["<h2>Each step over the %d real submissions</h2>" % len(real),
          "<p>Compile errors, missing submissions and environment errors "
          "are counted apart; a step whose TODO is still in the student's "
          "main.c is counted as TODO, not by its failure's hint.</p>",
          '<div class="chart"><canvas id="steps"></canvas></div>',
          table(["step", "passed", "pass rate", "still TODO",
                 "most common failure"],
                [(e(s), "%d/%d" % (ok, tot), "%d %%" % round(
                    100.0 * ok / tot) if tot else "-", todo,
                  "%s (%d)" % (e(c[0]), c[1]) if c else "-")
                 for s, ok, tot, todo, c in steps], nums=(1, 2, 3))]
    o += ["<h2>Hints</h2>", table(
        ["hint", "failed steps", "students"],
        [(e(h), n, m) for h, n, m in hints], nums=(1, 2))]
    timed = sorted((x for x in rows if x["result"].get("seconds")),
                   key=lambda x: -x["result"]["seconds"])[:SLOWEST]
    o += ["<h2>Slowest runs</h2>", table(
        ["student", "seconds in the guests", "score"],
        [(link(x), "%.1f" % x["result"]["seconds"], "%d/%d" % total(x))
         for x in timed], nums=(1, 2))]
    failed = [x for x in rows if x["kind"] != REAL]
    o += ["<h2>Not graded as a program</h2>", table(
        ["student", "why"],
        [(link(x), e(x["kind"])) for x in failed])]
    o += similarity_section(pairs, notes)
    parts = sorted({p for x in rows for p in x["parts"]})
    o += ["<h2>Students</h2>", table(
        ["student", "submitted by"] +
        [PART_LINE.get(p, "Part %d" % p) for p in parts] +
        ["total", "status"],
        [[link(x), e(", ".join(who(p) for p in x["people"]))] +
         ["%d/%d" % x["parts"].get(p, (0, 0)) for p in parts] +
         ["%d/%d" % total(x), e(x["kind"])] for x in rows],
        nums=tuple(range(2, len(parts) + 3)))]
    js = chart_js()
    if js is None:
        o.append("<p>No charts: Chart.js is not installed here "
                 "(apt-get install libjs-chart.js); the tables hold every "
                 "number.</p>")
    else:
        o += ['<script type="application/json" id="data">%s</script>' %
              json.dumps(data).replace("<", "\\u003c"),
              "<script>%s</script>" % js, "<script>%s</script>" % DRAW]
    o.append("</body></html>")
    write_atomic(os.path.join(out, "report.html"), "\n".join(o) + "\n")


# The charts: bars over the tables' numbers.  No animation, so that a
# screenshot taken when the page has loaded shows them drawn.
DRAW = """
const d = JSON.parse(document.getElementById('data').textContent);
Chart.defaults.animation = false;
new Chart(document.getElementById('dist'), {type: 'bar', data: {
  labels: d.dist.labels, datasets: [{label: 'students',
  data: d.dist.counts, backgroundColor: '#3b7dd8'}]}, options: {maintainAspectRatio: false,
  scales: {x: {title: {display: true, text: 'total score'}}}}});
new Chart(document.getElementById('steps'), {type: 'bar', data: {
  labels: d.steps.labels, datasets: [{label: 'pass rate (%)',
  data: d.steps.rates, backgroundColor: '#2e9e5b'}]}, options: {maintainAspectRatio: false,
  scales: {y: {min: 0, max: 100}}}});
document.body.dataset.charts = 'drawn';
"""

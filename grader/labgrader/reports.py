"""Reports: the student's text, and a batch's report.csv and report.md
(the platforms' results files: platforms.py)."""
import csv
import io
import json
import os

from .lab import GRADED, LAB_PARTS, PAIR_TITLE, PART, PART_LINE
from .points import part_totals, result_steps
from .text import mdtext, safe, write_atomic


def render(result, steps=None):
    """The student's text; each part's steps with its score line under
    them ("Score:" for the core, "Part two:" for part 2)."""
    steps = result_steps(result, steps)
    o = []
    if result.get("env_error"):
        o.append("ENVIRONMENT ERROR (not your fault): " +
                 result["env_error"])
    if result.get("compile_error"):
        o.append("Your program does not compile:")
        o += ["  " + x for x in result["compile_error"].splitlines()[:20]]
    got = tot = 0
    for p, pgot, ptot in part_totals(result, steps):
        for s in steps:
            st = result["steps"][s]
            if st.get("part", PART.get(s, 1)) != p:
                continue
            o.append("%-17s %d/%d  %s" % (s, st["score"], st["max"],
                                          "OK" if st["passed"] else "FAIL"))
        o.append("%s: %d/%d" % (PART_LINE.get(p, "Part %d" % p), pgot, ptot))
        got, tot = got + pgot, tot + ptot
    stood = [s for s in steps if result["steps"][s].get("standins")]
    if stood:
        o.append("")
        o.append("Each step is judged on your own code: where a step of "
                 "yours failed, or made a later one fail, the steps after "
                 "it ran again with the reference's version of it in "
                 "place of yours:")
        for s in stood:
            st = result["steps"][s]
            o.append("  %-17s round %d, with the reference's %s" % (
                s, st.get("round", 0), ", ".join(st["standins"])))
    failed = [s for s in steps if not result["steps"][s]["passed"]]
    for s in failed:
        st = result["steps"][s]
        o.append("")
        o.append("== %s: FAIL" % s)
        o += st["evidence"][:24]
        if st["hint"]:
            o.append("  hint: " + st["hint"])
    if failed and result.get("own_lines"):
        o.append("")
        o.append("== your program's lines")
        o += result["own_lines"]
    if failed and result.get("wire"):
        for p, lines in sorted(result["wire"].items()):
            o.append("")
            o.append("== packets of %s (%s)" % (p, PAIR_TITLE[p]))
            o += ["  " + x for x in lines] or ["  (no RoCE packets)"]
    # The student's lines, hints and compiler messages are in there: each
    # line stays one line, with nothing a terminal would act on.
    return "\n".join(safe(x) for x in o), got, tot


def cmd_show(path, steps):
    result = json.load(open(path))
    text, got, tot = render(result, steps)
    print(text)
    return 0 if got == tot and not result.get("env_error") else 1


def cmd_report(out):
    sdir = os.path.join(out, "students")
    rows = []
    for name in sorted(os.listdir(sdir)):
        p = os.path.join(sdir, name, "result.json")
        if os.path.exists(p):
            rows.append(json.load(open(p)))
    later = range(2, LAB_PARTS + 1)  # the parts after the core

    def status(r):
        return "environment error" if r.get("env_error") else \
            "compile error" if r.get("compile_error") else "graded"

    def part(r, p):
        """(score, max) of part p, from the result's steps."""
        t = [(g, m) for q, g, m in part_totals(r) if q == p]
        return t[0] if t else (0, sum(pts for s, pts in GRADED
                                      if PART[s] == p))

    buf = io.StringIO()
    # \n, not csv's \r\n: grade-all greps the rows by their last field.
    # Columns by name: score and max are the core's, partN and partN_max
    # each later part's, status stays last.
    w = csv.writer(buf, lineterminator="\n")
    names = [s for s, _ in GRADED]
    w.writerow(["student"] + names + ["score", "max"] +
               [c % p for p in later for c in ("part%d", "part%d_max")] +
               ["status"])
    for r in rows:
        w.writerow([r["name"]] + [r["steps"][s]["score"] if s in r["steps"]
                                  else "" for s in names] +
                   [r["score"], r["max_score"]] +
                   [v for p in later for v in part(r, p)] + [status(r)])
    write_atomic(os.path.join(out, "report.csv"), buf.getvalue())
    write_course(out, later)
    return 0


def write_course(out, later):
    """report.md, lms.csv and report.html: statistics over real
    submissions only (classstats.py), the LMS's CSV (lms.py), the page
    (coursereport.py)."""
    from .classstats import counts, hint_counts, load, step_stats
    from .coursereport import sources_of, write_html
    from .lms import lms_rows
    from .similarity import THRESHOLD, cached_pairs
    rows = load(out)
    pairs, notes = cached_pairs(out, sources_of(rows))
    n = counts(rows)
    full = sum(all(x["parts"].get(p, (0, 1))[0] == x["parts"].get(
        p, (0, 1))[1] for p in range(1, LAB_PARTS + 1)) for x in rows)
    stats = step_stats(rows)
    real = n["graded"]
    md = ["# rdma-lab grades", "",
          "%d submissions graded; full marks%s: %d; environment errors: %d;"
          " compile errors: %d; no submission (no main.c, or refused): %d."
          % (len(rows), " (every part)" if later else "", full,
             n["environment error"], n["compile error"],
             n["no submission"]), "",
          "Each step over the %d real submissions (those that compiled "
          "and met no environment error); a step whose TODO is still in "
          "the student's main.c is counted as TODO, not by its failure's "
          "hint." % real, "",
          "| step | part | points | passed | still TODO | most common "
          "failure |" if later else "| step | points | passed | still TODO "
          "| most common failure |",
          "|---|---:|---:|---:|---:|---|" if later else
          "|---|---:|---:|---:|---|"]
    for s, pts, ok, tot, todo, hints in stats:
        common = max(hints.items(), key=lambda x: (x[1], x[0])) \
            if hints else None
        md.append("| %s |%s %d | %d/%d | %d | %s |" % (
            s, " %d |" % PART[s] if later else "", pts, ok, tot, todo,
            "%s (%d)" % (mdtext(common[0]), common[1]) if common else "-"))
    hc = hint_counts(rows)
    if hc:
        md += ["", "| hint | failed steps | students |", "|---|---:|---:|"]
        md += ["| %s | %d | %d |" % (mdtext(h), k, m) for h, k, m in hc]
    titles = [PART_LINE.get(p, "Part %d" % p).lower() for p in later]
    md += ["", "| student | score |%s status |" % "".join(
        " %s |" % t for t in titles),
        "|---|---:|%s---|" % ("---:|" * len(titles))]
    for x in rows:
        r = x["result"]
        md.append("| %s | %d/%d |%s %s |" % (
            mdtext(r["name"]), r["score"], r["max_score"], "".join(
                " %d/%d |" % x["parts"].get(p, (0, 0)) for p in later),
            x["kind"]))
    md += ["", "Similar submissions (sim_c, the skeleton left out; at "
           "least %d %% of one is in the other; report.html shows the "
           "shared code; no grade changes):" % THRESHOLD, ""]
    md += ["- %s and %s: %d %%" % (mdtext(a), mdtext(b), pct)
           for pct, a, b, _ in pairs] or ["- none"]
    md += ["- %s" % mdtext(n) for n in notes]
    again = [x for x in rows if x["regraded"]]
    if again:
        md += ["", "Graded again by a later run:", ""]
        md += ["- %s: %s" % (mdtext(x["name"]), mdtext(x["regraded"]))
               for x in again]
    write_atomic(os.path.join(out, "report.md"), "\n".join(md) + "\n")
    write_atomic(os.path.join(out, "lms.csv"), lms_rows(
        [(x["result"], x["people"], x["parts"], x["kind"]) for x in rows],
        later))
    write_html(out, rows, stats, hc, pairs, notes)

#!/usr/bin/env python3
"""The course layer over real grades, with no guests:
    tests/grader/course_check.py JUDGED
JUDGED: tests/grader/judges/record --judge's folder (the recorded evidence
judged again by this tree).  Courses are laid out as Gradescope, Canvas,
Moodle and a plain folder deliver them, with decoy files beside; each
student's folder under OUT is given the judged result of its program
and its main.c, so that grader/grade-all finds every grade standing and
writes the reports.  It runs from a copy of the tree whose guests'
batch is a stub (it boots no guest, whatever it is asked): a student it
grades again gets a judged result, recorded as the batch records it.
Checked: the ids, names, emails and totals of lms.csv; each decoy named
and left out; a no-op rerun under 5 s; a resubmission graded again and
named, another grader's result graded again and counted; report.md's
statistics over real submissions; report.html in headless Chromium (its
text, its charts drawn, a screenshot's size); the similarity report (a
renamed and reformatted copy flagged, two independent solutions not).
One "ok", "FAIL" or "SKIP: reason" line per check."""
import csv
import hashlib
import json
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from checklib import check, done  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
G = os.path.join(ROOT, "grader", "grader.py")
JUDGED = os.path.abspath(sys.argv[1]) if len(sys.argv) == 2 else \
    sys.exit("usage: tests/grader/course_check.py JUDGED")
STEPS = subprocess.run([sys.executable, "-S", G, "steps", "--graded"],
                       capture_output=True, text=True,
                       check=True).stdout.split()[::3]


def source(seed):
    """The C source the recording's submission SEED was made from, as
    tests/grader/grade.sh makes it."""
    if seed == "reference":
        return open(os.path.join(ROOT, "solution", "main.c")).read()
    if seed == "skeleton":
        return open(os.path.join(ROOT, "lab", "main.c")).read()
    if seed == "alt":
        return subprocess.run(
            [sys.executable, "tests/grader/seeds/mkalt.py", "lab/main.c",
             "tests/grader/seeds/alt.c"], cwd=ROOT, capture_output=True,
            text=True, check=True).stdout
    for d in ("tests/grader/seeds/mistakes", "tests/grader/seeds/hostile"):
        f = os.path.join(ROOT, d, seed + ".sed")
        if os.path.exists(f):
            return subprocess.run(
                ["sed", "-f", f, "solution/main.c"], cwd=ROOT,
                capture_output=True, text=True,
                check=True).stdout.replace("@ROOT@", ROOT)
    raise SystemExit("no seed " + seed)


def disguise(text):
    """A copy as a student hides one: its own identifiers renamed (not a
    struct's members: .wr.rdma stays), comments dropped, the indentation
    redone.  It still compiles (cc -fsyntax-only, 2026-11-28)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for a, b in (("ctx", "c"), ("wr", "req"), ("sge", "seg"),
                 ("attr", "qpa"), ("ret", "rv"), ("rc", "status")):
        text = re.sub(r"(?<![.>])\b%s\b" % a, b, text)
    return text.replace("\t", "    ")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def result_of(seed):
    with open(os.path.join(JUDGED, "students", seed, "result.json")) as f:
        return json.load(f)


def totals(seed):
    """(core, part two, total) of the judged result."""
    parts = result_of(seed)["parts"]
    core = parts["1"]["score"]
    two = sum(p["score"] for k, p in parts.items() if k != "1")
    return core, two, core + two


def keep(seed, d):
    """D's result: the judged one of SEED, whose program D/main.c is.  The
    judges judged it without the source beside it (its "graded" record
    names none): it is recorded here, as the batch records it."""
    r = result_of(seed)
    with open(os.path.join(d, "main.c"), "rb") as f:
        r.setdefault("graded", {})["source_sha256"] = \
            "main.c:" + hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(d, "result.json"), "w") as f:
        json.dump(r, f, indent=1)


def lay(subs, out, entries, decoys):
    """A course: entries {path in SUBS: (seed, folder)}; each one's main.c
    there and its folder in OUT/students with the judged result."""
    for path, (seed, folder) in entries.items():
        text = source(seed)
        dest = os.path.join(subs, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w") as f:
            f.write(text)
        d = os.path.join(out, "students", folder)
        os.makedirs(d)
        with open(os.path.join(d, "main.c"), "w") as f:
            f.write(text)
        keep(seed, d)
    for path, text in decoys.items():
        dest = os.path.join(subs, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w") as f:
            f.write(text)


STUB_BATCH = """#!/bin/sh
# The guests' batch, stubbed: each student without a result gets
# $STUB_RESULT, recorded as graded now from its own folder
# (provenance.record), and its name in $STUB_LOG.
for d in "$1"/students/*/; do
	[ ! -e "$d/result.json" ] || continue
	echo "$d" >>"$STUB_LOG"
	python3 -S -c 'import json, sys
sys.path.insert(0, sys.argv[3])
from labgrader.provenance import record
r = json.load(open(sys.argv[2]))
r["graded"] = record(sys.argv[1])
json.dump(r, open(sys.argv[1] + "/result.json", "w"), indent=1)
' "$d" "$STUB_RESULT" "$GRADER"
done
"""


def fake_tree(t):
    """grader/grade-all in a tree whose guests' batch is STUB_BATCH: it boots
    no guest, whatever it is asked (tests/grader/host_input.sh does the
    same)."""
    top = os.path.join(t, "fake")
    if not os.path.isdir(top):
        os.makedirs(os.path.join(top, "grader"))
        shutil.copy(os.path.join(ROOT, "grader", "grade-all"),
                    os.path.join(top, "grader"))
        os.symlink(G, os.path.join(top, "grader", "grader.py"))
        os.symlink(os.path.join(ROOT, "lab"), os.path.join(top, "lab"))
        for path, text in (("grader/capacity", "#!/bin/sh\necho 1\n"),
                           ("grader/batch", STUB_BATCH)):
            with open(os.path.join(top, path), "w") as f:
                f.write(text)
            os.chmod(os.path.join(top, path), 0o755)
    return top


def grade_all(subs, out, result="reference"):
    """grader/grade-all over SUBS into OUT (fake_tree's: no guests); a
    student it grades gets the judged result of RESULT.  Status, output,
    CPU seconds, the students the stub graded."""
    top = fake_tree(os.path.dirname(out))
    log = out + ".stub"
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, STUB_LOG=log, GRADER=os.path.dirname(G),
               STUB_RESULT=os.path.join(JUDGED, "students", result,
                                        "result.json"))
    # Its CPU time, not its wall time: beside make test's guests a no-op
    # rerun took 17.8 s of wall (and is 1.5-1.8 s on a quiet host).
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([os.path.join(top, "grader", "grade-all"), "-j", "1",
                        "--out", out, subs], capture_output=True, text=True,
                       env=env, timeout=120)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    stubbed = [os.path.basename(x.rstrip("/")) for x in read(log).split()]
    return p.returncode, p.stdout + p.stderr, cpu, stubbed


def lms(out):
    """lms.csv's rows by id ({} without the file: the checks then fail)."""
    try:
        with open(os.path.join(out, "lms.csv"), newline="") as f:
            return {r["id"]: r for r in csv.DictReader(f)}
    except OSError:
        return {}


def expect_rows(name, rows, want):
    """want: {id: (name, email, seed)}: each id's row has them and the
    seed's judged totals."""
    bad = []
    for i, (who, mail, seed) in want.items():
        r = rows.get(i)
        core, two, tot = totals(seed)
        if not r or (r["name"], r["email"], r["core"], r["part_two"],
                     r["total"]) != (who, mail, str(core), str(two),
                                     str(tot)):
            bad.append("%s: %s, want %s" % (i, r, (who, mail, core, two,
                                                     tot)))
    check(name, not bad and len(rows) == len(want),
          "; ".join(bad) or "ids %s" % sorted(rows))


def gradescope(t):
    subs, out = os.path.join(t, "gs"), os.path.join(t, "gs.graded")
    lay(subs, out, {
        "submission_1001/main.c": ("reference", "submission_1001"),
        "submission_1002/lab/main.c": ("late_recv", "submission_1002"),
        "submission_1003/main.c": ("skeleton", "submission_1003"),
        "submission_1004/main.c": ("no_compile", "submission_1004"),
    }, {
        "submission_metadata.yml": """\
submission_1001:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1001'
    :email: ada@example.edu
  :created_at: 2026-11-20 10:00:00.000000000 +00:00
  :score: 0.0
submission_1002:
  :submitters:
  - :name: "Grace <b>Hopper</b>"
    :sid: '1002'
    :email: grace@example.edu
  - :name: '=HYPERLINK(''http://x'')'
    :sid: '1012'
    :email: pair@example.edu
  :results:
    :score: 3
submission_1003:
  :submitters:
  - :name: Alan Turing
    :sid: '1003'
    :email: alan@example.edu
submission_1004:
  :submitters:
  - :name: Kurt Goedel
    :sid: '1004'
    :email: kurt@example.edu
""",
        "README.txt": "not a submission\n",
        "grades.csv": "id,score\n"})
    rc, text, secs, stub = grade_all(subs, out)
    check("gradescope_export_graded (every grade stands: none again)",
          rc == 0 and "nothing to grade" in text and not stub,
          "status %d, graded %s: %s" % (rc, stub, text[-600:]))
    check("gradescope_decoys_named_and_left_out", all(
        'ignored "%s"' % d in text for d in (
            "submission_metadata.yml", "README.txt", "grades.csv")) and
        sorted(os.listdir(os.path.join(out, "students"))) == [
            "submission_100%d" % k for k in (1, 2, 3, 4)], text[-600:])
    rows = lms(out)
    expect_rows("gradescope_ids_names_emails_totals (a group's two "
                "submitters)", rows, {
                    "1001": ("Ada Lovelace", "ada@example.edu", "reference"),
                    "1002": ("Grace <b>Hopper</b>", "grace@example.edu",
                             "late_recv"),
                    "1012": ("'=HYPERLINK('http://x')", "pair@example.edu",
                             "late_recv"),
                    "1003": ("Alan Turing", "alan@example.edu", "skeleton"),
                    "1004": ("Kurt Goedel", "kurt@example.edu",
                             "no_compile")})
    check("lms_csv_status_of_a_compile_error",
          rows.get("1004", {}).get("status") == "compile error",
          str(rows.get("1004")))
    rc, text, secs, stub = grade_all(subs, out)
    check("no_op_rerun_under_5_s (%.1f CPU-s)" % secs,
          rc == 0 and secs < 5 and
          "nothing to grade" in text and not stub,
          "status %d: %s" % (rc, text[-400:]))
    return out


def canvas_moodle_plain(t):
    subs, out = os.path.join(t, "cv"), os.path.join(t, "cv.graded")
    lay(subs, out, {
        "lovelaceada_2001_9001_main.c": ("reference",
                                         "lovelaceada_2001_9001_main"),
        "LATE_hoppergrace_2002_9002_main-1.c": (
            "no_recv", "LATE_hoppergrace_2002_9002_main-1"),
        "turingalan_LATE_2003_9003_main.c": (
            "alt", "turingalan_LATE_2003_9003_main")},
        {"lovelaceada_2001_9001_notes.txt": "mine\n"})
    rc, text, _, stub = grade_all(subs, out)
    expect_rows("canvas_ids_and_totals (LATE_ either place)", lms(out), {
        "2001": ("lovelaceada", "", "reference"),
        "2002": ("hoppergrace", "", "no_recv"),
        "2003": ("turingalan", "", "alt")})
    check("canvas_attachment_named_and_left_out", rc == 0 and
          'ignored "lovelaceada_2001_9001_notes.txt"' in text, text[-600:])
    subs, out = os.path.join(t, "md"), os.path.join(t, "md.graded")
    lay(subs, out, {
        "Ada Lovelace_3001_assignsubmission_file_/main.c": (
            "reference", "Ada_Lovelace_3001_assignsubmission_file_"),
        "Grace Hopper_3002_assignsubmission_file_/rdma/main.c": (
            "late_recv", "Grace_Hopper_3002_assignsubmission_file_")},
        {"Ada Lovelace_3001_assignsubmission_onlinetext_/onlinetext.html":
         "<p>see my file</p>\n"})
    rc, text, _, stub = grade_all(subs, out)
    expect_rows("moodle_ids_and_names", lms(out), {
        "3001": ("Ada Lovelace", "", "reference"),
        "3002": ("Grace Hopper", "", "late_recv")})
    check("moodle_online_text_named_and_left_out", rc == 0 and
          "Moodle's onlinetext, not a file submission" in text, text[-600:])
    subs, out = os.path.join(t, "pl"), os.path.join(t, "pl.graded")
    lay(subs, out, {"ada.c": ("reference", "ada"),
                    "grace/main.c": ("late_recv", "grace")},
        {"notes.txt": "x\n", "weird\x1b[31m.pdf": "x\n"})
    rc, text, _, stub = grade_all(subs, out)
    expect_rows("plain_folder_ids_are_the_names", lms(out), {
        "ada": ("", "", "reference"), "grace": ("", "", "late_recv")})
    check("plain_decoys_named_escaped", rc == 0 and 'ignored "notes.txt"'
          in text and "\x1b" not in text and "weird\\x1b[31m.pdf" in text,
          repr(text[-600:]))


def regrade(subs, out):
    """A resubmitted file is graded again and named; a result of another
    grader is graded again and counted; then nothing is left."""
    with open(os.path.join(subs, "submission_1001", "main.c"), "a") as f:
        f.write("/* resubmitted */\n")
    rc, text, _, stub = grade_all(subs, out, "reference")
    d = os.path.join(out, "students", "submission_1001")
    graded = (json.loads(read(os.path.join(d, "result.json")) or "{}")
              .get("graded") or {})
    with open(os.path.join(d, "main.c"), "rb") as f:
        now = "main.c:" + hashlib.sha256(f.read()).hexdigest()
    check("resubmission_graded_again_and_named", rc == 0 and stub == [
        "submission_1001"] and "grade-all: submission_1001: the submission "
        "changed since its grade: graded again" in text and
        graded.get("source_sha256") == now and "submission\\_1001: the "
        "submission changed" in read(os.path.join(out, "report.md")),
        "status %d, graded %s, %s: %s" % (rc, stub, graded, text[-500:]))
    p = os.path.join(out, "students", "submission_1003", "result.json")
    r = json.loads(read(p))
    r["graded"]["grader_version"] = "0" * 16
    with open(p, "w") as f:
        json.dump(r, f, indent=1)
    rc, text, _, stub = grade_all(subs, out, "skeleton")
    check("another_grader_graded_again_and_counted", rc == 0 and stub == [
        "submission_1003"] and "grade-all: 1 graded again: the grader "
        "changed" in text, "status %d, graded %s: %s" % (rc, stub,
                                                         text[-500:]))
    rc, text, _, stub = grade_all(subs, out)
    check("then_nothing_to_grade", rc == 0 and not stub and
          "nothing to grade" in text, text[-300:])
    g = result_of("reference").get("graded") or {}
    check("result_json_records_grader_and_time", re.fullmatch(
        r"[0-9a-f]{16}", g.get("grader_version", "")) and re.fullmatch(
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", g.get("graded_at", "")),
          str(g))


def statistics(out):
    """report.md over real submissions: the skeleton's TODO steps are
    TODO, not RNR; the compile error counted apart."""
    md = read(os.path.join(out, "report.md"))
    send = re.search(r"^\| send \|.*$", md, re.M)
    # reference and late_recv pass send; the skeleton's is a TODO.
    check("report_md_todo_steps_not_given_a_hint", send and "RNR" not in
          send.group(0) and "| 2/3 | 1 | - |" in send.group(0),
          send.group(0) if send else md[:600])
    check("report_md_counts_apart", "compile errors: 1;" in md and
          "over the 3 real submissions" in md and
          "| the step is still a TODO" in md, md[:800])


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def chromium(args, t):
    cmd = ["chromium", "--headless", "--disable-gpu",
           "--user-data-dir=" + os.path.join(t, "chromium"),
           "--virtual-time-budget=5000"] + args
    if os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")  # root: its sandbox refuses to start
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=120).stdout


def html_report(t, out):
    if not shutil.which("chromium"):
        print("SKIP: report.html not opened: chromium is not installed "
              "(vm/deps --tests installs it)")
        return
    page = "file://" + os.path.join(out, "report.html")
    dom = chromium(["--dump-dom", page], t)
    text = re.sub(r"<[^>]*>", " ", dom)
    rows = all(re.search(r"<td>%s</td><td class=\"n\">\d+/\d+</td>" % s,
                         dom) for s in STEPS)
    check("report_html_in_chromium_shows_distribution_and_steps",
          "Score distribution" in text and rows and
          "Each step over the 3 real submissions" in text, text[:800])
    check("report_html_charts_drawn_by_chart_js",
          'data-charts="drawn"' in dom and
          re.search(r'<canvas id="dist" [^>]*width="\d+"', dom),
          dom[:400])
    check("report_html_student_text_escaped (a name with <b>)",
          "Grace &lt;b&gt;Hopper&lt;/b&gt;" in dom and "<b>Hopper" not
          in dom, re.findall(r".{40}Hopper.{20}", dom)[:3])
    shot = os.path.join(t, "report.png")
    chromium(["--window-size=1000,1400", "--screenshot=" + shot, page], t)
    size = png_size(shot) if os.path.exists(shot) else None
    check("report_html_screenshot (1000x1400, drawn, not blank)",
          size == (1000, 1400) and os.path.getsize(shot) > 40000,
          "%s, %d bytes" % (size, os.path.getsize(shot) if size else 0))


def similarity(t):
    subs, out = os.path.join(t, "sim"), os.path.join(t, "sim.graded")
    lay(subs, out, {"ada.c": ("reference", "ada"), "alan.c": ("alt", "alan"),
                    "kurt.c": ("skeleton", "kurt"),
                    "emmy.c": ("skeleton", "emmy")}, {})
    with open(os.path.join(subs, "grace.c"), "w") as f:
        f.write(disguise(source("reference")))
    os.makedirs(os.path.join(out, "students", "grace"))
    shutil.copy(os.path.join(subs, "grace.c"),
                os.path.join(out, "students", "grace", "main.c"))
    keep("reference", os.path.join(out, "students", "grace"))
    rc, text, _, stub = grade_all(subs, out)
    if not shutil.which("sim_c"):
        print("SKIP: similarity not checked: sim_c is not installed "
              "(vm/deps --tests installs similarity-tester)")
        return
    md = read(os.path.join(out, "report.md"))
    pairs = re.findall(r"^- (\w+) and (\w+): (\d+) %$", md, re.M)
    check("similarity_flags_the_disguised_copy_only (the independent "
          "solutions and two untouched skeletons not)", rc == 0 and
          [p[:2] for p in pairs] == [("ada", "grace")], str(pairs) +
          text[-300:])
    page = read(os.path.join(out, "report.html"))
    check("similarity_shows_shared_fragments", re.search(
        r'class="pair">ada and grace: \d+ %</h3>\s*<p>ada lines \d+-\d+, '
        r'grace lines \d+-\d+, \d+ tokens:</p><pre>.*ibv_', page, re.S),
        page[page.find("Similar"):][:600])
    grades = {r["id"]: r["total"] for r in lms(out).values()}
    check("similarity_changes_no_grade", grades.get("grace") ==
          grades.get("ada") == str(totals("reference")[2]), str(grades))


with tempfile.TemporaryDirectory() as t:
    out = gradescope(t)
    canvas_moodle_plain(t)
    statistics(out)
    html_report(t, out)
    regrade(os.path.join(t, "gs"), out)
    similarity(t)
done()

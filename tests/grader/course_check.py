#!/usr/bin/env python3
"""The course layer over real grades, with no guests.  JUDGED is
tests/grader/judges/record --judge's folder (the recorded evidence judged
again by this tree); tests/grader/judges.sh makes it and runs
    tests/grader/course_check.py JUDGED
whose lines, one a check, are checklib's: "ok   NAME", "FAIL NAME: why" or
"SKIP: NAME: reason" (tests/checklib.py).  The same tests run the usual way
with the folder in COURSE_GRADED, from tests/grader:
    COURSE_GRADED=JUDGED python3 -m unittest -v course_check
Without the folder either way: one line of error, status 2.

Courses are laid out as Gradescope, Canvas, Moodle and a plain folder
deliver them, with decoy files beside; each student's folder under OUT is
given the judged result of its program and its main.c, so that
grader/grade-all finds every grade standing and writes the reports.  It
runs from a copy of the tree whose guests' batch is a stub (it boots no
guest, whatever it is asked): a student it grades again gets a judged
result, recorded as the batch records it.
Checked: the ids, names, emails and totals of lms.csv; each decoy named
and left out; a no-op rerun under 5 s; a resubmission graded again and
named, another grader's result graded again and counted; report.md's
statistics over real submissions; report.html in headless Chromium (its
text, its charts drawn, a screenshot's size); the similarity report (a
renamed and reformatted copy flagged, two independent solutions not)."""
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
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))  # tests/checklib.py
import checklib  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
G = os.path.join(ROOT, "grader", "grader.py")
# The judged folder: the script's argument (set at the end) or, under
# python3 -m unittest, COURSE_GRADED (setUpModule).
JUDGED = None
# setUpModule's temporary folder: every course is laid out in it, beside
# the one fake tree they share (fake_tree).
T = None


def judged_folder(path, named):
    """PATH made absolute, when it is a judged folder (its students/);
    else one line of error and status 2: there is nothing to check."""
    if path and os.path.isdir(os.path.join(path, "students")):
        return os.path.abspath(path)
    why = ("%s %r is not a judged folder (no students/ in it)" %
           (named, path) if path else "no judged folder in " + named)
    print("course_check: %s: tests/grader/judges/record --judge makes one"
          % why, file=sys.stderr)
    sys.exit(2)


def setUpModule():
    global JUDGED, T
    if JUDGED is None:
        JUDGED = judged_folder(os.environ.get("COURSE_GRADED", ""),
                               "COURSE_GRADED")
    tmp = tempfile.TemporaryDirectory()
    unittest.addModuleCleanup(tmp.cleanup)
    T = tmp.name


def steps():
    """The graded steps' names, as grader.py lists them."""
    return subprocess.run([sys.executable, "-S", G, "steps", "--graded"],
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
        os.symlink(os.path.join(ROOT, "grader", "settings.sh"),
                   os.path.join(top, "grader", "settings.sh"))
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


def open_report(t, out):
    """report.html in headless Chromium: its DOM, and a screenshot's size
    and bytes (0 when it is no PNG); None without Chromium."""
    if not shutil.which("chromium"):
        return None
    page = "file://" + os.path.join(out, "report.html")
    dom = chromium(["--dump-dom", page], t)
    shot = os.path.join(t, "report.png")
    chromium(["--window-size=1000,1400", "--screenshot=" + shot, page], t)
    size = png_size(shot) if os.path.exists(shot) else None
    return types.SimpleNamespace(dom=dom, size=size, bytes=os.path.getsize(
        shot) if size else 0)


def resubmit(subs, out):
    """submission_1001's file changed and graded again: status, output,
    the students the stub graded, its result's "graded" record, its
    main.c's hash now, and report.md as this run wrote it."""
    with open(os.path.join(subs, "submission_1001", "main.c"), "a") as f:
        f.write("/* resubmitted */\n")
    rc, text, _, stub = grade_all(subs, out, "reference")
    d = os.path.join(out, "students", "submission_1001")
    graded = (json.loads(read(os.path.join(d, "result.json")) or "{}")
              .get("graded") or {})
    with open(os.path.join(d, "main.c"), "rb") as f:
        now = "main.c:" + hashlib.sha256(f.read()).hexdigest()
    return rc, text, stub, graded, now, read(os.path.join(out, "report.md"))


def other_grader(subs, out):
    """submission_1003's result said to be another grader's, and graded
    again: status, output, the students the stub graded."""
    p = os.path.join(out, "students", "submission_1003", "result.json")
    r = json.loads(read(p))
    r["graded"]["grader_version"] = "0" * 16
    with open(p, "w") as f:
        json.dump(r, f, indent=1)
    rc, text, _, stub = grade_all(subs, out, "skeleton")
    return rc, text, stub


GRADESCOPE_METADATA = """\
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
"""


def gradescope_sequence():
    """The Gradescope course, in the order each step needs: graded, graded
    again with nothing to do, its reports read and opened in Chromium,
    then a resubmission and another grader's result graded again, then
    nothing left.  Each run rewrites report.md and lms.csv, so what each
    step found is kept as it was then, for the checks to assert on."""
    subs, out = os.path.join(T, "gs"), os.path.join(T, "gs.graded")
    lay(subs, out, {
        "submission_1001/main.c": ("reference", "submission_1001"),
        "submission_1002/lab/main.c": ("late_recv", "submission_1002"),
        "submission_1003/main.c": ("skeleton", "submission_1003"),
        "submission_1004/main.c": ("no_compile", "submission_1004"),
    }, {
        "submission_metadata.yml": GRADESCOPE_METADATA,
        "README.txt": "not a submission\n",
        "grades.csv": "id,score\n"})
    s = types.SimpleNamespace()
    s.first = grade_all(subs, out)
    s.students = sorted(os.listdir(os.path.join(out, "students")))
    s.rows = lms(out)
    s.rerun = grade_all(subs, out)
    s.md = read(os.path.join(out, "report.md"))
    s.html = open_report(T, out)
    s.resubmitted = resubmit(subs, out)
    s.other = other_grader(subs, out)
    s.last = grade_all(subs, out)
    return s


_gradescope = []


def gradescope_course():
    """gradescope_sequence's findings, run once for the classes that
    assert on them, whichever asks first (unittest runs classes by name,
    not in the sequence's order); its failure is raised to each."""
    if not _gradescope:
        try:
            _gradescope.append(gradescope_sequence())
        except Exception as e:
            _gradescope.append(e)
    if isinstance(_gradescope[0], Exception):
        raise _gradescope[0]
    return _gradescope[0]


class Course(checklib.Case):
    # A failure says the check's why alone, as check() did, not "False is
    # not true : why".
    longMessage = False

    def assertRows(self, rows, want):
        """want: {id: (name, email, seed)}: each id's row has them and the
        seed's judged totals, and no other id has a row."""
        bad = []
        for i, (who, mail, seed) in want.items():
            r = rows.get(i)
            core, two, tot = totals(seed)
            if not r or (r["name"], r["email"], r["core"], r["part_two"],
                         r["total"]) != (who, mail, str(core), str(two),
                                         str(tot)):
                bad.append("%s: %s, want %s" % (i, r, (who, mail, core, two,
                                                         tot)))
        self.assertTrue(not bad and len(rows) == len(want),
                        "; ".join(bad) or "ids %s" % sorted(rows))


class GradescopeCourse(Course):
    """The checks on gradescope_course's findings (it has no test)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gs = gradescope_course()


class Gradescope(GradescopeCourse):
    """An export's metadata read, its decoys named, a rerun with nothing
    to do."""

    def test_gradescope_export_graded(self):
        self.detail = "every grade stands: none again"
        rc, text, _, stub = self.gs.first
        self.assertTrue(rc == 0 and "nothing to grade" in text and not stub,
                        "status %d, graded %s: %s" % (rc, stub, text[-600:]))

    def test_gradescope_decoys_named_and_left_out(self):
        text = self.gs.first[1]
        self.assertTrue(all('ignored "%s"' % d in text for d in (
            "submission_metadata.yml", "README.txt", "grades.csv")) and
            self.gs.students == [
                "submission_100%d" % k for k in (1, 2, 3, 4)], text[-600:])

    def test_gradescope_ids_names_emails_totals(self):
        self.detail = "a group's two submitters"
        self.assertRows(self.gs.rows, {
            "1001": ("Ada Lovelace", "ada@example.edu", "reference"),
            "1002": ("Grace <b>Hopper</b>", "grace@example.edu",
                     "late_recv"),
            "1012": ("'=HYPERLINK('http://x')", "pair@example.edu",
                     "late_recv"),
            "1003": ("Alan Turing", "alan@example.edu", "skeleton"),
            "1004": ("Kurt Goedel", "kurt@example.edu", "no_compile")})

    def test_lms_csv_status_of_a_compile_error(self):
        rows = self.gs.rows
        self.assertTrue(rows.get("1004", {}).get("status") ==
                        "compile error", str(rows.get("1004")))

    def test_no_op_rerun_under_5_s(self):
        rc, text, secs, stub = self.gs.rerun
        self.detail = "%.1f CPU-s" % secs
        self.assertTrue(rc == 0 and secs < 5 and
                        "nothing to grade" in text and not stub,
                        "status %d: %s" % (rc, text[-400:]))


class Statistics(GradescopeCourse):
    """report.md over real submissions: the skeleton's TODO steps are
    TODO, not RNR; the compile error counted apart."""

    def test_report_md_todo_steps_not_given_a_hint(self):
        md = self.gs.md
        send = re.search(r"^\| send \|.*$", md, re.M)
        # reference and late_recv pass send; the skeleton's is a TODO.
        self.assertTrue(send and "RNR" not in send.group(0) and
                        "| 2/3 | 1 | - |" in send.group(0),
                        send.group(0) if send else md[:600])

    def test_report_md_counts_apart(self):
        md = self.gs.md
        self.assertTrue("compile errors: 1;" in md and
                        "over the 3 real submissions" in md and
                        "| the step is still a TODO" in md, md[:800])


class HtmlReport(GradescopeCourse):
    """report.html in headless Chromium: its text, its charts drawn, the
    students' text escaped, a screenshot's size."""

    def setUp(self):
        if self.gs.html is None:
            self.skipTest("report.html not opened: chromium is not "
                          "installed (vm/deps --tests installs it)")

    def test_report_html_in_chromium_shows_distribution_and_steps(self):
        dom = self.gs.html.dom
        text = re.sub(r"<[^>]*>", " ", dom)
        rows = all(re.search(r"<td>%s</td><td class=\"n\">\d+/\d+</td>" % s,
                             dom) for s in steps())
        self.assertTrue("Score distribution" in text and rows and
                        "Each step over the 3 real submissions" in text,
                        text[:800])

    def test_report_html_charts_drawn_by_chart_js(self):
        dom = self.gs.html.dom
        self.assertTrue('data-charts="drawn"' in dom and
                        re.search(r'<canvas id="dist" [^>]*width="\d+"',
                                  dom), dom[:400])

    def test_report_html_student_text_escaped(self):
        self.detail = "a name with <b>"
        dom = self.gs.html.dom
        self.assertTrue("Grace &lt;b&gt;Hopper&lt;/b&gt;" in dom and
                        "<b>Hopper" not in dom,
                        str(re.findall(r".{40}Hopper.{20}", dom)[:3]))

    def test_report_html_screenshot(self):
        self.detail = "1000x1400, drawn, not blank"
        size, size_bytes = self.gs.html.size, self.gs.html.bytes
        self.assertTrue(size == (1000, 1400) and size_bytes > 40000,
                        "%s, %d bytes" % (size, size_bytes))


class Regrade(GradescopeCourse):
    """A resubmitted file is graded again and named; a result of another
    grader is graded again and counted; then nothing is left."""

    def test_resubmission_graded_again_and_named(self):
        rc, text, stub, graded, now, md = self.gs.resubmitted
        self.assertTrue(
            rc == 0 and stub == ["submission_1001"] and
            "grade-all: submission_1001: the submission changed since its "
            "grade: graded again" in text and
            graded.get("source_sha256") == now and
            "submission\\_1001: the submission changed" in md,
            "status %d, graded %s, %s: %s" % (rc, stub, graded,
                                              text[-500:]))

    def test_another_grader_graded_again_and_counted(self):
        rc, text, stub = self.gs.other
        self.assertTrue(rc == 0 and stub == ["submission_1003"] and
                        "grade-all: 1 graded again: the grader changed"
                        in text, "status %d, graded %s: %s" %
                        (rc, stub, text[-500:]))

    def test_then_nothing_to_grade(self):
        rc, text, _, stub = self.gs.last
        self.assertTrue(rc == 0 and not stub and "nothing to grade" in text,
                        text[-300:])

    def test_result_json_records_grader_and_time(self):
        # What the regrade by grader reads: the judged result's record.
        g = result_of("reference").get("graded") or {}
        self.assertTrue(re.fullmatch(
            r"[0-9a-f]{16}", g.get("grader_version", "")) and re.fullmatch(
                r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", g.get("graded_at", "")),
            str(g))


class Canvas(Course):
    """Canvas's file names: the id after the name, LATE_ either place; a
    second attachment left out."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        subs, out = os.path.join(T, "cv"), os.path.join(T, "cv.graded")
        lay(subs, out, {
            "lovelaceada_2001_9001_main.c": ("reference",
                                             "lovelaceada_2001_9001_main"),
            "LATE_hoppergrace_2002_9002_main-1.c": (
                "no_recv", "LATE_hoppergrace_2002_9002_main-1"),
            "turingalan_LATE_2003_9003_main.c": (
                "alt", "turingalan_LATE_2003_9003_main")},
            {"lovelaceada_2001_9001_notes.txt": "mine\n"})
        cls.rc, cls.text, _, _ = grade_all(subs, out)
        cls.rows = lms(out)

    def test_canvas_ids_and_totals(self):
        self.detail = "LATE_ either place"
        self.assertRows(self.rows, {
            "2001": ("lovelaceada", "", "reference"),
            "2002": ("hoppergrace", "", "no_recv"),
            "2003": ("turingalan", "", "alt")})

    def test_canvas_attachment_named_and_left_out(self):
        self.assertTrue(self.rc == 0 and
                        'ignored "lovelaceada_2001_9001_notes.txt"' in
                        self.text, self.text[-600:])


class Moodle(Course):
    """Moodle's folders, a file deeper down; its online text left out."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        subs, out = os.path.join(T, "md"), os.path.join(T, "md.graded")
        lay(subs, out, {
            "Ada Lovelace_3001_assignsubmission_file_/main.c": (
                "reference", "Ada_Lovelace_3001_assignsubmission_file_"),
            "Grace Hopper_3002_assignsubmission_file_/rdma/main.c": (
                "late_recv", "Grace_Hopper_3002_assignsubmission_file_")},
            {"Ada Lovelace_3001_assignsubmission_onlinetext_/"
             "onlinetext.html": "<p>see my file</p>\n"})
        cls.rc, cls.text, _, _ = grade_all(subs, out)
        cls.rows = lms(out)

    def test_moodle_ids_and_names(self):
        self.assertRows(self.rows, {
            "3001": ("Ada Lovelace", "", "reference"),
            "3002": ("Grace Hopper", "", "late_recv")})

    def test_moodle_online_text_named_and_left_out(self):
        self.assertTrue(self.rc == 0 and "Moodle's onlinetext, not a file "
                        "submission" in self.text, self.text[-600:])


class PlainFolder(Course):
    """A plain folder: the ids are the names; a decoy's name with an
    escape sequence shown escaped."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        subs, out = os.path.join(T, "pl"), os.path.join(T, "pl.graded")
        lay(subs, out, {"ada.c": ("reference", "ada"),
                        "grace/main.c": ("late_recv", "grace")},
            {"notes.txt": "x\n", "weird\x1b[31m.pdf": "x\n"})
        cls.rc, cls.text, _, _ = grade_all(subs, out)
        cls.rows = lms(out)

    def test_plain_folder_ids_are_the_names(self):
        self.assertRows(self.rows, {
            "ada": ("", "", "reference"), "grace": ("", "", "late_recv")})

    def test_plain_decoys_named_escaped(self):
        text = self.text
        self.assertTrue(self.rc == 0 and 'ignored "notes.txt"' in text and
                        "\x1b" not in text and "weird\\x1b[31m.pdf" in text,
                        repr(text[-600:]))


class Similarity(Course):
    """The similarity report: a renamed and reformatted copy flagged, two
    independent solutions and two untouched skeletons not; no grade
    changed."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        subs, out = os.path.join(T, "sim"), os.path.join(T, "sim.graded")
        lay(subs, out, {"ada.c": ("reference", "ada"),
                        "alan.c": ("alt", "alan"),
                        "kurt.c": ("skeleton", "kurt"),
                        "emmy.c": ("skeleton", "emmy")}, {})
        with open(os.path.join(subs, "grace.c"), "w") as f:
            f.write(disguise(source("reference")))
        os.makedirs(os.path.join(out, "students", "grace"))
        shutil.copy(os.path.join(subs, "grace.c"),
                    os.path.join(out, "students", "grace", "main.c"))
        keep("reference", os.path.join(out, "students", "grace"))
        cls.rc, cls.text, _, _ = grade_all(subs, out)
        cls.md = read(os.path.join(out, "report.md"))
        cls.page = read(os.path.join(out, "report.html"))
        cls.rows = lms(out)

    def setUp(self):
        # Graded all the same (setUpClass), as before sim_c was looked for.
        if not shutil.which("sim_c"):
            self.skipTest("similarity not checked: sim_c is not installed "
                          "(vm/deps --tests installs similarity-tester)")

    def test_similarity_flags_the_disguised_copy_only(self):
        self.detail = ("the independent solutions and two untouched "
                       "skeletons not")
        pairs = re.findall(r"^- (\w+) and (\w+): (\d+) %$", self.md, re.M)
        self.assertTrue(self.rc == 0 and
                        [p[:2] for p in pairs] == [("ada", "grace")],
                        str(pairs) + self.text[-300:])

    def test_similarity_shows_shared_fragments(self):
        page = self.page
        self.assertTrue(re.search(
            r'class="pair">ada and grace: \d+ %</h3>\s*<p>ada lines '
            r'\d+-\d+, grace lines \d+-\d+, \d+ tokens:</p><pre>.*ibv_',
            page, re.S), page[page.find("Similar"):][:600])

    def test_similarity_changes_no_grade(self):
        grades = {r["id"]: r["total"] for r in self.rows.values()}
        self.assertTrue(grades.get("grace") == grades.get("ada") ==
                        str(totals("reference")[2]), str(grades))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: tests/grader/course_check.py JUDGED", file=sys.stderr)
        sys.exit(2)
    JUDGED = judged_folder(sys.argv[1], "JUDGED")
    checklib.run()

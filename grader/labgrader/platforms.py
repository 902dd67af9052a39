"""The grading platforms' results files, from one student's result.json
(or from none, when grading could not finish): Gradescope's
results.json, PrairieLearn's, GitHub's job summary (Markdown) and GitHub
Classroom's points (its reporter's base64 JSON).  Every text is plain
text: the student's own lines are quoted in it (see "A submission is
hostile input")."""
import base64
import json
import os

from .lab import GRADED, PART, PART_LINE
from .points import part_totals, result_steps
from .reports import render
from .text import mdtext, safe

# What the student reads when the grader, not their program, failed:
# never a silent 0.
# An upload the grader would not read (no main.c, a link): 0, and why.
REFUSED = ("Not graded: %s. Upload your main.c, or your repository with "
           "lab/main.c, or a .zip or .tar.gz of either, and submit again.")
RESUBMIT = ("ENVIRONMENT ERROR: the grader could not finish grading this "
            "submission, through no fault of your code (%s). Resubmit the "
            "same files; if it happens again, tell your instructor.")


def step_tests(result, steps=None):
    """[(part, number, step, its entry)] in the order of the parts, each
    part's steps numbered PART.N."""
    out, n = [], {}
    for s in sorted(result_steps(result, steps), key=lambda s: result[
            "steps"][s].get("part", PART.get(s, 1))):
        st = result["steps"][s]
        p = st.get("part", PART.get(s, 1))
        n[p] = n.get(p, 0) + 1
        out.append((p, "%d.%d" % (p, n[p]), s, st))
    return out


def step_text(st):
    """A step's evidence and hint, one text."""
    lines = st["evidence"] + (["hint: " + st["hint"]] if st["hint"] else [])
    return "\n".join(safe(x) for x in lines)


def summary(result, steps=None):
    """The student's text (grader.py show's), and 'not graded' lines."""
    text = render(result, steps)[0]
    if result.get("env_error"):
        text = RESUBMIT % safe(result["env_error"]) + "\n\n" + text
    return text


# Gradescope's visibilities of a result (its specification): the course
# chooses one (make gradescope VISIBILITY=..., LAB_GS_VISIBILITY), e.g.
# after_due_date to hide the results until the due date.
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")


def gs_visibility():
    """LAB_GS_VISIBILITY, checked (run_autograder reads it from the zip's
    settings)."""
    v = os.environ.get("LAB_GS_VISIBILITY") or "visible"
    if v not in VISIBILITIES:
        raise ValueError("LAB_GS_VISIBILITY is %r: one of %s" % (
            v, ", ".join(VISIBILITIES)))
    return v


def gradescope(result, seconds, steps=None, why=None, refused=None):
    """Gradescope's results.json.  result None: nothing was graded, and
    why (an environment error) or refused (the upload: no main.c) says
    why.  An environment error keeps its steps at 0 but says, first, that
    it was not the student's fault and to resubmit (vm/platforms/
    grade-upload writes none on Gradescope: a failed run, not a 0)."""
    vis = gs_visibility()
    doc = {"execution_time": int(seconds), "output_format": "text",
           "test_output_format": "text", "test_name_format": "text",
           "visibility": vis, "stdout_visibility": "hidden"}
    if result is None:
        doc.update(score=0, tests=[], output=RESUBMIT % safe(why) if why
                   else REFUSED % safe(refused))
        return doc
    env = result.get("env_error")
    tests = []
    for p, number, s, st in step_tests(result, steps):
        text = step_text(st) or "ok"
        if env and not st["passed"]:
            text = "\n".join(["not graded (environment error: resubmit)"] +
                              ([step_text(st)] if step_text(st) else []))
        tests.append({"name": s, "number": number, "score": st["score"],
                      "max_score": st["max"],
                      "status": "passed" if st["passed"] else "failed",
                      "output": text, "output_format": "text",
                      "visibility": vis})
    doc.update(score=sum(t["score"] for t in tests), tests=tests,
               output=summary(result, steps))
    return doc


# PrairieLearn's student uploads main.c through the question's
# pl-file-upload: nothing else to suggest.
PL_REFUSED = ("Not graded, and this attempt does not count: %s. Upload "
              "your main.c and submit again.")


def prairielearn(result, seconds, why=None, refused=None):
    """PrairieLearn's external-grader results.json: score 0..1 over every
    graded part, gradable false on an environment error and on an upload
    with nothing to grade (the attempt is not counted against the
    student)."""
    if result is None or result.get("env_error"):
        why = why or (result or {}).get("env_error")
    if result is None:
        text = RESUBMIT % safe(why) if why else PL_REFUSED % safe(refused)
        return {"gradable": False, "succeeded": not why, "score": 0,
                "message": text, "output": text, "tests": [],
                "execution_time": int(seconds)}
    tests = [{"name": s, "description": "part %d, step %s" % (p, number),
              "points": st["score"], "max_points": st["max"],
              "message": "passed" if st["passed"] else "failed",
              "output": step_text(st)}
             for p, number, s, st in step_tests(result)]
    got = sum(t["points"] for t in tests)
    tot = sum(t["max_points"] for t in tests)
    lines = ["%s: %d/%d" % (PART_LINE.get(p, "Part %d" % p), g, t)
             for p, g, t in part_totals(result)]
    return {"gradable": not why, "succeeded": not why,
            "score": round(got / tot, 4) if tot else 0,
            "message": RESUBMIT % safe(why) if why else "; ".join(lines),
            "output": summary(result), "tests": tests,
            "execution_time": int(seconds)}


def github(result, why=None, refused=None):
    """GitHub's job summary: the step table in Markdown, each text of the
    student's escaped (mdtext)."""
    if result is None:
        return "## rdma-lab grade\n\n%s\n" % mdtext(
            RESUBMIT % why if why else REFUSED % refused)
    o = ["## rdma-lab grade", ""]
    if result.get("env_error"):
        o += [mdtext(RESUBMIT % result["env_error"]), ""]
    if result.get("compile_error"):
        o += ["Your program does not compile (see the job's log).", ""]
    o += ["| step | part | points | result | hint |", "|---|---:|---:|---|---|"]
    for p, number, s, st in step_tests(result):
        o.append("| %s | %d | %d/%d | %s | %s |" % (
            s, p, st["score"], st["max"], "OK" if st["passed"] else "FAIL",
            mdtext(st["hint"]) if st["hint"] and not st["passed"] else ""))
    o += [""] + ["- **%s: %d/%d**" % (PART_LINE.get(p, "Part %d" % p), g, t)
                 for p, g, t in part_totals(result)]
    return "\n".join(o) + "\n"


def classroom(result, why=None, refused=None):
    """GitHub Classroom's points: the JSON its autograding reporter
    (classroom-resources/autograding-grading-reporter) reads, base64
    encoded, one test per step with its points.  An environment error
    posts no points (max_score 0: the reporter then reports none, and
    fails the run); a refused upload is 0 of the full marks."""
    if why or (result or {}).get("env_error"):
        text = RESUBMIT % safe(why or result["env_error"])
        doc = {"version": 1, "status": "error", "max_score": 0,
               "tests": [{"name": "grading", "status": "error", "score": 0,
                          "message": text, "line_no": 0}]}
    elif result is None:
        doc = {"version": 1, "status": "fail",
               "max_score": sum(p for _, p in GRADED),
               "tests": [{"name": "upload", "status": "fail", "score": 0,
                          "message": REFUSED % safe(refused),
                          "line_no": 0}]}
    else:
        tests = [{"name": "%s %s" % (number, s),
                  "status": "pass" if st["passed"] else "fail",
                  "score": st["score"], "message": step_text(st),
                  "line_no": 0}
                 for p, number, s, st in step_tests(result)]
        doc = {"version": 1, "max_score": sum(
                   st["max"] for _, _, _, st in step_tests(result)),
               "status": "pass" if all(t["status"] == "pass" for t in tests)
               else "fail", "tests": tests}
    return base64.b64encode(json.dumps(doc).encode()).decode() + "\n"


def write_json(doc, dest):
    tmp = dest + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, dest)


KINDS = ("gradescope", "prairielearn", "github", "classroom")


def cmd_platform(kind, dest, seconds, what, rest):
    """grader.py platform KIND DEST SECONDS RESULT [STEP...], or
    KIND DEST SECONDS --env-error TEXT | --refused TEXT."""
    result = why = refused = None
    if what == "--env-error":
        why = rest[0]
    elif what == "--refused":
        refused = rest[0]
    else:
        result = json.load(open(what))
    if kind in ("github", "classroom"):
        with open(dest, "w") as f:
            f.write(github(result, why, refused) if kind == "github" else
                    classroom(result, why, refused))
        return 0
    if kind == "gradescope":
        doc = gradescope(result, seconds, rest if result else None, why,
                         refused)
    else:
        doc = prairielearn(result, seconds, why, refused)
    write_json(doc, dest)
    return 0


def cmd_results(path, dest, steps):
    """grader.py results: Gradescope's results.json, no time measured."""
    write_json(gradescope(json.load(open(path)), 0, steps), dest)
    return 0

"""Which grader graded which source when: result.json's "graded" record,
which grader/grade-all reads to keep a result only while it stands for what
the student hands in now and for this grader (it regrades by content,
not by file dates)."""
import glob
import hashlib
import os
import time

from .lab import HERE, LAB

# What decides a verdict and ships in the handout too (which has no .git,
# and whose lab/main.c and reference differ from this tree's): the
# judges, the steps and codes, the pairings and the grader's settings.
# The guests' scripts decide too, but they are stamped by the judges'
# recording (tests/grader/judges/record), whose re-record changes these as
# well.
GRADER_GLOBS = ("grader.py", "labgrader/*.py", "labgrader/*/*.py",
                "pairings.tsv", "settings.sh")
LAB_FILES = ("steps.h", "codes.h")
# The modules that only present grades already made (the course's
# reports, the LMS's files, similarity, shards, this one): a change there
# regrades no one.
REPORT_ONLY = ("classstats.py", "course.py", "coursereport.py", "lms.py",
               "platforms.py", "provenance.py", "similarity.py")


def grader_files():
    files = [os.path.join(LAB, f) for f in LAB_FILES]
    for g in GRADER_GLOBS:
        files += sorted(f for f in glob.glob(os.path.join(HERE, g))
                        if not (os.path.dirname(f).endswith("labgrader") and
                                os.path.basename(f) in REPORT_ONLY))
    return files


def grader_version():
    """sha256 over the grader's files, each by its path under its tree,
    first 16 hex digits: the same in the tree and in its handout."""
    h = hashlib.sha256()
    for f in grader_files():
        try:
            with open(f, "rb") as fh:
                data = fh.read()
        except OSError:
            continue  # not shipped here: the same for every result
        rel = os.path.relpath(f, os.path.join(HERE, ".."))
        h.update(rel.encode() + b"\0" + data + b"\0")
    return h.hexdigest()[:16]


def source_hash(student):
    """sha256 of what the student's folder was graded on: its main.c, or
    else the line that refused it (compile.log: no main.c, a hostile
    archive); None when it has neither."""
    for f in ("main.c", "compile.log"):
        try:
            with open(os.path.join(student, f), "rb") as fh:
                return "%s:%s" % (f, hashlib.sha256(fh.read()).hexdigest())
        except OSError:
            pass
    return None


def record(student):
    """The "graded" record of a result judged now from STUDENT's folder."""
    return {"source_sha256": source_hash(student),
            "grader_version": grader_version(),
            "graded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                       time.gmtime())}


def cmd_version():
    """grader.py version: the grader's version, for grader/grade-all, which
    compares it and the source's sha256 with those a kept result.json
    records (its stale())."""
    print(grader_version())
    return 0


def pairing_seconds(resdir, pairings):
    """The guests' wall time of a student's pairings (each pN.window:
    capture, start, end in the server guest's clock), for the course
    report's slowest runs; None when no pairing ran."""
    total, seen = 0.0, False
    for p in pairings:
        try:
            with open(os.path.join(resdir, p + ".window")) as f:
                w = f.read(300).split()
            total += max(0.0, float(w[2]) - float(w[1]))
            seen = True
        except (OSError, ValueError, IndexError):
            continue
    return round(total, 2) if seen else None

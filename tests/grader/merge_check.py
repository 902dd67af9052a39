"""grader/grade-all --merge (grader.py merge, labgrader/course.py) over shard
folders as grade-all --shard writes them: every shard present merges
with status 0; a missing shard is refused with a line that names it and
nothing merged; a student without a grade gives status 3.  One "ok
NAME" or "FAIL NAME: why" line per check."""
import json
import os
import subprocess
import sys
import tempfile

G = os.path.join(os.path.dirname(__file__), "..", "..", "grader",
                 "grader.py")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
from checklib import check, done  # noqa: E402


def shard(top, k, n, entries, students):
    """A shard's output folder: OUT/shard and a result per student
    (None: no result.json; "env": an environment error)."""
    out = os.path.join(top, "out-%d" % k)
    for name, how in students.items():
        d = os.path.join(out, "students", name)
        os.makedirs(d)
        if how is None:
            continue
        r = {"name": name, "score": 20, "max_score": 20, "steps": {},
             "env_error": "the machine was too busy" if how == "env"
             else None, "compile_error": None}
        with open(os.path.join(d, "result.json"), "w") as f:
            json.dump(r, f)
    with open(os.path.join(out, "shard"), "w") as f:
        f.write("%d/%d %d\n" % (k, n, entries))
    return out


def merge(top, *outs):
    p = subprocess.run([sys.executable, "-S", G, "merge",
                        os.path.join(top, "all")] + list(outs),
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


with tempfile.TemporaryDirectory() as t:
    a = shard(t, 1, 3, 5, {"ann": "ok", "dan": "ok"})
    b = shard(t, 2, 3, 5, {"bob": "ok", "eve": "ok"})
    c = shard(t, 3, 3, 5, {"cat": "ok"})
    rc, text = merge(t, a, b, c)
    rows = open(os.path.join(t, "all", "report.csv")).read().splitlines() \
        if rc == 0 else []
    check("merge of all 3 shards: status 0, 5 rows", rc == 0 and
          len(rows) == 6, "status %d, %d rows: %s" % (rc, len(rows), text))

with tempfile.TemporaryDirectory() as t:
    a = shard(t, 1, 3, 5, {"ann": "ok", "dan": "ok"})
    c = shard(t, 3, 3, 5, {"cat": "ok"})
    rc, text = merge(t, a, c)
    check("merge without shard 2/3: refused, named, nothing merged",
          rc == 1 and "shard 2/3 of 3 missing" in text and
          not os.path.exists(os.path.join(t, "all", "report.csv")),
          "status %d: %s" % (rc, text))

with tempfile.TemporaryDirectory() as t:
    a = shard(t, 1, 2, 3, {"ann": "ok", "cat": None})
    b = shard(t, 2, 2, 3, {"bob": "env"})
    rc, text = merge(t, a, b)
    check("merge with a student ungraded and one environment error: "
          "status 3, both named",
          rc == 3 and "cat has no grade" in text and
          "bob has no grade" in text and "environment error" in text,
          "status %d: %s" % (rc, text))

with tempfile.TemporaryDirectory() as t:
    a = shard(t, 1, 2, 3, {"ann": "ok"})
    b = shard(t, 1, 2, 3, {"bob": "ok"})
    rc, text = merge(t, a, b)
    check("merge of the same shard twice: refused",
          rc == 1 and "both shard 1/2" in text, "status %d: %s" % (rc, text))

done()

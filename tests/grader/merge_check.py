"""grader/grade-all --merge (grader.py merge, labgrader/course.py) over shard
folders as grade-all --shard writes them: every shard present merges
with status 0; a missing shard is refused with a line that names it and
nothing merged; a student without a grade gives status 3.

Runs alone (python3 -m unittest merge_check, from tests/grader, or
python3 tests/grader/merge_check.py) or in tests/unit.sh, which reads
its "ok NAME" / "FAIL NAME: why" lines."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
G = os.path.join(HERE, "..", "..", "grader", "grader.py")
sys.path.insert(0, os.path.dirname(HERE))  # tests/checklib.py
import checklib  # noqa: E402


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


class Merge(checklib.Case):
    """Each test merges shards of its own into a folder of its own."""
    # A failure's text is the check's own why (the status and what
    # grader.py said), not unittest's repr of the operands before it.
    longMessage = False

    def setUp(self):
        t = tempfile.TemporaryDirectory()
        self.addCleanup(t.cleanup)
        self.top = t.name

    def test_merge_of_all_3_shards(self):
        # Status 0, and the report's header and 5 rows.
        t = self.top
        a = shard(t, 1, 3, 5, {"ann": "ok", "dan": "ok"})
        b = shard(t, 2, 3, 5, {"bob": "ok", "eve": "ok"})
        c = shard(t, 3, 3, 5, {"cat": "ok"})
        rc, text = merge(t, a, b, c)
        rows = []
        if rc == 0:
            with open(os.path.join(t, "all", "report.csv")) as f:
                rows = f.read().splitlines()
        why = "status %d, %d rows: %s" % (rc, len(rows), text)
        self.assertEqual(rc, 0, why)
        self.assertEqual(len(rows), 6, why)

    def test_merge_without_shard_2_of_3(self):
        # Refused, the missing shard named, nothing merged.
        t = self.top
        a = shard(t, 1, 3, 5, {"ann": "ok", "dan": "ok"})
        c = shard(t, 3, 3, 5, {"cat": "ok"})
        rc, text = merge(t, a, c)
        why = "status %d: %s" % (rc, text)
        self.assertEqual(rc, 1, why)
        self.assertIn("shard 2/3 of 3 missing", text, why)
        self.assertFalse(os.path.exists(os.path.join(t, "all",
                                                     "report.csv")), why)

    def test_merge_with_a_student_ungraded_and_an_env_error(self):
        # A student ungraded and one with an environment error: status
        # 3, both named.
        t = self.top
        a = shard(t, 1, 2, 3, {"ann": "ok", "cat": None})
        b = shard(t, 2, 2, 3, {"bob": "env"})
        rc, text = merge(t, a, b)
        why = "status %d: %s" % (rc, text)
        self.assertEqual(rc, 3, why)
        self.assertIn("cat has no grade", text, why)
        self.assertIn("bob has no grade", text, why)
        self.assertIn("environment error", text, why)

    def test_merge_of_the_same_shard_twice(self):
        t = self.top
        a = shard(t, 1, 2, 3, {"ann": "ok"})
        b = shard(t, 1, 2, 3, {"bob": "ok"})
        rc, text = merge(t, a, b)
        why = "status %d: %s" % (rc, text)
        self.assertEqual(rc, 1, why)
        self.assertIn("both shard 1/2", text, why)


if __name__ == "__main__":
    checklib.run()

"""labgrader/rounds.py on made-up rounds: the experiment that finds an
earlier step's code at fault when the reference's own version of a
failed step, stood in, fails too (a receive posted in connect with a
short buffer: the send fails either way).  One "ok NAME" or "FAIL NAME:
why" line per check."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "grader"))
from labgrader import rounds  # noqa: E402
from labgrader.lab import PART, POINTS, STEP_NAMES  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
from checklib import check, done  # noqa: E402


def result(failing):
    """A result whose steps in failing failed, the others passed."""
    return {"parts": {"1": {}, "2": {}},
            "steps": {s: {"passed": s not in failing, "max": POINTS[s],
                          "score": 0 if s in failing else POINTS[s],
                          "part": PART[s],
                          "evidence": ["  %s" % s] if s in failing else [],
                          "hint": "h-" + s if s in failing else None}
                      for s in STEP_NAMES}}


after = STEP_NAMES[STEP_NAMES.index("send"):]
after = [s for s in after if s != "teardown"]
r1 = ([], result(after))                     # send failed, and all after
r2 = (["send"], result(after))               # the stand-in failed too
nxt = rounds.next_standins([r1, r2], "")
check("stuck_tries_the_nearest_earlier_step", nxt == ["connect", "send"],
      nxt)
r3 = (["connect", "send"], result([]))       # now it passes
nxt = rounds.next_standins([r1, r2, r3], "")
check("found_judges_the_failed_step_again", nxt == ["connect"], nxt)
r4 = (["connect"], result([]))
check("found_then_done", rounds.next_standins([r1, r2, r3, r4], "") is None)
m = rounds.merge([r1, r2, r3, r4], "")
lost = [s for s in STEP_NAMES if not m["steps"][s]["passed"]]
check("found_cause_loses_alone", lost == ["connect"] and
      "seen in step send" in m["steps"]["connect"]["evidence"][0],
      (lost, m["steps"]["connect"]["evidence"][:1]))
# The same experiment, where the nearest step did not help: the next one.
r3b = (["connect", "send"], result(after))
nxt = rounds.next_standins([r1, r2, r3b], "")
check("not_found_tries_the_next_earlier", nxt == ["exchange", "connect",
                                                  "send"], nxt)
# A stand-in that passes: no experiment, the next failure as before.
r2c = (["send"], result(["write", "teardown"]))
nxt = rounds.next_standins([r1, r2c], "")
check("no_stuck_no_experiment", nxt == ["send", "write"], nxt)

# The budget counts a pairing as on a quiet host: its window over the
# stretch its waits had (poll_forever's under make test's load), and
# without a stretch (older results) the window less the longer wait.
hung = {"window": 29.28, "server": [9.26, 16.28], "client": [1.68, 7.0]}
old = {"guest_cpu": {"p1": dict(hung)}}
new = {"guest_cpu": {"p1": dict(hung, stretch=4.0)}}
got = (rounds.run_seconds([([], old)]), rounds.run_seconds([([], new)]))
check("budget_counts_quiet_host_seconds",
      abs(got[0] - 13.0) < 0.01 and abs(got[1] - 7.32) < 0.01, got)
done()

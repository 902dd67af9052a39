"""labgrader/rounds.py on made-up rounds: the experiment that finds an
earlier step's code at fault when the reference's own version of a
failed step, stood in, fails too (a receive posted in connect with a
short buffer: the send fails either way).

Runs alone (python3 -m unittest rounds_check, from tests/grader, or
python3 tests/grader/rounds_check.py) or in tests/unit.sh, which reads
its "ok NAME" / "FAIL NAME: why" lines."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "grader"))
sys.path.insert(0, os.path.dirname(HERE))  # tests/checklib.py
import checklib  # noqa: E402
from labgrader import rounds, starved, student  # noqa: E402
from labgrader.evidence import peer  # noqa: E402
from labgrader.lab import PART, POINTS, STEP_NAMES  # noqa: E402


def result(failing):
    """A result whose steps in failing failed, the others passed."""
    return {"parts": {"1": {}, "2": {}},
            "steps": {s: {"passed": s not in failing, "max": POINTS[s],
                          "score": 0 if s in failing else POINTS[s],
                          "part": PART[s],
                          "evidence": ["  %s" % s] if s in failing else [],
                          "hint": "h-" + s if s in failing else None}
                      for s in STEP_NAMES}}


# The steps that fail in round 1: send and every later step but
# teardown.
AFTER = [s for s in STEP_NAMES[STEP_NAMES.index("send"):]
         if s != "teardown"]


def experiment():
    """The rounds of one experiment, made anew for each test so that
    none sees what another's calls did to them."""
    r1 = ([], result(AFTER))                 # send failed, and all after
    r2 = (["send"], result(AFTER))           # the stand-in failed too
    r3 = (["connect", "send"], result([]))   # now it passes
    r4 = (["connect"], result([]))
    return r1, r2, r3, r4


class Experiment(checklib.Case):
    # A failure's text is the check's own why, as checklib's lines had
    # it, not unittest's repr of the operands before it.
    longMessage = False

    def test_stuck_tries_the_nearest_earlier_step(self):
        r1, r2, _, _ = experiment()
        nxt = rounds.next_standins([r1, r2], "")
        self.assertEqual(nxt, ["connect", "send"], nxt)

    def test_found_judges_the_failed_step_again(self):
        r1, r2, r3, _ = experiment()
        nxt = rounds.next_standins([r1, r2, r3], "")
        self.assertEqual(nxt, ["connect"], nxt)

    def test_found_then_done(self):
        self.assertIsNone(rounds.next_standins(list(experiment()), ""))

    def test_found_cause_loses_alone(self):
        m = rounds.merge(list(experiment()), "")
        lost = [s for s in STEP_NAMES if not m["steps"][s]["passed"]]
        why = (lost, m["steps"]["connect"]["evidence"][:1])
        self.assertEqual(lost, ["connect"], why)
        self.assertIn("seen in step send",
                      m["steps"]["connect"]["evidence"][0], why)

    def test_not_found_tries_the_next_earlier(self):
        # The same experiment, where the nearest step did not help: the
        # next one.
        r1, r2, _, _ = experiment()
        r3b = (["connect", "send"], result(AFTER))
        nxt = rounds.next_standins([r1, r2, r3b], "")
        self.assertEqual(nxt, ["exchange", "connect", "send"], nxt)

    def test_no_stuck_no_experiment(self):
        # A stand-in that passes: no experiment, the next failure as
        # before.
        r1, _, _, _ = experiment()
        r2c = (["send"], result(["write", "teardown"]))
        nxt = rounds.next_standins([r1, r2c], "")
        self.assertEqual(nxt, ["send", "write"], nxt)


class Cut(checklib.Case):
    """A round the guest cut after the first own step failed: none of
    the student's own steps passes in it (fewer pairings never pass a
    step), the stood-in steps as they were."""
    longMessage = False  # the check's why alone, as in Experiment

    def test_cut_round_passes_no_own_step(self):
        r = result(["create_resources"])
        student.cut_round(r, ["p1", "create_resources"], "open_device\n")
        own = [s for s in STEP_NAMES if s != "open_device"]
        passed = [s for s in own if r["steps"][s]["passed"]]
        self.assertEqual(passed, [], passed)
        self.assertTrue(r["steps"]["open_device"]["passed"])
        st = r["steps"]["send"]
        self.assertEqual(st["score"], 0, st)
        self.assertIn("stopped after p1, where your create_resources "
                      "failed", st["evidence"][0], st)
        # The failed step keeps its own evidence, and says why its
        # later pairings did not run.
        ev = r["steps"]["create_resources"]["evidence"]
        self.assertEqual(ev[0], "  create_resources", ev)
        self.assertIn("the pairings after p1 did not run", ev[-1], ev)

    def test_cut_round_then_next_round_stands_in_the_step(self):
        r1 = result([s for s in STEP_NAMES if s != "teardown"])
        student.cut_round(r1, ["p1", "open_device"], None)
        nxt = rounds.next_standins([([], r1)], "")
        self.assertEqual(nxt, ["open_device"], nxt)


class Budget(checklib.Case):
    longMessage = False  # the check's why alone, as in Experiment

    def test_budget_counts_quiet_host_seconds(self):
        # The budget counts a pairing as on a quiet host: its window over
        # the stretch when a stretched limit ended it, else its window
        # less the longer wait for a CPU.
        # poll_forever's under make test's load (silent: -t 5); a
        # program that talked 11 s, then failed, beside the reference's
        # wait (5 s x 5 + 2); one that ended itself.  Older results: the
        # window over the stretch, or less the longer wait.
        hung = {"window": 29.28, "server": [9.26, 16.28],
                "client": [1.68, 7.0]}
        cases = [
            (dict(hung), 13.0),
            (dict(hung, stretch=4.0), 7.32),
            (dict(hung, stretch=4.0, limit=True), 7.32),
            ({"window": 35.0, "server": [3.0, 3.0], "client": [1.0, 1.0],
              "stretch": 5.0, "limit": True}, 7.0),
            ({"window": 12.5, "server": [2.0, 1.0], "client": [1.0, 0.5],
              "stretch": 4.0, "limit": False}, 11.5),
        ]
        for cpu, want in cases:
            got = rounds.run_seconds([([], {"guest_cpu": {"p1": cpu}})])
            self.assertLess(abs(got - want), 0.01, (cpu, got, want))


class Stalled(checklib.Case):
    """Two rounds in a row cut at their first own step, each longer than
    a program's waits: no more rounds; one of them short, or not cut,
    and the rounds go on."""
    longMessage = False  # the check's why alone, as in Experiment

    @staticmethod
    def cut(step, window, standins=()):
        r = result([s for s in STEP_NAMES if s != "teardown"])
        student.cut_round(r, ["p1", step], " ".join(standins))
        r["guest_cpu"] = {"p1": {"window": window, "stretch": 1.0,
                                 "server": [1, 0], "client": [1, 0]}}
        return (list(standins), r)

    def test_two_long_cuts_stop(self):
        rs = [self.cut("open_device", 8.0),
              self.cut("create_resources", 8.0, ["open_device"])]
        self.assertTrue(rounds.stalled(rs))
        note = rounds.stop_note(rs)
        self.assertIn("two in a row", note or "", note)

    def test_a_short_cut_goes_on(self):
        rs = [self.cut("open_device", 8.0),
              self.cut("create_resources", 2.0, ["open_device"])]
        self.assertFalse(rounds.stalled(rs))
        self.assertIsNone(rounds.stop_note(rs))

    def test_a_long_round_not_cut_goes_on(self):
        first = self.cut("open_device", 8.0)
        del first[1]["cut"]
        rs = [first, self.cut("create_resources", 8.0, ["open_device"])]
        self.assertFalse(rounds.stalled(rs))

    def test_a_sleeping_run_under_load_stops(self):
        # CI at a stretch of 4 to 5: each round's window less the guests'
        # CPU wait (their polling fills it while the program sleeps) was
        # under 5 s; the student's run itself, mostly asleep, 14.9 s.
        rs = []
        for step, si in (("open_device", []),
                         ("create_resources", ["open_device"])):
            si, r = self.cut(step, 17.78, si)
            r["guest_cpu"]["p1"].update(server=[3.69, 12.17],
                                        client=[3.77, 14.0],
                                        stretch=4.5, limit=False)
            self.assertLess(rounds.run_seconds([(si, r)]), 5)
            r["own_s"] = {"p1": starved.own_seconds((0.4, 14.9), 4.5)}
            rs.append((si, r))
        self.assertTrue(rounds.stalled(rs))

    def two_cuts_of(self, run, stretch):
        """Two cut rounds with long windows, each of whose student runs
        was RUN (CPU, wall seconds) at STRETCH; and that run's own_s."""
        own = starved.own_seconds(run, stretch)
        rs = [self.cut("open_device", 8.0),
              self.cut("create_resources", 9.0, ["open_device"])]
        for _, r in rs:
            r["own_s"] = {"p1": own}
        return rs, own

    def test_a_computing_run_under_load_goes_on(self):
        # 8 s of CPU at a stretch of 4: 2 s on a quiet host.
        rs, own = self.two_cuts_of((7.8, 8.2), 4.0)
        self.assertLess(abs(own - 1.95), 0.01)
        self.assertFalse(rounds.stalled(rs))

    def test_a_fast_failure_under_load_goes_on(self):
        # The reference's own run in p1 at a stretch of 3.5 (1.56 s of
        # CPU in 5.64 s): had it failed at its end, its rounds go on.
        rs, own = self.two_cuts_of((1.56, 5.64), 3.5)
        self.assertLess(own, 1.0)
        self.assertFalse(rounds.stalled(rs))


class RunCpu(checklib.Case):
    """SIDE.cpu as the guest driver writes it, and nothing else."""

    def test_parse(self):
        self.assertEqual(peer.run_cpu("1500000 14900000\n"), (1.5, 14.9))
        # More CPU than wall time (a clock step): no more than the wall.
        self.assertEqual(peer.run_cpu("3000000 2000000"), (2.0, 2.0))
        for bad in (None, "", "12", "1 2 3", "-1 5", "x 5", "1e6 5"):
            self.assertIsNone(peer.run_cpu(bad), bad)


if __name__ == "__main__":
    checklib.run()

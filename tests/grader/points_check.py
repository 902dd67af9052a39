"""labgrader/points.py on small hand-made verdicts: the all-pairings rule,
a step not reached, the blame of an earlier step's code by the hint's
key, the round that decides each step, and the parts' totals.

Runs alone (python3 -m unittest points_check, from tests/grader, or
python3 tests/grader/points_check.py) or in tests/unit.sh, which
reads its "ok NAME" / "FAIL NAME: why" lines."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "grader"))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))  # tests/checklib.py
import checklib  # noqa: E402
from labgrader import points  # noqa: E402
from labgrader.hints import HINTS, hint  # noqa: E402
from labgrader.judges.common import Check  # noqa: E402
from labgrader.lab import (CHECKS, PART, POINTS,  # noqa: E402
                           STEP_NAMES)


def passed():
    return Check()


def failed(seen="lab send FAIL: x", key="send_data"):
    c = Check()
    c.bad("lab send ok", seen, hint(key))
    return c


def unreached(stop="connect"):
    c = Check()
    c.unreached(stop)
    return c


def pairings(*checks):
    """[(pairing, side, Check)] as student.py gathers a step's."""
    return [("p%d" % (i + 1), "client", c) for i, c in enumerate(checks)]


def result(failing, causes=None):
    """A round's result whose steps in failing failed, the others passed;
    causes: {step: the earlier step its judge named}."""
    steps = {}
    for s in STEP_NAMES:
        bad = s in failing
        steps[s] = {"passed": not bad, "max": POINTS[s], "part": PART[s],
                    "score": 0 if bad else POINTS[s],
                    "evidence": [], "hint": "h-" + s if bad else None}
        if causes and s in causes:
            steps[s]["cause"] = causes[s]
    return {"steps": steps}


class AllPairings(checklib.Case):
    def test_passes_only_in_every_pairing(self):
        self.assertTrue(points.step_passed(pairings(passed(), passed())))

    def test_one_failed_pairing_fails_the_step(self):
        self.assertFalse(points.step_passed(
            pairings(passed(), failed(), passed())))

    def test_no_pairing_judged_earns_nothing(self):
        self.assertFalse(points.step_passed([]))


class NotReached(checklib.Case):
    def test_explicit_field_not_the_wording(self):
        c = unreached("exchange")
        self.assertEqual(c.not_reached, "exchange")
        # The field decides, not the text: a check whose seen line
        # merely starts alike was seen to fail.
        self.assertIsNone(points.not_reached(
            pairings(failed(seen="not reached: stopped in step x"))))

    def test_every_failure_unreached(self):
        a, b = unreached(), unreached("exchange")
        self.assertIs(points.not_reached(pairings(passed(), a, b)), a)

    def test_one_seen_failure_is_reported(self):
        self.assertIsNone(points.not_reached(
            pairings(unreached(), failed())))

    def test_seen_after_unreached_is_more_than_unreached(self):
        c = unreached()
        c.bad("x", "y", None)
        self.assertIsNone(c.not_reached)
        self.assertIsNone(points.not_reached(pairings(c)))

    def test_all_passed_is_no_unreached(self):
        self.assertIsNone(points.not_reached(pairings(passed())))


class Blame(checklib.Case):
    def test_earlier_cause_by_key(self):
        self.assertEqual(points.cause("send", hint("rnr")), "connect")
        self.assertEqual(points.cause("write", hint("mr_remote")),
                         "create_resources")

    def test_text_alone_blames_nothing(self):
        # The program's own hint line, however worded, is no key.
        self.assertIsNone(points.cause("send", HINTS["rnr"]))
        self.assertIsNone(points.cause("send", None))

    def test_cause_must_be_earlier(self):
        self.assertIsNone(points.cause("connect", hint("rnr")))
        self.assertIsNone(points.cause("send", hint("send_data")))

    def test_every_cause_key_is_a_hint_and_a_step(self):
        for key, step in points.CAUSE.items():
            self.assertIn(key, HINTS)
            self.assertIn(step, STEP_NAMES)

    def test_every_charge_is_a_cause_and_a_check(self):
        for key, check in points.CHARGE.items():
            self.assertIn(key, points.CAUSE)
            self.assertIn(check, [c for c, _ in CHECKS])

    def test_key_survives_filling(self):
        h = hint("hung", "send")
        self.assertEqual(h, "the program hung in step send")
        self.assertEqual(h.key, "hung")


class Rounds(checklib.Case):
    def test_first_failure_own(self):
        self.assertEqual(points.first_failure(result(["send", "write"]), []),
                         ("send", "send", "send"))

    def test_first_failure_charged_to_named_cause(self):
        r = result(["send"], causes={"send": "connect"})
        self.assertEqual(points.first_failure(r, []),
                         ("send", "connect", "connect"))

    def test_cause_stood_in_for_is_not_charged(self):
        r = result(["send"], causes={"send": "connect"})
        self.assertEqual(points.first_failure(r, ["connect"]),
                         ("send", "send", "send"))

    def test_other_part_keeps_its_loss(self):
        later = [s for s in STEP_NAMES if PART[s] != PART["connect"]]
        if not later:
            self.skipTest("one part graded")
        s = later[0]
        r = result([s], causes={s: "connect"})
        self.assertEqual(points.first_failure(r, []), (s, "connect", s))

    def test_charge_goes_to_its_check(self):
        # A late answer that a retry_cnt of 0 gave up on: connect stood
        # in, the loss the check's (CHARGE), connect's points kept.
        h = hint("retry_none")
        self.assertEqual(points.cause("read", h), "connect")
        self.assertEqual(points.charge(h), "loss")
        self.assertIsNone(points.charge(hint("retry_timer")))
        r = result(["read"], causes={"read": "connect"})
        r["steps"]["read"]["charge"] = points.charge(h)
        self.assertEqual(points.first_failure(r, []),
                         ("read", "connect", "loss"))
        firsts = points.charged([(0, [], r)], {})
        self.assertEqual(firsts, {"loss": (0, "read")})
        rounds = [([], r), (["connect"], result([]))]
        self.assertEqual(points.deciding_round(rounds, "connect", firsts),
                         (0, None))
        self.assertEqual(points.deciding_round(rounds, "read", firsts),
                         (1, None))

    def test_check_not_waived_by_its_charge(self):
        # The check keeps round 1's verdict: round 2 stood in connect
        # for the failure charged to it.  A connect that failed on its
        # own (a timeout of 0) is stood in as ever: the check takes round
        # 2, where the reference's connect is in place.
        def with_loss(r, ok):
            r["steps"]["loss"] = {"passed": ok, "judged": True}
            return r
        r1 = with_loss(result(["read"], causes={"read": "connect"}), False)
        r1["steps"]["read"]["charge"] = "loss"
        rounds = [([], r1), (["connect"], with_loss(result([]), True))]
        self.assertEqual(points.check_round(rounds, "loss"), 0)
        r1 = with_loss(result(["connect"]), False)
        rounds = [([], r1), (["connect"], with_loss(result([]), True))]
        self.assertEqual(points.check_round(rounds, "loss"), 1)

    def test_deciding_round(self):
        r1 = ([], result(["send", "write"]))
        r2 = (["send"], result([]))
        firsts = points.charged([(0, [], r1[1])], {})
        self.assertEqual(firsts, {"send": (0, "send")})
        rounds = [r1, r2]
        self.assertEqual(points.deciding_round(rounds, "send", firsts),
                         (0, None))
        # write failed in round 1 after send, passed in round 2.
        self.assertEqual(points.deciding_round(rounds, "write", firsts),
                         (1, None))
        self.assertEqual(points.deciding_round(rounds, "connect", firsts),
                         (0, None))

    def test_found_cause_is_charged(self):
        r1 = result(["send"])
        firsts = points.charged([(0, [], r1)], {"send": "connect"})
        self.assertEqual(firsts, {"connect": (0, "send")})
        self.assertEqual(points.deciding_round([([], r1)], "connect",
                                               firsts), (0, "send"))

    def test_lost_and_won(self):
        st = result(["send"])["steps"]["send"]
        self.assertEqual(points.lost(dict(st, score=POINTS["send"],
                                          passed=True))["score"], 0)
        w = points.won(st, hint=None)
        self.assertEqual((w["passed"], w["score"], w["hint"]),
                         (True, POINTS["send"], None))
        self.assertEqual(list(w), list(st))  # result.json's key order


class Totals(checklib.Case):
    def test_part_totals(self):
        r = result(["send"])
        got = {p: (g, t) for p, g, t in points.part_totals(r)}
        core = sum(POINTS[s] for s in STEP_NAMES if PART[s] == 1)
        self.assertEqual(got[1], (core - POINTS["send"], core))
        self.assertEqual(sum(t for _, t in got.values()),
                         sum(POINTS[s] for s in STEP_NAMES))

    def test_some_steps(self):
        r = result(["send"])
        self.assertEqual(points.part_totals(r, ["send"]),
                         [(PART["send"], 0, POINTS["send"])])


if __name__ == "__main__":
    checklib.run("points")

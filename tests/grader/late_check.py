"""labgrader/late.py: a requester's status 12 is the machine's only when
its peer answered its last request and its own timer budget was a fair
one.  Over real pairings (tests/grader/late/README).

Runs alone (python3 -m unittest late_check, from tests/grader, or
python3 tests/grader/late_check.py) or in tests/unit.sh, which reads
its "ok NAME" / "FAIL NAME: why" lines."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "grader"))
sys.path.insert(0, os.path.dirname(HERE))  # tests/checklib.py
import checklib  # noqa: E402
from labgrader import late  # noqa: E402
from labgrader.evidence.peer import Side, parse_facts  # noqa: E402
from labgrader.evidence.wire import parse_pcap  # noqa: E402
from labgrader.text import read  # noqa: E402

SEEDS = os.path.join(HERE, "late")


def seed(name, client="student"):
    d = os.path.join(SEEDS, name)
    facts = {s: parse_facts(read(os.path.join(d, "facts." + s)))
             for s in ("server", "client")}
    roles = {"server": "ref", "client": client}
    pair = {s: Side(os.path.join(d, "p2"), s, roles[s])
            for s in ("server", "client")}
    return pair, parse_pcap(os.path.join(d, "p2.pcap")), facts


class AckLate(checklib.Case):
    """The server acknowledged what the client's QP gave up on."""
    # A failure's text is the check's own why, as checklib's lines had
    # it, not unittest's repr of the operands before it.
    longMessage = False

    @classmethod
    def setUpClass(cls):
        # As recorded; a test that changes the pairing reads its own.
        cls.pair, cls.packets, cls.facts = seed("ack-late")

    def test_late_ack_is_the_machines(self):
        why = late.retries_ran_out("p2", self.pair, self.packets,
                                   self.facts, None)
        self.assertTrue(why, why)
        self.assertIn("acknowledged PSN", why, why)
        self.assertIn("0.94 s", why, why)

    def test_late_budget_from_the_kernels_rts(self):
        gave = late.student_gave_up(self.pair["client"])
        self.assertTrue(gave, gave)
        self.assertTrue(gave[2], gave)
        self.assertLess(abs(gave[2] - 7 * 4.096e-6 * (1 << 15)), 1e-9,
                        gave)

    def test_late_short_budget_is_the_programs(self):
        # The same run, its QP's timer as the kernel saw it made short:
        # the program's own gamble, whatever the ACKs did.
        pair, packets, facts = seed("ack-late")
        for e in pair["client"].calls("k_modify"):
            e["timeout"] = "12"
        why = late.retries_ran_out("p2", pair, packets, facts, None)
        self.assertIsNone(why, why)

    def test_late_needs_the_kernels_status(self):
        # The student's own FAIL line names nothing here: only its
        # kernel's completion counts (a line that claims status 12 earns
        # no retry).
        pair, packets, facts = seed("ack-late")
        pair["client"].trace = [e for e in pair["client"].trace
                                if e["_fn"] != "kwc"]
        why = late.retries_ran_out("p2", pair, packets, facts, None)
        self.assertIsNone(why, why)

    def test_late_reference_client(self):
        # The reference as the client: its own line is trusted.
        pair, packets, facts = seed("ack-late", client="ref")
        why = late.retries_ran_out("p2", pair, packets, facts, None)
        self.assertTrue(why, why)
        self.assertIn("client's QP", why, why)


class OwnTimer(checklib.Case):
    """A status 12 the peer answered, within a budget under the floor:
    the QP's own timer (connect's code), not the step's request."""
    longMessage = False  # the check's why alone, as in AckLate

    def test_late_retry_none_is_connects_for_loss(self):
        # retry_cnt 0 on the lab's timer, every ACK 300 ms late: the
        # SEND given up after one timer though the server acknowledged.
        pair, packets, facts = seed("retry0-late")
        self.assertIsNone(late.retries_ran_out("p2", pair, packets, facts,
                                               None))
        own = late.own_timer("p2", pair, packets, facts)
        self.assertEqual(own, {"client": "retry_none"}, own)

    def test_late_short_timer_is_connects(self):
        # The 1.5 s ACKs with the QP's timer as the kernel saw it made
        # short (timeout 12, retry_cnt 6: 0.12 s in all).
        pair, packets, facts = seed("ack-late")
        for e in pair["client"].calls("k_modify"):
            e["timeout"] = "12"
        own = late.own_timer("p2", pair, packets, facts)
        self.assertEqual(own, {"client": "retry_timer"}, own)

    def test_late_fair_budget_is_not_the_programs(self):
        # The reference's budget: the machine's (AckLate), not connect's.
        pair, packets, facts = seed("ack-late")
        self.assertEqual(late.own_timer("p2", pair, packets, facts), {})

    def test_late_unanswered_is_the_steps(self):
        pair, packets, facts = seed("retry0-late")
        self.assertEqual(late.own_timer("p2", pair, None, facts), {})
        pair, packets, facts = seed("no-answer")
        for e in pair["client"].calls("k_modify"):
            e["retry_cnt"] = "0"
        self.assertEqual(late.own_timer("p2", pair, packets, facts), {})

    def test_late_reference_side_is_nothing(self):
        pair, packets, facts = seed("retry0-late", client="ref")
        self.assertEqual(late.own_timer("p2", pair, packets, facts), {})


class NoAnswer(checklib.Case):
    """Status 12 and nothing answered: the machine's only when the host's
    samples explain the silence."""
    longMessage = False  # the check's why alone, as in AckLate

    @classmethod
    def setUpClass(cls):
        cls.pair, cls.packets, cls.facts = seed("no-answer")

    def test_late_no_answer_is_the_programs(self):
        gave = late.student_gave_up(self.pair["client"])
        self.assertTrue(gave, gave)
        self.assertIsNone(late.retries_ran_out("p2", self.pair,
                                               self.packets, self.facts,
                                               None), gave)

    def test_late_starved_guest_is_the_machines(self):
        # No answer, but a guest of the pairing waited for a CPU as long
        # as the client's whole budget (0.94 s): the host's samples
        # explain the silence.
        busy = {"window": 6.0, "server": [0.6, 2.5], "client": [0.9, 1.0]}
        why = late.retries_ran_out("p2", self.pair, None, self.facts, busy)
        self.assertTrue(why, why)
        self.assertIn("server guest waited 2.5 s", why, why)

    def test_late_quiet_host_is_the_programs(self):
        # A quiet host's 0.15 s of waiting does not.
        quiet = {"window": 1.2, "server": [0.5, 0.15],
                 "client": [0.6, 0.1]}
        self.assertIsNone(late.retries_ran_out("p2", self.pair, None,
                                               self.facts, quiet))

    def test_late_no_samples_is_nothing(self):
        self.assertIsNone(late.retries_ran_out("p2", self.pair, None,
                                               self.facts, None))

    def test_late_no_capture_is_nothing(self):
        # Without the capture nothing is known.  (The same call as
        # late_no_samples_is_nothing's, as the check has always been.)
        self.assertIsNone(late.retries_ran_out("p2", self.pair, None,
                                               self.facts, None))


if __name__ == "__main__":
    checklib.run()

"""labgrader/starved.py: which pairings the host starved of CPU, from the
batch's samples of the guests' schedstat (run/cpu-wait) and the windows
of srv-started and srv-done.  The numbers are of kinds seen in real
batches (docs/grading.md, "Not luck").

Runs alone (python3 -m unittest starved_check, from tests/grader, or
python3 tests/grader/starved_check.py) or in tests/unit.sh, which reads
its "ok NAME" / "FAIL NAME: why" lines."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "grader"))
sys.path.insert(0, os.path.dirname(HERE))  # tests/checklib.py
import checklib  # noqa: E402
from labgrader import starved  # noqa: E402


class FakeSide:
    def __init__(self, idle="", note="", codes=None, rc=0, limit="",
                 who="student", cpu=None):
        self.idle, self.note, self.rc, self.limit = idle, note, rc, limit
        self.codes, self.who, self.cpu = codes or {}, who, cpu

    def timed_out(self):
        return (self.rc in (124, 137) or self.idle) and not self.note


def window(run, t0, t1, lines):
    """A run folder with res/s/p1's window t0..t1 and cpu-wait lines
    (time, srv_run, srv_wait, cli_run, cli_wait) in seconds."""
    res = os.path.join(run, "res", "s")
    os.makedirs(os.path.join(res, "p1"), exist_ok=True)
    for name, t in (("srv-started", t0), ("srv-done", t1)):
        f = os.path.join(res, "p1", name)
        open(f, "w").close()
        os.utime(f, (t, t))
    with open(os.path.join(run, "cpu-wait"), "w") as f:
        for t, *v in lines:
            f.write("%f %s\n" % (t, " ".join(str(int(x * 1e9))
                                              for x in v)))
    return starved.pairing_cpu(res, run, ["p1"])


T = 1800000000.0


class PairingCpu(checklib.Case):
    """Each test's run folder is its own."""
    # A failure's text is the check's own why (what pairing_cpu made of
    # the samples), not unittest's repr of the operands before it.
    longMessage = False

    def setUp(self):
        t = tempfile.TemporaryDirectory()
        self.addCleanup(t.cleanup)
        self.d = t.name

    def test_starved_quiet_host_is_not(self):
        # Quiet host: 0.6 s run, 0.1 s wait in a 1 s pairing.
        q = window(self.d, T + 1, T + 2, [(T + 0.9, 5, 1, 5, 1),
                                          (T + 2.1, 5.6, 1.1, 5.6, 1.1)])
        self.assertTrue(q.get("p1"), q)
        self.assertIsNone(starved.starved_guest(q["p1"]), q)

    def test_starved_client_waited_and_ran_little(self):
        # Busy host, a correct pairing's work not done: the client guest
        # waited 6 s of 7 and ran 0.7 s.
        b = window(self.d, T + 1, T + 8, [(T + 0.9, 5, 1, 5, 1),
                                          (T + 8.1, 5.9, 1.5, 5.7, 7)])
        self.assertTrue(b.get("p1"), b)
        self.assertEqual(starved.starved_guest(b["p1"]), "client", b)

    def test_starved_not_when_the_guest_ran_enough(self):
        # Busy host, but the guests ran 3 s: they had the CPU to progress.
        r = window(self.d, T + 1, T + 8, [(T + 0.9, 5, 1, 5, 1),
                                          (T + 8.1, 8, 5, 8, 5)])
        self.assertTrue(r.get("p1"), r)
        self.assertIsNone(starved.starved_guest(r["p1"]), r)

    def test_starved_not_an_idle_hang(self):
        # A hang on a busy host: idle guests wait for nothing.
        h = window(self.d, T + 1, T + 8, [(T + 0.9, 5, 1, 5, 1),
                                          (T + 8.1, 5.3, 1.4, 5.2, 1.3)])
        self.assertTrue(h.get("p1"), h)
        self.assertIsNone(starved.starved_guest(h["p1"]), h)

    def test_starved_unknown_without_samples_around(self):
        # A QEMU not yet started (0) before the window: nothing known.
        z = window(self.d, T + 1, T + 8, [(T + 0.9, 0, 0, 0, 0),
                                          (T + 8.1, 5.9, 9, 5.7, 9)])
        self.assertEqual(z, {}, z)

    def test_starved_unknown_without_samples(self):
        # No samples at all (the recorded judges' evidence): no entry,
        # though the pairing's window (srv-started, srv-done) is there.
        window(self.d, T + 1, T + 8, [])
        os.unlink(os.path.join(self.d, "cpu-wait"))
        n = starved.pairing_cpu(os.path.join(self.d, "res", "s"), self.d,
                                ["p1"])
        self.assertEqual(n, {}, n)


class TimingShaped(checklib.Case):
    def test_timing_shaped_no_completion(self):
        pair = {"server": FakeSide(),
                "client": FakeSide(codes={"send": "NO_COMPLETION"})}
        self.assertTrue(starved.timing_shaped(pair))

    def test_timing_shaped_silent_stop(self):
        pair = {"server": FakeSide(idle="silent for 8 s"),
                "client": FakeSide()}
        self.assertTrue(starved.timing_shaped(pair))

    def test_timing_shaped_not_retry_counts_or_values(self):
        pair = {"server": FakeSide(codes={"send": "WC_RNR_RETRY_EXC_ERR"}),
                "client": FakeSide(codes={"connect": "EXCH_QPN"})}
        self.assertFalse(starved.timing_shaped(pair))

    def test_timing_shaped_not_a_sandbox_limit(self):
        pair = {"server": FakeSide(limit="exhausted its memory (128 MiB)"),
                "client": FakeSide(codes={"send": "PEER_CLOSED"})}
        self.assertFalse(starved.timing_shaped(pair))

    def test_timing_shaped_not_a_stop_after_the_peer_failed(self):
        pair = {"server": FakeSide(codes={"connect": "EXCH_QPN"}),
                "client": FakeSide(note="stopped: the peer had failed",
                                   rc=143)}
        self.assertFalse(starved.timing_shaped(pair))


class WaitCodes(checklib.Case):
    """A wait code is the program's own line: believed from a student's
    run that lasted its -t (SIDE.cpu's wall time, the guest's)."""

    def test_wait_code_believed_after_the_wait(self):
        pair = {"server": FakeSide(),
                "client": FakeSide(codes={"send": "NO_COMPLETION"},
                                   cpu=(0.3, 5.4))}
        self.assertTrue(starved.timing_shaped(pair, 5))
        self.assertTrue(starved.stretched_end(pair, 5))

    def test_wait_code_printed_at_once_is_not(self):
        # The program printed NO_COMPLETION 0.4 s after its start, with
        # -t 5: no wait ran out; its failure stays its own.
        pair = {"server": FakeSide(),
                "client": FakeSide(codes={"send": "NO_COMPLETION"},
                                   cpu=(0.3, 0.4))}
        self.assertFalse(starved.timing_shaped(pair, 5))
        self.assertFalse(starved.stretched_end(pair, 5))
        # The guest's own records stay believed (a silent stop).
        pair["client"].idle = "silent for 8 s"
        self.assertTrue(starved.timing_shaped(pair, 5))

    def test_wait_code_of_the_reference_believed(self):
        pair = {"server": FakeSide(who="ref", codes={"send": "PEER_SILENT"}),
                "client": FakeSide(cpu=(0.3, 0.4))}
        self.assertTrue(starved.timing_shaped(pair, 5))

    def test_wait_code_without_a_measure_as_before(self):
        pair = {"server": FakeSide(),
                "client": FakeSide(codes={"send": "NO_COMPLETION"})}
        self.assertTrue(starved.timing_shaped(pair, 5))

    def test_prog_wait_from_the_run_config(self):
        with tempfile.TemporaryDirectory() as d:
            dflt = starved.SETTINGS["PROG_TIMEOUT_DEFAULT"]
            self.assertEqual(starved.prog_wait(starved.prog_timeout(d),
                                               1.0), dflt)
            with open(os.path.join(d, "config"), "w") as f:
                f.write("REF=/x\nPROG_TIMEOUT=7\nRUN_TIMEOUT=12\n")
            t = starved.prog_timeout(d)
            # guest-driver's stretch(): (7 * 14 + 9) / 10 = 10 s.
            self.assertEqual(starved.prog_wait(t, 1.4), 10)
            self.assertEqual(starved.prog_wait(t, 0.5), 7)
            top = starved.SETTINGS["SLOW_MAX"]
            self.assertEqual(starved.prog_wait(t, top + 3), 7 * top)


if __name__ == "__main__":
    checklib.run()

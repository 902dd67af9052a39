"""labgrader/starved.py: which pairings the host starved of CPU, from the
batch's samples of the guests' schedstat (run/cpu-wait) and the windows
of srv-started and srv-done.  The numbers are of kinds seen in real
batches (docs/grading.md, "Not luck").  One "ok NAME" or "FAIL NAME:
why" line per check."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "grader"))
from labgrader import starved  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
from checklib import check, done  # noqa: E402


class FakeSide:
    def __init__(self, idle="", note="", codes=None, rc=0, limit=""):
        self.idle, self.note, self.rc, self.limit = idle, note, rc, limit
        self.codes = codes or {}

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
with tempfile.TemporaryDirectory() as d:
    # Quiet host: 0.6 s run, 0.1 s wait in a 1 s pairing.
    q = window(d, T + 1, T + 2, [(T + 0.9, 5, 1, 5, 1),
                                 (T + 2.1, 5.6, 1.1, 5.6, 1.1)])
    check("starved_quiet_host_is_not",
          q.get("p1") and starved.starved_guest(q["p1"]) is None, q)
    # Busy host, a correct pairing's work not done: the client guest
    # waited 6 s of 7 and ran 0.7 s.
    b = window(d, T + 1, T + 8, [(T + 0.9, 5, 1, 5, 1),
                                 (T + 8.1, 5.9, 1.5, 5.7, 7)])
    check("starved_client_waited_and_ran_little",
          b.get("p1") and starved.starved_guest(b["p1"]) == "client", b)
    # Busy host, but the guests ran 3 s: they had the CPU to progress.
    r = window(d, T + 1, T + 8, [(T + 0.9, 5, 1, 5, 1),
                                 (T + 8.1, 8, 5, 8, 5)])
    check("starved_not_when_the_guest_ran_enough",
          r.get("p1") and starved.starved_guest(r["p1"]) is None, r)
    # A hang on a busy host: idle guests wait for nothing.
    h = window(d, T + 1, T + 8, [(T + 0.9, 5, 1, 5, 1),
                                 (T + 8.1, 5.3, 1.4, 5.2, 1.3)])
    check("starved_not_an_idle_hang",
          h.get("p1") and starved.starved_guest(h["p1"]) is None, h)
    # A QEMU not yet started (0) before the window: nothing known.
    z = window(d, T + 1, T + 8, [(T + 0.9, 0, 0, 0, 0),
                                 (T + 8.1, 5.9, 9, 5.7, 9)])
    check("starved_unknown_without_samples_around", z == {}, z)
    # No samples at all (the recorded judges' evidence): no entry.
    os.unlink(os.path.join(d, "cpu-wait"))
    n = starved.pairing_cpu(os.path.join(d, "res", "s"), d, ["p1"])
    check("starved_unknown_without_samples", n == {}, n)

pair = {"server": FakeSide(), "client": FakeSide(codes={"send":
                                                        "NO_COMPLETION"})}
check("timing_shaped_no_completion", starved.timing_shaped(pair))
pair = {"server": FakeSide(idle="silent for 8 s"), "client": FakeSide()}
check("timing_shaped_silent_stop", starved.timing_shaped(pair))
pair = {"server": FakeSide(codes={"send": "WC_RNR_RETRY_EXC_ERR"}),
        "client": FakeSide(codes={"connect": "EXCH_QPN"})}
check("timing_shaped_not_retry_counts_or_values",
      not starved.timing_shaped(pair))
pair = {"server": FakeSide(limit="exhausted its memory (128 MiB)"),
        "client": FakeSide(codes={"send": "PEER_CLOSED"})}
check("timing_shaped_not_a_sandbox_limit", not starved.timing_shaped(pair))
pair = {"server": FakeSide(codes={"connect": "EXCH_QPN"}),
        "client": FakeSide(note="stopped: the peer had failed", rc=143)}
check("timing_shaped_not_a_stop_after_the_peer_failed",
      not starved.timing_shaped(pair))
done()

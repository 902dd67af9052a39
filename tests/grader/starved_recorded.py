"""The starvation rules (labgrader/starved.py, late.py) on recorded
evidence: a seed's recorded run (tests/grader/judges/recorded.tar.xz,
judged quiet) judged again as if the host had starved a guest in every
pairing, a run/cpu-wait of samples around each window in which the
server guest waited 5 s and ran 0.5 s (starved.STARVED_S, NEEDED_S).
A failure that such a wait could cause is the machine's there (an
environment error, retried); one that the kernel's record of the
student's own objects already decides is the program's at any load.
Seen in a batch with six busy loops (2026-11-30): dgid_own's QP, which
sends to its own GID, gave up with status 12 and was an environment
error, where the quiet host graded it 17/20.

  python3 tests/grader/starved_recorded.py RECORDED
RECORDED: the recording extracted (tests/grader/judges.sh's
$out/recorded: NAME/ a run folder with res/NAME/).  Lines in
tests/checklib.py's dialect."""
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "grader"))
sys.path.insert(0, os.path.dirname(HERE))  # tests/checklib.py
import checklib  # noqa: E402
# In this process: a Python start per judging (two for each of the
# hundred seeds) cost the judges group 20 s of CPU beside the guests.
from labgrader.student import cmd_analyze  # noqa: E402

RECORDED = None
T = 1800000000.0


def starve(run, name):
    """run (a copy of NAME's run folder): each pairing's window 3 s, 1 s
    apart, and samples around each in which the server guest waited 5 s
    and ran 0.5 s, the client guest ran 2 s and waited 0.1 s."""
    res = os.path.join(run, "res", name)
    rows, srv, cli = [], [10.0, 1.0], [10.0, 1.0]
    for k, p in enumerate(("p1", "p2", "p3", "p4")):
        pdir = os.path.join(res, p)
        if not os.path.isdir(pdir):
            continue
        t0 = T + 10 * k
        for f, t in (("srv-started", t0), ("srv-done", t0 + 3)):
            path = os.path.join(pdir, f)
            if not os.path.exists(path):
                with open(path, "w") as fh:
                    fh.write("10\n")
            os.utime(path, (t, t))
        rows.append((t0 - 0.1, srv[:], cli[:]))
        srv[0] += 0.5
        srv[1] += 5.0
        cli[0] += 2.0
        cli[1] += 0.1
        rows.append((t0 + 3.1, srv[:], cli[:]))
    with open(os.path.join(run, "cpu-wait"), "w") as f:
        for t, s, c in rows:
            f.write("%f %d %d %d %d\n" % (t, s[0] * 1e9, s[1] * 1e9,
                                          c[0] * 1e9, c[1] * 1e9))


def analyze(name, starved=True):
    """NAME's recorded run judged again, starved (or as recorded): its
    result.json."""
    d = tempfile.mkdtemp()
    try:
        run = os.path.join(d, "run")
        shutil.copytree(os.path.join(RECORDED, name), run)
        if starved:
            starve(run, name)
        dest = os.path.join(d, "dest")
        os.makedirs(dest)
        cmd_analyze(os.path.join(run, "res", name), run, dest)
        with open(os.path.join(dest, "result.json")) as f:
            return json.load(f)
    finally:
        shutil.rmtree(d)


def verdicts(result):
    """Each step's (passed, hint) of a result.json."""
    return {k: (v["passed"], v["hint"]) for k, v in
            result["steps"].items()}


class Starved(checklib.Case):
    longMessage = False

    def own(self, name, step):
        r = analyze(name)
        self.assertIsNone(r["env_error"], "%s: %s" % (name, r["env_error"]))
        self.assertFalse(r["steps"][step]["passed"], r["steps"][step])

    def machine(self, name):
        r = analyze(name)
        self.assertTrue(r["env_error"], "%s: no environment error" % name)
        self.assertIn("too busy", r["env_error"])

    def test_starved_misaddressed_qp_is_the_programs(self):
        # Its QP sends to its own GID: no answer can come at any load.
        self.own("dgid_own", "connect")

    def test_starved_wrong_qpn_is_the_programs(self):
        self.own("qpn_own", "connect")

    def test_starved_wrong_psn_is_the_programs(self):
        self.own("wrong_psn", "connect")

    def test_starved_a_wait_is_the_machines(self):
        # send_unsignaled waits for a completion it never asked for: a
        # wait that a starved guest's correct program could run out too.
        self.machine("send_unsignaled")

    def test_starved_a_short_mr_is_the_programs(self):
        # The kernel's MR covers half the buffer: create_resources fails
        # on the kernel's record, whatever the sends then met.
        self.own("mr_len_half", "create_resources")

    def test_starved_a_path_mtu_above_the_link_is_the_programs(self):
        self.own("mtu_own", "connect")

    def test_starved_a_request_the_peer_refused_is_the_programs(self):
        # Its WRITE names its own rkey: the kernel completes it with
        # status 10 (remote access error), which no wait makes.
        self.own("wrong_rkey", "write")

    def test_starved_an_immediate_on_the_wire_is_the_programs(self):
        self.own("imm_no_htonl", "send_imm")

    def test_starved_verdicts_are_the_quiet_ones_or_none(self):
        # Every recorded seed: starved, an environment error (no grade)
        # or the very verdicts and hints of its quiet judging.
        names = sorted(n for n in os.listdir(RECORDED) if os.path.isdir(
            os.path.join(RECORDED, n, "res", n)))
        self.assertGreater(len(names), 50, names)
        moved = []
        for n in names:
            b = analyze(n)
            if b["env_error"]:
                continue
            if verdicts(analyze(n, starved=False)) != verdicts(b):
                moved.append(n)
        self.assertEqual(moved, [], "verdicts moved when starved: %s" %
                         " ".join(moved))

    def test_starved_the_reference_passes(self):
        r = analyze("reference")
        self.assertIsNone(r["env_error"], r["env_error"])
        self.assertEqual(r["score"], r["max_score"], r["score"])


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: starved_recorded.py RECORDED (the recording, "
                 "extracted)")
    RECORDED = os.path.abspath(sys.argv[1])
    del sys.argv[1:]
    checklib.run()

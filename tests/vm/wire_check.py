#!/usr/bin/env python3
"""vm/wire/relay on the host's loopback, with no guests: this script
plays both guests, two UDP sockets that send the real frames of a
recorded run (docs/runs/demo.pcap: ARP, the TCP exchange, RoCE) through
the relay, and checks what each side received against the rules, and
the relay's pcapng through tshark.

Runs alone (python3 tests/vm/wire_check.py: one "ok NAME", "FAIL NAME:
why" or "SKIP: NAME: reason" line per check, status 1 when one failed;
LAB_TEST_ONLY=REGEX for some of them, tests/checklib.py), as python3 -m
unittest wire_check (from tests/vm), or in the unit group's wire section
(tests/run --only wire unit).  wireshark_check.py plays through the
relay with this script's play()."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "grader"))
sys.dont_write_bytecode = True
from labgrader.evidence.wire import pcap_records, roce_frames  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
import checklib  # noqa: E402

RELAY = os.path.join(ROOT, "vm", "wire", "relay")
DEMO = os.path.join(ROOT, "docs", "runs", "demo.pcap")
SERVER_MAC = bytes.fromhex("525400000201")  # vm/run's server guest
# Between two frames sent: the relay keeps each direction's order
# whatever the gap; the gap keeps the two directions' frames in the
# recorded order in the pcapng on a machine that is not too busy.
GAP_S = 0.004
SETTLE_S = 0.8  # after the last frame: the 300 ms delay and the holds


OPCODE = {}  # frame: its BTH opcode, for the RoCE frames of the recording


def frames():
    """(direction, frame) of every frame of the recorded run, in order;
    the RoCE ones found by the grader's reader, not the relay's code."""
    with open(DEMO, "rb") as f:
        data = f.read()
    every = [fr for _, _, fr in pcap_records(data)]
    for n, _, _, _, _, bth in roce_frames(data):
        OPCODE[every[n - 1]] = bth[0]
    return [("s2c" if fr[6:12] == SERVER_MAC else "c2s", fr) for fr in every]


def roce(fr):
    """The opcode of a RoCE frame of the recording, else None."""
    return OPCODE.get(fr)


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def terminate(proc):
    """Ends PROC, SIGTERM then SIGKILL, each waited for 5 s at most: its
    status (None if it outlived both)."""
    if proc.poll() is None:
        proc.terminate()
    try:
        return proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
    try:
        return proc.wait(5)
    except subprocess.TimeoutExpired:
        return None


class Guest:
    """One guest's NIC: a socket that records what arrives, and when."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.got = []
        self.stop = False
        # A daemon: a reader close() could not join never holds the
        # script's exit.
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while not self.stop:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            self.got.append((time.monotonic(), data))

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.sock.close()


def play(rules, tmp, name, again=None):
    """Sends the recorded frames through a relay with RULES: (sent, what
    the server got, what the client got, the pcapng's path, the relay's
    log, its status).  sent: (direction, time sent, frame).  again: the
    index of a frame sent twice in a row (a resend rxe's timer made).
    The relay and the sockets are gone when it returns or raises."""
    cap = os.path.join(tmp, name + ".pcapng")
    ready = os.path.join(tmp, name + ".ready")
    sent = []
    guests, relay = [], None
    with open(os.path.join(tmp, name + ".log"), "w+") as log:
        try:
            for _ in range(2):
                guests.append(Guest())
            server, client = guests
            ports = {"server": free_port(), "client": free_port()}
            relay = subprocess.Popen(
                [sys.executable, RELAY, "--rules", rules,
                 "--from-server", str(ports["server"]),
                 "--from-client", str(ports["client"]),
                 "--to-server", str(server.port),
                 "--to-client", str(client.port),
                 "--capture", cap, "--ready", ready,
                 "--parent", str(os.getpid())],
                stdout=log, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 30
            while not os.path.exists(ready) and relay.poll() is None and \
                    time.monotonic() < deadline:
                time.sleep(0.05)
            if os.path.exists(ready):
                every = frames()
                if again is not None:
                    every.insert(again, every[again])
                for direction, fr in every:
                    guest, to = (server, ports["server"]) \
                        if direction == "s2c" else (client, ports["client"])
                    sent.append((direction, time.monotonic(), fr))
                    guest.sock.sendto(fr, ("127.0.0.1", to))
                    time.sleep(GAP_S)
                time.sleep(SETTLE_S)
        finally:
            # Even when a send raised: no relay nor reader outlives its
            # run, and its status is read after SIGTERM, as vm/run
            # stops it.
            rc = terminate(relay) if relay is not None else None
            for guest in guests:
                guest.close()
        log.seek(0)
        text = log.read()
    return sent, server.got, client.got, cap, text, rc


def tshark(cap, *args):
    r = subprocess.run(["tshark", "-r", cap] + list(args),
                       capture_output=True, text=True, timeout=60)
    return r.stdout.splitlines() if r.returncode == 0 else None


class Case(checklib.Case):
    """This file's checks and wireshark_check.py's: a failure's text is
    the check's why alone (no "False is not true :" before it), as their
    FAIL lines read before they were unittest modules."""
    longMessage = False

    @classmethod
    def tmpdir(cls, prefix):
        """A directory of the class's own, removed after its last test
        (or after a setUpClass that raised)."""
        tmp = tempfile.mkdtemp(prefix=prefix)
        cls.addClassCleanup(shutil.rmtree, tmp, ignore_errors=True)
        return tmp


class Recording(Case):
    def test_wire_recording(self):
        sent_all = frames()
        c2s_roce = [fr for d, fr in sent_all
                    if d == "c2s" and roce(fr) is not None]
        self.detail = ("docs/runs/demo.pcap has frames both ways, %d RoCE "
                       "from the client" % len(c2s_roce))
        self.assertTrue(
            len(c2s_roce) >= 5 and any(d == "s2c" for d, _ in sent_all),
            "%d frames" % len(sent_all))


RULES = ("drop c2s op=SEND_ONLY n=1; delay s2c op=ACKNOWLEDGE n=2 ms=300; "
         "dup c2s op=RDMA_WRITE_ONLY n=1; reorder c2s op=RDMA_READ_REQUEST")


class Rules(Case):
    """One relay session with RULES, and one tshark pass of each kind on
    its pcapng, that every check here reads."""

    @classmethod
    def setUpClass(cls):
        tmp = cls.tmpdir("wire-check.")
        (cls.sent, cls.server_got, cls.client_got, cls.cap, cls.log,
         cls.rc) = play(RULES, tmp, "rules")
        cls.c2s = [fr for d, _, fr in cls.sent if d == "c2s"]
        cls.s2c = [(t, fr) for d, t, fr in cls.sent if d == "s2c"]
        # What the server should get, worked out from the rules by hand:
        # the first SEND ONLY gone, the WRITE ONLY twice, the READ
        # REQUEST after the next RoCE frame from the client.
        cls.want, held, dropped = [], None, False
        for fr in cls.c2s:
            op = roce(fr)
            if op == 4 and not dropped:
                dropped = True
                continue
            if op == 12:
                held = fr
                continue
            cls.want.append(fr)
            if op == 10 and cls.want.count(fr) == 1:
                cls.want.append(fr)
            if held is not None and op is not None:
                cls.want.append(held)
                held = None
        cls.got = [fr for _, fr in cls.server_got]
        # The pcapng's passes, as the checks before ran them: none
        # without tshark, the frame counts only once it read the file.
        cls.have_tshark = shutil.which("tshark") is not None
        cls.rows = cls.every = cls.roce_rows = None
        if cls.sent and cls.have_tshark:
            cls.rows = tshark(cls.cap, "-Y", "frame.comment", "-T", "fields",
                              "-E", "separator=/t", "-e", "frame.number",
                              "-e", "infiniband.bth.opcode",
                              "-e", "frame.comment")
            if cls.rows is not None:
                cls.every = tshark(cls.cap, "-T", "fields",
                                   "-e", "frame.number")
                cls.roce_rows = tshark(cls.cap, "-Y", "infiniband",
                                       "-T", "fields",
                                       "-e", "infiniband.bth.opcode")

    def relay_ran(self):
        # Nothing was sent if the relay never got ready: the check
        # wire_relay_runs fails then, and what it would have carried is
        # not there to judge.
        if not self.sent:
            self.skipTest("the relay did not run (wire_relay_runs)")

    def pcapng_read(self):
        """Skips unless tshark read the pcapng (wire_pcapng_reads)."""
        self.relay_ran()
        if not self.have_tshark:
            self.skipTest("tshark is not installed")
        if self.rows is None:
            self.skipTest("tshark did not read the relay's pcapng "
                          "(wire_pcapng_reads)")

    def late(self):
        """(time sent, frame) of the second ACK from the server, the one
        the rule delays."""
        acks = [(t, fr) for t, fr in self.s2c if roce(fr) == 17]
        return acks[1]

    def test_wire_relay_runs(self):
        self.detail = "status 0 on SIGTERM"
        self.assertTrue(self.rc == 0 and self.sent,
                        "status %s: %s" % (self.rc, self.log.strip()[-300:]))

    def test_wire_c2s_as_ruled(self):
        self.relay_ran()
        self.detail = ("%d frames: one SEND ONLY dropped, the WRITE ONLY "
                       "twice, the READ REQUEST after the next packet, the "
                       "rest as sent, in order" % len(self.want))
        self.assertEqual(
            self.got, self.want,
            "got %d frames, %d as expected in order" % (
                len(self.got),
                sum(a == b for a, b in zip(self.got, self.want))))

    def test_wire_c2s_others_untouched(self):
        self.relay_ran()
        passed = [fr for fr in self.c2s if roce(fr) is None]
        self.detail = "%d ARP, TCP and other frames" % len(passed)
        self.assertEqual([fr for fr in self.got if roce(fr) is None],
                         passed, "they differ")

    # From the server: every frame once, byte for byte; the second ACK
    # at least 300 ms after it was sent, the others in their order.
    def test_wire_s2c_delay(self):
        self.relay_ran()
        self.detail = "the second ACK arrives >= 300 ms after it was sent"
        late_t, late = self.late()
        arrived = [t for t, fr in self.client_got if fr == late]
        self.assertTrue(len(arrived) == 1 and arrived[0] - late_t >= 0.3,
                        "arrived %s s after" % [round(a - late_t, 3)
                                                for a in arrived])

    def test_wire_s2c_others_in_order(self):
        self.relay_ran()
        _, late = self.late()
        rest = [fr for _, fr in self.s2c if fr != late]
        self.detail = "%d frames" % len(rest)
        self.assertEqual([fr for _, fr in self.client_got if fr != late],
                         rest, "got %d" % len(self.client_got))

    def test_wire_pcapng_reads(self):
        self.detail = "tshark reads the relay's pcapng"
        self.relay_ran()
        if not self.have_tshark:
            self.skipTest("tshark is not installed")
        self.assertIsNotNone(self.rows, "tshark failed on %s" % self.cap)

    def test_wire_pcapng_comments(self):
        self.detail = ("one per action, on the frame it acted on: opcode "
                       "and text")
        self.pcapng_read()
        got = sorted((r.split("\t")[1], r.split("\t")[2]) for r in self.rows)
        want = sorted([
            ("4", "dropped by the wire: rule 1 `drop c2s op=SEND_ONLY n=1`"),
            ("17", "delayed 300 ms by the wire: rule 2 "
             "`delay s2c op=ACKNOWLEDGE n=2 ms=300`"),
            ("10", "duplicated by the wire: rule 3 "
             "`dup c2s op=RDMA_WRITE_ONLY n=1`"),
            ("12", "reordered by the wire (held until the next packet): "
             "rule 4 `reorder c2s op=RDMA_READ_REQUEST`")])
        self.assertEqual(got, want, "got %s" % got)

    def test_wire_pcapng_frames(self):
        self.pcapng_read()
        nsent = len(self.sent)
        nroce = sum(roce(fr) is not None for _, fr in frames())
        self.detail = ("every frame as sent, %d; %d dissected as RoCE"
                       % (nsent, nroce))
        every, roce_rows = self.every, self.roce_rows
        self.assertTrue(
            every is not None and len(every) == nsent and
            roce_rows is not None and len(roce_rows) == nroce,
            "%s frames, %s RoCE" % (every and len(every),
                                    roce_rows and len(roce_rows)))

    def test_wire_log(self):
        self.detail = "one line per action, naming frame, opcode and rule"
        # Judged only where the pcapng was, as it always was: the log's
        # lines name the frames the pcapng's comments mark.
        self.pcapng_read()
        lines = [ln for ln in self.log.splitlines() if "by the wire" in ln]
        self.assertTrue(
            len(lines) == 4 and "SEND_ONLY psn 0x" in lines[0] and
            "rule 1" in lines[0], "log: %s" % self.log.strip()[-400:])


class Random(Case):
    """random=0.3 through four relay sessions: seed 7 twice, seed 8, and
    seed 7 with a resend inserted."""

    @classmethod
    def setUpClass(cls):
        tmp = cls.tmpdir("wire-check.")
        cls.runs = []
        for name, seed in (("seed7a", 7), ("seed7b", 7), ("seed8", 8)):
            sent, server_got, client_got, _, _, _ = play(
                "random=0.3 seed=%d" % seed, tmp, name)
            got = [fr for _, fr in server_got] + [fr for _, fr in client_got]
            lost = [i for i, (_, _, fr) in enumerate(sent) if fr not in got]
            cls.runs.append((lost, sent, got))
        # A resend that timing made (the first RoCE request from the
        # client sent twice) draws for itself alone: every other frame
        # meets the same fate as without it (a count of packets would
        # shift them all).
        cls.first = next(i for i, (d, fr) in enumerate(frames())
                         if d == "c2s" and roce(fr) is not None)
        cls.sent_r, server_got, client_got, _, _, _ = play(
            "random=0.3 seed=7", tmp, "seed7resend", again=cls.first)
        cls.got_r = [fr for _, fr in server_got] + \
            [fr for _, fr in client_got]

    def test_wire_random_drops_roce_only(self):
        lost_a, sent, _ = self.runs[0]
        kinds = {roce(sent[i][2]) is not None for i in lost_a}
        self.detail = ("%d of %d frames lost, all RoCE"
                       % (len(lost_a), len(sent)))
        self.assertTrue(lost_a and kinds == {True}, "lost %s" % lost_a)

    def test_wire_random_same_seed(self):
        self.detail = "the same frames lost twice"
        lost_a = self.runs[0][0]
        self.assertEqual(self.runs[1][0], lost_a,
                         "%s, then %s" % (lost_a, self.runs[1][0]))

    def test_wire_random_other_seed(self):
        self.detail = "seed 8 loses others"
        lost_a = self.runs[0][0]
        self.assertNotEqual(self.runs[2][0], lost_a,
                            "the same: %s" % lost_a)

    def test_wire_random_by_packet(self):
        _, sent, got = self.runs[0]
        twice = sent[self.first][2]
        fate = [fr in got for _, _, fr in sent if fr != twice]
        fate_r = [fr in self.got_r for _, _, fr in self.sent_r if fr != twice]
        self.detail = ("a resend inserted: the other %d frames lost or "
                       "passed as without it" % len(fate))
        self.assertEqual(fate, fate_r, "%d of %d differ" % (
            sum(a != b for a, b in zip(fate, fate_r)), len(fate)))


class Live(Case):
    def test_wire_live(self):
        """--live FILE (vm/run --wire live, the grader's lossy pairing):
        no rules until a line ID<tab>RULES is renamed into FILE; the
        relay answers in FILE.ack; new rules count their packets anew;
        bad ones are refused, and then nothing is dropped."""
        tmp = tempfile.mkdtemp(prefix="wire-check.")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        server, client = Guest(), Guest()
        self.addCleanup(server.close)
        self.addCleanup(client.close)
        ports = {"server": free_port(), "client": free_port()}
        live, ready = os.path.join(tmp, "rules"), \
            os.path.join(tmp, "live.ready")
        relay = subprocess.Popen(
            [sys.executable, RELAY, "--rules", "none", "--live", live,
             "--from-server", str(ports["server"]),
             "--from-client", str(ports["client"]),
             "--to-server", str(server.port), "--to-client", str(client.port),
             "--ready", ready, "--parent", str(os.getpid())],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        # Before the guests' sockets close (cleanups run last first).
        self.addCleanup(terminate, relay)
        send = [fr for d, fr in frames() if d == "c2s" and roce(fr) == 4][0]

        def rules(ident, text):
            with open(live + ".tmp", "w") as f:
                f.write("%s\t%s\n" % (ident, text))
            os.replace(live + ".tmp", live)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    with open(live + ".ack") as f:
                        ack = f.read()
                    if ack.startswith("%s\t" % ident):
                        return ack.rstrip("\n").split("\t", 1)[1]
                except OSError:
                    pass
                time.sleep(0.02)
            return None

        def through(n):
            """How many of n copies of the SEND ONLY reach the server."""
            before = len(server.got)
            for _ in range(n):
                client.sock.sendto(send, ("127.0.0.1", ports["client"]))
                time.sleep(GAP_S)
            time.sleep(0.3)
            return len(server.got) - before

        deadline = time.monotonic() + 30
        while not os.path.exists(ready) and time.monotonic() < deadline:
            time.sleep(0.05)
        got = [through(2), rules(1, "drop c2s op=SEND_ONLY n=1"), through(3),
               rules(2, "drop c2s op=SEND_ONLY n=1"), through(2),
               rules(3, "drip c2s"), through(2)]
        self.detail = ("no rules, then each new rule counts anew, acked; "
                       "bad rules refused: %s" % got)
        self.assertTrue(
            got[0] == 2 and got[1] == "ok" and got[2] == 2 and
            got[3] == "ok" and got[4] == 1 and
            str(got[5]).startswith("bad: rule 1 `drip c2s`") and
            got[6] == 2, "got %s" % got)


class Stop(Case):
    def test_wire_parent_gone(self):
        """A relay whose parent is gone stops by itself, within its
        bound."""
        self.detail = "the relay stops once its parent is gone"
        parent = subprocess.Popen(["sleep", "30"])
        self.addCleanup(terminate, parent)
        relay = subprocess.Popen(
            [sys.executable, RELAY, "--rules", "none",
             "--from-server", str(free_port()),
             "--from-client", str(free_port()),
             "--to-server", str(free_port()), "--to-client", str(free_port()),
             "--parent", str(parent.pid)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(terminate, relay)
        time.sleep(0.5)
        parent.kill()
        parent.wait(5)
        t = time.monotonic()
        try:
            rc = relay.wait(5)
        except subprocess.TimeoutExpired:
            rc = "still running after 5 s"  # killed by the cleanup
        self.assertTrue(rc == 0 and time.monotonic() - t < 2,
                        "status %s" % rc)

    # Bad rules: one line, status 2, never a trace.
    def bad_rules(self, name, rules):
        self.detail = "status 2, one line"
        r = subprocess.run([sys.executable, RELAY, "--check", rules],
                           capture_output=True, text=True, timeout=30)
        lines = r.stderr.splitlines()
        self.assertTrue(
            r.returncode == 2 and len(lines) == 1 and not r.stdout and
            lines[0].startswith("vm/wire/relay: rule") or
            name == "empty" and r.returncode == 2 and len(lines) == 1,
            "status %d: %s" % (r.returncode, r.stderr.strip()))

    def test_wire_bad_rules_action(self):
        self.bad_rules("action", "drip c2s")

    def test_wire_bad_rules_opcode(self):
        self.bad_rules("opcode", "drop op=SEND")

    def test_wire_bad_rules_delay(self):
        self.bad_rules("delay", "delay s2c n=1")

    def test_wire_bad_rules_random(self):
        self.bad_rules("random", "random=2")

    def test_wire_bad_rules_empty(self):
        self.bad_rules("empty", " ; ")

    def test_wire_vm_run_bad_rules(self):
        """vm/run refuses bad rules before it boots anything."""
        self.detail = "vm/run --wire: status 2, the relay's line"
        r = subprocess.run([os.path.join(ROOT, "vm", "run"),
                            "--wire", "drop c9s",
                            "--server", "true", "--client", "true"],
                           capture_output=True, text=True, timeout=60)
        self.assertTrue(
            r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
            "'c9s' is not a direction" in r.stderr and not r.stdout,
            "status %d: %s" % (r.returncode, r.stderr.strip()[:300]))


if __name__ == "__main__":
    checklib.run()

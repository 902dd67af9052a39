#!/usr/bin/env python3
"""vm/wire/relay on the host's loopback, with no guests: this script
plays both guests, two UDP sockets that send the real frames of a
recorded run (docs/runs/demo.pcap: ARP, the TCP exchange, RoCE) through
the relay, and checks what each side received against the rules, and
the relay's pcapng through tshark.  One "ok NAME", "FAIL NAME: why" or
"SKIP: reason" line per check."""
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
from checklib import check, done  # noqa: E402

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


class Guest:
    """One guest's NIC: a socket that records what arrives, and when."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.got = []
        self.stop = False
        self.thread = threading.Thread(target=self.read)
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
    index of a frame sent twice in a row (a resend rxe's timer made)."""
    server, client = Guest(), Guest()
    ports = {"server": free_port(), "client": free_port()}
    cap = os.path.join(tmp, name + ".pcapng")
    ready = os.path.join(tmp, name + ".ready")
    log = open(os.path.join(tmp, name + ".log"), "w+")
    relay = subprocess.Popen(
        [sys.executable, RELAY, "--rules", rules,
         "--from-server", str(ports["server"]),
         "--from-client", str(ports["client"]),
         "--to-server", str(server.port), "--to-client", str(client.port),
         "--capture", cap, "--ready", ready, "--parent", str(os.getpid())],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while not os.path.exists(ready) and relay.poll() is None and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    sent = []
    if os.path.exists(ready):
        every = frames()
        if again is not None:
            every.insert(again, every[again])
        for direction, fr in every:
            guest, to = (server, ports["server"]) if direction == "s2c" \
                else (client, ports["client"])
            sent.append((direction, time.monotonic(), fr))
            guest.sock.sendto(fr, ("127.0.0.1", to))
            time.sleep(GAP_S)
        time.sleep(SETTLE_S)
    relay.terminate()
    try:
        rc = relay.wait(5)
    except subprocess.TimeoutExpired:
        relay.kill()
        rc = relay.wait()
    server.close()
    client.close()
    log.seek(0)
    return sent, server.got, client.got, cap, log.read(), rc


def tshark(cap, *args):
    r = subprocess.run(["tshark", "-r", cap] + list(args),
                       capture_output=True, text=True, timeout=60)
    return r.stdout.splitlines() if r.returncode == 0 else None


def main():
    sent_all = frames()
    c2s_roce = [fr for d, fr in sent_all if d == "c2s" and roce(fr) is not None]
    check("wire_recording (docs/runs/demo.pcap has frames both ways, "
          "%d RoCE from the client)" % len(c2s_roce),
          len(c2s_roce) >= 5 and any(d == "s2c" for d, _ in sent_all),
          "%d frames" % len(sent_all))
    tmp = tempfile.mkdtemp(prefix="wire-check.")
    try:
        rules_checks(tmp)
        random_checks(tmp)
        live_checks(tmp)
        stop_checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


RULES = ("drop c2s op=SEND_ONLY n=1; delay s2c op=ACKNOWLEDGE n=2 ms=300; "
         "dup c2s op=RDMA_WRITE_ONLY n=1; reorder c2s op=RDMA_READ_REQUEST")


def rules_checks(tmp):
    sent, server_got, client_got, cap, log, rc = play(RULES, tmp, "rules")
    check("wire_relay_runs (status 0 on SIGTERM)", rc == 0 and sent,
          "status %s: %s" % (rc, log.strip()[-300:]))
    if not sent:
        return
    c2s = [fr for d, _, fr in sent if d == "c2s"]
    s2c = [(t, fr) for d, t, fr in sent if d == "s2c"]
    # What the server should get, worked out from the rules by hand: the
    # first SEND ONLY gone, the WRITE ONLY twice, the READ REQUEST after
    # the next RoCE frame from the client.
    want, held, dropped = [], None, False
    for fr in c2s:
        op = roce(fr)
        if op == 4 and not dropped:
            dropped = True
            continue
        if op == 12:
            held = fr
            continue
        want.append(fr)
        if op == 10 and want.count(fr) == 1:
            want.append(fr)
        if held is not None and op is not None:
            want.append(held)
            held = None
    got = [fr for _, fr in server_got]
    check("wire_c2s_as_ruled (%d frames: one SEND ONLY dropped, the WRITE "
          "ONLY twice, the READ REQUEST after the next packet, the rest as "
          "sent, in order)" % len(want), got == want,
          "got %d frames, %d as expected in order" % (
              len(got), sum(a == b for a, b in zip(got, want))))
    passed = [fr for fr in c2s if roce(fr) is None]
    check("wire_c2s_others_untouched (%d ARP, TCP and other frames)"
          % len(passed), [fr for fr in got if roce(fr) is None] == passed,
          "they differ")
    # From the server: every frame once, byte for byte; the second ACK
    # at least 300 ms after it was sent, the others in their order.
    acks = [(t, fr) for t, fr in s2c if roce(fr) == 17]
    late_t, late = acks[1]
    arrived = [t for t, fr in client_got if fr == late]
    check("wire_s2c_delay (the second ACK arrives >= 300 ms after it was "
          "sent)", len(arrived) == 1 and arrived[0] - late_t >= 0.3,
          "arrived %s s after" % [round(a - late_t, 3) for a in arrived])
    rest = [fr for _, fr in s2c if fr != late]
    check("wire_s2c_others_in_order (%d frames)" % len(rest),
          [fr for _, fr in client_got if fr != late] == rest,
          "got %d" % len(client_got))
    comments(cap, log, len(sent))


def comments(cap, log, nsent):
    if not shutil.which("tshark"):
        print("SKIP: the pcapng checks: tshark is not installed")
        return
    rows = tshark(cap, "-Y", "frame.comment", "-T", "fields",
                  "-E", "separator=/t", "-e", "frame.number",
                  "-e", "infiniband.bth.opcode", "-e", "frame.comment")
    check("wire_pcapng_reads (tshark reads the relay's pcapng)",
          rows is not None, "tshark failed on %s" % cap)
    if rows is None:
        return
    got = sorted((r.split("\t")[1], r.split("\t")[2]) for r in rows)
    want = sorted([
        ("4", "dropped by the wire: rule 1 `drop c2s op=SEND_ONLY n=1`"),
        ("17", "delayed 300 ms by the wire: rule 2 "
         "`delay s2c op=ACKNOWLEDGE n=2 ms=300`"),
        ("10", "duplicated by the wire: rule 3 "
         "`dup c2s op=RDMA_WRITE_ONLY n=1`"),
        ("12", "reordered by the wire (held until the next packet): rule 4 "
         "`reorder c2s op=RDMA_READ_REQUEST`")])
    check("wire_pcapng_comments (one per action, on the frame it acted "
          "on: opcode and text)", got == want, "got %s" % got)
    every = tshark(cap, "-T", "fields", "-e", "frame.number")
    roce_rows = tshark(cap, "-Y", "infiniband", "-T", "fields",
                       "-e", "infiniband.bth.opcode")
    nroce = sum(roce(fr) is not None for _, fr in frames())
    check("wire_pcapng_frames (every frame as sent, %d; %d dissected as "
          "RoCE)" % (nsent, nroce),
          every is not None and len(every) == nsent and roce_rows is not None
          and len(roce_rows) == nroce,
          "%s frames, %s RoCE" % (every and len(every),
                                  roce_rows and len(roce_rows)))
    lines = [ln for ln in log.splitlines() if "by the wire" in ln]
    check("wire_log (one line per action, naming frame, opcode and rule)",
          len(lines) == 4 and "SEND_ONLY psn 0x" in lines[0] and
          "rule 1" in lines[0], "log: %s" % log.strip()[-400:])


def random_checks(tmp):
    runs = []
    for name, seed in (("seed7a", 7), ("seed7b", 7), ("seed8", 8)):
        sent, server_got, client_got, _, log, rc = play(
            "random=0.3 seed=%d" % seed, tmp, name)
        got = [fr for _, fr in server_got] + [fr for _, fr in client_got]
        lost = [i for i, (_, _, fr) in enumerate(sent) if fr not in got]
        runs.append((lost, sent, got))
    lost_a, sent, got = runs[0]
    kinds = {roce(sent[i][2]) is not None for i in lost_a}
    check("wire_random_drops_roce_only (%d of %d frames lost, all RoCE)"
          % (len(lost_a), len(sent)), lost_a and kinds == {True},
          "lost %s" % lost_a)
    check("wire_random_same_seed (the same frames lost twice)",
          runs[1][0] == lost_a, "%s, then %s" % (lost_a, runs[1][0]))
    check("wire_random_other_seed (seed 8 loses others)",
          runs[2][0] != lost_a, "the same: %s" % lost_a)
    # A resend that timing made (the first RoCE request from the client
    # sent twice) draws for itself alone: every other frame meets the
    # same fate as without it (a count of packets would shift them all).
    first = next(i for i, (d, fr) in enumerate(frames())
                 if d == "c2s" and roce(fr) is not None)
    sent_r, server_got, client_got, _, _, _ = play(
        "random=0.3 seed=7", tmp, "seed7resend", again=first)
    got_r = [fr for _, fr in server_got] + [fr for _, fr in client_got]
    twice = sent[first][2]
    fate = [fr in got for _, _, fr in sent if fr != twice]
    fate_r = [fr in got_r for _, _, fr in sent_r if fr != twice]
    check("wire_random_by_packet (a resend inserted: the other %d frames "
          "lost or passed as without it)" % len(fate), fate == fate_r,
          "%d of %d differ" % (sum(a != b for a, b in zip(fate, fate_r)),
                               len(fate)))


def live_checks(tmp):
    """--live FILE (vm/run --wire live, the grader's lossy pairing): no
    rules until a line ID<tab>RULES is renamed into FILE; the relay
    answers in FILE.ack; new rules count their packets anew; bad ones
    are refused, and then nothing is dropped."""
    server, client = Guest(), Guest()
    ports = {"server": free_port(), "client": free_port()}
    live, ready = os.path.join(tmp, "rules"), os.path.join(tmp, "live.ready")
    relay = subprocess.Popen(
        [sys.executable, RELAY, "--rules", "none", "--live", live,
         "--from-server", str(ports["server"]),
         "--from-client", str(ports["client"]),
         "--to-server", str(server.port), "--to-client", str(client.port),
         "--ready", ready, "--parent", str(os.getpid())],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
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
    relay.terminate()
    relay.wait(5)
    server.close()
    client.close()
    check("wire_live (no rules, then each new rule counts anew, acked; bad "
          "rules refused: %s)" % got,
          got[0] == 2 and got[1] == "ok" and got[2] == 2 and
          got[3] == "ok" and got[4] == 1 and
          str(got[5]).startswith("bad: rule 1 `drip c2s`") and got[6] == 2,
          "got %s" % got)


def stop_checks(tmp):
    # A relay whose parent is gone stops by itself, within its bound.
    parent = subprocess.Popen(["sleep", "30"])
    relay = subprocess.Popen(
        [sys.executable, RELAY, "--rules", "none",
         "--from-server", str(free_port()), "--from-client", str(free_port()),
         "--to-server", str(free_port()), "--to-client", str(free_port()),
         "--parent", str(parent.pid)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    parent.kill()
    parent.wait()
    t = time.monotonic()
    try:
        rc = relay.wait(5)
    except subprocess.TimeoutExpired:
        relay.kill()
        rc = "still running after 5 s"
    check("wire_parent_gone (the relay stops once its parent is gone)",
          rc == 0 and time.monotonic() - t < 2, "status %s" % rc)
    # Bad rules: one line, status 2, never a trace.
    for name, rules in (("action", "drip c2s"), ("opcode", "drop op=SEND"),
                        ("delay", "delay s2c n=1"), ("random", "random=2"),
                        ("empty", " ; ")):
        r = subprocess.run([sys.executable, RELAY, "--check", rules],
                           capture_output=True, text=True, timeout=30)
        lines = r.stderr.splitlines()
        check("wire_bad_rules_%s (status 2, one line)" % name,
              r.returncode == 2 and len(lines) == 1 and not r.stdout and
              lines[0].startswith("vm/wire/relay: rule") or
              name == "empty" and r.returncode == 2 and len(lines) == 1,
              "status %d: %s" % (r.returncode, r.stderr.strip()))
    # vm/run refuses bad rules before it boots anything.
    r = subprocess.run([os.path.join(ROOT, "vm", "run"), "--wire", "drop c9s",
                        "--server", "true", "--client", "true"],
                       capture_output=True, text=True, timeout=60)
    check("wire_vm_run_bad_rules (vm/run --wire: status 2, the relay's line)",
          r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
          "'c9s' is not a direction" in r.stderr and not r.stdout,
          "status %d: %s" % (r.returncode, r.stderr.strip()[:300]))


if __name__ == "__main__":
    main()

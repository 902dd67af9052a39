#!/usr/bin/env python3
"""The handout's Wireshark profile (wireshark/rdma-lab) loaded by tshark,
its coloring rules and columns on the recorded captures, and the marks
of vm/wire-summary and make ladder: RESENT on docs/runs' resends, the
wire's actions on a relay pcapng made on loopback (wire_check.py's
play, no guests).  No check passes without tshark: each is a SKIP.

Runs alone (python3 tests/vm/wireshark_check.py: one "ok NAME", "FAIL
NAME: why" or "SKIP: NAME: reason" line per check, status 1 when one
failed; LAB_TEST_ONLY=REGEX for some of them, tests/checklib.py), as
python3 -m unittest wireshark_check (from tests/vm), or in the unit
group's wireshark section (tests/run --only wireshark unit)."""
import os
import shutil
import struct
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
import checklib  # noqa: E402
import wire_check  # noqa: E402

ROOT = wire_check.ROOT
RUNS = os.path.join(ROOT, "docs", "runs")
PROFILE = os.path.join(ROOT, "wireshark", "rdma-lab")
SUMMARY = os.path.join(ROOT, "vm", "wire-summary")

# Every class here, the wire-summary ones too, as when one SKIP line
# stood for them all: vm/wire-summary decodes with tshark as well.
needs_tshark = unittest.skipUnless(shutil.which("tshark"),
                                   "tshark is not installed")


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=env)
    return r.returncode, r.stdout, r.stderr


def grader_summary(cap):
    return run([sys.executable, os.path.join(ROOT, "grader",
                                             "grader.py"), "summary", cap])[1]


def nak_capture(path):
    """demo.pcap with its first ACK's syndrome made 0x60, a NAK for a PSN
    sequence error: no recorded run holds one."""
    with open(os.path.join(RUNS, "demo.pcap"), "rb") as f:
        d = bytearray(f.read())
    off = 24
    while off + 16 <= len(d):
        fr = off + 16
        # Ethernet, IPv4 (20 bytes), UDP to 4791, BTH opcode 17: the
        # AETH's first byte is the syndrome.
        if d[fr + 12:fr + 14] == b"\x08\x00" and d[fr + 23] == 17 and \
                d[fr + 36:fr + 38] == b"\x12\xb7" and d[fr + 42] == 17:
            d[fr + 54] = 0x60
            break
        off = fr + struct.unpack("<I", d[off + 8:off + 12])[0]
    with open(path, "wb") as f:
        f.write(d)


class Tshark:
    """tshark with the profile, in a config dir of its own (HOME too:
    a ~/.wireshark would be read before XDG_CONFIG_HOME)."""

    def __init__(self, tmp):
        conf = os.path.join(tmp, "config")
        shutil.copytree(PROFILE, os.path.join(conf, "wireshark", "profiles",
                                              "rdma-lab"))
        self.env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=conf)

    def __call__(self, cap, *args):
        rc, out, err = run(["tshark", "-C", "rdma-lab", "-r", cap] +
                           list(args), self.env)
        # tshark says so when run as root; anything else is the profile.
        err = [ln for ln in err.splitlines() if "Running as user" not in ln]
        return rc, out.splitlines(), err

    def rules(self, cap, filt="infiniband"):
        """{frame: coloring rule name} (--color: tshark colours)."""
        _, rows, _ = self(cap, "--color", "-Y", filt, "-T", "fields",
                          "-e", "frame.number", "-e",
                          "frame.coloring_rule.name")
        return dict(r.split("\t") for r in rows)


@needs_tshark
class Profile(wire_check.Case):
    """The profile on docs/runs' captures, and on demo.pcap with a NAK
    made in it (nak.pcap, shared by three checks)."""

    @classmethod
    def setUpClass(cls):
        tmp = cls.tmpdir("wireshark-check.")
        cls.ts = Tshark(tmp)
        cls.nak = os.path.join(tmp, "nak.pcap")
        nak_capture(cls.nak)

    def test_wireshark_profile_loads(self):
        self.detail = ("tshark -C rdma-lab: no error about its colorfilters "
                       "or preferences")
        rc, rows, err = self.ts(os.path.join(RUNS, "demo.pcap"), "--color",
                                "-Y", "infiniband")
        self.assertTrue(rc == 0 and rows and not err,
                        "status %d: %s" % (rc, " ".join(err)[:300]))

    def test_wireshark_rule_rnr_nak(self):
        rnr = self.ts.rules(os.path.join(RUNS, "rnr.pcap"))
        naks = self.ts.rules(os.path.join(RUNS, "rnr.pcap"),
                             "infiniband.aeth.syndrome.opcode == 1")
        self.detail = "rnr.pcap: its %d RNR NAKs" % len(naks)
        self.assertTrue(
            len(naks) == 7 and set(naks.values()) == {"RoCE RNR NAK"} and
            set(rnr.values()) == {"RoCE RNR NAK", "RoCE SEND"}, "%s" % rnr)

    def test_wireshark_rules_operations(self):
        demo = self.ts.rules(os.path.join(RUNS, "demo.pcap"), "infiniband")
        _, ops, _ = self.ts(os.path.join(RUNS, "demo.pcap"),
                            "-Y", "infiniband", "-T", "fields",
                            "-e", "frame.number",
                            "-e", "infiniband.bth.opcode")
        kind = {}
        for r in ops:
            n, op = r.split("\t")
            op = int(op, 0)
            kind[n] = ("RoCE SEND" if op <= 5 else "RoCE WRITE" if op <= 11
                       else "RoCE READ" if op <= 16 else "RoCE ACK"
                       if op == 17 else "RoCE atomic")
        self.detail = ("demo.pcap: SEND, WRITE, READ, ACK, atomic, %d "
                       "packets" % len(kind))
        self.assertTrue(demo == kind and len(kind) >= 14,
                        "got %s, want %s" % (demo, kind))

    def test_wireshark_rule_nak_psn(self):
        self.detail = "an ACK made a NAK 0x60: PSN sequence error"
        got = self.ts.rules(self.nak, "infiniband.aeth.syndrome == 0x60")
        self.assertEqual(list(got.values()),
                         ["RoCE NAK: PSN sequence error"], "%s" % got)

    def test_wireshark_columns(self):
        self.detail = ("opcode, QP, PSN, AETH: Nak,PSN Sequence Error and "
                       "RNR Nak")
        _, text, _ = self.ts(self.nak, "-Y", "infiniband.aeth")
        _, rnr_text, _ = self.ts(os.path.join(RUNS, "rnr.pcap"), "-Y",
                                 "infiniband.aeth")
        self.assertTrue(
            text and "Nak,PSN Sequence Error" in text[0] and
            " 0x000011 " in text[0] and rnr_text and
            "RNR Nak" in rnr_text[0], "%s / %s" % (text[:1], rnr_text[:1]))

    def test_wire_summary_nak_seq_err(self):
        self.detail = ("aeth=NAK_SEQ_ERR(0x60), and the grader's summary "
                       "the same")
        rc, out, _ = run([SUMMARY, self.nak])
        self.assertTrue(
            rc == 0 and "aeth=NAK_SEQ_ERR(0x60) msn=" in out and
            out == grader_summary(self.nak), out[:300])


@needs_tshark
class Resent(wire_check.Case):
    """vm/wire-summary's RESENT marks on docs/runs' recordings, one check
    per recording (the methods are made below)."""


def resent_test(name, op, want):
    """The check of NAME.pcap: WANT requests of opcode OP marked RESENT,
    and the grader's summary the same."""
    def test(self):
        self.detail = ("%d requests RESENT%s; the grader's summary the same"
                       % (want, op and ", " + op or ""))
        cap = os.path.join(RUNS, name + ".pcap")
        rc, out, _ = run([SUMMARY, cap])
        marked = [ln for ln in out.splitlines() if ln.endswith(" RESENT")]
        self.assertTrue(
            rc == 0 and len(marked) == want and
            all(op + "(" in ln for ln in marked) and
            out == grader_summary(cap), "%d marked: %s" % (
                len(marked), marked[:2]))
    return test


# setattr, not def: a check is named after its recording, and
# cmpswap-resend's hyphen is no identifier.
for _name, _op, _want in (("deadpeer", "SEND_ONLY", 6),
                          ("rnr", "SEND_ONLY", 6),
                          ("cmpswap-resend", "CMP_SWAP", 1),
                          ("demo", None, 0), ("big", None, 0)):
    setattr(Resent, "test_wire_summary_resent_" + _name,
            resent_test(_name, _op, _want))


@needs_tshark
class Relay(wire_check.Case):
    """One relay session with wire_check's rules, on loopback: its
    pcapng read by every check here."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = cls.tmpdir("wireshark-check.")
        cls.ts = Tshark(cls.tmp)
        cls.sent, _, _, cls.cap, cls.log, cls.rc = wire_check.play(
            wire_check.RULES, cls.tmp, "ws")

    def relay_ran(self):
        # The script's one check of the session itself, which printed
        # only when it failed: now each check of the pcapng fails so.
        if not self.sent or self.rc != 0:
            self.fail("the relay did not run on loopback "
                      "(wireshark_relay_capture): status %s: %s"
                      % (self.rc, self.log[-300:]))

    def test_wire_summary_relay_marks(self):
        self.detail = ("the relay's pcapng: dropped, delayed, duplicated, "
                       "reordered, on their packets")
        self.relay_ran()
        rc, out, _ = run([SUMMARY, self.cap])
        want = [("SEND_ONLY(", "DROPPED by the wire"),
                ("ACKNOWLEDGE(", "DELAYED 300 ms by the wire"),
                ("RDMA_WRITE_ONLY(", "DUPLICATED by the wire"),
                ("RDMA_READ_REQUEST(", "REORDERED by the wire")]
        got = [ln for ln in out.splitlines() if ln.endswith("by the wire")]
        self.assertTrue(
            rc == 0 and len(got) == 4 and
            all(o in ln and ln.endswith(m) for (o, m), ln in zip(want, got)),
            "%s" % got)

    def test_wireshark_rules_relay(self):
        self.detail = ("dropped by the wire, then duplicated, delayed or "
                       "reordered")
        self.relay_ran()
        rules = self.ts.rules(self.cap, "frame.comment")
        self.assertEqual(
            sorted(rules.values()), sorted(
                ["RoCE dropped by the wire"] +
                ["RoCE duplicated, delayed or reordered by the wire"] * 3),
            "%s" % rules)

    def test_wireshark_column_comment(self):
        self.detail = "the comment column"
        self.relay_ran()
        _, text, _ = self.ts(self.cap, "-Y",
                             "frame.comment contains \"dropped\"")
        self.assertTrue(
            len(text) == 1 and "dropped by the wire: rule 1" in text[0],
            "%s" % text)

    def test_ladder_dropped(self):
        self.detail = "make ladder: the dropped SEND dashed, to an X"
        self.relay_ran()
        svg = os.path.join(self.tmp, "ladder.svg")
        rc, _, err = run([sys.executable, os.path.join(ROOT, "images",
                                                       "ladder.py"),
                          self.cap, svg])
        body = ""
        if rc == 0:
            with open(svg, encoding="utf-8") as f:
                body = f.read()
        self.assertTrue(
            body.count('stroke-dasharray="6 4"') == 1 and
            "DROPPED by the wire" in body and
            "duplicated by the wire" in body, err.strip()[-200:])


if __name__ == "__main__":
    checklib.run()

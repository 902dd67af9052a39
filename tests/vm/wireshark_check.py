#!/usr/bin/env python3
"""The handout's Wireshark profile (wireshark/rdma-lab) loaded by tshark,
its coloring rules and columns on the recorded captures, and the marks
of vm/wire-summary and make ladder: RESENT on docs/runs' resends, the
wire's actions on a relay pcapng made on loopback (wire_check.py's
play, no guests).  One "ok NAME", "FAIL NAME: why" or "SKIP: reason"
line per check; no check passes without tshark."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
from checklib import check, done  # noqa: E402
import wire_check  # noqa: E402

ROOT = wire_check.ROOT
RUNS = os.path.join(ROOT, "docs", "runs")
PROFILE = os.path.join(ROOT, "wireshark", "rdma-lab")
SUMMARY = os.path.join(ROOT, "vm", "wire-summary")


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


def profile_checks(ts, tmp):
    rc, rows, err = ts(os.path.join(RUNS, "demo.pcap"), "--color",
                       "-Y", "infiniband")
    check("wireshark_profile_loads (tshark -C rdma-lab: no error about "
          "its colorfilters or preferences)", rc == 0 and rows and not err,
          "status %d: %s" % (rc, " ".join(err)[:300]))
    rnr = ts.rules(os.path.join(RUNS, "rnr.pcap"))
    naks = ts.rules(os.path.join(RUNS, "rnr.pcap"),
                    "infiniband.aeth.syndrome.opcode == 1")
    check("wireshark_rule_rnr_nak (rnr.pcap: its %d RNR NAKs)" % len(naks),
          len(naks) == 7 and set(naks.values()) == {"RoCE RNR NAK"} and
          set(rnr.values()) == {"RoCE RNR NAK", "RoCE SEND"}, "%s" % rnr)
    demo = ts.rules(os.path.join(RUNS, "demo.pcap"), "infiniband")
    _, ops, _ = ts(os.path.join(RUNS, "demo.pcap"), "-Y", "infiniband",
                   "-T", "fields", "-e", "frame.number",
                   "-e", "infiniband.bth.opcode")
    kind = {}
    for r in ops:
        n, op = r.split("\t")
        op = int(op, 0)
        kind[n] = ("RoCE SEND" if op <= 5 else "RoCE WRITE" if op <= 11
                   else "RoCE READ" if op <= 16 else "RoCE ACK" if op == 17
                   else "RoCE atomic")
    check("wireshark_rules_operations (demo.pcap: SEND, WRITE, READ, ACK, "
          "atomic, %d packets)" % len(kind), demo == kind and len(kind) >= 14,
          "got %s, want %s" % (demo, kind))
    nak = os.path.join(tmp, "nak.pcap")
    nak_capture(nak)
    got = ts.rules(nak, "infiniband.aeth.syndrome == 0x60")
    check("wireshark_rule_nak_psn (an ACK made a NAK 0x60: PSN sequence "
          "error)", list(got.values()) == ["RoCE NAK: PSN sequence error"],
          "%s" % got)
    _, text, _ = ts(nak, "-Y", "infiniband.aeth")
    _, rnr_text, _ = ts(os.path.join(RUNS, "rnr.pcap"), "-Y",
                        "infiniband.aeth")
    check("wireshark_columns (opcode, QP, PSN, AETH: Nak,PSN Sequence "
          "Error and RNR Nak)", text and "Nak,PSN Sequence Error" in text[0]
          and " 0x000011 " in text[0] and rnr_text and
          "RNR Nak" in rnr_text[0], "%s / %s" % (text[:1], rnr_text[:1]))
    rc, out, _ = run([SUMMARY, nak])
    check("wire_summary_nak_seq_err (aeth=NAK_SEQ_ERR(0x60), and the "
          "grader's summary the same)", rc == 0 and
          "aeth=NAK_SEQ_ERR(0x60) msn=" in out and
          out == grader_summary(nak), out[:300])


def resent_checks():
    for name, op, want in (("deadpeer", "SEND_ONLY", 6),
                           ("rnr", "SEND_ONLY", 6),
                           ("cmpswap-resend", "CMP_SWAP", 1),
                           ("demo", None, 0), ("big", None, 0)):
        cap = os.path.join(RUNS, name + ".pcap")
        rc, out, _ = run([SUMMARY, cap])
        marked = [ln for ln in out.splitlines() if ln.endswith(" RESENT")]
        check("wire_summary_resent_%s (%d requests RESENT%s; the grader's "
              "summary the same)" % (name, want, op and ", " + op or ""),
              rc == 0 and len(marked) == want and
              all(op + "(" in ln for ln in marked) and
              out == grader_summary(cap), "%d marked: %s" % (
                  len(marked), marked[:2]))


def relay_checks(ts, tmp):
    sent, _, _, cap, log, rc = wire_check.play(wire_check.RULES, tmp, "ws")
    if not sent or rc != 0:
        check("wireshark_relay_capture (the relay ran on loopback)", False,
              "status %s: %s" % (rc, log[-300:]))
        return
    rc, out, _ = run([SUMMARY, cap])
    want = [("SEND_ONLY(", "DROPPED by the wire"),
            ("ACKNOWLEDGE(", "DELAYED 300 ms by the wire"),
            ("RDMA_WRITE_ONLY(", "DUPLICATED by the wire"),
            ("RDMA_READ_REQUEST(", "REORDERED by the wire")]
    got = [ln for ln in out.splitlines() if ln.endswith("by the wire")]
    check("wire_summary_relay_marks (the relay's pcapng: dropped, delayed, "
          "duplicated, reordered, on their packets)",
          rc == 0 and len(got) == 4 and
          all(o in ln and ln.endswith(m) for (o, m), ln in zip(want, got)),
          "%s" % got)
    rules = ts.rules(cap, "frame.comment")
    check("wireshark_rules_relay (dropped by the wire, then duplicated, "
          "delayed or reordered)", sorted(rules.values()) == sorted(
              ["RoCE dropped by the wire"] +
              ["RoCE duplicated, delayed or reordered by the wire"] * 3),
          "%s" % rules)
    _, text, _ = ts(cap, "-Y", "frame.comment contains \"dropped\"")
    check("wireshark_column_comment (the comment column)",
          len(text) == 1 and "dropped by the wire: rule 1" in text[0],
          "%s" % text)
    svg = os.path.join(tmp, "ladder.svg")
    rc, _, err = run([sys.executable, os.path.join(ROOT, "images",
                                                   "ladder.py"), cap, svg])
    body = open(svg, encoding="utf-8").read() if rc == 0 else ""
    check("ladder_dropped (make ladder: the dropped SEND dashed, to an X)",
          body.count('stroke-dasharray="6 4"') == 1 and
          "DROPPED by the wire" in body and "duplicated by the wire" in body,
          err.strip()[-200:])


def main():
    if not shutil.which("tshark"):
        print("SKIP: the Wireshark profile and wire-summary checks: tshark "
              "is not installed")
        done()
    tmp = tempfile.mkdtemp(prefix="wireshark-check.")
    try:
        ts = Tshark(tmp)
        profile_checks(ts, tmp)
        resent_checks()
        relay_checks(ts, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


if __name__ == "__main__":
    main()

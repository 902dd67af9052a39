#!/usr/bin/env python3
"""The RoCEv2 packets of a capture as tshark dissects them, printed like
`vm/grader/grader.py packets`, so the tests can hold the grader's own pcap
parser to Wireshark's reading of the same file:
  tests/grade/packets-tshark.py FILE.pcap
"""
import subprocess
import sys

FIELDS = ["frame.number", "ip.src", "ip.dst", "infiniband.bth.opcode",
          "infiniband.bth.destqp", "infiniband.bth.psn",
          "infiniband.reth.va", "infiniband.reth.r_key",
          "infiniband.reth.dmalen", "infiniband.immdt",
          "infiniband.aeth.syndrome"]
cmd = ["tshark", "-r", sys.argv[1], "-Y", "infiniband", "-T", "fields",
       "-E", "separator=/t", "-E", "occurrence=f"]
for f in FIELDS:
    cmd += ["-e", f]
out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    v = line.split("\t")
    # Addresses as they are, numbers in decimal; tshark shows the
    # immediate as raw bytes, the other numbers as 0x.. or decimal.
    print(" ".join(v[:3] + [
        "-" if not x else str(int(x, 16 if f == "infiniband.immdt" else 0))
        for f, x in zip(FIELDS[3:], v[3:])]))

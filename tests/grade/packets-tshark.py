#!/usr/bin/env python3
"""The RoCEv2 packets of a capture as tshark dissects them, printed like
`vm/grader/grader.py packets`, so the tests can hold the grader's own pcap
parser to Wireshark's reading of the same file:
  tests/grade/packets-tshark.py FILE.pcap
"""
import ipaddress
import subprocess
import sys

FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
          "infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.bth.psn", "infiniband.reth.va",
          "infiniband.reth.r_key", "infiniband.reth.dmalen",
          "infiniband.immdt", "infiniband.aeth.syndrome"]
cmd = ["tshark", "-r", sys.argv[1], "-Y", "infiniband && udp", "-T",
       "fields", "-E", "separator=/t", "-E", "occurrence=f"]
for f in FIELDS:
    cmd += ["-e", f]
out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    v = dict(zip(FIELDS, line.split("\t")))
    # IPv4 dotted, IPv6 as 32 hex digits (as the grader keeps them).
    if v["ip.src"]:
        addr = [v["ip.src"], v["ip.dst"]]
    else:
        addr = [ipaddress.ip_address(v[k]).packed.hex()
                for k in ("ipv6.src", "ipv6.dst")]
    # Numbers in decimal: tshark shows the immediate as raw bytes, the
    # others as 0x.. or decimal.
    nums = ["-" if not v[f] else
            str(int(v[f], 16 if f == "infiniband.immdt" else 0))
            for f in FIELDS[5:]]
    print(" ".join([v["frame.number"]] + addr + nums))

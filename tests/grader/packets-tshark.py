#!/usr/bin/env python3
"""The RoCEv2 packets of a capture as tshark dissects them, printed like
`grader/grader.py packets`, so the tests can hold the grader's own pcap
parser to Wireshark's reading of the same file:
  tests/grader/packets-tshark.py FILE.pcap
"""
import ipaddress
import subprocess
import sys

FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
          "infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.bth.psn", "infiniband.reth.va",
          "infiniband.reth.r_key", "infiniband.reth.dmalen",
          "infiniband.immdt", "infiniband.aeth.syndrome",
          "infiniband.atomiceth", "infiniband.atomicacketh"]
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
            for f in FIELDS[5:-2]]
    # The 64-bit atomic operands from the headers' raw bytes: tshark's
    # own fields for them are decimal, and a float on the way would round.
    # AtomicETH: VA (8), rkey (4), swap or add data (8), compare data (8).
    a, ack = v["infiniband.atomiceth"], v["infiniband.atomicacketh"]
    nums += [str(int(a[24:40], 16)), str(int(a[40:56], 16))] if a else \
        ["-", "-"]
    nums.append(str(int(ack[:16], 16)) if ack else "-")
    print(" ".join([v["frame.number"]] + addr + nums))

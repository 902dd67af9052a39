"""labgrader/late.py: a requester's status 12 is the machine's only when
its peer answered its last request and its own timer budget was a fair
one.  Over real pairings (tests/grader/late/README).  One "ok NAME" or
"FAIL NAME: why" line per check."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "grader"))
from labgrader import late  # noqa: E402
from labgrader.evidence.peer import Side, parse_facts  # noqa: E402
from labgrader.evidence.wire import parse_pcap  # noqa: E402
from labgrader.text import read  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
from checklib import check, done  # noqa: E402

SEEDS = os.path.join(os.path.dirname(__file__), "late")


def seed(name, client="student"):
    d = os.path.join(SEEDS, name)
    facts = {s: parse_facts(read(os.path.join(d, "facts." + s)))
             for s in ("server", "client")}
    roles = {"server": "ref", "client": client}
    pair = {s: Side(os.path.join(d, "p2"), s, roles[s])
            for s in ("server", "client")}
    return pair, parse_pcap(os.path.join(d, "p2.pcap")), facts


pair, packets, facts = seed("ack-late")
why = late.retries_ran_out("p2", pair, packets, facts, None)
check("late_ack_is_the_machines",
      why and "acknowledged PSN" in why and "0.94 s" in why, why)
gave = late.student_gave_up(pair["client"])
check("late_budget_from_the_kernels_rts", gave and gave[2] and
      abs(gave[2] - 7 * 4.096e-6 * (1 << 15)) < 1e-9, gave)

# The same run, its QP's timer as the kernel saw it made short: the
# program's own gamble, whatever the ACKs did.
for e in pair["client"].calls("k_modify"):
    e["timeout"] = "12"
why = late.retries_ran_out("p2", pair, packets, facts, None)
check("late_short_budget_is_the_programs", why is None, why)

# The student's own FAIL line names nothing here: only its kernel's
# completion counts (a line that claims status 12 earns no retry).
pair, packets, facts = seed("ack-late")
pair["client"].trace = [e for e in pair["client"].trace
                        if e["_fn"] != "kwc"]
why = late.retries_ran_out("p2", pair, packets, facts, None)
check("late_needs_the_kernels_status", why is None, why)

# The reference as the client: its own line is trusted.
pair, packets, facts = seed("ack-late", client="ref")
why = late.retries_ran_out("p2", pair, packets, facts, None)
check("late_reference_client", why and "client's QP" in why, why)

pair, packets, facts = seed("no-answer")
check("late_no_answer_is_the_programs",
      late.student_gave_up(pair["client"]) and
      late.retries_ran_out("p2", pair, packets, facts, None) is None,
      late.student_gave_up(pair["client"]))
# No answer, but a guest of the pairing waited for a CPU as long as
# the client's whole budget (0.94 s): the host's samples explain the
# silence.  A quiet host's 0.15 s of waiting does not.
busy = {"window": 6.0, "server": [0.6, 2.5], "client": [0.9, 1.0]}
why = late.retries_ran_out("p2", pair, None, facts, busy)
check("late_starved_guest_is_the_machines",
      why and "server guest waited 2.5 s" in why, why)
quiet = {"window": 1.2, "server": [0.5, 0.15], "client": [0.6, 0.1]}
check("late_quiet_host_is_the_programs",
      late.retries_ran_out("p2", pair, None, facts, quiet) is None)
check("late_no_samples_is_nothing",
      late.retries_ran_out("p2", pair, None, facts, None) is None)
# Without the capture nothing is known.
check("late_no_capture_is_nothing",
      late.retries_ran_out("p2", pair, None, facts, None) is None)
done()

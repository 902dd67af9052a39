"""The judges: one module per step of lab/steps.h, named after the step,
each registering its judges with @judge (registry.py).  A step without
its module fails at import, before any student is judged.  A check
(LAB_CHECK: part three's loss) has a module too, loss.py, called by
student.py with every pairing's verdicts: it judges no single side."""
import importlib

from ..lab import STEPS, STEP_NAMES
from .common import Check, Evidence, fallback_hints, judge_own_lines
from .queue import send_queue
from .registry import judges_of

# Every part's steps, in the order of lab/steps.h and of the evidence
# table of docs/grading.md; only those of parts 1..LAB_PARTS are judged.
for _step, _ in STEPS:
    importlib.import_module("." + _step, __name__)


def judge_side(pid, pair, side, facts, packets):
    """{step: Check} for the student's side of pairing pid."""
    ev = Evidence(pair, side, facts, packets)
    res = {s: Check() for s in STEP_NAMES}
    judge_own_lines(ev, res)
    for s in STEP_NAMES:  # the steps of the parts graded
        for fn in judges_of(s, side):
            fn(ev, res[s])
    send_queue(ev, res)
    fallback_hints(ev, res)
    return res

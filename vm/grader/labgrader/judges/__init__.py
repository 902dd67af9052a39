"""The judges: one module per step of lab/steps.h."""
from .atomic import judge_atomic
from .common import Check, Evidence, fallback_hints, judge_own_lines
from .connect import judge_connect
from .create_resources import judge_create_resources
from .exchange import judge_exchange
from .open_device import judge_open_device
from .qp_to_init import judge_qp_to_init
from .read import judge_read
from .send import judge_send
from .send_imm import judge_send_imm
from .teardown import judge_teardown
from .write import judge_write
from .write_imm import judge_write_imm
from ..lab import STEP_NAMES


# The judges by step, in the order of lab/steps.h and of the evidence table
# of docs/grading.md, every part's; the points come from lab/steps.h
# (STEPS), and only the steps of parts 1..LAB_PARTS are judged.
JUDGES = {
    "open_device": judge_open_device,
    "create_resources": judge_create_resources,
    "qp_to_init": judge_qp_to_init,
    "exchange": judge_exchange,
    "connect": judge_connect,
    "send": judge_send,
    "send_imm": judge_send_imm,
    "write": judge_write,
    "read": judge_read,
    "write_imm": judge_write_imm,
    "atomic": judge_atomic,
    "teardown": judge_teardown,
}


def judge_side(pid, pair, side, facts, packets):
    """{step: Check} for the student's side of pairing pid."""
    ev = Evidence(pair, side, facts, packets)
    res = {s: Check() for s in STEP_NAMES}
    judge_own_lines(ev, res)
    for s in STEP_NAMES:  # the steps of the parts graded
        JUDGES[s](ev, res[s])
    fallback_hints(ev, res)
    return res

"""A verdict of every data step: a request posted into a full send queue
(evidence/sendq.py), charged to the step whose unsignaled request still
held its slot, else to the step that posted."""
from ..evidence.sendq import overflows, step_of
from ..hints import hint
from ..text import num
from ..verbs import WR_NAMES


def wr_name(post):
    op = num(post.get("opcode"), -1)
    return WR_NAMES.get(op, "opcode %d" % op)


def send_queue(ev, res):
    """The first overflow of the student's send queue, on the step at
    fault: the same verdict whether the driver took the post or not."""
    for post, holder, depth in overflows(ev.tr):
        step = step_of(holder if holder is not None else post)
        if step not in res:
            continue
        held = "an unsignaled %s of step %s still held its slot" % (
            wr_name(holder), step) if holder is not None else \
            "no completion of them polled"
        res[step].bad(
            "room in the send queue (max_send_wr=%d) for every request"
            % depth, "%s posted while the queue's %d slot%s held: %s "
            "(ibv_post_send returned %s)" % (
                wr_name(post), depth, " was" if depth == 1 else "s were",
                held, post["_ret"] or "?"),
            hint("sq_unsignaled" if holder is not None else "sq_full"))
        return

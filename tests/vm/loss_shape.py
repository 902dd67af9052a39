#!/usr/bin/env python3
"""The shape of a lossy run's packets, for tests/vm/loss-guest.sh.

    loss_shape.py SUMMARY      SUMMARY: vm/wire-summary's output

One line per RoCE packet: sender, opcode, "+K" (its PSN less the first
one's) and its marks (RESENT, DROPPED, NAK_SEQ_ERR), so that runs with
other frames and PSNs compare; the client's packets, then the
server's.  Left out: a resend while no dropped packet waits for its
answer, or of a packet before a dropped one that the responder has
NAKed (it holds that packet in order already; the NAK's go-back is the
exercise's recovery), and one answer to it (an ACK, not a NAK, of its
PSN or a later one: a responder answers a duplicate with the last PSN
it has in order; none when the wire lost the resend).  Also left out: a
dropped request's resends after the first that reached the wire, sent
before any answer came (the answer was late, not lost), and their
answers: of the answers at that PSN the first is kept (the wire's
random draws go by how many times a packet was sent, and the recording
has the first).  rxe's retransmit timer does all that on a busy host,
loss or not (docs/handout.md section 6.4): fired before the NAK or the
answer is read, it goes back to the oldest unanswered request.  It is
not the exercise's.  The number left out goes to stderr.
"""
import sys


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        rows = [line.split() for line in f][1:]
    # lost: the PSN offsets of dropped packets not yet answered by an
    # ACK or response of that offset or a later one.
    first, lost, replays, out, spurious = None, set(), {}, [], 0
    # lost_req: the offsets of dropped requests; resent: those of them a
    # resend has since reached the wire; late: the offsets of their later
    # resends, by sender, whose answers follow a kept one; kept: (sender,
    # offset) of the answers kept.
    lost_req, resent, late, kept = set(), set(), {}, set()
    naks = set()  # the PSN offsets a NAK that reached its peer names
    for w in rows:
        if len(w) >= 6 and w[5].startswith("0x"):
            first = int(w[5], 16) if first is None else first
            if "NAK_SEQ_ERR" in " ".join(w[6:]) and \
                    "DROPPED" not in " ".join(w[6:]):
                naks.add((int(w[5], 16) - first) % (1 << 24))
    first = None
    for w in rows:
        if len(w) < 6 or not w[5].startswith("0x"):
            continue
        psn = int(w[5], 16)
        first = psn if first is None else first
        k = (psn - first) % (1 << 24)
        marks = [m for m in ("RESENT", "DROPPED", "NAK_SEQ_ERR")
                 if any(m in x for x in w[6:])]
        sender, op = w[1], w[3]
        request = not op.startswith(("ACKNOWLEDGE", "ATOMIC_ACK",
                                     "RDMA_READ_RESPONSE"))
        before_nak = lost and k < min(lost) and min(lost) in naks
        again = k in lost_req and k in resent
        if request and "RESENT" in marks and (not lost or before_nak or
                                              again):
            spurious += 1
            # Lost on the wire too (a random rule draws for resends):
            # no answer to leave out.
            if "DROPPED" not in marks:
                (late if again else replays).setdefault(
                    w[2], []).append(k)
            continue
        # A duplicate is answered with the last PSN the responder has in
        # order, its own or a later one: one answer per spurious resend.
        mine = [x for x in replays.get(sender, []) if x <= k]
        if not request and mine and "NAK_SEQ_ERR" not in marks:
            replays[sender].remove(min(mine))
            continue
        mine = [x for x in late.get(sender, []) if x <= k]
        if not request and mine and "NAK_SEQ_ERR" not in marks and \
                (sender, k) in kept:
            late[sender].remove(min(mine))
            continue
        if "DROPPED" in marks:
            lost.add(k)
            if request:
                lost_req.add(k)
                resent.discard(k)
        elif request and "RESENT" in marks and k in lost_req:
            resent.add(k)
        elif not request and "NAK_SEQ_ERR" not in marks:
            kept.add((sender, k))
            lost = {x for x in lost if x > k}
            lost_req = {x for x in lost_req if x > k}
            resent = {x for x in resent if x > k}
        out.append("%s %s +%d%s" % (sender, op, k,
                                    "".join(" " + m for m in marks)))
    # Each sender's packets in its order: how the two directions
    # interleave on the wire is the host's timing, not the exercise's.
    print("\n".join(sorted(out, key=lambda line: line.split()[0])))
    print(spurious, file=sys.stderr)


if __name__ == "__main__":
    main()

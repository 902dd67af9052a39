"""Whether the host gave the guests the CPU a pairing needed.

A student's waits (-t), the guest's silence limit and the reference's
waits are wall time.  On a busy host the guests' QEMU can be runnable and
not run: then a correct program's wait can run out, and its points would
be lost to the machine.  grader/batch samples, several times a second,
how long each guest's QEMU threads have run on the host's CPUs and waited
on its run queues (/proc/PID/task/*/schedstat, in ns) into RUNDIR's
cpu-wait: "EPOCH SRV_RUN SRV_WAIT CLI_RUN CLI_WAIT" per line.  A
pairing's window is the host's times of its srv-started and srv-done
files (written over 9p: the host's clock).

A guest that is idle (a program that hangs, waits for its peer) is not
runnable, and waits for nothing.  A guest starved in a pairing waited
long for a CPU and, in the whole window, ran for less than a correct
pairing needs: then a failure that a wait or a silence ended says nothing
of the program, and it is an environment error (retried).  A guest that
ran that long had the CPU to make progress, however long it waited: its
program's failure is its own.  So is one that follows a failure on a
fact no host's speed changes (student.first_failure_fixed).
"""
import os
import re

from .codes import WAIT_CODES
from .lab import SETTINGS

# A correct pairing takes 0.4-1.5 s of wall time on a quiet host, with
# each guest running for well under a second of it (recorded: 0.1-0.2 s
# of CPU wait in a pairing on a quiet host; with eight busy loops on 2
# cores, correct programs kept full marks after waits of 2-5 s per
# pairing).  Starved: waited at least STARVED_S and ran less than
# NEEDED_S.
STARVED_S = 3.0
NEEDED_S = 1.0
# What a unit of stretch adds to a correct student run's time off the
# CPU (own_seconds): the reference's grading, quiet and with 6 busy loops
# at a stretch of 3.5 (2026-11-29): 0.22-0.89 s, then 1.60-4.08 s, its
# server in p1 the most (1.28 s per unit); with a margin.
OFF_STRETCH_S = 1.5



def samples(rundir):
    """The batch's samples: (time, srv_run, srv_wait, cli_run, cli_wait)
    in seconds, time ordered."""
    out = []
    try:
        with open(os.path.join(rundir, "cpu-wait")) as f:
            for line in f:
                w = line.split()
                try:
                    out.append((float(w[0]),) +
                               tuple(int(x) / 1e9 for x in w[1:5]))
                except (IndexError, ValueError):
                    continue
    except OSError:
        return []
    return sorted(r for r in out if len(r) == 5)


def spent(rows, t0, t1):
    """(run, wait) seconds of each guest from t0 to t1, as
    ((srv_run, srv_wait), (cli_run, cli_wait)): from the last sample at
    or before t0 to the first at or after t1.  None without samples
    around the window."""
    out = []
    for i in (1, 3):
        # 0: the guest's QEMU not started yet, or ended: nothing known.
        before = [r for r in rows if r[0] <= t0 and r[i] > 0]
        after = [r for r in rows if r[0] >= t1 and r[i] > 0]
        if not before or not after:
            return None
        a, b = before[-1], after[0]
        out.append((max(0.0, b[i] - a[i]), max(0.0, b[i + 1] - a[i + 1])))
    return tuple(out)


def pairing_cpu(resdir, rundir, pairings):
    """{pairing: {"window": s, "server": [run, wait], "client": [...]}}
    for the pairings with a window and samples around it."""
    rows = samples(rundir)
    out = {}
    for p in pairings:
        try:
            t0 = os.stat(os.path.join(resdir, p, "srv-started")).st_mtime
            t1 = os.stat(os.path.join(resdir, p, "srv-done")).st_mtime
        except OSError:
            continue
        s = spent(rows, t0, t1)
        if s is not None:
            out[p] = {"window": round(t1 - t0, 2),
                      "server": [round(x, 2) for x in s[0]],
                      "client": [round(x, 2) for x in s[1]],
                      "stretch": stretch_of(os.path.join(resdir, p))}
    return out


def stretch_of(pdir):
    """The stretch the guests gave a pairing's waits (srv-started holds
    it in tenths, grader/batch's run/slowdown); 1.0 when unknown."""
    try:
        with open(os.path.join(pdir, "srv-started")) as f:
            t = int(f.read().strip() or 10)
    except (OSError, ValueError):
        return 1.0
    return max(1.0, t / 10.0)


def starved_guest(cpu):
    """The guest ("server", "client") the host starved in a pairing's
    window (cpu: pairing_cpu's entry), or None."""
    for g in ("server", "client"):
        run, wait = cpu[g]
        if wait >= STARVED_S and run < NEEDED_S:
            return g
    return None


def prog_timeout(rundir):
    """The run's PROG_TIMEOUT, as a quiet host's -t: its config's
    (written by grader/batch), settings.sh's default without one."""
    try:
        with open(os.path.join(rundir, "config")) as f:
            m = re.search(r"^PROG_TIMEOUT=(\d+)$", f.read(), re.M)
        if m:
            return int(m.group(1))
    except OSError:
        pass
    return SETTINGS["PROG_TIMEOUT_DEFAULT"]


def prog_wait(timeout, stretch):
    """The -t, in seconds, that the guests gave a student's run in a
    pairing of this stretch: timeout (prog_timeout) stretched as
    guest-driver's stretch() does (tenths, at most SLOW_MAX, whole
    seconds rounded up)."""
    f = min(max(10, int(round(stretch * 10))), SETTINGS["SLOW_MAX"] * 10)
    return (timeout * f + 9) // 10


# A run's wall time (SIDE.cpu) spans more than any one wait of its
# program (its start in the jail, its set-up): this much less than the
# wait is room for the two clocks only.
WAIT_SLACK_S = 0.5


def waited_out(X, wait_s=None):
    """Side X ended by a wait or a silence: timed out, stopped as
    silent (the guest's records), or a FAIL line whose code a wait
    running out prints.  A student's line is its program's own words:
    it counts when the run lasted as long as such a wait (SIDE.cpu's
    wall time, the guest's, at least wait_s, its -t), not when it was
    printed at once (a program that could not wait, or would rather
    its failure were the machine's).  Without a wait_s or a SIDE.cpu
    (a kernel without cgroup v2), the line as it is."""
    if X.timed_out():
        return True
    if not any(c in WAIT_CODES for c in X.codes.values()):
        return False
    if X.who != "student" or wait_s is None or X.cpu is None:
        return True
    return X.cpu[1] >= wait_s - WAIT_SLACK_S


def timing_shaped(pair, wait_s=None):
    """A side of the pairing ended by a wait or a silence (waited_out,
    wait_s: a student's -t in it).  Not when a limit of the sandbox
    ended a side (memory, processes, output, packets: the program's own
    doing), and a side stopped because its peer had failed (note) is no
    cause itself."""
    if any(pair[s].limit for s in ("server", "client")):
        return False
    return any(waited_out(pair[s], wait_s) for s in ("server", "client"))


def stretched_end(pair, wait_s=None):
    """A guests' limit ended the pairing (rounds.py, run_seconds): a side
    the jail or its silence stopped, or whose wait (-t, wait_s for a
    student) ran out (waited_out), whatever ended its work before (a
    fork bomb, refused its processes, stays silent until stopped).  The
    guests stretched that limit by their slowdown; a side stopped
    because its peer had failed (note) waited for nothing."""
    return any(not pair[s].note and waited_out(pair[s], wait_s)
               for s in ("server", "client"))


def own_seconds(run, stretch):
    """A student's run (Side.cpu: CPU and wall seconds) as on a quiet
    host, or more: its CPU time over the guests' stretch, and the time
    its program was off the CPU (asleep, or waiting for its peer or its
    start in the jail) less what a busy host adds to a correct run's
    (OFF_STRETCH_S per unit of stretch).  A program that talks for 11 s
    and then fails counts 11 s or more at any load, where its pairing's
    window less the guests' CPU wait (which their own polling fills
    while it sleeps) counted 5.6 s at a stretch of 3.7."""
    cpu, wall = run
    s = max(1.0, stretch)
    return max(0.0, wall - cpu - (s - 1) * OFF_STRETCH_S) + cpu / s


def starved_text(p, cpu, g):
    run, wait = cpu[g]
    return "%s: the machine was too busy: in %.1f s its %s guest waited " \
        "%.1f s for a CPU and ran %.1f s, so a wait that ran out says " \
        "nothing of the program" % (p, cpu["window"], g, min(wait, cpu[
            "window"]), run)

"""A whole course: shards merged, a progress line while batches run."""
import json
import os
import sys

from .reports import cmd_report


def shard_of(sh):
    """(K, N, entries) from a shard's output folder (grader/grade-all's
    OUT/shard), or None from one written before it existed."""
    try:
        with open(os.path.join(sh, "shard")) as f:
            kn, entries = f.read().split()
        k, n = kn.split("/")
        return int(k), int(n), int(entries)
    except (OSError, ValueError):
        return None


def check_shards(shards):
    """The shards are all the parts of one folder, each once: else one
    line that says which are missing, and status 1."""
    parts = {}
    for sh in shards:
        s = shard_of(sh)
        if s is None:
            continue
        k, n, entries = s
        if (k, n, entries) in parts:
            sys.exit("merge: %s and %s are both shard %d/%d" % (
                parts[(k, n, entries)], sh, k, n))
        parts[(k, n, entries)] = sh
    kinds = {(n, e) for _, n, e in parts}
    if len(kinds) > 1:
        sys.exit("merge: the shards are of different folders or "
                 "splits: %s" % ", ".join(
                     "%s is %d/%d of %d entries" % (sh, k, n, e)
                     for (k, n, e), sh in sorted(parts.items())))
    for n, e in kinds:
        missing = [k for k in range(1, n + 1) if (k, n, e) not in parts]
        if missing:
            sys.exit("merge: shard %s of %d missing (%d entries in all): "
                     "grade it, then merge again" % (
                         ", ".join("%d/%d" % (k, n) for k in missing),
                         n, e))


def cmd_merge(out, shards):
    """Join the output folders of grader/grade-all --shard runs: each
    student's folder is copied into OUT/students, once.  Status 1 when a
    shard is missing (nothing merged), 3 when a student has no result or
    an environment error (grade that shard again)."""
    import shutil
    for sh in shards:
        if not os.path.isdir(os.path.join(sh, "students")):
            sys.exit("merge: %s has no students/ folder: not a grade-all "
                     "output" % sh)
    check_shards(shards)
    dest = os.path.join(out, "students")
    os.makedirs(dest, exist_ok=True)
    seen = {}
    unfinished = 0
    for sh in shards:
        sdir = os.path.join(sh, "students")
        for name in sorted(os.listdir(sdir)):
            if name in seen:
                sys.exit("merge: %s is in both %s and %s" % (
                    name, seen[name], sh))
            seen[name] = sh
            src = os.path.join(sdir, name)
            try:
                with open(os.path.join(src, "result.json")) as f:
                    env = json.load(f).get("env_error")
            except (OSError, ValueError):
                env = "no result"
            if env:
                unfinished += 1
                print("merge: %s has no grade in %s (%s): grade that "
                      "shard again" % (name, sh, "no result" if env ==
                                       "no result" else
                                       "an environment error"),
                      file=sys.stderr)
            shutil.rmtree(os.path.join(dest, name), ignore_errors=True)
            shutil.copytree(src, os.path.join(dest, name))
    cmd_report(out)
    print("merged %d students from %d shards into %s" % (
        len(seen), len(shards), out))
    return 3 if unfinished else 0


def below_full(r):
    """A result below full marks in any part graded (its "parts"; the
    core's score alone in a result from before parts existed)."""
    parts = r.get("parts") or {"1": {"score": r.get("score"),
                                     "max": r.get("max_score")}}
    return any(p.get("score") != p.get("max") for p in parts.values())


def tally(sdir, seen):
    """(done, rounds, short, env) of the students in sdir: done, those
    with a first verdict (result.json, or round-1/result.json while their
    later rounds run: the batch takes result.json away until it merges
    them), ever seen so in this run (seen, a set it adds to), so the
    count never goes back; rounds, those whose rounds are not merged
    yet; short and env, of the results in hand."""
    rounds = short = env = 0
    for name in os.listdir(sdir) if os.path.isdir(sdir) else []:
        d = os.path.join(sdir, name)
        try:
            with open(os.path.join(d, "result.json")) as f:
                r = json.load(f)
        except (OSError, ValueError):
            if os.path.exists(os.path.join(d, "round-1", "result.json")):
                seen.add(name)
                rounds += 1
            continue
        seen.add(name)
        env += bool(r.get("env_error"))
        short += below_full(r)
    return len(seen), rounds, short, env


def cmd_progress(out, total, pids):
    """One line while batches run: graded/total (a first verdict), how
    many are in later rounds, how many fell short of full marks,
    environment errors, time left.  On a terminal it is rewritten in
    place; into a file, a line each time the count moves."""
    import time
    tty = sys.stderr.isatty()
    sdir = os.path.join(out, "students")
    start, last, base, seen = time.time(), None, None, set()

    def alive():
        for p in pids:
            try:
                os.kill(p, 0)
                return True
            except OSError:
                pass
        return False

    while True:
        running = alive()
        done, rounds, short, env = tally(sdir, seen)
        if base is None:
            base = done  # kept from an earlier run: not this run's pace
        rate = (done - base) / max(time.time() - start, 1)
        # A student in rounds costs about a submission's time more.
        left = "?" if rate <= 0 else "%d s" % (
            (total - done + rounds) / rate)
        line = "graded %d/%d%s, %d below full marks, %d environment " \
            "errors, about %s left" % (
                done, total, ", %d in later rounds" % rounds if rounds
                else "", short, env, left)
        if tty:
            print("\r\033[K" + line, end="" if running else "\n",
                  file=sys.stderr, flush=True)
        elif (done, rounds, short, env) != last or not running:
            print(line, file=sys.stderr, flush=True)
        last = (done, rounds, short, env)
        if not running:
            return 0
        time.sleep(2)

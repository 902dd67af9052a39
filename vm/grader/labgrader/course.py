"""A whole course: shards merged, a progress line while batches run."""
import json
import os
import sys

from .reports import cmd_report


def shard_of(sh):
    """(K, N, entries) from a shard's output folder (vm/grade-all's
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
    """Join the output folders of vm/grade-all --shard runs: each
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


def cmd_progress(out, total, pids):
    """One line while batches run: graded/total, how many fell short of
    full marks, environment errors, time left.  On a terminal it is
    rewritten in place; into a file, a line each time the count moves."""
    import time
    tty = sys.stderr.isatty()
    sdir = os.path.join(out, "students")
    start, last, base = time.time(), None, None

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
        done = short = env = 0
        for name in os.listdir(sdir) if os.path.isdir(sdir) else []:
            try:
                with open(os.path.join(sdir, name, "result.json")) as f:
                    r = json.load(f)
            except (OSError, ValueError):
                continue
            done += 1
            env += bool(r.get("env_error"))
            short += below_full(r)
        if base is None:
            base = done  # kept from an earlier run: not this run's pace
        rate = (done - base) / max(time.time() - start, 1)
        left = "?" if rate <= 0 else "%d s" % ((total - done) / rate)
        line = "graded %d/%d, %d below full marks, %d environment " \
            "errors, about %s left" % (done, total, short, env, left)
        if tty:
            print("\r\033[K" + line, end="" if running else "\n",
                  file=sys.stderr, flush=True)
        elif (done, short, env) != last or not running:
            print(line, file=sys.stderr, flush=True)
        last = (done, short, env)
        if not running:
            return 0
        time.sleep(2)

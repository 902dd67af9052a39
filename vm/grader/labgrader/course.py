"""A whole course: shards merged, a progress line while batches run."""
import json
import os
import sys

from .reports import cmd_report


def cmd_merge(out, shards):
    """Join the output folders of vm/grade-all --shard runs: each
    student's folder is copied into OUT/students, once."""
    import shutil
    dest = os.path.join(out, "students")
    os.makedirs(dest, exist_ok=True)
    seen = {}
    for sh in shards:
        sdir = os.path.join(sh, "students")
        if not os.path.isdir(sdir):
            sys.exit("merge: %s has no students/ folder: not a grade-all "
                     "output" % sh)
        for name in sorted(os.listdir(sdir)):
            if name in seen:
                sys.exit("merge: %s is in both %s and %s" % (
                    name, seen[name], sh))
            seen[name] = sh
            src = os.path.join(sdir, name)
            if not os.path.exists(os.path.join(src, "result.json")):
                print("merge: %s has no result in %s (grade that shard "
                      "again)" % (name, sh), file=sys.stderr)
            shutil.rmtree(os.path.join(dest, name), ignore_errors=True)
            shutil.copytree(src, os.path.join(dest, name))
    cmd_report(out)
    print("merged %d students from %d shards into %s" % (
        len(seen), len(shards), out))
    return 0


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

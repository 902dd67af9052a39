"""The commands that prepare a submission: its payloads, its main.c
(grader.py unpack, unpack-many), its folder's name, its logs cleaned."""
import lzma
import os
import random
import re
import resource
import signal
import string
import sys
import tarfile
import time
import zipfile
import zlib

from .lab import PAIRINGS
from .text import bswap32, safe
from .unpack import MAIN_MAX, MEMORY_MAX, Refused, SECONDS_MAX, read_submission


def cmd_payloads(resdir):
    rnd = random.SystemRandom()
    alnum = string.ascii_letters + string.digits
    os.makedirs(resdir, exist_ok=True)
    for p in PAIRINGS:
        # Its pairing's folder too: made here, it costs no guest a
        # program start.
        os.makedirs(os.path.join(resdir, p), exist_ok=True)
        msg = "".join(rnd.choice(alnum) for _ in range(rnd.randint(
            1100, 2500)))
        wmsg = "".join(rnd.choice(alnum) for _ in range(rnd.randint(
            1100, 3000)))
        while True:
            imm = rnd.getrandbits(32)
            if imm != bswap32(imm):
                break
        with open(os.path.join(resdir, "payload." + p), "w") as f:
            f.write("%s\n0x%08x\n%s\n" % (msg, imm, wmsg))


def on_alarm(signum, frame):
    raise Refused("took more than %d s to read" % SECONDS_MAX)


def cmd_unpack(sub, dest):
    """The main.c of a submission (file, folder, tar or zip) -> dest.
    One line on stderr and status 1 when it is refused or has no main.c;
    the main.c files skipped (links, devices) are noted on stderr too."""
    label = safe(os.path.basename(sub.rstrip("/")) or sub)
    # A backstop under the caps of read_submission: whatever a library
    # does with a hostile archive, this process stays small (unpack's,
    # or unpack-many's child: its own process either way).
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MAX, MEMORY_MAX))
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(SECONDS_MAX)
    try:
        pick = read_submission(sub, label)
    except Refused as e:
        print("%s: refused: %s" % (label, e), file=sys.stderr)
        return 1
    except MemoryError:
        print("%s: refused: needs more than %d MB of memory to read" % (
            label, MEMORY_MAX >> 20), file=sys.stderr)
        return 1
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError,
            zlib.error, lzma.LZMAError, RuntimeError, ValueError,
            NotImplementedError) as e:
        print("%s: refused: a damaged archive (%s)" % (
            label, safe(str(e))[:200]), file=sys.stderr)
        return 1
    finally:
        signal.alarm(0)
    for line in pick.skipped:
        print(line, file=sys.stderr)
    if pick.big is not None:
        print("%s: refused: %s is larger than %d MB" % (
            label, safe(pick.big), MAIN_MAX // 1000000), file=sys.stderr)
        return 1
    if pick.data is None:
        print("no main.c in %s" % label, file=sys.stderr)
        return 1
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "main.c"), "wb") as f:
        f.write(pick.data)
    return 0


def cmd_unpack_many(listing):
    """grader.py unpack-many LIST: each SUBMISSION DEST pair of LIST
    (NUL-separated) unpacked as cmd_unpack does, in a child of its own
    (one Python start for a whole course, where a start per submission
    cost 0.1 s each), with its limits: its address space (MEMORY_MAX),
    its alarm (SECONDS_MAX), and killed past SECONDS_MAX + KILL_SLACK_S.
    Its lines go to DEST/unpack.log, its status to DEST/unpack.status
    (0, or 1: refused, or no main.c)."""
    with open(listing, "rb") as f:
        words = f.read().split(b"\0")
    for sub, dest in zip(words[0:-1:2], words[1::2]):
        unpack_child(os.fsdecode(sub), os.fsdecode(dest))
    return 0


# A child that its own alarm did not end (stuck outside Python's reach)
# is killed this much later.
KILL_SLACK_S = 5


def unpack_child(sub, dest):
    os.makedirs(dest, exist_ok=True)
    log = os.open(os.path.join(dest, "unpack.log"),
                  os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        rc = 1
        try:
            os.dup2(log, 2)
            sys.stderr = os.fdopen(2, "w", closefd=False)
            rc = cmd_unpack(sub, dest)
        finally:
            sys.stderr.flush()
            os._exit(rc)
    os.close(log)
    end = time.monotonic() + SECONDS_MAX + KILL_SLACK_S
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            break
        time.sleep(0.005)
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        if rc < 0:
            with open(os.path.join(dest, "unpack.log"), "a") as f:
                print("%s: refused: its reading was stopped (signal %d)"
                      % (safe(os.path.basename(sub.rstrip("/")) or sub),
                         -rc), file=f)
        rc = 1
    with open(os.path.join(dest, "unpack.status"), "w") as f:
        f.write("%d\n" % rc)


def student_name(entry):
    """The folder under students/ of a SUBS entry: its name less a
    submission's suffixes (removed in this order, as grader/grade-all always
    did), every byte outside A-Za-z0-9._- made _."""
    name = os.fsencode(entry)
    for suffix in (b".tar.gz", b".tgz", b".tar", b".zip", b".c"):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    return re.sub(rb"[^A-Za-z0-9._-]", b"_", name).decode()


def cmd_names(subs):
    """For grader/grade-all: each submission of SUBS (bytewise order, no
    dotfiles: as its shell glob listed them), its folder, a refusal when
    names collide, and its submitters as the LMS named them (lms.py: a
    JSON list).  Two entries whose names become one folder ("a b.c" and
    a_b.c) would grade one student and silently drop the other: the first
    of them carries the refusal, naming all of them, and the others "=".
    Records of four NUL-terminated fields: entry, folder, refusal,
    submitters.  An entry that is not a submission (lms.py) gets one line
    on stderr and no record."""
    import json
    from .lms import classify, read_metadata
    try:
        entries = sorted((e for e in os.listdir(subs)
                          if not e.startswith(".")), key=os.fsencode)
    except OSError as e:
        print("grader.py names: %s: %s" % (safe(subs), e.strerror),
              file=sys.stderr)
        return 2
    meta = read_metadata(subs)
    kept = []
    for e in entries:
        people, why = classify(subs, e, meta)
        if why:
            print('ignored "%s": %s' % (safe(e), why), file=sys.stderr)
        else:
            kept.append((e, people))
    folders = {}
    for e, _ in kept:
        folders.setdefault(student_name(e), []).append(e)
    out = sys.stdout.buffer
    for e, people in kept:
        name = student_name(e)
        same = folders[name]
        why = ""
        if len(same) > 1:
            quoted = ['"%s"' % safe(x) for x in same]
            why = "=" if e != same[0] else \
                "%s and %s: refused: the names become one folder, " \
                "students/%s; rename all but one and grade again" % (
                    ", ".join(quoted[:-1]), quoted[-1], name)
        for p in people:
            p["id"] = p["id"] or name
        for field in (e, name, why, json.dumps(people)):
            out.write(os.fsencode(field) + b"\0")
    out.flush()
    return 0


def cmd_clean():
    """stdin to stdout, every character a terminal would act on written
    out (\\xNN) but newlines and tabs; bytes that are not UTF-8 as
    \\xNN: the programs' outputs in log.txt, which an instructor may
    cat."""
    data = sys.stdin.buffer.read().decode("utf-8", "backslashreplace")
    sys.stdout.buffer.write(safe(data, lines=True).encode())
    return 0

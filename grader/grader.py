#!/usr/bin/env python3
"""Host-side logic of the rdma-lab grader (stdlib only).

  grader.py payloads RESDIR...         fresh random payloads for p1..p3,
                                       and their folders
  grader.py unpack SUBMISSION DEST     copy the main.c of a submission
  grader.py unpack-many LIST           the same for each SUBMISSION DEST
                                       pair of LIST (NUL-separated), each
                                       in a process of its own
  grader.py names SUBS                 each submission's folder, names
                                       that collide, its submitters
                                       (grade-all; lms.py's layouts)
  grader.py version                    the grader's version, as
                                       result.json records it (graded)
  grader.py clean                      stdin without terminal controls
  grader.py analyze RESDIR RUNDIR DEST  judge one student: DEST/result.json
  grader.py collect RESDIR RUNDIR DEST  stdin cleaned into DEST/log.txt,
                                       then slice, RESDIR's pN.pcap copied
                                       to DEST, analyze, and show into
                                       DEST/report.txt: in one process
  grader.py next-round STUDENT         the steps to stand in for in its
                                       next round (STUDENT/round-K/),
                                       nothing (every step judged) or
                                       - (the rounds stopped: merge)
  grader.py merge-rounds STUDENT       STUDENT/result.json from its rounds
  grader.py show RESULT [STEP...]      score lines and evidence (student)
  grader.py results RESULT FILE [STEP...]  Gradescope results.json
  grader.py platform KIND DEST SECONDS RESULT [STEP...]  KIND's results
                                       file (gradescope, prairielearn,
                                       github: its job summary, classroom:
                                       GitHub Classroom's points)
  grader.py platform KIND DEST SECONDS --env-error|--refused TEXT
                                       the same when nothing was graded
  grader.py report OUT                 OUT/report.csv, report.md,
                                       lms.csv, report.html (with the
                                       similarity of its sources)
  grader.py merge OUT SHARD...         the shards' students in OUT, and
                                       OUT's report
  grader.py progress OUT TOTAL PID...  a progress line until the PIDs end
  grader.py leaks TRACE                objects a traced run never released
  grader.py packets PCAP               the RoCEv2 packets the grader sees
  grader.py summary PCAP               vm/wire-summary's lines, without
                                       tshark (the students' reports)
  grader.py slice RESDIR RUNDIR        RESDIR/pN.pcap: pairing N's packets,
                                       cut from the guest's one capture
  grader.py steps [--graded|--later|--parts|--checks|--guest]
                                       lab/steps.h: NAME POINTS PART per
                                       step (of every part, of parts
                                       1..LAB_PARTS, of the parts after),
                                       per check (LAB_CHECK), LAB_PARTS,
                                       or LAB_PARTS and the steps graded
                                       on one line (the guests' config)

Evidence comes from what happened, not from what the student's program
printed: the reference peer's lines (the reference is trusted), the
packets captured in the server guest, the ibv_* calls seen by the
LD_PRELOAD tracer, and the guests' sysfs.  A student's own lines are shown
as GOOD, BAD or MISSING, and are only believed for data that the student
side could not know without receiving it (the random payloads).
"""
import os
import re
import sys

# No __pycache__ beside the package: the guests see this folder
# read-only, and a handout's tree stays as it was unpacked.
sys.dont_write_bytecode = True
from labgrader.text import safe


# Each command's arguments: at least, at most (None: any number more).
ARGS = {"payloads": (1, None), "unpack": (2, 2), "unpack-many": (1, 1),
        "names": (1, 1), "version": (0, 0), "clean": (0, 0),
        "analyze": (3, 3), "collect": (3, 3), "show": (1, None),
        "results": (2, None), "report": (1, 1), "merge": (2, None),
        "progress": (2, None), "leaks": (1, 1), "packets": (1, 1),
        "summary": (1, 1),
        "slice": (2, 2), "steps": (0, 1), "next-round": (1, 1),
        "merge-rounds": (1, 1), "platform": (4, None)}


def usage_line(cmd):
    """The command's usage, from its line of the docstring at the top."""
    for line in __doc__.splitlines():
        use = re.split(r"\s{2,}", line.strip())[0]
        if use.split()[:2] == ["grader.py", cmd]:
            return use
    return "grader.py " + cmd


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd, args = (argv[1], argv[2:]) if len(argv) >= 2 else ("", [])
    if cmd not in ARGS:
        print("usage: grader.py COMMAND ARG... (%s; see grader.py --help)"
              % " ".join(ARGS) if not cmd else "grader.py: unknown command "
              "'%s' (see grader.py --help)" % safe(cmd), file=sys.stderr)
        return 2
    least, most = ARGS[cmd]
    if len(args) < least or (most is not None and len(args) > most) or \
            (cmd == "progress" and not all(re.fullmatch(r"\d+", a)
                                           for a in args[1:])) or \
            (cmd == "steps" and args not in (
                [], ["--parts"], ["--graded"], ["--later"],
                ["--checks"], ["--guest"])) or \
            (cmd == "platform" and not platform_args(args)):
        print("usage: %s" % usage_line(cmd), file=sys.stderr)
        return 2
    if cmd == "platform" and args[3][:2] != "--" and \
            not os.path.isfile(args[3]):
        print("grader.py platform: no result file %s" % safe(args[3]),
              file=sys.stderr)
        return 2
    if cmd in ("show", "results") and not os.path.isfile(args[0]):
        print("grader.py %s: no result file %s" % (cmd, safe(args[0])),
              file=sys.stderr)
        return 2
    return guarded(cmd, args)


def guarded(cmd, args):
    """run(cmd, args), its expected failures one line and status 2."""
    # The commands that read results and write reports: a file that is
    # missing, unreadable or not JSON is one line, not a traceback.  For
    # every command, a file it cannot read or write (a DEST it may not
    # create) is one line too; anything else is a bug, with its traceback.
    caught = (OSError, ValueError, KeyError, TypeError) if cmd in (
        "show", "results", "report", "names", "clean", "next-round",
        "merge-rounds", "platform") else OSError
    try:
        return run(cmd, args)
    except caught as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror \
            else "not a result: no %s" % e if isinstance(e, KeyError) \
            else str(e)
        print("grader.py %s: %s: %s" % (
            cmd, safe(getattr(e, "filename", None) or args[0]),
            safe(why)), file=sys.stderr)
        return 2


def platform_args(args):
    """KIND DEST SECONDS, then RESULT [STEP...] or --env-error|--refused
    and one TEXT."""
    from labgrader.lab import POINTS
    from labgrader.platforms import KINDS
    if args[0] not in KINDS or not re.fullmatch(r"\d+", args[2]):
        return False
    if args[3] in ("--env-error", "--refused"):
        return len(args) == 5
    return all(a in POINTS for a in args[4:])


def collect(resdir, rundir, dest):
    """One collected student in one process (a start of this program
    costs a tenth of a second of CPU, and the batch collects every
    student of every round): each part as its own command would run it,
    and a part that fails does not stop the next."""
    import contextlib
    import shutil
    import traceback
    from labgrader.lab import PAIRINGS

    def part(out, cmd, *args):
        try:
            with open(os.path.join(dest, out), "w") if out else \
                    contextlib.nullcontext(sys.stdout) as f, \
                    contextlib.redirect_stdout(f):
                main(["grader.py", cmd, *args])
        except OSError as e:  # DEST's file
            print("grader.py collect: %s: %s" % (
                safe(str(e.filename)), safe(e.strerror or str(e))),
                file=sys.stderr)
        except Exception:  # a bug: its traceback, then the next part
            traceback.print_exc()
    part("log.txt", "clean")
    part(None, "slice", resdir, rundir)
    for p in PAIRINGS:
        src = os.path.join(resdir, p + ".pcap")
        if os.path.exists(src):
            try:
                shutil.copyfile(src, os.path.join(dest, p + ".pcap"))
            except OSError as e:
                print("grader.py collect: %s: %s" % (
                    safe(str(e.filename)), safe(e.strerror or str(e))),
                    file=sys.stderr)
    part(None, "analyze", resdir, rundir, dest)
    part("report.txt", "show", os.path.join(dest, "result.json"))
    return 0


# Each command imports what it needs: most starts run one command.
def run(cmd, args):
    if cmd in ("show", "results"):
        from labgrader.lab import POINTS
        bad = [a for a in args if a in POINTS]
    if cmd == "payloads":
        from labgrader.submissions import cmd_payloads
        for a in args:
            cmd_payloads(a)
        return 0
    if cmd == "unpack":
        from labgrader.submissions import cmd_unpack
        return cmd_unpack(args[0], args[1])
    if cmd == "unpack-many":
        from labgrader.submissions import cmd_unpack_many
        return cmd_unpack_many(args[0])
    if cmd == "names":
        from labgrader.submissions import cmd_names
        return cmd_names(args[0])
    if cmd == "version":
        from labgrader.provenance import cmd_version
        return cmd_version()
    if cmd == "clean":
        from labgrader.submissions import cmd_clean
        return cmd_clean()
    if cmd == "analyze":
        from labgrader.student import cmd_analyze
        return cmd_analyze(args[0], args[1], args[2])
    if cmd == "collect":
        return collect(args[0], args[1], args[2])
    if cmd == "next-round":
        from labgrader.rounds import cmd_next_round
        return cmd_next_round(args[0])
    if cmd == "merge-rounds":
        from labgrader.rounds import cmd_merge_rounds
        return cmd_merge_rounds(args[0])
    if cmd == "show":
        from labgrader.reports import cmd_show
        return cmd_show(args[0], bad or None)
    if cmd == "results":
        from labgrader.platforms import cmd_results
        return cmd_results(args[0], args[1], [a for a in args[2:]] or None)
    if cmd == "report":
        from labgrader.reports import cmd_report
        return cmd_report(args[0])
    if cmd == "platform":
        from labgrader.platforms import cmd_platform
        return cmd_platform(args[0], args[1], int(args[2]), args[3],
                            args[4:])
    if cmd == "merge":
        from labgrader.course import cmd_merge
        return cmd_merge(args[0], args[1:])
    if cmd == "progress":
        from labgrader.course import cmd_progress
        return cmd_progress(args[0], int(args[1]), [int(a) for a in args[2:]])
    if cmd == "slice":
        from labgrader.evidence.wire import cmd_slice
        return cmd_slice(args[0], args[1])
    if cmd == "steps":
        from labgrader.lab import cmd_steps
        return cmd_steps(args[0] if args else None)
    if cmd == "leaks":
        from labgrader.evidence.kernel import cmd_leaks
        return cmd_leaks(args[0])
    if cmd == "summary":
        from labgrader.evidence.listing import summary
        print("\n".join(summary(args[0])))
        return 0
    from labgrader.evidence.wire import parse_pcap
    for x in parse_pcap(args[0]) or []:  # packets
        print(" ".join("-" if v is None else str(v) for v in (
            x["frame"], x["src"], x["dst"], x["op"], x["qp"], x["psn"],
            *(x["reth"] or (None,) * 3), x["imm"], x["aeth"],
            *(x["atomic"] or (None,) * 2), x["orig"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

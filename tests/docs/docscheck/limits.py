"""The limits of a run and a compile that the instructors' text quotes
are grader/settings.sh's (their one home): each phrase below, filled in
with the settings' values, must be in the text.  A value changed in
settings.sh and not in the text fails, naming the setting and the
phrase as it should now read."""
import re

from labgrader.lab import read_settings

# Each phrase with {NAME}, {NAME/1024} or {NAME+NAME} for the values it
# quotes: whitespace in the text counts as one space.
PHRASES = [
    "runs with `-t {PROG_TIMEOUT_DEFAULT}`, the reference with "
    "`-t {PROG_TIMEOUT_DEFAULT+REF_WAIT_SLACK_S}`",
    "killed after {RUN_TIMEOUT_DEFAULT} s",
    "Silent for {SLOW_AFTER_S} s",
    "exhausted its memory ({RUN_MEM_MIB} MiB)",
    "exhausted its processes ({RUN_PROCS},",
    "exceed {CAPTURE_MAX_MIB} MiB",
    "Its {CC_TIMEOUT_DEFAULT} s of wall time",
    "`ulimit -u {RUN_PROCS} -f {RUN_FILE_KIB} -v {RUN_AS_KIB}` "
    "({RUN_AS_KIB/1024} MiB of address space)",
    "`memory.max` {RUN_MEM_MIB} MiB",
    "`pids.max` {RUN_PROCS}",
    "`rdma.max` {RUN_RDMA_OBJECTS} verbs objects",
    "address space ({RUN_AS_KIB/1024} MiB with its user memory)",
    "grow the boot's capture (a file on the host's disk) by "
    "{CAPTURE_MAX_MIB} MiB",
    "(`cc`: {CC_MEM_MIB} MiB, {CC_PROCS} processes)",
    "(the student's `-t {PROG_TIMEOUT_DEFAULT}`)",
    "its reference peer gives up after "
    "{PROG_TIMEOUT_DEFAULT+REF_WAIT_SLACK_S} s",
]


def fill(phrase, settings):
    """The phrase with each {EXPR} replaced by its value, and the names
    it read; KeyError for a name settings.sh does not define."""
    names = []

    def value(m):
        expr = m.group(1)
        total = 0
        for term in expr.split("+"):
            name, _, div = term.partition("/")
            names.append(name)
            v = settings[name]
            total += v // int(div) if div else v
        return str(total)
    return re.sub(r"\{([^}]+)\}", value, phrase), names


def limits(args):
    """limits SETTINGS FILE: every phrase, filled in, is in FILE."""
    settings = read_settings(args[0])
    with open(args[1]) as f:
        text = " ".join(f.read().split())
    ok = True
    for phrase in PHRASES:
        try:
            want, names = fill(phrase, settings)
        except KeyError as e:
            print("%s: no setting %s in %s" % (args[1], e, args[0]))
            ok = False
            continue
        if want not in text:
            print("%s: does not say \"%s\" (%s in %s)" % (
                args[1], want, ", ".join(sorted(set(names))), args[0]))
            ok = False
    return ok

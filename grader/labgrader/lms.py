"""The layouts an LMS downloads submissions in, and the CSV it imports.

Read (every name is hostile input: matched, never followed or run):
  Gradescope  submission_NNN/ folders and a top-level
              submission_metadata.yml that names each one's submitters
              (id, name, email; a group has several)
  Canvas      files named lastnamefirstname[_LATE]_USERID_SUBID_FILE
              (LATE_ in front on some exports)
  Moodle      folders "Full Name_12345_assignsubmission_file_"
  plain       NAME.c, NAME/ or an archive: NAME is the id
Anything else beside them (the metadata itself, a README, a Canvas
attachment that is not C or an archive, Moodle's online text) is not a
submission: named on one line each and left out."""
import csv
import io
import json
import os
import re
import stat

SUFFIXES = (".c", ".tar", ".tar.gz", ".tgz", ".zip")
GS_META = "submission_metadata.yml"
GS_META_MAX = 4 << 20  # a 300-student export's is about 100 kB
GS_FOLDER = re.compile(r"submission_\d+")
CANVAS = re.compile(r"(?:LATE_)?([A-Za-z0-9-]+?)_(?:LATE_|late_)?(\d+)_"
                    r"(\d+)_(.+)", re.S)
MOODLE = re.compile(r"(.+)_(\d+)_assign(?:submission|feedback)_(\w+?)_",
                    re.S)
FIELD = {":sid:": "id", ":name:": "name", ":email:": "email"}


def scalar(v):
    """A YAML scalar as Gradescope writes it: plain, 'single' ('' is a
    quote) or "double" (backslash escapes)."""
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] == "'":
        return v[1:-1].replace("''", "'")
    if len(v) >= 2 and v[0] == v[-1] == '"':
        return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(
            m.group(1), m.group(1)), v[1:-1])
    return "" if v in ("~", "null") else v


def gradescope_metadata(text):
    """{folder: [{"id", "name", "email"}]} from submission_metadata.yml:
    the subset Gradescope writes (a top-level key per folder, its
    :submitters: list of :name:, :sid:, :email:), read line by line, the
    rest (:results:, :created_at:...) skipped.  Not a YAML library: the
    grader runs without site packages (python3 -S), and this subset needs
    no types, anchors or tags."""
    out, folder, people, inside = {}, None, None, False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if indent == 0:
            m = re.fullmatch(r"(['\"]?)(submission_\d+)\1:", body)
            folder = m.group(2) if m else None
            people = out.setdefault(folder, []) if folder else None
            inside = False
            continue
        if people is None:
            continue
        if indent == 2 and not body.startswith("- "):
            inside = body == ":submitters:"
            continue
        if not inside:
            continue
        if body.startswith("- "):
            people.append({"id": "", "name": "", "email": ""})
            body = body[2:].strip()
        for key, field in FIELD.items():
            if body.startswith(key) and people:
                people[-1][field] = scalar(body[len(key):])[:200]
    return out


def read_metadata(subs):
    """Gradescope's metadata in SUBS, or None: a regular file only, never
    a link, read up to GS_META_MAX."""
    p = os.path.join(subs, GS_META)
    try:
        if not stat.S_ISREG(os.lstat(p).st_mode):
            return None
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            data = f.read(GS_META_MAX + 1)
    except OSError:
        return None
    if len(data) > GS_META_MAX:
        return {}
    return gradescope_metadata(data.decode("utf-8", "replace"))


def submission_like(name):
    return name.endswith(SUFFIXES)


def classify(subs, entry, meta):
    """(identities, None) for a submission, ([], why) for an entry that
    is not one.  identities: [{"id", "name", "email", "lms"}]."""
    try:
        is_dir = stat.S_ISDIR(os.lstat(os.path.join(subs, entry)).st_mode)
    except OSError:
        is_dir = False
    if meta is not None and entry == GS_META:
        return [], "the Gradescope export's metadata (ids read from it)"
    if meta is not None and is_dir and GS_FOLDER.fullmatch(entry):
        people = meta.get(entry) or [{"id": entry, "name": "",
                                      "email": ""}]
        return [dict(p, lms="gradescope") for p in people], None
    m = MOODLE.fullmatch(entry)
    if m and is_dir:
        if m.group(3) != "file":
            return [], "Moodle's %s, not a file submission" % m.group(3)
        return [{"id": m.group(2), "name": m.group(1), "email": "",
                 "lms": "moodle"}], None
    m = CANVAS.fullmatch(entry)
    if m and not is_dir:
        if not submission_like(m.group(4)):
            return [], "a Canvas attachment that is not C or an archive"
        return [{"id": m.group(2), "name": m.group(1), "email": "",
                 "lms": "canvas"}], None
    if is_dir or submission_like(entry):
        return [{"id": None, "name": "", "email": "", "lms": "plain"}], None
    return [], "not a submission: not a folder, .c, .tar, .tar.gz, " \
        ".tgz or .zip"


def lms_rows(results, later):
    """The LMS's CSV: a row per submitter (a Gradescope group's members
    each get the grade), id, name, email, core, part two (empty when the
    course does the core only), part three (a course that does it),
    total, status.  An environment error leaves the scores empty: no
    grade, not 0."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    extra = [p for p in later if p >= 3]
    w.writerow(["id", "name", "email", "core", "part_two"] +
               ["part_%s" % PART_WORD.get(p, p) for p in extra] +
               ["total", "status"])
    for r, people, parts, status in results:
        got = [parts.get(p, (0, 0))[0] for p in [1, 2] + extra]
        scores = [got[0], got[1] if later else ""] + got[2:] + [sum(got)]
        if status == "environment error":
            scores = [""] * len(scores)
        for p in people:
            w.writerow([cell(p.get("id") or r["name"]), cell(p.get("name")),
                        cell(p.get("email"))] + scores + [status])
    return buf.getvalue()


# A later part's column: part_three.
PART_WORD = {3: "three"}


def cell(v):
    """A field a spreadsheet shows as text: one that starts like a
    formula (=, +, -, @, a tab) gets a ' in front (OWASP's CSV injection
    advice); controls become spaces."""
    v = re.sub(r"[\x00-\x1f\x7f]", " ", str(v or ""))
    return "'" + v if v[:1] in ("=", "+", "-", "@") else v


def identities(student):
    """The submitters of a graded folder (lms.json, from grader/grade-all),
    or one that is the folder itself."""
    try:
        with open(os.path.join(student, "lms.json")) as f:
            people = json.load(f)
        if isinstance(people, list) and people:
            return [p for p in people if isinstance(p, dict)]
    except (OSError, ValueError):
        pass
    return [{"id": None, "name": "", "email": ""}]

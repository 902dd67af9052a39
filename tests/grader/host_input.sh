# The host reads submissions as hostile input (issue 22), without guests:
# grader.py unpack on links, FIFOs, devices, sockets and archive bombs;
# grader/grade --lab on a linked or FIFO main.c; the names that collide in a
# batch folder; student text with HTML, markdown and terminal escapes in
# report.md, Gradescope's results.json, the terminal and log.txt; and
# one line with status 2 for bad usage of grader.py.
# Sourced by tests/unit.sh (ok, fail, skip, t_tmp).
# shellcheck shell=bash disable=SC2154 # t_tmp: tests/lib.sh

h=$t_tmp/host-input
subs=$h/subs
mkdir -p "$subs"
G=grader/grader.py
# A file only the grader's user may read: no output may ever quote it.
token=SECRET-$RANDOM-$RANDOM-$$
printf 'int %s;\n' "$token" >"$h/secret"
chmod 600 "$h/secret"
mkdir -p "$h/secret-dir" && cp "$h/secret" "$h/secret-dir/main.c"

# The submissions, made by Python where the shell has no tool: a device
# node (root only), a socket, the archives.  Each archive is made in well
# under a second; unpacked without limits, the 200,000-member one cost
# 176 MB and 3.5 s, the bombs their whole decompressed size.
if ! python3 - "$subs" "$h" <<'PY' >"$h/make.log" 2>&1; then
import gzip, bz2, io, lzma, os, socket, stat, struct, sys, tarfile, zipfile
subs, h = sys.argv[1], sys.argv[2]
j = lambda n: os.path.join(subs, n)
main_c = open("solution/main.c", "rb").read()
if os.geteuid() == 0:
    os.mknod(j("device.c"), stat.S_IFCHR | 0o644, os.makedev(1, 3))
s = socket.socket(socket.AF_UNIX)
s.bind(j("socket.c"))

def tar(members):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w") as t:
        for name, data, kind in members:
            i = tarfile.TarInfo(name)
            if kind == "sym":
                i.type, i.linkname = tarfile.SYMTYPE, h + "/secret"
            elif kind == "hard":
                i.type, i.linkname = tarfile.LNKTYPE, "x"
            else:
                i.size = len(data)
            t.addfile(i, io.BytesIO(data) if kind == "reg" else None)
    return b.getvalue()

def put(name, data):
    with open(j(name), "wb") as f:
        f.write(data)

# 200,000 empty members: one header block over and over, 1 MB gzipped.
one = tarfile.TarInfo("x").tobuf(format=tarfile.GNU_FORMAT)
put("members.tar.gz", gzip.compress(one * 200000 + b"\0" * 1024, 1))
# 30 MB of zeros before lab/main.c: bombs of a few KB.
bomb = tar([("pad", bytes(30 << 20), "reg"), ("lab/main.c", main_c, "reg")])
put("bomb.tar.gz", gzip.compress(bomb, 1))
put("bomb.tar.bz2", bz2.compress(bomb, 1))
put("bomb.tar.xz", lzma.compress(bomb, preset=0))
# main.c as links to a secret: a symbolic link and a hard link.
put("links.tar", tar([("x", b"int x;\n", "reg"), ("lab/main.c", b"", "sym"),
                      ("main.c", b"", "hard")]))
with zipfile.ZipFile(j("members.zip"), "w") as z:
    for i in range(20000):
        z.writestr("f%d" % i, b"")
with zipfile.ZipFile(j("bomb.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("lab/main.c", bytes(50 << 20))
# The same bomb with a declared size of 100 bytes in both headers.
d = bytearray(open(j("bomb.zip"), "rb").read())
struct.pack_into("<I", d, d.find(b"PK\x03\x04") + 22, 100)
struct.pack_into("<I", d, d.find(b"PK\x01\x02") + 24, 100)
put("liar.zip", bytes(d))
with zipfile.ZipFile(j("link.zip"), "w") as z:
    i = zipfile.ZipInfo("lab/main.c")
    i.external_attr = (stat.S_IFLNK | 0o777) << 16
    z.writestr(i, h + "/secret")
# What an honest student hands in, in every form.
lab = tar([("lab/main.c", main_c, "reg")])
put("good.tar.gz", gzip.compress(lab))
put("good.tar.xz", lzma.compress(lab))
put("good.tar.bz2", bz2.compress(lab))
with zipfile.ZipFile(j("good.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("lab/main.c", main_c)
put("good.c", main_c)
PY
	fail "host input: making the submissions" "$h/make.log"
fi
ln -s "$h/secret" "$subs/linked.c"
ln -s "$PWD/solution/main.c" "$subs/solution.c"
ln -s "$h/secret-dir" "$subs/linked-dir"
mkfifo "$subs/fifo.c"
# Folders: a linked lab/main.c beside a real one elsewhere, a linked lab/
# folder, a FIFO as the only main.c.
mkdir -p "$subs/folder/lab" "$subs/folder/old" "$subs/dirlink" \
	"$subs/fifodir/lab"
ln -s "$h/secret" "$subs/folder/lab/main.c"
cp lab/main.c "$subs/folder/old/main.c"
ln -s "$h/secret-dir" "$subs/dirlink/lab"
mkfifo "$subs/fifodir/lab/main.c"

# unpack SUB: grader.py unpack on SUBS/SUB into a fresh $h/dest, at most
# 20 s; sets rc (124: it hung), ms (its CPU time: a busy host stretched
# the wall time of the 200,000-member refusal past 3 s once) and kb (its
# peak memory), and leaves its stderr in $h/err.
unpack() {
	rm -rf "$h/dest"
	read -r rc ms kb < <(python3 -c '
import resource, subprocess, sys
try:
    rc = subprocess.run(sys.argv[1:], timeout=20).returncode
except subprocess.TimeoutExpired:
    rc = 124
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, int((u.ru_utime + u.ru_stime) * 1000), u.ru_maxrss)
' python3 "$G" unpack "$subs/$1" "$h/dest" 2>"$h/err")
}
# leaked: the secret's content is in the output of the last unpack.
leaked() {
	grep -rqs "$token" "$h/err" "$h/dest"
}
# refused NAME SUB TEXT: unpack refuses SUB at once, in one line that
# names it and says TEXT, and copies nothing.
refused() {
	unpack "$2"
	if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$ms" -gt 3000 ]; then
		fail "$1: status $rc after $ms ms of CPU" "$h/err"
	elif leaked; then
		fail "$1: the secret is in the output" "$h/err"
	elif [ -e "$h/dest/main.c" ] || [ "$(wc -l <"$h/err")" != 1 ] ||
		! grep -q "^${2##*/}: refused: .*$3" "$h/err"; then
		fail "$1: want one line '${2##*/}: refused: ...$3'" "$h/err"
	else
		ok "$1 ($ms ms of CPU, $((kb / 1024)) MB: $(cat "$h/err"))"
	fi
}
refused unpack_symlink_to_secret linked.c "a symbolic link"
refused unpack_symlink_to_solution solution.c "a symbolic link"
refused unpack_symlink_to_folder linked-dir "a symbolic link"
refused unpack_fifo fifo.c "a FIFO"
refused unpack_socket socket.c "a socket"
if [ -e "$subs/device.c" ]; then
	refused unpack_char_device device.c "a character device"
else
	skip "unpack_char_device: mknod needs root"
fi
refused unpack_200000_members members.tar.gz "more than 10000 entries"
if [ "$kb" -gt $((64 * 1024)) ]; then
	fail "unpack_200000_members: $((kb / 1024)) MB of memory"
fi
refused unpack_20000_zip_members members.zip "more than 10000 entries"
for z in gz bz2 xz; do
	refused "unpack_bomb_tar_$z" "bomb.tar.$z" "more than 20 MB once"
done
refused unpack_zip_bomb bomb.zip "lab/main.c is larger than 2 MB"
refused unpack_zip_bomb_lying_size liar.zip "damaged"

# skipped NAME SUB TEXT...: unpack finds no main.c in SUB, whose main.c
# files are not regular, and notes each TEXT.
skipped() {
	local name=$1 sub=$2 t
	shift 2
	unpack "$sub"
	if [ "$rc" != 1 ] || leaked || [ -e "$h/dest/main.c" ] ||
		! grep -q "^no main.c in $sub\$" "$h/err"; then
		fail "$name: status $rc after $ms ms of CPU" "$h/err"
		return
	fi
	for t in "$@"; do
		grep -q "^$sub: $t" "$h/err" || {
			fail "$name: no note '$sub: $t'" "$h/err"
			return
		}
	done
	ok "$name ($ms ms of CPU: $(tr '\n' ' ' <"$h/err"))"
}
skipped unpack_tar_links links.tar "lab/main.c is a symbolic link" \
	"main.c is a hard link"
skipped unpack_zip_link link.zip "lab/main.c is a symbolic link"
skipped unpack_linked_folder dirlink
skipped unpack_fifo_in_folder fifodir "lab/main.c is a FIFO"

# A linked lab/main.c is skipped, noted, and the regular one used.
unpack folder
if [ "$rc" = 0 ] && cmp -s lab/main.c "$h/dest/main.c" && ! leaked &&
	grep -q '^folder: lab/main.c is a symbolic link' "$h/err"; then
	ok "unpack_folder_skips_linked_main_c ($(cat "$h/err"))"
else
	fail "unpack_folder_skips_linked_main_c: status $rc" "$h/err"
fi
why=''
for s in good.c good.zip good.tar.gz good.tar.bz2 good.tar.xz; do
	unpack "$s"
	[ "$rc" = 0 ] && cmp -s solution/main.c "$h/dest/main.c" &&
		[ ! -s "$h/err" ] || why="$why $s"
done
if [ -z "$why" ]; then
	ok "unpack_honest_forms (.c, zip, tar.gz, tar.bz2, tar.xz)"
else
	fail "unpack_honest_forms:$why" "$h/err"
fi

# unpack-many, grade-all's intake (one Python start, a process of its
# own per submission, with unpack's limits): for every submission above,
# the same status, lines and main.c as unpack gives it alone.
rm -rf "$h/many"
k=0
for s in "$subs"/*; do
	k=$((k + 1))
	printf '%s\0%s\0' "$s" "$h/many/$k"
done >"$h/many.list"
why=''
timeout 120 python3 "$G" unpack-many "$h/many.list" 2>"$h/many.err" ||
	why=" status $?"
[ ! -s "$h/many.err" ] || why="$why (lines of its own)"
k=0
for s in "$subs"/*; do
	k=$((k + 1))
	d=$h/many/$k
	unpack "${s##*/}"
	same=1
	[ "$(cat "$d/unpack.status" 2>/dev/null)" = "$rc" ] || same=''
	cmp -s "$h/err" "$d/unpack.log" || same=''
	if [ -e "$h/dest/main.c" ] || [ -e "$d/main.c" ]; then
		cmp -s "$h/dest/main.c" "$d/main.c" || same=''
	fi
	[ -n "$same" ] || why="$why ${s##*/}"
done
! grep -rqs "$token" "$h/many" || why="$why (the secret is in its output)"
if [ -z "$why" ]; then
	ok "unpack_many_as_unpack ($k submissions, each as alone)"
else
	fail "unpack_many_as_unpack:$why" "$h/many.err"
fi

# grader/grade --lab DIR (a Gradescope upload): a linked or FIFO main.c is
# refused in one line before anything is built or booted.  The timeout
# bounds a regression that would go on to boot the guests.
mkdir -p "$h/lab-link" "$h/lab-fifo"
ln -s "$h/secret" "$h/lab-link/main.c"
mkfifo "$h/lab-fifo/main.c"
for lab in lab-link lab-fifo; do
	GRADE_LOCK_WAIT=1 timeout 20 grader/grade --lab "$h/$lab" \
		--out "$h/grade-out" >"$h/grade.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$h/grade.out")" = 1 ] &&
		grep -q '^main.c: refused: a \(symbolic link\|FIFO\)' \
			"$h/grade.out" && ! grep -rqs "$token" "$h/grade.out" \
		"$h/grade-out"; then
		ok "grade_lab_refuses_${lab#lab-} ($(cat "$h/grade.out"))"
	else
		fail "grade_lab_refuses_${lab#lab-}: status $rc" "$h/grade.out"
	fi
done

# ---- names that become one folder in grader/grade-all ----
mkdir -p "$h/clash"
: >"$h/clash/a b.c"
: >"$h/clash/a_b.c"
: >"$h/clash/carol.c"
: >"$h/clash/.DS_Store"
mkdir "$h/clash/dave"
if python3 "$G" names "$h/clash" >"$h/names.bin" 2>"$h/names.err" &&
	python3 - "$h/names.bin" >"$h/names.out" 2>&1 <<'PY'; then
import json, sys
f = open(sys.argv[1], "rb").read().split(b"\0")
assert f[-1] == b"", "records end in NUL"
recs = [tuple(x.decode() for x in f[i:i + 4]) for i in range(0, len(f) - 1, 4)]
want = [("a b.c", "a_b"), ("a_b.c", "a_b"), ("carol.c", "carol"),
        ("dave", "dave")]
assert [r[:2] for r in recs] == want, recs
why = recs[0][2]
assert '"a b.c"' in why and '"a_b.c"' in why and "refused" in why and \
    "students/a_b" in why, why
assert recs[1][2] == "=" and recs[2][2] == recs[3][2] == "", recs
# The submitters (lms.py): a plain folder's id is its name.
assert [json.loads(r[3])[0]["id"] for r in recs] == [n for _, n in want]
print(why)
PY
	ok "names_clash_named_both ($(cat "$h/names.out"))"
else
	fail "names_clash_named_both" "$h/names.out"
fi

# grader/grade-all itself, with a stub for the guests' batch (it writes each
# student a result from their folder): the clash is refused naming both,
# every other student is graded, a linked NAME.c is refused in one line,
# and the status is 4; once one of the two is renamed, the next run
# grades both (the clash's result is never kept).
fake=$h/fake
mkdir -p "$fake/grader" "$h/ga"
cp grader/grade-all "$fake/grader/grade-all"
ln -s "$PWD/$G" "$fake/grader/grader.py"
ln -s "$PWD/grader/settings.sh" "$fake/grader/settings.sh"
ln -s "$PWD/lab" "$fake/lab"
printf '#!/bin/sh\necho 1\n' >"$fake/grader/capacity"
cat >"$fake/grader/batch" <<'SH'
#!/bin/sh
# Stub: a result for each student without one; a compile error when the
# folder has compile.log (as the batch's compile step would say).
for d in "$1"/students/*/; do
	[ ! -e "$d/result.json" ] || continue
	python3 -c 'import json, os, sys
d = sys.argv[1]
log = os.path.join(d, "compile.log")
err = open(log).read() if os.path.exists(log) else None
json.dump({"name": os.path.basename(d.rstrip("/")), "steps": {},
           "score": 0, "max_score": 20, "env_error": None,
           "compile_error": err}, open(os.path.join(d, "result.json"), "w"))
' "$d"
done
SH
chmod +x "$fake/grader/capacity" "$fake/grader/batch"
cp solution/main.c "$h/ga/a b.c"
cp lab/main.c "$h/ga/a_b.c"
cp solution/main.c "$h/ga/carol.c"
ln -s "$h/secret" "$h/ga/mallory.c"
st=$h/ga.graded/students
timeout 60 "$fake/grader/grade-all" "$h/ga" >"$h/ga.out" 2>&1
rc=$?
linked='grade-all: mallory.c: refused: a symbolic link, not a regular file'
if [ "$rc" = 4 ] && grep -q '^grade-all: "a b.c" and "a_b.c": refused' \
	"$h/ga.out" && grep -qxF "$linked" "$h/ga.out" &&
	grep -q '"a b.c" and "a_b.c"' "$st/a_b/compile.log" &&
	[ ! -e "$st/a_b/main.c" ] && cmp -s solution/main.c "$st/carol/main.c" &&
	[ ! -e "$st/mallory/main.c" ] &&
	! grep -rqs "$token" "$h/ga.out" "$h/ga.graded"; then
	ok "grade_all_refuses_clash_grades_rest (status 4)"
else
	fail "grade_all_refuses_clash_grades_rest: status $rc" "$h/ga.out"
fi
mv "$h/ga/a b.c" "$h/ga/a c.c"
timeout 60 "$fake/grader/grade-all" "$h/ga" >"$h/ga.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && cmp -s lab/main.c "$st/a_b/main.c" &&
	cmp -s solution/main.c "$st/a_c/main.c" && [ ! -e "$st/a_b/clash" ] &&
	! grep -q refused "$st/a_b/result.json"; then
	ok "grade_all_clash_renamed_grades_both"
else
	fail "grade_all_clash_renamed_grades_both: status $rc" "$h/ga.out"
fi

# ---- student text in report.md, results.json, the terminal, log.txt ----
# A fabricated result: each string the student controls carries HTML, an
# image, a link, extra table cells, code, emphasis, a newline that forges
# a score line, and terminal escapes (colour, clear screen, window title,
# a C1 CSI, a carriage return, a bidirectional override).
evil='<img src=x onerror=alert(1)> ![i](http://e.x/i.png) [l](javascript:x)'
evil="$evil | extra | cells | \`code\` **bold** _em_ \$x\$ www.e.x a@e.x"
if ! python3 - "$h/out/students" "$evil" <<'PY' >"$h/fab.log" 2>&1; then
import json, os, sys
sys.path.insert(0, "grader")
from labgrader.lab import STEP_TABLE
from labgrader.points import part_totals
out, evil = sys.argv[1], sys.argv[2]
esc = "\x1b[31mRED\x1b[2J\x1b]0;title\x07\x9b1m\rCR\u202eRLO"
forge = "\nScore: 20/20\n"
# crafty: evil's text in a program that compiled, so that report.md's
# statistics (over real submissions only) carry it.
for name in ("evil", "good", "crafty"):
    steps = {}
    for s, pts, part in STEP_TABLE:
        bad = name != "good"
        steps[s] = {"score": 0 if bad else pts, "max": pts, "part": part,
                    "passed": not bad,
                    "evidence": ["  seen: " + evil + esc + forge] if bad
                    else [],
                    "hint": evil + esc + forge if bad else None}
    r = {"name": name if name != "evil" else "ev|il<b>" + esc,
         "steps": steps, "env_error": None,
         "compile_error": evil + esc + forge if name == "evil" else None,
         "own_lines": ["    BAD     lab send FAIL: " + evil + esc],
         "wire": {}}
    r["parts"] = {str(p): {"title": "", "score": g, "max": t}
                  for p, g, t in part_totals(r)}
    r["score"], r["max_score"] = r["parts"]["1"]["score"], \
        r["parts"]["1"]["max"]
    os.makedirs(os.path.join(out, name))
    json.dump(r, open(os.path.join(out, name, "result.json"), "w"))
PY
	fail "host input: fabricating results" "$h/fab.log"
fi
res=$h/out/students/evil/result.json

# terminal: no character a terminal acts on, no forged score line.
python3 "$G" show "$res" >"$h/show.out" 2>&1
if python3 - "$h/show.out" <<'PY' >"$h/check.log" 2>&1; then
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
bad = re.findall("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]",
                 t)
assert not bad, "controls reach the terminal: %r" % bad[:5]
assert not re.search(r"^Score: 20/20", t, re.M), "a forged score line"
assert "\\x1b[31mRED" in t and "\\u202eRLO" in t, "escapes not shown"
PY
	ok "show_escapes_terminal_controls (no ESC, C1, CR or bidi; no" \
		"forged score line)"
else
	fail show_escapes_terminal_controls "$h/check.log"
fi

# log.txt, through grader.py clean: lines and tabs kept, the rest escaped.
printf 'a\tb\033[2Jc\r\n\302\233d\377\342\200\256e\n' |
	python3 "$G" clean >"$h/clean.out"
if [ "$(cat "$h/clean.out")" = "$(printf '%s\n' 'a	b\x1b[2Jc\x0d' \
	'\x9bd\xff\u202ee')" ]; then
	ok "clean_escapes_log_txt ($(head -c 60 "$h/clean.out" | tr '\n' ' '))"
else
	fail "clean_escapes_log_txt: $(od -c "$h/clean.out" | head -n 3)"
fi

# results.json: plain text for Gradescope, nothing a terminal acts on.
python3 "$G" results "$res" "$h/results.json" >"$h/results.log" 2>&1
if python3 - "$h/results.json" <<'PY' >>"$h/results.log" 2>&1; then
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["output_format"] == d["test_output_format"] == "text", d.keys()
assert d["test_name_format"] == "text"
assert all(t["output_format"] == "text" for t in d["tests"])
for t in [d["output"]] + [t["output"] for t in d["tests"]]:
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", t), t
assert not re.search(r"^Score: 20/20", d["output"], re.M)
PY
	ok "results_json_plain_text (output_format text, controls escaped)"
else
	fail results_json_plain_text "$h/results.log"
fi

# report.md: the student's text is text; every table row has its cells.
python3 "$G" report "$h/out" >"$h/report.log" 2>&1
if python3 - "$h/out/report.md" <<'PY' >>"$h/report.log" 2>&1; then
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
tables = [[l for l in t.splitlines() if l.startswith("|")]
          for t in md.split("\n\n")]
tables = [t for t in tables if t]
students = [t for t in tables if t[0].startswith("| student |")]
assert len(students) == 1 and len(students[0]) == 5, "tables: %s" % tables
for t in tables:
    cells = {l.count("|") for l in t}
    assert len(cells) == 1, "rows with other cells: %s" % t
for bad in ("<", "![", "](", "`code`", "**", "_em_", "$x$", "\x1b",
            "\x9b", "\r", "\u202e", "http://", "www.e"):
    assert bad not in md, "report.md has %r" % bad
assert "&lt;img" in md and "ev&#124;il&lt;b&gt;" in md, "the text is lost"
PY
	ok "report_md_escapes_student_text (no HTML, image, link, code or" \
		"extra cell)"
else
	fail report_md_escapes_student_text "$h/report.log"
fi
# report.html: the same text, as text: no element, attribute or control of
# the student's, and the text itself kept.
if python3 - "$h/out/report.html" <<'PY' >"$h/html.log" 2>&1; then
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert "<img" not in page and "<b>" not in page, "an element of theirs"
assert not re.search("[\x1b\x9b\r\u202e]", page), "a control"
assert "&lt;img src=x onerror=alert(1)&gt;" in page, "the hint is lost"
assert "ev|il&lt;b&gt;" in page, "the name is lost"
PY
	ok "report_html_escapes_student_text (no element, no control)"
else
	fail report_html_escapes_student_text "$h/html.log"
fi

# ---- bad usage of grader.py: one line, status 2, no traceback ----
# usage_error NAME ARGS...: grader.py ARGS exits 2 with one line on stderr
# and nothing on stdout.
usage_error() {
	local name=$1 rc
	shift
	python3 "$G" "$@" >"$h/usage.out" 2>"$h/usage.err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$h/usage.err")" = 1 ] &&
		[ ! -s "$h/usage.out" ]; then
		ok "$name ($(cat "$h/usage.err"))"
	else
		fail "$name: status $rc, want 2 and one line" "$h/usage.err"
	fi
}
usage_error grader_no_command
usage_error grader_unknown_command bogus
usage_error grader_unpack_no_args unpack
usage_error grader_unpack_one_arg unpack "$subs/good.c"
usage_error grader_names_no_args names
usage_error grader_names_missing names "$h/no-such-folder"
usage_error grader_show_no_result show "$h/no-such.json"
usage_error grader_results_one_arg results "$res"
usage_error grader_report_no_args report
usage_error grader_report_no_folder report "$h/no-such-folder"
printf '{"steps": ' >"$h/cut.json"
usage_error grader_show_cut_json show "$h/cut.json"
usage_error grader_progress_not_pids progress "$h" 1 x
for c in payloads analyze merge progress leaks packets slice; do
	usage_error "grader_${c}_no_args" "$c"
done
# A DEST it may not create: one line, not a traceback.
usage_error grader_payloads_unwritable payloads /proc/no-such/res
usage_error grader_analyze_unwritable analyze "$h/no-such" "$h/no-such" \
	/proc/no-such/dest
usage_error grader_steps_bad_arg steps --bogus
# One argument more than each command takes.
usage_error grader_unpack_extra_arg unpack a b c
usage_error grader_names_extra_arg names a b
usage_error grader_clean_extra_arg clean a
usage_error grader_analyze_extra_arg analyze a b c d
usage_error grader_report_extra_arg report a b
usage_error grader_leaks_extra_arg leaks a b
usage_error grader_packets_extra_arg packets a b
usage_error grader_slice_extra_arg slice a b c
usage_error grader_steps_extra_arg steps --parts --graded

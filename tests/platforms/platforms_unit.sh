# The platforms' pieces that run without a container or guests: vm/deps's
# apt sources for another architecture on Ubuntu (both of Ubuntu's
# layouts, in a copy of /etc).
# Sourced by tests/unit.sh (ok, fail, t_tmp).
# shellcheck shell=bash disable=SC2154 # t_tmp: tests/lib.sh

pu=$t_tmp/platforms-unit
mkdir -p "$pu"

# ---- vm/deps on Ubuntu: arm64's packages from ports.ubuntu.com ----------
# ubuntu_sources ARCH, taken out of vm/deps (which runs apt when run), on
# a GitHub runner's layouts: 24.04's deb822 ubuntu.sources, and 22.04's
# sources.list beside another vendor's list that names its architectures.
eval "$(sed -n '/^ubuntu_sources()/,/^}/p' vm/deps)"
ubuntu_etc() {
	local etc=$pu/$1
	mkdir -p "$etc/apt/sources.list.d"
	printf 'ID=ubuntu\nVERSION_CODENAME=%s\n' "$2" >"$etc/os-release"
	echo "$etc"
}
etc=$(ubuntu_etc noble noble)
cat >"$etc/apt/sources.list.d/ubuntu.sources" <<'SRC'
Types: deb
URIs: http://azure.archive.ubuntu.com/ubuntu/
Suites: noble noble-updates noble-backports
Components: main universe restricted multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

Types: deb
URIs: http://azure.archive.ubuntu.com/ubuntu/
Suites: noble-security
Components: main universe restricted multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg
SRC
if LAB_APT_ETC=$etc LAB_APT_NATIVE=amd64 ubuntu_sources arm64 \
	>"$pu/noble.log" 2>&1 &&
	[ "$(grep -c '^Architectures: amd64$' \
		"$etc/apt/sources.list.d/ubuntu.sources")" = 2 ] &&
	[ "$(grep -c '^Types: deb$' "$etc/apt/sources.list.d/ubuntu.sources")" = 2 ] &&
	grep -q '^URIs: http://ports.ubuntu.com/ubuntu-ports/$' \
		"$etc/apt/sources.list.d/rdma-lab-arm64.sources" &&
	grep -q '^Suites: noble noble-updates noble-backports noble-security$' \
		"$etc/apt/sources.list.d/rdma-lab-arm64.sources" &&
	grep -q '^Architectures: arm64$' \
		"$etc/apt/sources.list.d/rdma-lab-arm64.sources"; then
	ok "vm/deps on Ubuntu 24.04 (deb822): archive amd64 only, arm64 from ports"
else
	cat "$etc"/apt/sources.list.d/* >>"$pu/noble.log" 2>&1
	fail "vm/deps on Ubuntu 24.04 (deb822): arm64 sources" "$pu/noble.log"
fi
etc=$(ubuntu_etc jammy jammy)
cat >"$etc/apt/sources.list" <<'SRC'
deb http://azure.archive.ubuntu.com/ubuntu/ jammy main restricted
deb http://azure.archive.ubuntu.com/ubuntu/ jammy-updates universe
deb http://security.ubuntu.com/ubuntu jammy-security main
# deb http://archive.ubuntu.com/ubuntu/ jammy-proposed main
SRC
echo 'deb [arch=amd64,armhf,arm64] https://packages.microsoft.com/ubuntu/22.04/prod jammy main' \
	>"$etc/apt/sources.list.d/microsoft-prod.list"
if LAB_APT_ETC=$etc LAB_APT_NATIVE=amd64 ubuntu_sources arm64 \
	>"$pu/jammy.log" 2>&1 &&
	[ "$(grep -c '^deb \[arch=amd64\] http' "$etc/apt/sources.list")" = 3 ] &&
	grep -q '^# deb http://archive' "$etc/apt/sources.list" &&
	grep -q '^deb \[arch=amd64,armhf,arm64\] https://packages.microsoft' \
		"$etc/apt/sources.list.d/microsoft-prod.list" &&
	grep -q '^Suites: jammy jammy-updates' \
		"$etc/apt/sources.list.d/rdma-lab-arm64.sources"; then
	ok "vm/deps on Ubuntu 22.04 (sources.list): [arch=amd64], arm64 from ports"
else
	cat "$etc/apt/sources.list" >>"$pu/jammy.log" 2>&1
	fail "vm/deps on Ubuntu 22.04 (sources.list): arm64 sources" "$pu/jammy.log"
fi
# On Debian nothing changes: its mirrors carry every architecture.
etc=$pu/debian
mkdir -p "$etc/apt/sources.list.d"
printf 'ID=debian\nVERSION_CODENAME=bookworm\n' >"$etc/os-release"
echo 'deb http://deb.debian.org/debian bookworm main' >"$etc/apt/sources.list"
cp "$etc/apt/sources.list" "$pu/debian.before"
if LAB_APT_ETC=$etc LAB_APT_NATIVE=amd64 ubuntu_sources arm64 &&
	cmp -s "$pu/debian.before" "$etc/apt/sources.list" &&
	[ -z "$(ls "$etc/apt/sources.list.d")" ]; then
	ok "vm/deps on Debian: apt sources left as they are"
else
	fail "vm/deps on Debian: apt sources changed"
fi

# ---- make dist and make gradescope package what is committed -------------
# In a clone of this commit: LAB_PARTS edited and not committed, and a new
# file not added, are refused by both, in one line naming them; nothing is
# written.  LAB_DIST_UNCOMMITTED=1 goes on, and says so.
cl=$pu/clone
if ! git clone -q "$PWD" "$cl" 2>"$pu/clone.log"; then
	fail "make dist refuses uncommitted settings: git clone" "$pu/clone.log"
else
	sed -i 's/^#define LAB_PARTS [0-9]*$/#define LAB_PARTS 1/' "$cl/lab/steps.h"
	echo 'LAB_NEW=1' >"$cl/grader/new-setting.sh"
	for c in "dist:release/mkdist $pu/h.tar.gz:$pu/h.tar.gz" \
		"gradescope:grader/platforms/gradescope/mkzip $pu/gs.zip:$pu/gs.zip"; do
		IFS=: read -r name cmd out <<<"$c"
		rc=0
		# shellcheck disable=SC2086 # the command and its argument
		(cd "$cl" && env -u LAB_DIST_UNCOMMITTED $cmd) >"$pu/$name.log" 2>&1 ||
			rc=$?
		if [ "$rc" = 1 ] && [ "$(wc -l <"$pu/$name.log")" = 1 ] &&
			grep -q 'grader/new-setting.sh lab/steps.h; commit them' \
				"$pu/$name.log" && [ ! -e "$out" ]; then
			ok "make $name: uncommitted LAB_PARTS and a new file refused, named"
		else
			fail "make $name: uncommitted settings (status $rc)" "$pu/$name.log"
		fi
	done
	if (cd "$cl" && LAB_DIST_UNCOMMITTED=1 release/committed "make dist") \
		>"$pu/over.log" 2>&1 && grep -q 'LAB_DIST_UNCOMMITTED=1: packaging the commit' \
		"$pu/over.log" && (cd "$cl" && git checkout -q lab/steps.h &&
		rm grader/new-setting.sh && release/committed "make dist") \
		>>"$pu/over.log" 2>&1 && [ "$(wc -l <"$pu/over.log")" = 1 ]; then
		ok "make dist: LAB_DIST_UNCOMMITTED=1 goes on and says so; a committed tree passes"
	else
		fail "make dist: LAB_DIST_UNCOMMITTED=1, or a committed tree" "$pu/over.log"
	fi
fi

# ---- the platforms' results, from uploads with nothing to grade ----------
# (grader/platforms/grade-upload stops before any guest.)  PrairieLearn: an
# empty upload and an empty main.c are gradable false, in the student's
# words (no folder of the grader's named); Gradescope: 0 and why.
mkdir -p "$pu/none" "$pu/emptyc"
echo 'my notes' >"$pu/none/notes.txt"
: >"$pu/emptyc/main.c"
for c in "none:no main.c was submitted" "emptyc:the main.c submitted is empty"; do
	IFS=: read -r name why <<<"$c"
	grader/platforms/grade-upload prairielearn "$pu/$name" "$pu/pl-$name.json" \
		>"$pu/pl-$name.log" 2>&1
	grader/platforms/grade-upload gradescope "$pu/$name" "$pu/gs-$name.json" \
		>"$pu/gs-$name.log" 2>&1
	if python3 - "$pu/pl-$name.json" "$pu/gs-$name.json" "$why" \
		>>"$pu/pl-$name.log" 2>&1 <<'PY'; then
import json, sys
pl, gs = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
why = sys.argv[3]
assert pl["gradable"] is False and pl["score"] == 0, pl
assert why in pl["message"] and "does not count" in pl["message"], pl
assert "/grade" not in pl["message"] and "in student" not in pl["message"]
assert gs["score"] == 0 and why in gs["output"], gs
PY
		ok "platforms: $why: PrairieLearn gradable false, Gradescope 0, in the student's words"
	else
		fail "platforms: $why" "$pu/pl-$name.log"
	fi
done

# Gradescope: a grader that fails (here: a visibility it does not know)
# is a failed autograder run, no results.json and status 1 or more, its
# output saying why to the staff; never a 0.
rm -f "$pu/gs-env.json"
rc=0
LAB_GS_VISIBILITY=soon grader/platforms/grade-upload gradescope "$pu/emptyc" \
	"$pu/gs-env.json" >"$pu/gs-env.log" 2>&1 || rc=$?
if [ "$rc" != 0 ] && [ ! -e "$pu/gs-env.json" ] &&
	grep -q "ENVIRONMENT ERROR, not the student's: the grader itself failed" \
		"$pu/gs-env.log"; then
	ok "platforms: Gradescope's environment error: no results.json (status $rc), said to the staff"
else
	fail "platforms: Gradescope's environment error (status $rc)" "$pu/gs-env.log"
fi

# ---- results of a graded student: Gradescope's visibility, Classroom -----
# A result as the grader writes one (every step of lab/steps.h): full
# marks, and the first step failed.
if ! python3 - "$pu" <<'PY' >"$pu/fab.log" 2>&1; then
import json, os, sys
sys.path.insert(0, "grader")
from labgrader.lab import GRADED, PART
for name, lost in (("full", 0), ("lost", 1)):
    steps = {}
    for i, (s, pts) in enumerate(GRADED):
        bad = i < lost
        steps[s] = {"score": 0 if bad else pts, "max": pts, "part": PART[s],
                    "passed": not bad, "evidence": ["  seen: nothing"] if bad
                    else [], "hint": "post a receive first" if bad else None}
    json.dump({"name": "lab", "steps": steps, "env_error": None,
               "compile_error": None, "own_lines": [], "wire": {}},
              open(os.path.join(sys.argv[1], name + ".json"), "w"))
PY
	fail "platforms: fabricating results" "$pu/fab.log"
fi
G=grader/grader.py
if LAB_GS_VISIBILITY=after_due_date python3 "$G" platform gradescope \
	"$pu/gs-vis.json" 0 "$pu/full.json" >"$pu/vis.log" 2>&1 &&
	python3 - "$pu/gs-vis.json" >>"$pu/vis.log" 2>&1 <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["visibility"] == "after_due_date", d["visibility"]
assert d["tests"] and all(t["visibility"] == "after_due_date"
                          for t in d["tests"])
PY
	ok "platforms: Gradescope's results hidden until the due date (LAB_GS_VISIBILITY)"
else
	fail "platforms: Gradescope's visibility" "$pu/vis.log"
fi
# GitHub Classroom's reporter (autograding-grading-reporter): base64 of
# {version, status, max_score, tests[{name, status, score, ...}]}; it
# posts the sum of the tests' scores over max_score, and none when
# max_score is 0 (an environment error).
for c in "full:$pu/full.json" "lost:$pu/lost.json" \
	"env:--env-error:the guests ended" "refused:--refused:no main.c was submitted"; do
	IFS=: read -r name what text <<<"$c"
	python3 "$G" platform classroom "$pu/cl-$name.b64" 0 "$what" \
		${text:+"$text"} >"$pu/cl-$name.log" 2>&1 || true
done
if python3 - "$pu" >>"$pu/cl-full.log" 2>&1 <<'PY'; then
import base64, json, os, sys
sys.path.insert(0, "grader")
from labgrader.lab import GRADED
total = sum(p for _, p in GRADED)
def load(name):
    raw = open(os.path.join(sys.argv[1], "cl-%s.b64" % name)).read()
    return json.loads(base64.b64decode(raw.strip(), validate=True))
got = lambda d: sum(t["score"] for t in d["tests"])
full, lost = load("full"), load("lost")
env, refused = load("env"), load("refused")
for d in (full, lost, env, refused):
    assert d["version"] == 1 and d["status"] in ("pass", "fail", "error")
    assert all({"name", "status", "score", "message"} <= set(t)
               for t in d["tests"]), d
assert full["status"] == "pass" and got(full) == full["max_score"] == total
assert len(full["tests"]) == len(GRADED)
assert lost["status"] == "fail" and lost["max_score"] == total
assert got(lost) == total - GRADED[0][1], got(lost)
assert env["status"] == "error" and env["max_score"] == 0, env
assert "ENVIRONMENT ERROR" in env["tests"][0]["message"]
assert refused["status"] == "fail" and got(refused) == 0
assert refused["max_score"] == total
PY
	ok "platforms: GitHub Classroom's points: full, one step lost, none for an environment error, 0 refused"
else
	fail "platforms: GitHub Classroom's points" "$pu/cl-full.log"
fi

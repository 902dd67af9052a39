#!/bin/bash
# The lab where students and courses are: the container image (make
# image) and the grading platforms' contracts, each in a real container
# with no network and no privilege beyond the engine's defaults.
#   - the image: make demo passes; vm/grade on a mounted reference gives
#     full marks, on the skeleton 0;
#   - Gradescope: the zip of make gradescope, set up in a fresh Debian
#     root laid out as Gradescope's (setup.sh at build), run_autograder at
#     1 CPU and 2 GB: the reference as main.c, as lab/main.c of a
#     repository and as a .zip file full marks, the skeleton 0, a run
#     whose guests are killed an environment error that asks to resubmit;
#   - PrairieLearn: the image's entrypoint at 0.9 CPU and 2 GiB: score 1,
#     0, and gradable false for the killed guests.
# Every results.json is held to its platform's field names and types.
# Builds (the base with mmdebstrap, the images) need Debian's mirror; the
# runs need nothing.  Each run that boots guests holds the host's
# /tmp/rdma-lab-vm.lock (a container's /tmp is its own).
# Not in tests/run's default list (about 10 minutes): tests/run platforms,
# make test-platforms, or LAB_TEST_PLATFORMS=1 make test.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
lock=${TMPDIR:-/tmp}/rdma-lab-vm.lock
ctr=vm/platforms/container
image=${LAB_IMAGE:-rdma-lab}
gs_image=$image-gradescope-test
# Gradescope's documented limits, as the docs ask a course to set them;
# PrairieLearn's.
gs_limits=(--network none --memory 2g --cpus 1)
pl_limits=(--network none --memory 2g --cpus 0.9)

# timed NAME CMD...: CMD's status, its wall time in $t_secs (the wait for
# the guests' lock excluded: other users' runs are not ours).
t_secs=0
timed() {
	local rc=0 t0
	flock "$lock" true
	t0=$SECONDS
	"$@" || rc=$?
	t_secs=$((SECONDS - t0))
	return "$rc"
}

# in_image LOG ARGS...: a run of the image, guests allowed one at a time.
in_image() {
	local log=$1
	shift
	flock "$lock" "$ctr" run --rm "$@" >"$log" 2>&1
}

# schema KIND FILE: FILE holds KIND's documented fields, of their types.
schema() {
	python3 - "$@" <<'PY'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
num = (int, float)
def need(obj, fields, where):
    for k, t in fields.items():
        assert k in obj, "%s: no %s" % (where, k)
        assert isinstance(obj[k], t) and not isinstance(obj[k], bool) or \
            t is bool and isinstance(obj[k], bool), \
            "%s: %s is %r" % (where, k, type(obj[k]).__name__)
if kind == "gradescope":
    need(d, {"score": num, "execution_time": num, "output": str,
             "output_format": str, "tests": list, "visibility": str}, "top")
    assert d["output_format"] == "text"
    for i, t in enumerate(d["tests"]):
        need(t, {"name": str, "number": str, "score": num,
                 "max_score": num, "status": str, "output": str,
                 "output_format": str, "visibility": str}, "test %d" % i)
        assert t["status"] in ("passed", "failed"), t["status"]
        assert t["output_format"] == "text"
        assert t["visibility"] in ("hidden", "after_due_date",
                                   "after_published", "visible")
    assert d["score"] == sum(t["score"] for t in d["tests"])
else:
    need(d, {"gradable": bool, "score": num, "message": str, "output": str,
             "tests": list}, "top")
    assert 0 <= d["score"] <= 1, d["score"]
    for i, t in enumerate(d["tests"]):
        need(t, {"name": str, "description": str, "points": num,
                 "max_points": num, "message": str, "output": str},
             "test %d" % i)
PY
}

# expect KIND FILE PYTHON: FILE passes schema and the expression (d is
# its JSON, tests its tests).
expect() {
	schema "$1" "$2" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
tests = d["tests"]
assert eval(sys.argv[2]), sys.argv[2]
' "$2" "$3"
}

why=$(need python3 flock) || {
	skip "the platforms: $why"
	summary
	exit
}
if ! engine=$("$ctr" --engine 2>&1); then
	skip "the platforms: $engine (vm/deps --platforms installs podman)"
	summary
	exit
fi
if [ "$engine" = podman ] && ! command -v mmdebstrap >/dev/null; then
	# Without it the base comes from a registry, if one answers.
	echo "note: no mmdebstrap; debian:bookworm-slim must be in a registry"
fi

# ---- the image -------------------------------------------------------
log=$t_tmp/base.log
if timed vm/platforms/image --base >"$log" 2>&1 &&
	"$ctr" image inspect debian:bookworm-slim >/dev/null 2>&1; then
	ok "debian:bookworm-slim is there (local build or registry; $t_secs s)"
else
	fail "the base image debian:bookworm-slim" "$log"
fi
log=$t_tmp/image.log
if timed make -s image >"$log" 2>&1; then
	ok "make image ($engine, $t_secs s)"
	built=1
else
	fail "make image" "$log"
	built=0
fi

mkdir -p "$t_tmp/good" "$t_tmp/skel"
cp solution/main.c "$t_tmp/good/main.c"
cp lab/main.c "$t_tmp/skel/main.c"
if [ "$built" = 1 ]; then
	# The defaults of the engine: no --privileged, no --cap-add, no
	# device; the container has no /dev/kvm, so the guests emulate.
	log=$t_tmp/demo.log
	if timed in_image "$log" --network none "$image" make demo &&
		expect_in "$log" '^\[server\] lab teardown ok' &&
		expect_in "$log" '^\[client\] lab teardown ok' &&
		expect_in "$log" 'accelerator tcg: this host has no /dev/kvm'; then
		ok "image: make demo, no network, no /dev/kvm ($t_secs s)"
	else
		fail "image: make demo" "$log"
	fi
	log=$t_tmp/grade-good.log
	if timed in_image "$log" --network none -v "$t_tmp/good:/sub:ro" \
		"$image" vm/grade --lab /sub &&
		expect_in "$log" '^Score: 20/20$' &&
		expect_in "$log" '^Part two: 10/10$'; then
		ok "image: vm/grade --lab of the reference: 20/20, 10/10 ($t_secs s)"
	else
		fail "image: vm/grade --lab of the reference" "$log"
	fi
	log=$t_tmp/grade-skel.log
	rc=0
	timed in_image "$log" --network none -v "$t_tmp/skel:/sub:ro" \
		"$image" vm/grade --lab /sub || rc=$?
	if [ "$rc" = 1 ] && expect_in "$log" '^Score: 0/20$' &&
		expect_in "$log" '^Part two: 0/10$'; then
		ok "image: vm/grade --lab of the skeleton: 0/20, 0/10 ($t_secs s)"
	else
		fail "image: vm/grade --lab of the skeleton (status $rc)" "$log"
	fi
else
	skip "image runs: make image failed"
fi

# A guest killer: runs CMD and kills every QEMU of its container while
# CMD runs (what a guest crash looks like to the grader).
mkdir -p "$t_tmp/kill"
cat >"$t_tmp/kill/killer" <<'EOF'
#!/bin/bash
"$@" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	for c in /proc/[0-9]*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = qemu-system-x86 ] || continue
		p=${c#/proc/}
		kill -9 "${p%/comm}" 2>/dev/null || true
	done
	sleep 0.5
done
wait "$pid"
EOF
chmod 755 "$t_tmp/kill/killer"

# ---- Gradescope ------------------------------------------------------
# The harness: Gradescope's layout on a fresh Debian root, setup.sh run
# at build as root (Gradescope's own base is Ubuntu 22.04: reasoned).
gs=$t_tmp/gs
mkdir -p "$gs"
log=$t_tmp/gs-build.log
if make -s gradescope >"$log" 2>&1 && cp out/gradescope.zip "$gs/" &&
	cat >"$gs/Containerfile" <<'EOF' &&
FROM debian:bookworm-slim
COPY gradescope.zip /tmp/
RUN apt-get update -q && apt-get install -y -q --no-install-recommends \
	python3 >/dev/null && \
	mkdir -p /autograder/source /autograder/results /autograder/submission && \
	python3 -m zipfile -e /tmp/gradescope.zip /autograder/source && \
	cp /autograder/source/run_autograder /autograder/run_autograder && \
	chmod 755 /autograder/run_autograder && \
	cd /autograder/source && bash setup.sh
WORKDIR /autograder
EOF
	timed "$ctr" build -t "$gs_image" "$gs" >>"$log" 2>&1; then
	ok "gradescope: make gradescope, setup.sh in Gradescope's layout ($t_secs s)"
	gs_built=1
else
	fail "gradescope: the zip and setup.sh" "$log"
	gs_built=0
fi

# gs_run NAME SUBMISSION [PREFIX...]: run_autograder on SUBMISSION (a
# folder) at Gradescope's limits; results in $gs/NAME/results.json.
gs_run() {
	local name=$1 sub=$2
	shift 2
	mkdir -p "$gs/$name"
	timed in_image "$gs/$name/log" "${gs_limits[@]}" \
		-v "$t_tmp/kill:/kill:ro" \
		-v "$sub:/autograder/submission:ro" \
		-v "$gs/$name:/autograder/results" "$gs_image" \
		"$@" /autograder/run_autograder
}
# A repository's upload: the tree's files, lab/main.c the reference.
repo=$t_tmp/repo
mkdir -p "$repo/lab"
cp README.md Makefile "$repo/"
cp lab/*.h lab/*.c "$repo/lab/"
cp solution/main.c "$repo/lab/main.c"
mkdir -p "$t_tmp/zip"
(cd "$t_tmp" && python3 -m zipfile -c zip/lab.zip repo)
full='d["score"] == 30 and all(t["status"] == "passed" for t in tests)'
full+=' and any(t["number"].startswith("2.") for t in tests)'
zero='d["score"] == 0 and sum(t["max_score"] for t in tests) == 30'
env='"ENVIRONMENT ERROR" in d["output"] and "Resubmit" in d["output"]'
if [ "$gs_built" = 1 ]; then
	for c in "main:$t_tmp/good:$full:the reference as main.c: 30/30" \
		"repo:$repo:$full:a repository, lab/main.c: 30/30" \
		"zip:$t_tmp/zip:$full:a .zip left as it was uploaded: 30/30" \
		"skel:$t_tmp/skel:$zero:the skeleton: 0/30"; do
		IFS=: read -r name sub want what <<<"$c"
		if gs_run "$name" "$sub" &&
			expect gradescope "$gs/$name/results.json" "$want" \
				>>"$gs/$name/log" 2>&1; then
			ok "gradescope: $what ($t_secs s at 1 CPU, 2 GB)"
		else
			fail "gradescope: $what" "$gs/$name/log"
		fi
	done
	if gs_run killed "$t_tmp/good" /kill/killer &&
		expect gradescope "$gs/killed/results.json" "$env" \
			>>"$gs/killed/log" 2>&1; then
		ok "gradescope: guests killed: an environment error, resubmit ($t_secs s)"
	else
		fail "gradescope: guests killed" "$gs/killed/log"
	fi
else
	skip "gradescope runs: its setup failed"
fi

# ---- PrairieLearn ----------------------------------------------------
pl=$t_tmp/pl
# pl_run NAME STUDENT [PREFIX...]: the image's entrypoint on STUDENT.
pl_run() {
	local name=$1 sub=$2
	shift 2
	mkdir -p "$pl/$name"
	timed in_image "$pl/$name/log" "${pl_limits[@]}" \
		-v "$t_tmp/kill:/kill:ro" -v "$sub:/grade/student:ro" \
		-v "$pl/$name:/grade/results" "$image" \
		"$@" vm/platforms/prairielearn/grade
}
if [ "$built" = 1 ]; then
	for c in "good:$t_tmp/good:d[\"score\"] == 1 and d[\"gradable\"]:the reference: score 1" \
		"skel:$t_tmp/skel:d[\"score\"] == 0 and d[\"gradable\"]:the skeleton: score 0"; do
		IFS=: read -r name sub want what <<<"$c"
		if pl_run "$name" "$sub" &&
			expect prairielearn "$pl/$name/results.json" "$want" \
				>>"$pl/$name/log" 2>&1; then
			ok "prairielearn: $what ($t_secs s at 0.9 CPU, 2 GiB)"
		else
			fail "prairielearn: $what" "$pl/$name/log"
		fi
	done
	if pl_run killed "$t_tmp/good" /kill/killer &&
		expect prairielearn "$pl/killed/results.json" \
			'not d["gradable"] and "Resubmit" in d["message"]' \
			>>"$pl/killed/log" 2>&1; then
		ok "prairielearn: guests killed: gradable false ($t_secs s)"
	else
		fail "prairielearn: guests killed" "$pl/killed/log"
	fi
else
	skip "prairielearn runs: make image failed"
fi

summary

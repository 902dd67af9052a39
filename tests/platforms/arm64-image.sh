#!/bin/bash
# The handout's arm64 image, for Apple silicon and other arm64 machines, as
# such a student builds it: make dist here, extracted, make image
# ARCH=arm64 in it (its RUN steps in qemu-user, through binfmt_misc, set up
# by LAB_ARCH=arm64 vm/deps --platforms), then make demo in the image,
# whose guests' QEMU itself runs in qemu-user: twice emulated, the guests
# boot in about 7 minutes (6 of them in the kernel) and every wait is long
# (LAB_GUEST_SECONDS, -t 600).  tests/run runs it last, alone: beside the
# other groups (a make test here, 2026-11-28) the starved guests'
# acknowledgements came later than rxe's 134 ms timer seven times in a
# row, and the demo's FETCH_ADD ended in status 12.  Skipped where arm64
# is this host's own (the platforms group builds the native image) and
# where no container runs.  About 8 minutes from podman's cache, 25 on a
# fresh machine.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
ctr=release/container
img=${LAB_IMAGE:-rdma-lab}-arm64-test

if [ "$(LAB_ARCH='' vm/arch name)" = arm64 ]; then
	skip "the arm64 image: this host is arm64 (tests/run platforms" \
		"builds the native one)"
	stop_group
fi
if ! engine=$("$ctr" --engine 2>&1); then
	skip "the arm64 image: $engine (vm/deps --platforms installs podman)"
	stop_group
fi
if ! mountpoint -q /sys/fs/cgroup 2>/dev/null; then
	skip "the arm64 image: no cgroup file system at /sys/fs/cgroup" \
		"(containers need one; a chroot lacks it)"
	stop_group
fi
if ! LAB_ARCH=arm64 vm/deps --platforms --dist >"$t_tmp/deps.log" 2>&1; then
	fail "LAB_ARCH=arm64 vm/deps --platforms --dist (as root)" \
		"$t_tmp/deps.log"
	stop_group
fi

ho=$t_tmp/handout
log=$t_tmp/dist.log
start=$SECONDS
if ! { LAB_DIST_UNCOMMITTED=1 release/mkdist "$t_tmp/handout.tar.gz" &&
	mkdir -p "$ho" && tar -xzf "$t_tmp/handout.tar.gz" -C "$ho"; } \
	>"$log" 2>&1; then
	fail "make dist: the handout, extracted" "$log"
	stop_group
fi
ho=$ho/rdma-lab
ok "make dist: the handout, extracted ($((SECONDS - start)) s)"

log=$t_tmp/image.log
start=$SECONDS
if LAB_IMAGE=$img make -s -C "$ho" image ARCH=arm64 >"$log" 2>&1 &&
	[ "$("$ctr" image inspect --format '{{.Architecture}}' "$img")" = arm64 ]
then
	size=$("$ctr" image inspect --format '{{.Size}}' "$img")
	ok "make image ARCH=arm64 in the extracted handout: an arm64 image" \
		"($engine, $((SECONDS - start)) s, $((size / 1000000)) MB)"
else
	# The step that failed: the steps the cache answered say nothing.
	grep -v '^--> ' "$log" >"$log.short" || true
	fail "make image ARCH=arm64 in the extracted handout" "$log.short"
	stop_group
fi

log=$t_tmp/demo.log
flock "$t_lock" true # wait for other users, outside the measured time
start=$SECONDS
if flock "$t_lock" release/container run --rm --network none \
	-e LAB_GUEST_SECONDS=2400 --platform linux/arm64 "$img" \
	make demo ARGS='-t 600' >"$log" 2>&1 &&
	expect_in "$log" '^\[server\] lab teardown ok' &&
	expect_in "$log" '^\[client\] lab teardown ok' &&
	expect_in "$log" 'RDMA_WRITE_ONLY'; then
	ok "make demo in the arm64 image, emulated twice over" \
		"($((SECONDS - start)) s)"
else
	fail "make demo in the arm64 image" "$log"
fi

summary

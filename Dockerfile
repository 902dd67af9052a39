# The lab in a container: the macOS and Windows path (Docker Desktop,
# Podman Desktop, WSL2), and the image of the grading platforms
# (docs/grading.md, "Platforms").  make image builds it (release/image).
#   docker run --rm IMAGE make demo
#   docker run --rm -v "$PWD/lab:/sub" IMAGE grader/grade --lab /sub
# The guests mount the container's own root over 9p, as they mount the
# host's on a Linux host; they run under emulation (TCG) unless /dev/kvm
# is passed in (--device /dev/kvm).  The guests are of the image's
# architecture: arm64 on Apple silicon (make image ARCH=arm64 elsewhere).  Nothing here needs a privilege or the
# network once built.
# BASE: another architecture's (release/image --arch).
# SNAPSHOT=0 leaves out the guests' warm-start snapshots (the last step):
# a build that boots no guest, for checking what the image holds.
ARG BASE=debian:bookworm-slim
FROM $BASE
ARG SNAPSHOT=1
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
WORKDIR /opt/rdma-lab
# What dpkg leaves out of every package (documentation, translations:
# dpkg-slim.cfg says what and why), set before the first install.
COPY release/dpkg-slim.cfg /etc/dpkg/dpkg.cfg.d/rdma-lab-slim
# The packages (vm/deps: their one list) and the guests' kernel and
# initramfs (vm/prepare, in /root/.cache/rdma-lab), in a layer that only
# these files change.  --slim keeps of the kernel's package what the
# guests boot (the modules in the initramfs).  apt's lists go: nothing
# after this consults apt.
COPY vm/arch vm/deps vm/prepare vm/
COPY vm/guest/init vm/guest/
RUN vm/deps && vm/prepare --slim >/dev/null && vm/deps --check && \
	apt-get clean && rm -rf /var/lib/apt/lists/*
COPY . .
# The programs and the grader's tools, built once here: a run in the
# container starts with nothing to compile but a student's main.c.
RUN make -s all grader-tools && vm/deps --check
# The guests' warm-start snapshots (vm/snapshot, amd64 guests under TCG):
# made here once, so that each container restores its guests instead of
# making them again (about 10 s) or booting them cold.  Elsewhere it
# would boot cold and keep nothing, so it is not run: in an arm64 image
# built on an x86-64 host its guests' QEMU runs in qemu-user, and on a
# loaded 2-core machine the pair did not finish within vm/run's 120 s.
# A build beside other guests (CI's, an instructor's grading) gets a
# longer bound and a second try: it failed once in CI that way.
RUN [ "$SNAPSHOT" = 0 ] || [ "$(vm/arch name)" != amd64 ] || \
	vm/run --timeout 600 --server true --client true >/dev/null || \
	vm/run --timeout 600 --server true --client true >/dev/null
CMD ["make", "demo"]

# ---------------------------------------------------------------------------
# rdma-lab program: build, skeleton generation, host-side unit tests.
# only: instructor
#   make        build solution/rdma-lab and lab/rdma-lab
#   make lab    regenerate lab/main.c from solution/main.c
#   make unit   host-side unit tests (no RDMA needed)
#   make format clang-format solution/main.c, then regenerate lab/main.c
# end only
# handout: student
# #   make        build lab/rdma-lab from your lab/main.c
# end handout
# ---------------------------------------------------------------------------
CC ?= cc
include lab/flags.mk
# The guests' architecture (LAB_ARCH, vm/arch): the programs are built
# for it, cross-compiled when it is not this host's.  out/arch names the
# one they were built for last: another one rebuilds them.
GUEST_ARCH := $(shell vm/arch name)
ifeq ($(GUEST_ARCH),)
$(error LAB_ARCH: no such guest architecture)
endif
GUEST_CC := $(shell vm/arch cc)
ifneq ($(GUEST_CC),)
CC := $(GUEST_CC)
endif
$(shell mkdir -p out && { [ "$$(cat out/arch 2>/dev/null)" = $(GUEST_ARCH) ] || echo $(GUEST_ARCH) >out/arch; })
# A handout's prebuilt reference (make dist): grader/reference/, or its
# folder of the guests' architecture where make dist built one.
REFERENCE := $(firstword $(wildcard grader/reference/$(GUEST_ARCH)) grader/reference)

.PHONY: all clean
all: lab/rdma-lab
# only: instructor
all: solution/rdma-lab
# end only

# Each main.c holds only the steps; the scaffolding is linked in, built
# once (the grader's copy, out/tools/scaffold/).  main.c is compiled alone
# and checked by lab/check-main.sh before the link, as the grader does:
# no global name of the libraries or the scaffolding, no code before main,
# and every symbol but the step_* functions made local.
# $(call lab_build,MAIN.c,PROGRAM)
LAB_OBJS := out/tools/scaffold/support.o out/tools/scaffold/driver.o
# The names the scaffolding and the libraries define, which a main.c may
# not: read once (lab/check-main.sh --known), not at every compile.
LAB_KNOWN := out/tools/scaffold/known.tsv
define lab_build
$(CC) $(LAB_CFLAGS) -Ilab -c -o $(2).o $(1)
CC='$(CC)' LAB_KNOWN=$(LAB_KNOWN) sh lab/check-main.sh $(1) $(2).o $(LAB_OBJS)
$(CC) $(LAB_CFLAGS) -o $(2) $(2).o $(LAB_OBJS) $(LAB_LDLIBS)
endef

# only: instructor
solution/rdma-lab: solution/main.c $(LAB_OBJS) $(LAB_KNOWN) $(LAB_HEADERS) \
		lab/check-main.sh out/arch
	$(call lab_build,solution/main.c,$@)

# end only
lab/rdma-lab: lab/main.c $(LAB_OBJS) $(LAB_KNOWN) $(LAB_HEADERS) \
		lab/check-main.sh out/arch
	$(call lab_build,lab/main.c,$@)

# only: instructor
# Any main.c built as a student's file is: make build MAIN=x/main.c
# OUT=x/rdma-lab (the tests' deliberate variants of the reference).
.PHONY: build lab unit format
build: $(LAB_OBJS) $(LAB_KNOWN)
	@test -n "$(MAIN)" -a -n "$(OUT)" || { echo "usage: make build MAIN=FILE.c OUT=PROGRAM" >&2; exit 2; }
	$(call lab_build,$(MAIN),$(OUT))

# Phony on purpose: lab/ is also a directory, and a student tree may have
# no solution/ at all, so "make" never regenerates on its own.
# A lab/main.c that is already the one generated keeps its time, so that
# lab/rdma-lab is not built again (make test builds while it runs).
# A temporary file of its own: test groups run make lab at once.
lab:
	t=lab/main.c.tmp.$$$$; \
	awk -f solution/mkskeleton.awk solution/main.c >"$$t" && \
	if cmp -s "$$t" lab/main.c; then rm "$$t"; \
	else mv "$$t" lab/main.c; fi

unit: all
	bash tests/unit.sh

format:
	clang-format -i solution/main.c lab/lab.h lab/support.c lab/driver.c
	$(MAKE) lab
# end only

clean:
	rm -f lab/rdma-lab lab/rdma-lab.o lab/main.c.tmp*
# only: instructor
	rm -f solution/rdma-lab solution/rdma-lab.o
	rm -rf tests/bin
# end only
# ---------------------------------------------------------------------------
# (end of rdma-lab program block)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Running in the two SoftRoCE guests (vm/), and the tests.
#   make demo   the reference program, end to end, with its capture
#   make run    the same with your build of lab/main.c
#   ARGS="..."  program options for both sides of either; quote text with
#               spaces inside: make run ARGS="-m 'hello world'"
#   LOSS='...'  the wire between the guests drops, delays, duplicates or
#               reorders the RoCE packets the rules pick, for either:
#               make run LOSS='drop c2s op=SEND_ONLY n=1' (vm/wire/relay
#               --help); also LAB_WIRE in the environment
# only: instructor
#   make test   every test: host-side unit tests, the runner, end to end
# end only
# handout: student
# #   make test   make grade: the handout's test is your lab, graded
# end handout
# ---------------------------------------------------------------------------
.PHONY: deps demo run test
ifneq ($(LOSS),)
demo run: export LAB_WIRE := $(LOSS)
endif
deps:
	vm/deps

demo: deps
	$(MAKE) all
	vm/demo solution/rdma-lab out/demo $(ARGS)

run: deps
	$(MAKE) all
	vm/demo lab/rdma-lab out/run $(ARGS)

# only: instructor
# Packages first: on a fresh machine even the compiler may be missing.
# The platforms group's own (vm/deps --platforms) it installs itself,
# beside the other groups (tests/platforms/platforms.sh).
test:
	vm/deps --tests
	$(MAKE) all
	tests/run
# end only
# handout: student
# test: grade
# end handout

# ---------------------------------------------------------------------------
# Docs images (images/) and the student's ladder diagram.
# only: instructor
#   make images   redraw images/ from images/headers.tsv and the recorded
#                 runs in docs/runs/ (IMAGES_OUT=DIR writes elsewhere;
#                 needs rsvg-convert, package librsvg2-bin)
# end only
#   make ladder   message sequence chart of a capture, next to it:
#                 PCAP=out/run/wire.pcap (default; else out/demo/wire.pcap)
# ---------------------------------------------------------------------------
# only: instructor
IMAGES_OUT ?= images
IMAGES_SVG := rocev2-headers ib-headers rocev2-packets ib-roce-mapping \
	atomic-headers part2-packets \
	ibv-devinfo ladder-demo
# end only
PCAP ?= $(firstword $(wildcard out/run/wire.pcap) out/demo/wire.pcap)
.PHONY: ladder
# only: instructor
.PHONY: images
images:
	mkdir -p $(IMAGES_OUT)
	python3 images/draw.py images/headers.tsv $(IMAGES_OUT)
	python3 images/draw.py --text docs/runs/devinfo.txt $(IMAGES_OUT)/ibv-devinfo.svg
	python3 images/ladder.py docs/runs/demo.pcap $(IMAGES_OUT)/ladder-demo.svg
	for f in $(IMAGES_SVG); do \
		rsvg-convert -o $(IMAGES_OUT)/$$f.png $(IMAGES_OUT)/$$f.svg || exit 1; \
	done
# end only

ladder:
	@[ -r "$(PCAP)" ] || { echo "make ladder: no capture $(PCAP): run make run (or make demo) first, or give PCAP=FILE" >&2; exit 1; }
	python3 images/ladder.py $(PCAP) $(dir $(PCAP))ladder.svg
	@echo "ladder diagram: $(dir $(PCAP))ladder.svg"
# ---------------------------------------------------------------------------
# (end of docs images block)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Grading (grader/; the README, "Grading your lab").
#   make grade                grade lab/main.c in the guests, against the
#                             reference (GRADE_ARGS: steps, --results FILE)
# only: instructor
#   make grade-all DIR=SUBS   grade every submission in SUBS (one boot)
#   make dist                 student handout: no solution sources, the
#                             reference as a built binary
# end only
# ---------------------------------------------------------------------------
.PHONY: grade
grade: deps
	grader/grade $(GRADE_ARGS)

# only: instructor
.PHONY: grade-all dist
grade-all: deps
	@test -n "$(DIR)" || { echo "usage: make grade-all DIR=SUBMISSIONS/"; exit 2; }
	grader/grade-all $(GRADE_ARGS) $(DIR)

dist: all
	release/mkdist out/rdma-lab-handout.tar.gz
# end only

# What the grading guests run besides the students' programs, rebuilt only
# when its source changes: the kernel trace's probes, the QPN skew, the
# sandbox, and the scaffolding a student's main.c is linked with (the
# flags of every build of it).  Each
# file appears whole (a .tmp of its own make's, then mv): two batches may
# build at once, and a .tmp both shared lost one its file mid-build.
TOOLS := out/tools
TOOLS_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror
GRADER_TOOLS := $(TOOLS)/probes $(TOOLS)/skew \
	$(TOOLS)/jail $(TOOLS)/scaffold/support.o $(TOOLS)/scaffold/driver.o \
	$(TOOLS)/scaffold/lab.h $(TOOLS)/scaffold/steps.h \
	$(TOOLS)/scaffold/codes.h $(TOOLS)/scaffold/check-main.sh \
	$(TOOLS)/scaffold/standins.o $(LAB_KNOWN)
.PHONY: grader-tools
grader-tools: $(GRADER_TOOLS)
$(TOOLS)/probes: grader/guest/probes.c grader/guest/kfacts.c grader/guest/kfacts.h \
		out/arch
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@.$$$$.tmp $(filter %.c,$^) -libverbs && \
		mv $@.$$$$.tmp $@
$(TOOLS)/skew: grader/guest/skew.c out/arch
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@.$$$$.tmp $< -libverbs && mv $@.$$$$.tmp $@
$(TOOLS)/jail: grader/guest/jail.c out/arch
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@.$$$$.tmp $< && mv $@.$$$$.tmp $@
$(TOOLS)/scaffold/%.o: lab/%.c $(LAB_HEADERS) out/arch
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) -Ilab -c -o $@.$$$$.tmp $< && mv $@.$$$$.tmp $@
# Made again when the C library or libibverbs is another (their files).
$(LAB_KNOWN): lab/check-main.sh $(LAB_OBJS) out/arch \
		$(wildcard $(shell $(CC) -print-file-name=libc.so.6) \
		$(shell $(CC) -print-file-name=libibverbs.so.1))
	@mkdir -p $(@D)
	CC='$(CC)' sh lab/check-main.sh --known $(LAB_OBJS) >$@.$$$$.tmp && \
		test -s $@.$$$$.tmp && mv $@.$$$$.tmp $@
# The reference's steps, each in a section of its own, linked in place of
# a student's failed step (grader/guest/compile.sh, labgrader/rounds.py):
# built from the solution, or in a handout, the copy make dist put there.
# only: instructor
STANDINS_FROM := solution/main.c
# end only
$(TOOLS)/scaffold/standins.o: $(STANDINS_FROM) $(LAB_HEADERS) \
		lab/check-main.sh $(LAB_OBJS) $(LAB_KNOWN) out/arch
	@mkdir -p $(@D)
	$(if $(STANDINS_FROM),$(CC) $(LAB_CFLAGS) -ffunction-sections -Ilab \
		-c -o $@.$$$$.tmp.o $(STANDINS_FROM) && CC='$(CC)' \
		LAB_KNOWN=$(LAB_KNOWN) sh lab/check-main.sh $(STANDINS_FROM) \
		$@.$$$$.tmp.o $(LAB_OBJS), \
		cp $(REFERENCE)/standins.o $@.$$$$.tmp.o) && \
		mv $@.$$$$.tmp.o $@
$(TOOLS)/scaffold/%.h: lab/%.h
	@mkdir -p $(@D)
	cp $< $@.$$$$.tmp && mv $@.$$$$.tmp $@
$(TOOLS)/scaffold/%.sh: lab/%.sh
	@mkdir -p $(@D)
	cp $< $@.$$$$.tmp && mv $@.$$$$.tmp $@
# ---------------------------------------------------------------------------
# (end of grading block)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Containers (docs/rxe-setup.md, "In a container") and grading platforms
# (release/ builds the image, grader/platforms/ adapts the grader).
# only: instructor
# The platforms: docs/grading.md, "Platforms".
# end only
#   make image       the lab's container image, rdma-lab (Dockerfile;
#                    podman or docker): then
#                    docker run --rm rdma-lab make demo
#                    or ./lab.sh demo, run, grade, ladder, shell: each in
#                    it where this host lacks the packages, out/ kept
#                    ARCH=arm64: the arm64 image on another host,
#                    rdma-lab:arm64
# only: instructor
#   make prairielearn IMAGE=REGISTRY/NAME:TAG  out/prairielearn/rdmaLab:
#                    the question folder, graded in that image
#   make gradescope  out/gradescope.zip: the autograder to upload;
#                    VISIBILITY=after_due_date (visible, after_published,
#                    hidden): when students see the results
#   make test-platforms  tests/run platforms: the image, the platforms'
#                    contracts (make test runs it; LAB_TEST_PLATFORMS=0
#                    leaves it out)
#   make test-arm64  tests/run arm64: runner, demo and grade in arm64
#                    guests (LAB_ARCH=arm64; under emulation on x86-64)
# end only
# ---------------------------------------------------------------------------
.PHONY: image
image:
	release/image $(if $(ARCH),--arch $(ARCH))
# only: instructor
.PHONY: gradescope prairielearn test-platforms test-arm64
prairielearn:
	@test -n "$(IMAGE)" || { echo "usage: make prairielearn IMAGE=REGISTRY/NAME:TAG (the handout's image: release/publish)" >&2; exit 2; }
	grader/platforms/prairielearn/mkquestion '$(IMAGE)' out/prairielearn/rdmaLab

gradescope:
	$(if $(VISIBILITY),LAB_GS_VISIBILITY=$(VISIBILITY)) grader/platforms/gradescope/mkzip out/gradescope.zip

test-platforms:
	vm/deps --tests --platforms
	$(MAKE) all
	tests/run platforms

test-arm64:
	LAB_ARCH=arm64 vm/deps --tests
	tests/run arm64
# end only
# ---------------------------------------------------------------------------
# (end of platforms block)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# rdma-lab program: build, skeleton generation, host-side unit tests.
#   make        build solution/rdma-lab and lab/rdma-lab
#   make lab    regenerate lab/main.c from solution/main.c
#   make unit   host-side unit tests (no RDMA needed)
#   make format clang-format solution/main.c, then regenerate lab/main.c
# ---------------------------------------------------------------------------
CC ?= cc
LAB_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror
LAB_LDLIBS := -libverbs

.PHONY: all lab unit format clean
all: solution/rdma-lab lab/rdma-lab

solution/rdma-lab: solution/main.c
	$(CC) $(LAB_CFLAGS) -o $@ solution/main.c $(LAB_LDLIBS)

lab/rdma-lab: lab/main.c
	$(CC) $(LAB_CFLAGS) -o $@ lab/main.c $(LAB_LDLIBS)

# Phony on purpose: lab/ is also a directory, and a student tree may have
# no solution/ at all, so "make" never regenerates on its own.
lab:
	awk -f solution/mkskeleton.awk solution/main.c > lab/main.c.tmp
	mv lab/main.c.tmp lab/main.c

unit: all
	sh tests/unit/run.sh

format:
	clang-format -i solution/main.c
	$(MAKE) lab

clean:
	rm -f solution/rdma-lab lab/rdma-lab lab/main.c.tmp
	rm -rf tests/bin
# ---------------------------------------------------------------------------
# (end of rdma-lab program block)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Running in the two SoftRoCE guests (vm/), and the tests.
#   make demo   the reference solution, end to end, with its capture
#   make run    the same with your build of lab/main.c
#   make test   every test: host-side unit tests, the runner, end to end
# ---------------------------------------------------------------------------
.PHONY: deps demo run test
deps:
	vm/deps

demo: deps
	$(MAKE) all
	vm/demo solution/rdma-lab out/demo

run: deps
	$(MAKE) all
	vm/demo lab/rdma-lab out/run

# Packages first: on a fresh machine even the compiler may be missing.
test:
	vm/deps --tests
	$(MAKE) all
	tests/run

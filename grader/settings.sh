# What the host's batch (grader/batch) and the guests' driver
# (grader/guest/driver) agree on, named once: the timings of a grading
# run and the limits of a student's run and compile, each with the reason
# for its value, and the reader of the pairings table (pairings.tsv, which
# the grader's Python reads too), and nap.  The tests read them here too.
# Sourced; defines names only.  Seconds unless the name says otherwise.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the names are for the scripts that source it

# --- the bounds of one run: the host's choice -----------------------------
# grader/batch writes them into the guests' config (GRADE_PROG_TIMEOUT,
# GRADE_RUN_TIMEOUT and GRADE_CC_TIMEOUT override them).
# A student's program gets -t this long for each of its waits for the peer
# (the TCP exchange, a completion): a correct pairing takes 0.4-1.5 s
# under TCG (docs/grading.md, "Grading a whole course"), so 5 s is a
# wait that failed, with room for a guest pair that shares its CPU.
PROG_TIMEOUT_DEFAULT=5
# A whole run of one side (the jail's limit; the reference's loop): the
# last resort, for a program that keeps printing (a silent one is stopped
# after PROG_TIMEOUT + IDLE_SLACK_S); more than two waits of PROG_TIMEOUT.
RUN_TIMEOUT_DEFAULT=12
# One compile of a student's main.c: 0.4 s of CPU on the host, about 10 s
# of a guest's under TCG (where the host cannot compile).  Its CPU time is
# the student's (the jail's -t: a compile that loops, a hostile header,
# fails as a compile error); its wall time is the machine's: past
# CC_TIMEOUT of it the compile is an environment error, retried, never a
# lost point (with eight busy loops on this 2-core host a 0.4 s compile
# once ran past 60 s, and three correct submissions scored 0).  In a
# guest, the CPU time of a process includes what its guest lost to the
# host, so the bound there is looser.
CC_TIMEOUT_DEFAULT=60
CC_CPU_HOST_S=30
CC_CPU_GUEST_S=45
# A compile in a guest that failed after running for its CPU limit (both
# stretched by the guest's slowdown, as the runs' waits below), while the
# host's samples had that guest at this slowdown (tenths) or more, is an
# environment error (guest-driver's cc_starved).  A quiet host's guests
# are at 10-11.
CC_STARVED_STRETCH10=15

# --- the guests (guest-driver) ---------------------------------------------
# How often the loops that wait for a compile, tcpdump or the port look:
# ten times a second, in builtins only (a fork costs a tenth of a second
# under TCG, which the programs being graded need).
POLL_S=0.1
# How often the loop that watches a run looks at the peer's status, the
# capture and the program's signs of life, in builtins only.  The run's
# end wakes it at once (run_prog), so these checks, whose bounds are
# seconds, need no more: at ten times a second the loop cost a guest
# pair about a fifth of the CPU of a correct submission's runs.
RUN_POLL_S=0.25
# How often wait_file looks for a marker file of the other guest: the
# pairings are run in step, and each wait is on the critical path.
FILE_POLL_S=0.05
# How long the server's guest waits for the host's wire relay to take a
# pairing's rules (vm/wire/relay --live looks every 0.2 s at most): past
# it, an environment error.
WIRE_ACK_S=10
# Each guest writes a heartbeat this often; the host counts a guest hung
# after BEAT_MAX_S without one (ten beats missed: a guest starved of CPU
# by the other pair's compile still beats within that).
HEARTBEAT_S=2
# A student's program silent (no ibv_* call, no output) for longer than
# its waits (-t PROG_TIMEOUT) has hung; this much more covers the time
# between its last sign of life and the start of its wait, and the
# watching loop's own RUN_POLL_S steps.
IDLE_SLACK_S=2
# A student's program silent this long (no ibv_* call, no line, no
# memory taken) is slowed to SLOW_CPU (cpu.max: 10 ms of CPU every 100
# ms) until its next sign of life: under TCG a program that spins (a
# loop, a CQ polled for nothing) takes all of its guest's CPU, and so a
# core of the host's, until it is stopped as silent.  A program that
# only waits for its peer (a poll, its buffer read in a loop) sees what
# comes within one period and is at full speed again once it calls or
# prints, or is being stopped; a silent run's stop comes when it did.
SLOW_AFTER_S=3
SLOW_CPU="10000 100000"
# Memory that grows by more than this between two looks (RUN_POLL_S) is
# a sign of life: what the program does then is judged at full speed.
SLOW_MEM_GROWTH_BYTES=1048576
# The reference waits this much longer for its peer than a student's
# program does: a wait the reference gives up on must never cost the
# student points (the student's side fails first, and is judged so).
REF_WAIT_SLACK_S=2
# Once the peer has failed (its exit status is not 0), a program still
# running is stopped after this many polls (1 s at RUN_POLL_S): enough
# for the last packets and lines of its failure to be written, short
# enough that a program waiting for a dead peer does not run to
# RUN_TIMEOUT.
PEER_GRACE_POLLS=4
# The reference client waits this long before its WRITE, its WRITE with
# immediate and its atomics, so that a student server reading its buffer
# without waiting for the client's notice is caught (lab_ref_delay,
# lab/lab.h): likely, not certain (docs/grading.md: "a read of memory is
# no event").  Such a server reads within milliseconds of its step's
# start on a quiet host; a guest starved of CPU takes longer, so the
# wait is stretched like the others (guest-driver's stretch).  A
# fixed 350 ms each (1.05 s of a correct submission's 2.6 s) before the
# stretch existed.
REF_DELAY_MS=100
# The server guest waits for the client's exit status this long after
# RUN_TIMEOUT: the client started after the server (srv-started), and
# moves its output and trace over 9p after its run.
CLIENT_DONE_SLACK_S=10
# The client guest waits for the server to start a pairing this long
# after RUN_TIMEOUT: more than the server may spend on the pairing before
# (RUN_TIMEOUT + CLIENT_DONE_SLACK_S), so that the client never gives up
# on a server that is only slow.
SERVER_START_SLACK_S=30
# The client guest waits for the server to end a pairing this long after
# RUN_TIMEOUT: more than the server's own wait for the client
# (CLIENT_DONE_SLACK_S), so that the server is the one that says which
# side never finished.
SERVER_DONE_SLACK_S=15
# After a submission's last pairing the server says "done" once tcpdump
# has written its last packets to the capture file the host cuts: it
# sleeps, waiting for the next packet, with what it wrote unchanged
# between two looks CAPTURE_FLUSH_POLL_S apart (it writes in immediate
# mode, each packet as it comes, and every packet of a pairing reached
# the kernel before its programs ended); CAPTURE_FLUSH_MS at most.  A
# fixed wait of 0.2 s cost every job that much.
CAPTURE_FLUSH_MS=200
CAPTURE_FLUSH_POLL_S=0.02
# tcpdump says "listening" within a second or two under TCG; past this
# many POLL_S (30 s) the boot is an environment error (guest-driver).
# 10 s, after which the runs started anyway, once lost a correct lab's
# first pairing's packets (make test on a fresh Debian 12, handout's
# make grade beside the grade batch and three other guest groups).
TCPDUMP_READY_POLLS=300
# The client guest's 2200-byte link shows as a 2048-byte active MTU
# within a second; past this many looks a tenth of a second apart (5 s,
# skew.c) the facts are taken as they are.
MTU_READY_POLLS=50

# --- the limits of a student's run and compile (guest-driver, batch) ------
# Nothing a student's program does may take the guest driver, the
# reference or tcpdump down.  Each run of a student's program is in the
# guest's cgroup "student", each compile in a guest in "cc" (memory.max,
# pids.max, rdma.max): an exhausted limit ends that run only, and the
# cgroup's counters tell the grader which limit it was (SIDE.limit, whose
# text names the value).  The jail (grader/guest/jail.c) adds rlimits:
# -u processes, -f file size and -v address space, in KiB.
# A run's memory, in MiB (memory.max; memory.oom.group: an OOM kills the
# whole run).
RUN_MEM_MIB=128
# A run's processes: the jail's -u and the cgroup's pids.max (which counts
# the jail's first process too): a fork bomb meets it, as a failed fork.
RUN_PROCS=16
# The verbs objects a run may hold (rdma.max's hca_object): rxe's queue
# rings are kernel memory that the memory controller does not count (a CQ
# of the largest size is megabytes); the lab needs six: PD, CQ, MRs, QP.
RUN_RDMA_OBJECTS=16
# A run's address space (the jail's -v, KiB).  rxe maps every queue ring
# (QP, CQ, SRQ) into the process that owns it, so its address space bounds
# the kernel memory its verbs objects hold, which no cgroup counts: with
# its user memory, at most 256 MiB of a guest that has about 400 MiB
# free.  Past it, creating the object fails (ENOMEM), and the guest never
# reaches its OOM killer (a few QPs of the largest size took it there, and
# under TCG a guest busy with its OOM killer can miss its heartbeat: an
# environment error).  A correct lab maps under 10 MiB.
RUN_AS_KIB=262144
# A file a run writes (the jail's -f, KiB): its output and errors, 2 MiB
# each at most (a flood); the lab prints a few KiB.
RUN_FILE_KIB=2048
# A compile in a guest: its memory (MiB, the cgroup "cc") and processes
# (the jail's -u and the cgroup's pids.max), for cc, as and ld.
CC_MEM_MIB=192
CC_PROCS=64
# A compile's file size and address space (the jail's -f and -v, KiB), on
# the host and in a guest: what it writes and the memory it takes (no
# cgroup bounds a compile on the host) end as a compile error, never as
# the host's trouble.
CC_FILE_KIB=65536
CC_AS_KIB=2000000
# The bytes of a student's main.c that a compile reads (head -c), on the
# host and in a guest, and the grader's Python reads (labgrader/unpack.py,
# through lab.py's SETTINGS).
MAIN_C_BYTES=2000000
# The capture is one file for the boot on the host's disk.  A pairing's
# programs may add this many MiB to it (a correct pairing adds about 30
# KiB); past that the guests stop the students' programs of the pairing.
# 1 MiB: a flood under TCG, with two guest pairs busy, writes about 400
# KiB/s, and should meet the bound well before its peer gives up waiting
# (7 s), whatever the load.
CAPTURE_MAX_MIB=1
# The kernel's trace of a run: its ring buffer (buffer_size_kb, KiB),
# which drops new events when full; and the bytes of it kept where bash's
# loadable tee is missing (head -c; labgrader/evidence/peer.py reads as
# many, through lab.py's SETTINGS).
KTRACE_BUFFER_KIB=4096
KTRACE_MAX_BYTES=8000000
# A student's log.txt (grader/batch) keeps this much of each run's
# output, errors and trace: enough to read, and a flood stays readable.
LOG_OUT_BYTES=1000000
LOG_ERR_BYTES=200000
LOG_KTRACE_BYTES=1000000

# --- the host (batch) ------------------------------------------------------
# The waits above are wall time, and a guest the host starves of CPU
# needs more of it: the batch measures how long the guests' QEMU threads
# ran and waited for a CPU (their schedstat) over each SLOW_WINDOW_S;
# a guest that got a share S of the CPU it asked for has its next runs'
# waits, silence and run limits (guest-driver) stretched by
# SLOW_SHARE / S (in percent), never less than 1 nor more than SLOW_MAX.
# A quiet host's guests, booting or grading, get 0.75-0.9 of it (two
# guests and the batch on 2 cores): no stretch.  Under make test's load
# (four guest pairs and container builds on 2 cores) they got 0.1-0.2,
# and a correct program's first verbs call came more than 7 s after its
# start: it was charged as silent in open_device, 3 times in 60
# gradings.  A program that hangs hangs at any stretch: it only costs
# more time.
SLOW_WINDOW_S=2
SLOW_SHARE=80
SLOW_MAX=5
# vm/run's limit for one boot of the guest pair: the boot and set-up
# (about 7.5 s under TCG, docs/grading.md), with room for a machine busy
# with other runs, then this much per submission (three pairings of at
# most RUN_TIMEOUT each, stretched up to SLOW_MAX, with the guests' waits
# between them).  At 90 s and 60 s, a one-student shard's boot ran out
# twice under make test's load.  A last
# resort: the heartbeat and stall checks stop hung guests much earlier.
# A student's later rounds run in the same boot (grader/batch): its
# share is counted twice, as a student's rounds cost at most their
# budget and one more round (labgrader/rounds.py).
BOOT_S=240
PER_SUBMISSION_S=180
# Seconds without any new file from the guests before they count as
# hung: the longest silent stretch is one compile (CC_TIMEOUT), plus
# this (GRADE_STALL overrides the sum).
STALL_SLACK_S=30
# Seconds without a heartbeat (HEARTBEAT_S) before a guest counts as hung
# (GRADE_BEAT overrides it).
BEAT_MAX_S=20
# How often the host looks at the guests' files and heartbeats while they
# run: a submission takes seconds, so a fifth of a second is prompt and
# costs the guests nothing.
WATCH_S=0.2
# Its stall and heartbeat checks (three program starts) come at every
# this many looks (once a second): their bounds are tens of seconds.
HEALTH_EVERY=5
# How long a batch (and grader/grade) waits for the guests held by other
# grading runs before it gives up with status 75 (GRADE_LOCK_WAIT
# overrides it): a whole course's batch may hold them that long.
LOCK_WAIT_S=3600
# The host-compile probe (can this host make the jail's namespaces?): a
# start of the jail takes milliseconds; 10 s is a broken host.
HOST_CC_PROBE_S=10

# nap SECONDS: a sleep without a program start (a read that times out
# on a pipe no one writes): the watching loops run often, and under TCG
# each start of sleep(1) costs the CPU the programs being graded need.
nap() {
	[ -n "${nap_fd:-}" ] || exec {nap_fd}<> <(:)
	read -rt "$1" -u "$nap_fd" || true
}

# lab_python: LAB_PY, the Python interpreter, resolved once and exported
# to what this run starts: a version manager's shim (pyenv's) costs 0.1 s
# of CPU at every call, and a course calls Python for every submission
# and round.  Only on the host (never in a guest).
lab_python() {
	[ -x "${LAB_PY:-}" ] || LAB_PY=$(python3 -S -c \
		'import sys; print(sys.executable)' 2>/dev/null) || true
	[ -x "${LAB_PY:-}" ] || LAB_PY=python3
	export LAB_PY
}

# read_pairings FILE PARTS: the pairings table (pairings.tsv) of the parts
# 1..PARTS in the arrays pair_names, pair_server, pair_client and
# pair_wire (the wire's rules, "none" for a clean one), in the order they
# run; "who" is student or ref.  Builtins only (the guests read it at
# start-up).
read_pairings() {
	local name server client part wire _
	pair_names=() pair_server=() pair_client=() pair_wire=()
	while IFS=$'\t' read -r name server client part wire _; do
		case "$name" in '#'* | '') continue ;; esac
		[ "$part" -le "$2" ] || continue
		pair_names+=("$name")
		pair_server+=("$server")
		pair_client+=("$client")
		pair_wire+=("$wire")
	done <"$1"
	[ "${#pair_names[@]}" -gt 0 ]
}

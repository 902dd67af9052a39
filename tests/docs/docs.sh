#!/bin/bash
# The docs (README.md, docs/*.md, images/): links resolve, the quoted output
# is what the program prints today, the answer key holds for the recorded
# captures, and `make images` is reproducible.
# Boots the guests once, for a fresh run of the reference program.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

docs=(README.md docs/*.md)
check "relative links and images in README.md and docs/ resolve" \
	python3 tests/docs/docs_check.py links "${docs[@]}"

# The homes' READMEs, the README's layout and grading.md's modules
# against the tree; every script's --help, and the guest scripts' refusal
# of a host.
check "each home's README has a row for each of its files, and the layout tables match the tree" \
	python3 tests/docs/docs_check.py homes
check "every executable answers --help with its header; guest scripts refuse a host" \
	python3 tests/docs/docs_check.py scripts

check "quoted blocks in README.md and docs/ are the recorded runs in docs/runs/ (docs/runs/sync)" \
	docs/runs/sync --check

cat solution/main.c lab/support.c lab/driver.c >"$t_tmp/all.c"
check "quoted FAIL and hint lines are messages that the program's sources print" \
	python3 tests/docs/docs_check.py failures "$t_tmp/all.c" "${docs[@]}" docs/runs/*.txt

# What the texts say rxe does (a completion status, an errno, a wait that
# ends with no completion, a TTL), where a "(recorded: seed NAME)" marker
# names the run behind it, against that seed's recorded grading: the
# status and errno tables of troubleshooting.md, the TODOs' pitfalls.
check "outcomes the texts put on a seed's recorded grading are what it shows (tests/grader/judges/recorded.tar.xz)" \
	python3 tests/docs/docs_check.py outcomes tests/grader/judges/recorded.tar.xz \
	"${docs[@]}" lab/lab.h solution/main.c lab/main.c

# And it notices: troubleshooting.md with the QP's missing REMOTE_WRITE
# given status 10 instead of the recorded 9 fails, naming both.
outcomes_notice() {
	sed -E 's/^(\| .write. \| .completion with status )remote invalid request error \(9\)/\1remote access error (10)/' \
		docs/troubleshooting.md >"$t_tmp/troubleshooting.md"
	! cmp -s docs/troubleshooting.md "$t_tmp/troubleshooting.md" &&
		! python3 tests/docs/docs_check.py outcomes tests/grader/judges/recorded.tar.xz \
			"$t_tmp/troubleshooting.md" >"$t_tmp/outcomes.txt" &&
		grep 'WC_REM_ACCESS_ERR (status 10) for seed qp_no_remote_write.*WC_REM_INV_REQ_ERR (status 9)' \
			"$t_tmp/outcomes.txt"
}
check "a status changed in troubleshooting.md fails the outcomes check, naming the seed" \
	outcomes_notice

# The limits docs/grading.md quotes are grader/settings.sh's, and a
# setting changed there without the text fails, naming it.
check "the limits docs/grading.md quotes are grader/settings.sh's" \
	python3 tests/docs/docs_check.py limits grader/settings.sh docs/grading.md
limits_notice() {
	sed 's/^RUN_MEM_MIB=.*/RUN_MEM_MIB=96/' grader/settings.sh \
		>"$t_tmp/settings.sh"
	! python3 tests/docs/docs_check.py limits "$t_tmp/settings.sh" \
		docs/grading.md >"$t_tmp/limits.txt" &&
		grep -q 'exhausted its memory (96 MiB).*RUN_MEM_MIB' \
			"$t_tmp/limits.txt"
}
check "a limit changed in settings.sh fails the limits check, naming it" \
	limits_notice

# The answer key's facts (frames, opcodes, PSNs, MSNs, ports, bytes) are
# what tshark reads from the recorded captures; its quoted step lines are
# held by docs/runs/sync above.
check "answers in docs/answers.md hold for the recorded captures in docs/runs/" \
	python3 tests/docs/docs_check.py answers docs/answers.md

# The lab's TCP messages as protocol.md and the other texts give them:
# the exchange message's table against lab/lab.h and the recorded bytes.
check "the TCP messages of protocol.md match lab/lab.h and docs/runs/demo.pcap" \
	python3 tests/docs/docs_check.py wire docs/protocol.md docs/connection-manager.md docs/handout.md

# What the answers' prose says (frame numbers, PSNs, QPNs, byte counts,
# sums, counter changes) is in their tables, quoted blocks or recordings.
check "the prose of docs/answers.md states what its tables and docs/runs/ hold" \
	python3 tests/docs/docs_check.py prose docs/answers.md

# The fields the answer key says the ICRC masks: with them every recorded
# RoCE packet's ICRC is right, and each of them is needed.
check "the ICRC's masked fields in docs/answers.md hold for docs/runs/*.pcap" \
	python3 tests/docs/docs_check.py icrc docs/answers.md

# The PSNs that the walks through a recorded capture name in their prose
# are in the recorded captures.
check "PSNs named by packet-capture.md and handout.md are in docs/runs/*.pcap" \
	python3 tests/docs/docs_check.py psns docs/packet-capture.md docs/handout.md

# The student's handout of the committed tree (make dist), for each course
# choice: its texts are true there and name nothing it leaves out.
dist_texts() {
	for parts in 1 2 3; do
	dist=$t_tmp/dist$parts
	mkdir -p "$dist"
	if LAB_PARTS=$parts LAB_DIST_UNCOMMITTED=1 release/mkdist "$dist/handout.tar.gz" \
		>"$t_tmp/mkdist.log" 2>&1 &&
		tar -xzf "$dist/handout.tar.gz" -C "$dist"; then
		check "make dist, LAB_PARTS $parts: links, paths, make targets, commands and numbers of its texts hold in the tarball" \
			python3 tests/docs/docs_check.py handout "$dist/rdma-lab"
	else
		fail "make dist, LAB_PARTS $parts" "$t_tmp/mkdist.log"
	fi
	done
}
section "make dist, LAB_PARTS 1, 2 and 3: the texts hold in the tarball" \
	dist_texts

# The handout's table of rxe counters names every file of hw_counters that
# a real guest listed (docs/runs/record --counters), no more, no fewer.
check "the handout's counter table names exactly the recorded hw_counters" \
	python3 tests/docs/docs_check.py counters docs/handout.md

# make images into a scratch folder; every file must equal the committed one.
images_same() {
	local out=$t_tmp/images f
	make -s images IMAGES_OUT="$out" >/dev/null || return 1
	for f in "$out"/*; do
		cmp "$f" "images/${f##*/}" || return 1
	done
	[ -n "$(ls "$out")" ]
}
check "make images reproduces the committed images/ byte for byte" images_same

# The packet summary quoted in the docs has the columns vm/wire-summary
# prints today, and the same packets in the same order.  A resend (same
# direction, opcode and PSN again) depends on the guests' timing, in the
# recording as in the fresh run: it is counted once.
opcodes_once() {
	awk 'NR > 1 && !seen[$2 " " $4 " " $6]++ { print $4 }' "$1"
}
summary_same() {
	vm/wire-summary "$fresh/wire.pcap" >"$t_tmp/wire.txt" &&
		[ "$(head -n 1 "$t_tmp/wire.txt")" = "$(head -n 1 docs/runs/demo-wire.txt)" ] &&
		[ "$(opcodes_once "$t_tmp/wire.txt")" = \
			"$(opcodes_once docs/runs/demo-wire.txt)" ]
}

ladder_ok() {
	make -s ladder PCAP="$fresh/wire.pcap" &&
		for label in "TCP exchange message" "SEND ONLY  QP" "SEND ONLY with imm" \
			"RDMA WRITE ONLY" "ACKNOWLEDGE" "AETH ACK"; do
			grep -q "$label" "$fresh/ladder.svg" || {
				echo "no '$label' in $fresh/ladder.svg"
				return 1
			}
		done
}

# One fresh run of the current reference program, with its capture, then
# what the docs quote that it shows: one section, as its checks read the
# run.
fresh=$t_tmp/fresh
fresh_run() {
	if make -s all >"$t_tmp/make.log" 2>&1 &&
		flock "$t_lock" vm/run --out "$fresh" --pcap "$fresh/wire.pcap" \
			--timeout 90 --server solution/rdma-lab \
			--client "solution/rdma-lab \$LAB_SERVER_IP" >"$t_tmp/run.log" 2>&1; then
		ok "fresh run of solution/rdma-lab in the guests"
	else
		fail "fresh run of solution/rdma-lab in the guests" "$t_tmp/run.log"
	fi
	check "quoted 'lab ... ok' lines have the keys and value formats of the fresh run" \
		python3 tests/docs/docs_check.py shapes "$fresh/server.log" "$fresh/client.log" -- \
		"${docs[@]}" docs/runs/*.txt
	check "vm/wire-summary of the fresh run has the quoted columns and packets" summary_same
	check "make ladder draws the fresh run's exchange, SENDs, WRITE and ACKs" ladder_ok
}
section "fresh run in the guests: its lab lines, wire summary and ladder" \
	fresh_run

summary

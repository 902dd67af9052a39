#!/bin/bash
# Batch grading survives its environment: a guest that crashes (its QEMU
# killed), one that stops answering (its QEMU stopped), and a kill -9 of
# grader/grade-all itself.  The submissions are copies of the reference, so
# every result other than 20/20 or a declared environment error is a lost
# grade.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# The grader's slot 0 (grader/batch; tests/run gives this group a set
# of its own, GRADE_LOCK, so that it runs beside the grade group).
lock=${GRADE_LOCK:-/tmp/rdma-lab-vm.lock}
make -s solution/rdma-lab >/dev/null 2>&1 || fail "make solution/rdma-lab"
watcher=''
cleanup_watch() {
	[ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
	# A stopped guest must not outlive the test.
	pkill -CONT -f "id=out,path=$t_tmp/" 2>/dev/null || true
}
trap 'cleanup_watch; rm -rf "$t_tmp"' EXIT

# qemu_of OUT ROLE: the pid of that guest of the batch writing OUT.
qemu_of() {
	pgrep -f -- "-name lab-$2 .*id=out,path=$1/run," | head -n 1
}
# wait_file FILE SECONDS
wait_file() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ ! -e "$1" ] || return 0
		sleep 0.2
	done
	return 1
}
# col OUT NAME COLUMN: a student's value in that column of report.csv.
col() {
	awk -F, -v n="$2" -v c="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$1 == n && (c in k) { print $(k[c]) }' "$1/report.csv"
}
# score OUT NAME: the core score, with part two's (of what this tree
# grades) after a "+" when it is not full (then never 20 alone).
full2=$(full_marks 2)
score() {
	local s2
	s2=$(col "$1" "$2" part2)
	if [ -z "$s2" ] || [ "$s2" = "$full2" ]; then
		col "$1" "$2" score
	else
		echo "$(col "$1" "$2" score)+$s2/$full2"
	fi
}
status() { col "$1" "$2" status; }
# graded20 OUT: how many students have full marks, graded.
graded20() {
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$(k["score"]) == 20 && $(k["status"]) == "graded" &&
		(!("part2" in k) || $(k["part2"]) == $(k["part2_max"]))' \
		"$1/report.csv" | wc -l
}

# --- guests that crash and hang ---------------------------------------------
# r2's pairing p1 crashes the server guest each time it starts: after its
# one retry r2 is an environment error.  r3's pairing p2 freezes the client
# guest once: the heartbeat catches it, and r3's retry grades it.
subs=$t_tmp/subs
out=$t_tmp/out
mkdir -p "$subs"
for s in r1 r2 r3 r4; do
	cp solution/main.c "$subs/$s.c"
done
flock "$lock" true # wait for other users before the watcher starts
(
	# The first wait covers the batch's own wait for the guests' lock
	# (another user may take it between the flock above and the batch).
	first=4000
	for _ in 1 2; do
		wait_file "$out/run/res/r2/p1/srv-started" "$first" || exit 1
		first=400
		kill -9 "$(qemu_of "$out" server)"
		echo "killed the server guest during r2"
		# The next boot starts from an empty run folder.
		for _ in $(seq 300); do
			[ -e "$out/run/res/r2/p1/srv-started" ] || break
			sleep 0.2
		done
	done
	wait_file "$out/run/res/r3/p2/srv-started" 400 || exit 1
	kill -STOP "$(qemu_of "$out" client)"
	echo "stopped the client guest during r3"
) >"$t_tmp/watch.log" 2>&1 &
watcher=$!
start=$SECONDS
GRADE_STALL=60 GRADE_BEAT=10 grader/grade-all --out "$out" "$subs" \
	>"$t_tmp/batch.log" 2>&1
rc=$?
secs=$((SECONDS - start))
wait "$watcher"
watcher=''
cat "$t_tmp/watch.log" >>"$t_tmp/batch.log"
if [ "$rc" = 3 ] && [ "$(grep -c killed "$t_tmp/watch.log")" = 2 ] &&
	grep -q 'stopped the client' "$t_tmp/watch.log" &&
	grep -q '1 submission(s) met an environment error' "$t_tmp/batch.log"
then
	ok "grade-all lived through 2 guest crashes and 1 hang ($secs s)," \
		"status 3: run it again"
else
	fail "grade-all with crashing guests (status $rc)" "$t_tmp/batch.log"
fi
if grep -q 'client guest stopped answering' "$t_tmp/batch.log"; then
	ok "a guest that stops answering is noticed and restarted"
else
	fail "the hung guest was not noticed" "$t_tmp/batch.log"
fi
if [ "$(status "$out" r2)" = "environment error" ] &&
	grep -q 'ENVIRONMENT ERROR (not your fault)' \
		"$out/students/r2/report.txt"; then
	ok "crashed twice: r2 is an environment error, not the student's"
else
	fail "r2: $(status "$out" r2)" "$out/report.csv"
fi
for s in r1 r3 r4; do
	if [ "$(score "$out" $s)" = 20 ] && [ "$(status "$out" $s)" = graded ]
	then
		ok "$s: 20/20 despite the faults around it"
	else
		fail "$s: $(score "$out" $s)/20 $(status "$out" $s)" \
			"$out/students/$s/report.txt"
	fi
done
if grep -q 'environment errors: 1;' "$out/report.md"; then
	ok "report.md counts the environment error"
else
	fail "report.md" "$out/report.md"
fi
# Running the same command again grades the environment error, only it.
grader/grade-all --out "$out" "$subs" >"$t_tmp/again.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q 'for 1 submission' "$t_tmp/again.log" &&
	[ "$(score "$out" r2)" = 20 ] && [ "$(status "$out" r2)" = graded ]; then
	ok "grade-all again: the environment error is graded, nothing else"
else
	fail "grade-all again after an environment error (status $rc)" \
		"$t_tmp/again.log"
fi

# --- kill -9 of grader/grade-all --------------------------------------------------
# Two submissions are enough: r1 graded before the kill, r2 after.
out2=$t_tmp/out2
subs2=$t_tmp/subs2
mkdir -p "$subs2"
cp "$subs/r1.c" "$subs/r2.c" "$subs2/"
flock "$lock" true
grader/grade-all --out "$out2" "$subs2" >"$t_tmp/killed.log" 2>&1 &
pid=$!
if wait_file "$out2/students/r1/result.json" 300; then
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	cp "$out2/students/r1/result.json" "$t_tmp/r1.json"
	gone=no
	for _ in $(seq 50); do
		if [ -z "$(qemu_of "$out2" server)$(qemu_of "$out2" client)" ] &&
			! pgrep -f "grader/batch $out2" >/dev/null; then
			gone=yes
			break
		fi
		sleep 0.2
	done
	if [ "$gone" = yes ]; then
		ok "kill -9 of grade-all takes its batch and guests down"
	else
		fail "kill -9 of grade-all left processes behind"
		pkill -9 -f "grader/batch $out2"
	fi
	# Students' results, not their rounds'.
	done_before=$(find "$out2/students" -mindepth 2 -maxdepth 2 \
		-name result.json | wc -l)
	grader/grade-all --out "$out2" "$subs2" >"$t_tmp/resumed.log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] &&
		grep -q "for $((2 - done_before)) submission" \
			"$t_tmp/resumed.log" &&
		cmp -s "$t_tmp/r1.json" "$out2/students/r1/result.json" &&
		[ "$(graded20 "$out2")" = 2 ]; then
		ok "after kill -9, grade-all again grades the other" \
			"$((2 - done_before)) and keeps r1's result"
	else
		fail "resume after kill -9 (status $rc)" "$t_tmp/resumed.log"
	fi
else
	fail "grade-all never graded r1" "$t_tmp/killed.log"
	kill -9 "$pid"
fi

# --- the grader's guard against a lost capture --------------------------------
# A pairing whose capture lost every packet, although the reference's SEND
# completed, is an environment error, not the student's missing packets.
res=$t_tmp/lost
cp -r "$out2/run/res/r2" "$res"
head -c 24 "$res/p2.pcap" >"$res/p2.empty" && mv "$res/p2.empty" "$res/p2.pcap"
python3 grader/grader.py analyze "$res" "$out2/run" "$t_tmp/lost-out"
if python3 grader/grader.py show "$t_tmp/lost-out/result.json" |
	grep -q "ENVIRONMENT ERROR.*p2: the capture is empty"; then
	ok "an emptied capture is an environment error"
else
	fail "an emptied capture" "$t_tmp/lost-out/result.json"
fi

summary

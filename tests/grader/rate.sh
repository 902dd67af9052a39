#!/bin/bash
# The grader's rate on this machine (issue 42: at least 20 submissions a
# minute for a course-like mix): not in make test (3 batches, about 4
# minutes on a quiet 2-core machine, and the answer is the machine's as
# much as the code's); tests/run rate.  The mix of docs/grading.md ("What
# a submission costs"): the reference, tests/grader/seeds/alt.c and
# tests/grader/seeds/ext.c 8 times each, and 8 seeded mistakes whose
# later rounds make a quarter of the jobs.  Each batch is graded by
# grader/grade-all --fresh, as an instructor runs it, and its grades are
# checked; then the median batch's rate against LAB_RATE_MIN (default
# 20 a minute).  LAB_RATE_BATCHES (default 3) batches; LAB_RATE_LOAD=N
# busy loops beside them (the machine shared).
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/grader/seeds/expect.sh
. tests/grader/seeds/expect.sh

batches=${LAB_RATE_BATCHES:-3}
min=${LAB_RATE_MIN:-20}
load=${LAB_RATE_LOAD:-0}
mistakes="wrong_rkey late_recv exch_len imm_no_htonl no_recv wrong_psn"
mistakes="$mistakes qpn_own leak_mr"
for v in "$batches" "$min" "$load"; do
	case "$v" in '' | *[!0-9]*)
		fail "LAB_RATE_BATCHES, LAB_RATE_MIN and LAB_RATE_LOAD are" \
			"whole numbers ('$v')"
		summary
		exit 1
		;;
	esac
done
[ "$batches" -ge 1 ] || batches=1

subs=$t_tmp/mix
mkdir -p "$subs"
make -s all lab >/dev/null 2>&1 || fail "make all"
python3 tests/grader/seeds/mkalt.py lab/main.c tests/grader/seeds/alt.c \
	>"$t_tmp/alt.c"
python3 tests/grader/seeds/mkalt.py lab/main.c tests/grader/seeds/ext.c \
	>"$t_tmp/ext.c"
correct=()
for k in 1 2 3 4 5 6 7 8; do
	cp solution/main.c "$subs/ref$k.c"
	cp "$t_tmp/alt.c" "$subs/alt$k.c"
	cp "$t_tmp/ext.c" "$subs/ext$k.c"
	correct+=("ref$k" "alt$k" "ext$k")
done
for m in $mistakes; do
	sed -f "tests/grader/seeds/mistakes/$m.sed" solution/main.c \
		>"$subs/$m.c"
done
n=$(find "$subs" -name '*.c' | wc -l)

# The busy loops, ended with the group.
loops=()
for ((k = 0; k < load; k++)); do
	(while :; do :; done) &
	loops+=("$!")
done
trap 'kill "${loops[@]}" 2>/dev/null; rm -rf "$t_tmp"' EXIT

times=()
for ((b = 1; b <= batches; b++)); do
	out=$t_tmp/graded-$b
	t0=${EPOCHREALTIME/./}
	st=0
	grader/grade-all --fresh --out "$out" "$subs" >"$t_tmp/batch-$b.log" \
		2>&1 || st=$?
	t1=${EPOCHREALTIME/./}
	ms=$(((t1 - t0) / 1000))
	jobs=$(grep -c . "$out/run/jobs.txt" 2>/dev/null) || jobs='?'
	if [ "$st" != 0 ]; then
		fail "batch $b: grader/grade-all exit status $st" \
			"$t_tmp/batch-$b.log"
		continue
	fi
	echo "batch $b: $n submissions, $jobs jobs," \
		"$((ms / 1000)).$((ms % 1000 / 100)) s"
	times+=("$ms")
	expect_init "$out"
	short=''
	for s in "${correct[@]}"; do
		[ "$(score "$s")" = 20 ] && [ "$(part2 "$s")" = "$max2" ] ||
			short="$short $s"
	done
	if [ -z "$short" ]; then
		ok "batch $b: the ${#correct[@]} correct submissions full marks"
	else
		fail "batch $b: below full marks:$short" "$out/report.csv"
	fi
	# (Its count of the seeds not in the mix is not for here.)
	expect_mistakes --graded /dev/null >"$t_tmp/mistakes"
	grep -v '^(' "$t_tmp/mistakes"
done

if [ "${#times[@]}" = "$batches" ]; then
	mapfile -t sorted < <(printf '%s\n' "${times[@]}" | sort -n)
	med=${sorted[$(((batches - 1) / 2))]}
	# Submissions a minute, in tenths: n * 60000 ms / med ms.
	r10=$((n * 600000 / med))
	what="$((r10 / 10)).$((r10 % 10)) submissions a minute (median of"
	what="$what $batches batches: ${sorted[*]} ms; $load busy loops beside)"
	if [ "$r10" -ge $((min * 10)) ]; then
		ok "rate: $what"
	else
		fail "rate: $what, below $min"
	fi
fi
summary

# shellcheck shell=bash disable=SC2154 # set by tests/unit.sh
# The unit group's checks of the docs: their tables against the judges,
# lab/steps.h and the pairings. Sourced by tests/unit.sh, whose helpers (ok,
# ko, section, BIN, ccw, programs, tools) they use; each section is a named
# check.

# ---- the grader: one judge per step, as docs/grading.md lists them ----
# The judges registered (@judge), lab/steps.h and the evidence table of
# docs/grading.md: the same steps, order and points; its pairings table
# is grader/pairings.tsv's (tables_agree.py).
u_judge_tables() {
	if python3 tests/docs/tables_agree.py >"$BIN/judges.out" 2>&1; then
	ok "grader_one_judge_per_step ($(cat "$BIN/judges.out"))"
	else
	fail grader_one_judge_per_step "$BIN/judges.out"
	fi
	# ... and the check notices a table that drifts: two steps swapped, a
	# step's points changed, a pairing's roles swapped.
	# shellcheck disable=SC2016 # backquotes of markdown, not of the shell
	sed '/^| `send` | /{h;d};/^| `send_imm` | /G' docs/grading.md >"$BIN/swapped.md"
	# shellcheck disable=SC2016 # backquotes of markdown, not of the shell
	sed 's/^| `atomic` | [0-9]* |/| `atomic` | 9 |/' docs/grading.md \
	>"$BIN/points.md"
	sed 's/^| p1 | student | reference |$/| p1 | reference | student |/' \
	docs/grading.md >"$BIN/pairing.md"
	for drift in swapped points pairing; do
	if cmp -s docs/grading.md "$BIN/$drift.md"; then
		ko "tables_agree_notices_$drift" "the sed changed nothing"
	elif python3 tests/docs/tables_agree.py "$BIN/$drift.md" \
		>"$BIN/drift.out" 2>&1; then
		ko "tables_agree_notices_$drift" "a drifted table passed"
	else
		ok "tables_agree_notices_$drift ($(grep -c . "$BIN/drift.out") lines)"
	fi
	done
}
section judge_tables u_judge_tables

#!/bin/bash
# Faults the reference program must survive with a clear one-line error, a
# non-zero status and no hang: bad options, a port that is down, a memlock
# limit, dead or lying peers, malformed exchange messages. One guest boot
# runs every case (tests/lab/faults-guest.sh); this side checks the results.
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# variant NAME SED: the reference with one deliberate lie, built for the
# guests. A SED that no longer matches must fail loudly, not pass.
variant() {
	mkdir -p "$t_tmp/variants"
	sed "$2" solution/main.c >"$t_tmp/variants/$1.c"
	if cmp -s solution/main.c "$t_tmp/variants/$1.c"; then
		fail "variant $1: the sed no longer matches solution/main.c"
		return
	fi
	make -s build MAIN="$t_tmp/variants/$1.c" OUT="$t_tmp/variants/$1" ||
		fail "variant $1 does not build"
}
variant wrong-rkey 's/\.rkey = ctx->buf_mr->rkey,/.rkey = ctx->buf_mr->rkey + 1,/'
# The same lie from a server slow to report its connect: the client's
# WRITE is refused, and the server's QP in ERR, before that report runs.
variant wrong-rkey-slow 's/\.rkey = ctx->buf_mr->rkey,/.rkey = ctx->buf_mr->rkey + 1,/
s/^\treturn lab_barrier(ctx);$/\tif (lab_barrier(ctx))\n\t\treturn -1;\n\tusleep(1500 * 1000);\n\treturn 0;/'
variant addr-outside 's/\.addr = (uintptr_t)ctx->buf,/.addr = (uintptr_t)ctx->buf + (1u << 20),/'
variant die-after-rts 's/^\treturn lab_barrier(ctx);$/\tif (lab_barrier(ctx) == 0)\n\t\traise(SIGKILL);\n\treturn -1;/'
variant die-after-send 's/^\t\/\* BEGIN SOLUTION send_imm \*\/$/\traise(SIGKILL);\n&/'
# Part two's mistakes, one side each (the other runs the reference).
variant no-remote-read 's/^\t\t\tIBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;$/\t\t\tIBV_ACCESS_REMOTE_ATOMIC;/'
variant mr-no-remote-read 's/buf_access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;/buf_access |= IBV_ACCESS_REMOTE_ATOMIC;/'
variant no-rd-atomic 's/\.max_rd_atomic = 1,/.max_rd_atomic = 0,/'
variant no-dest-rd-atomic 's/\.max_dest_rd_atomic = 1,/.max_dest_rd_atomic = 0,/'
variant mr-no-local-write 's/^\t\tbuf_access = IBV_ACCESS_LOCAL_WRITE;$/\t\tbuf_access = 0;/'
variant misaligned 's/ctx->atomic_addr = (uintptr_t)word;/ctx->atomic_addr = (uintptr_t)word + 4;/'
variant no-third-recv 's/i < LAB_RECV_SLOTS; i++/i < LAB_RECV_SLOTS - 1; i++/'
# Every case runs under the grader's tracer, to prove that each verbs
# object the program created was released on the way out.
cc -std=gnu11 -O2 -shared -fPIC -o "$t_tmp/variants/libtrace.so" \
	tests/lab/tracer.c -ldl || fail "the tracer does not build"
chmod -R a+rX "$t_tmp"

run=$t_tmp/faults
mkdir -p "$run"
cpu_watch "$run" "$t_tmp/cpu" &
watch=$!
vm_run "$t_tmp/faults.log" --out "$run" --timeout 600 \
	--server "tests/lab/faults-guest.sh server $t_tmp/variants" \
	--client "tests/lab/faults-guest.sh client $t_tmp/variants"
rc=$?
kill "$watch" 2>/dev/null || true
[ "$rc" = 0 ] || fail "the fault run itself (status $rc)" "$t_tmp/faults.log"
# The cases' bounds are seconds of the guests' clocks: on a host that
# gave the guests a share of the CPU they asked for under the grader's
# quiet share, they hold the grader's stretch of that time (two busy
# loops beside make test took memlock's 5 s case past 5 s).
str=$(stretch "$t_tmp/cpu")
echo "note: the guests' stretch $((str / 10)).$((str % 10)) (tests/lib.sh)"

# expect CASE ROLE MAX_SECONDS PATTERN: that half failed cleanly, in time,
# with a message matching PATTERN (extended regex), and released every
# verbs object it had created.
# expect NAME ROLE SECONDS PATTERN [CODE]: the case NAME's ROLE failed
# cleanly within SECONDS, its output matched PATTERN (the words a student
# reads), and, given CODE (an alternation allowed), a FAIL line ends in
# that code=, the grader's key (docs/protocol.md).
expect() {
	local name=$1 role=$2 max=$3 pattern=$4 code=${5:-} f=$run/$1.$2
	local what="$name ($role): \"$pattern\"${5:+ code=$5}"
	local st secs evidence=$t_tmp/evidence
	# Evidence: this half's output, then the other half's.
	cat "$f.out" "$run/$name".*.out >"$evidence" 2>/dev/null
	st=$(cat "$f.rc" 2>/dev/null || echo none)
	secs=$(cat "$f.secs" 2>/dev/null || echo none)
	if [ "$st" = none ]; then
		fail "$what: the case did not run" "$t_tmp/faults.log"
	elif [ "$st" = 0 ] || [ "$st" -ge 128 ]; then
		fail "$what: status $st, want a clean failure" "$evidence"
	elif [ "$secs" -gt $(((max * str + 9) / 10)) ]; then
		fail "$what: took $secs s, bound $max s x $((str / 10)).$((str % 10))" \
			"$evidence"
	elif ! grep -Eq -- "$pattern" "$f.out"; then
		fail "$what: not in the output" "$evidence"
	elif [ -n "$code" ] &&
		! grep -Eq -- "^lab [a-z_]+ FAIL: .* code=($code)\$" "$f.out"; then
		fail "$what: no FAIL line with that code" "$evidence"
	elif grep -Eqi 'segmentation|core dumped|abort' "$f.out"; then
		fail "$what: crashed" "$evidence"
	# Each line of the tracer starts with its key (empty here).
	elif ! grep -Eq '^(key=[^ ]* )?exit pid=' "$f.trace" 2>/dev/null; then
		fail "$what: no complete ibv_* trace" "$evidence"
	elif ! python3 grader/grader.py leaks "$f.trace" >"$evidence.leaks"
	then
		cat "$f.trace" >>"$evidence.leaks"
		fail "$what: verbs objects not released" "$evidence.leaks"
	elif ! grep -Eq '^[1-9][0-9]* objects created' "$evidence.leaks"; then
		fail "$what: the trace shows no verbs object" "$f.trace"
	else
		ok "$what, status $st in ${secs}s, $(cut -d, -f1 \
			"$evidence.leaks"), all released"
	fi
}

expect bad_device server 5 "device 'nosuch' not found.*rxe0" NO_DEVICE
expect gid_range server 5 'GID index 4096 is out of range' GID_CHOICE
expect gid_link_local server 5 'GID index 0 is link-local' GID_CHOICE
expect gid_empty server 5 'GID index 5 is (empty|out of range)' GID_CHOICE
expect memlock server 5 'memlock' 'ERRNO_ENOMEM|ERRNO_EPERM'
expect no_server client 6 'no server listening at 192\.0\.2\.1:19006' NO_SERVER
expect oversize client 10 "larger than the peer's buffer" BUF_TOO_SMALL
expect oversize server 12 'peer closed' PEER_CLOSED
expect malformed_magic server 10 'rejected the peer.*magic' EXCH_MAGIC
expect malformed_version server 10 'rejected the peer.*version' EXCH_VERSION
expect malformed_short server 10 'peer closed the connection before' PEER_CLOSED
expect malformed_len server 10 'rejected the peer.*len' EXCH_LEN
expect malformed_mtu server 10 'rejected the peer.*(mtu|MTU)' EXCH_MTU
expect client_dies_in_exchange server 10 'peer closed the connection before' PEER_CLOSED
expect server_dies_in_exchange client 10 'peer closed|reset by peer' 'PEER_CLOSED|ERRNO_ECONNRESET'
# Whether the first SEND still reaches the dying server's QP is a race with
# the kernel tearing that QP down, so any of the operations may be the one
# that fails.  On a loaded host (make test with two busy loops) the dying
# server's rxe still acknowledged the SEND, the SEND with immediate and the
# WRITE, and the client's first failure was the TCP of part two's read
# ("Connection reset by peer", status 12).
expect server_killed_after_rts client 12 \
	'lab (send|send_imm|write|read|write_imm|atomic) FAIL'
expect client_killed_mid_ops server 12 'lab send_imm FAIL: peer closed' PEER_CLOSED
expect client_killed_after_rts server 12 'peer closed' PEER_CLOSED
expect wrong_rkey client 12 'remote access' WC_REM_ACCESS_ERR
expect wrong_rkey client 12 'hint: the peer refused rkey'
# The server's QP was in RTS when it let the client send: its connect
# holds, though the refused WRITE has put that QP in ERR by the report.
expect wrong_rkey_slow client 12 'hint: the peer refused rkey'
expect wrong_rkey_slow server 12 '^lab connect ok state=RTS '
expect addr_outside client 12 'remote access' WC_REM_ACCESS_ERR
expect port_down client 6 'port 1 is (DOWN|.*), not ACTIVE' PORT_NOT_ACTIVE
# rxe checks the QP's rights (and credits) before the MR's: a QP without
# REMOTE_READ answers with a NAK "invalid request", not "access error".
expect no_remote_read client 12 'lab read FAIL: .*invalid request' WC_REM_INV_REQ_ERR
expect no_remote_read client 12 'lab read hint: .*REMOTE_READ missing in its qp_access_flags'
expect mr_no_remote_read client 12 'lab read FAIL: .*remote access error' WC_REM_ACCESS_ERR
expect mr_no_remote_read client 12 'lab read hint: .*REMOTE_READ missing on the peer.s MR'
expect no_rd_atomic client 12 'lab read FAIL: no completion' NO_COMPLETION
expect no_rd_atomic client 12 'lab read hint: max_rd_atomic is 0'
expect no_dest_rd_atomic client 12 'lab read FAIL: .*invalid request' WC_REM_INV_REQ_ERR
expect no_dest_rd_atomic client 12 'lab read hint: .*max_dest_rd_atomic is 0'
expect mr_no_local_write client 12 'lab read FAIL: .*protection' WC_LOC_PROT_ERR
expect mr_no_local_write client 12 'lab read hint: .*LOCAL_WRITE'
# rxe refuses it when posted, before anything is sent.
expect misaligned client 12 'lab atomic FAIL: ibv_post_send failed: Invalid argument' ERRNO_EINVAL
expect misaligned client 12 'lab atomic hint: .*not 8-byte aligned'
expect no_third_recv client 12 'lab write_imm FAIL: .*RNR retry' WC_RNR_RETRY_EXC_ERR

summary

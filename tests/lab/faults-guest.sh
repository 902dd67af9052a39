#!/bin/bash
# Runs inside a guest (from tests/lab/faults.sh through vm/run): one fault case
# after another, this guest's half of each. Every case leaves
# /lab-out/CASE.ROLE.out (stdout and stderr), .rc and .secs for the host.
#   tests/lab/faults-guest.sh server|client VARIANTS-DIR
set -u

role=$1
out=/lab-out
# $lab runs under the grader's tracer (tests/lab/faults.sh builds it), copied
# where every user can read it: the memlock case runs as nobody.
mkdir -p /tmp/traces
chmod 1777 /tmp/traces
cp "$2/libtrace.so" /tmp/traces/libtrace.so
chmod 644 /tmp/traces/libtrace.so
# The case functions run in child shells (under timeout).
export variants=$2 server=$LAB_SERVER_IP
export traced="env LD_PRELOAD=/tmp/traces/libtrace.so"
export lab="$traced solution/rdma-lab"

# peer.py-style fakes: send a malformed exchange message, or connect and
# die. A real peer would be a process killed at the same point.
fake() {
	python3 - "$@" <<'EOF'
import socket, struct, sys, time
kind, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
good = struct.pack(">IHHII16sQIII", 0x524C4142, 1, 0, 0x11, 1,
                   bytes(10) + b"\xff\xff" + bytes([192, 0, 2, 2]),
                   0x1000, 0x1234, 4096, 1024)
msgs = {
    "magic": b"XXXX" + good[4:],
    "version": good[:4] + struct.pack(">H", 9) + good[6:],
    "short": good[:20],
    "len": good[:44] + struct.pack(">I", 0) + good[48:],
    "mtu": good[:48] + struct.pack(">I", 1000),
    "die": b"",
}
if kind == "listen-die":
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("", port))
    srv.listen(1)
    srv.settimeout(20)
    conn, _ = srv.accept()
    conn.close()
    sys.exit(0)
# The server may start listening late on a busy host: under make test
# beside two busy loops (stretch 3.7) it listened more than 20 s after
# this fake began to try, and both gave up.
deadline = time.time() + 60
while True:
    try:
        s = socket.create_connection((host, port), timeout=5)
        break
    except OSError:
        if time.time() > deadline:
            sys.exit("fake: no server at %s:%d" % (host, port))
        time.sleep(0.1)
s.sendall(msgs[kind])
# Read the server's own message first: closing with it unread would send
# a reset instead of an orderly end of stream.
s.settimeout(5)
try:
    s.recv(100)
except OSError:
    pass
s.close()
EOF
}

port_state() {
	cat "/sys/class/infiniband/$LAB_DEV/ports/1/state"
}

# --- the cases: case_NAME_ROLE; a missing half means that side idles -----------
case_bad_device_server() { $lab -d nosuch -t 3; }
case_gid_range_server() { $lab -g 4096 -t 3; }
case_gid_link_local_server() { $lab -g 0 -t 3; }
case_gid_empty_server() { $lab -g 5 -t 3; }
case_memlock_server() {
	# Root ignores the memlock limit: register as nobody.
	chmod 666 /dev/infiniband/uverbs*
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		bash -c "ulimit -l 64 && exec $lab -s 8388608 -t 3"
}
case_no_server_client() { $lab -p 19006 -t 3 "$server"; }
case_oversize_server() { $lab -p 19007 -s 1024 -t 8; }
case_oversize_client() {
	$lab -p 19007 -s 4096 -m "$(printf '%02000d' 7)" -t 8 "$server"
}
port=19010
for kind in magic version short len mtu; do
	port=$((port + 1))
	eval "case_malformed_${kind}_server() { \$lab -p $port -t 8; }"
	eval "case_malformed_${kind}_client() {
		fake $kind \"\$server\" $port; }"
done
case_client_dies_in_exchange_server() { $lab -p 19020 -t 8; }
case_client_dies_in_exchange_client() { fake die "$server" 19020; }
case_server_dies_in_exchange_server() { fake listen-die "" 19021; }
case_server_dies_in_exchange_client() { $lab -p 19021 -t 8 "$server"; }
# A kill -9 at an exact point of the protocol: variants that SIGKILL
# themselves there (tests/lab/faults.sh builds them).
case_server_killed_after_rts_server() { "$variants/die-after-rts" -p 19022 -t 8; }
case_server_killed_after_rts_client() { $lab -p 19022 -t 8 "$server"; }
case_client_killed_mid_ops_server() { $lab -p 19023 -t 8; }
case_client_killed_mid_ops_client() {
	"$variants/die-after-send" -p 19023 -t 8 "$server"
}
case_client_killed_after_rts_server() { $lab -p 19024 -t 8; }
case_client_killed_after_rts_client() {
	"$variants/die-after-rts" -p 19024 -t 8 "$server"
}
case_wrong_rkey_server() { "$variants/wrong-rkey" -p 19025 -t 8; }
case_wrong_rkey_client() { $lab -p 19025 -t 8 "$server"; }
case_wrong_rkey_slow_server() {
	$traced "$variants/wrong-rkey-slow" -p 19034 -t 8
}
case_wrong_rkey_slow_client() { $lab -p 19034 -t 8 "$server"; }
case_addr_outside_server() { "$variants/addr-outside" -p 19026 -t 8; }
case_addr_outside_client() { $lab -p 19026 -t 8 "$server"; }
# Part two: the variant on one side, the reference on the other.
case_no_remote_read_server() { "$variants/no-remote-read" -p 19027 -t 8; }
case_no_remote_read_client() { $lab -p 19027 -t 8 "$server"; }
case_mr_no_remote_read_server() { "$variants/mr-no-remote-read" -p 19033 -t 8; }
case_mr_no_remote_read_client() { $lab -p 19033 -t 8 "$server"; }
case_no_rd_atomic_server() { $lab -p 19028 -t 8; }
case_no_rd_atomic_client() {
	$traced "$variants/no-rd-atomic" -p 19028 -t 4 "$server"
}
case_no_dest_rd_atomic_server() { "$variants/no-dest-rd-atomic" -p 19029 -t 8; }
case_no_dest_rd_atomic_client() { $lab -p 19029 -t 8 "$server"; }
case_mr_no_local_write_server() { $lab -p 19030 -t 8; }
case_mr_no_local_write_client() {
	$traced "$variants/mr-no-local-write" -p 19030 -t 8 "$server"
}
case_misaligned_server() { "$variants/misaligned" -p 19031 -t 8; }
case_misaligned_client() { $lab -p 19031 -t 8 "$server"; }
case_no_third_recv_server() { "$variants/no-third-recv" -p 19032 -t 8; }
case_no_third_recv_client() { $lab -p 19032 -t 8 "$server"; }
case_port_down_client() {
	ip link set eth0 down
	for _ in $(seq 100); do
		[[ "$(port_state)" == *ACTIVE* ]] || break
		sleep 0.05
	done
	local rc=0
	$lab -t 3 "$server" || rc=$?
	ip link set eth0 up
	return "$rc"
}

cases="bad_device gid_range gid_link_local gid_empty memlock no_server
oversize malformed_magic malformed_version malformed_short malformed_len
malformed_mtu client_dies_in_exchange server_dies_in_exchange
server_killed_after_rts client_killed_mid_ops client_killed_after_rts
wrong_rkey wrong_rkey_slow addr_outside no_remote_read mr_no_remote_read no_rd_atomic no_dest_rd_atomic
mr_no_local_write misaligned no_third_recv port_down"

for name in $cases; do
	# Halves of one case start together: the client waits for the server
	# to reach the case (its own connect retries cover the rest).
	: >"$out/$name.$role.start"
	if [ "$role" = client ]; then
		for _ in $(seq 600); do
			[ -e "$out/$name.server.start" ] && break
			sleep 0.05
		done
	fi
	fn=case_${name}_$role
	if declare -F "$fn" >/dev/null; then
		start=$SECONDS
		rc=0
		# The tracer writes to the descriptor it is given.
		trace=/tmp/traces/$name.$role
		: >"$trace"
		export LAB_TRACE_FD=3
		timeout -s KILL 40 bash -c "$(declare -f); $fn" \
			3>>"$trace" >"$out/$name.$role.out" 2>&1 || rc=$?
		cp "$trace" "$out/$name.$role.trace" 2>/dev/null || true
		echo "$rc" >"$out/$name.$role.rc"
		echo $((SECONDS - start)) >"$out/$name.$role.secs"
	fi
	: >"$out/$name.$role.done"
	# The next case starts when both halves of this one are done.
	other=server
	[ "$role" = server ] && other=client
	for _ in $(seq 1200); do
		[ -e "$out/$name.$other.done" ] && break
		sleep 0.05
	done
done

#!/bin/bash
# Runs inside a guest (from tests/vm/vm.sh through vm/run): rping, then
# perftest's ib_send_lat over rdma_cm (-R), this guest's half of each.
#   tests/vm/cm-guest.sh server|client
#
# perftest over rdma_cm is run in rounds, the server starting afresh each
# round, and each round waits on the other side through files in the
# shared /lab-out:
# - lat-server.R: the server's perftest is listening (the kernel lists its
#   cm_id in state LISTEN). The rping server may take seconds to exit under
#   load, and a fixed delay was once too short.
# - lat-client.R: the client's try failed; the server gives the round up.
# perftest 4.5 (Debian 12) connects twice: once to exchange its data, then
# its QPs. In one CI run the client's QP connection was rejected (reason 8:
# no listener yet, a race inside perftest under load), the client crashed,
# and the server, past its first listen, rejected every later try.
# perftest 25.01's client (Debian 13) once crashed on a reject and its next
# try hung. A new server each round, and every try bounded, leave neither
# to chance; a failed round shows the server's cm_ids before it ends.
set -u

role=$1
out=/lab-out
lat=(ib_send_lat -d "$LAB_DEV" -x "$LAB_GID_IDX" -R -s 16 -n 100)
rounds=4

# await TENTHS CMD...: true once CMD succeeds, polled every 0.1 s.  The
# pause is bash's read -t, not sleep: under TCG a program start costs the
# guest about 50 ms of CPU, so a sleep every 0.1 s could take half of it
# from the server's perftest while its second listen is due (with the
# host loaded, the client's connect came first in all four rounds:
# reject reason 8).
exec {idle}<> <(:)
await() {
	local i=0 n=$1
	shift
	until "$@"; do
		i=$((i + 1))
		[ "$i" -le "$n" ] || return 1
		read -rt 0.1 -u "$idle" || true
	done
}

listening() {
	rdma resource show cm_id | grep -q "state LISTEN.*ib_send_lat"
}

# round_over PID R: the server's perftest ended, or the client gave up.
round_over() {
	! kill -0 "$1" 2>/dev/null || [ -e "$out/lat-client.$2" ]
}

server() {
	local r lp rc
	test -c /dev/infiniband/rdma_cm && echo cm-device-ok
	rping -s -a "$LAB_SERVER_IP" -v -C 5 || return 1
	for r in $(seq "$rounds"); do
		timeout 60 "${lat[@]}" &
		lp=$!
		await 100 listening || echo "cm-guest: server: not listening"
		: >"$out/lat-server.$r"
		await 600 round_over "$lp" "$r"
		if kill -0 "$lp" 2>/dev/null; then
			echo "cm-guest: server: round $r failed; cm_ids:"
			rdma resource show cm_id
			kill "$lp"
		fi
		wait "$lp"
		rc=$?
		[ "$rc" = 0 ] && [ ! -e "$out/lat-client.$r" ] && return 0
		echo "cm-guest: server: round $r ended with status $rc"
	done
	return 1
}

client() {
	local r i
	sleep 2
	for i in $(seq 10); do
		timeout 20 rping -c -a "$LAB_SERVER_IP" -v -C 5 && break
		[ "$i" -lt 10 ] || return 1
		sleep 1
	done
	for r in $(seq "$rounds"); do
		await 900 test -e "$out/lat-server.$r" || return 1
		timeout 20 "${lat[@]}" "$LAB_SERVER_IP" && return 0
		echo "cm-guest: client: round $r failed"
		: >"$out/lat-client.$r"
	done
	return 1
}

"$role"

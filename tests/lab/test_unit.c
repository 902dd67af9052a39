/*
 * Host-side unit tests for the pure parts of lab/support.c: the exchange
 * message and the GID choice.  No RDMA device is needed.  Prints one
 * "ok name" or "FAIL name: why" line per check; LAB_TEST_ONLY,
 * LAB_TEST_SKIP and LAB_TEST_LIST choose them by name (checks.h).
 */
#include "../../lab/support.c"
#include "checks.h"

#include <sys/wait.h>

static void check(bool cond, const char *name, const char *why)
{
	check_line(cond, name, "%s", why);
}

static const struct lab_dest sample = {
	.qpn = 0xabcdef,
	.psn = 0x123456,
	.lid = 0x1234,
	.gid = { .raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 } },
	.addr = 0x00007f1234567890ull,
	.rkey = 0xdeadbeef,
	.len = 4096,
	.mtu = 1024,
};

static void test_round_trip(void)
{
	static const uint8_t head[] = "RLAB\x00\x01\x12\x34"
				      "\x00\xab\xcd\xef\x00\x12\x34\x56";
	static const uint8_t tail[] = "\x00\x00\x7f\x12\x34\x56\x78\x90"
				      "\xde\xad\xbe\xef\x00\x00\x10\x00"
				      "\x00\x00\x04\x00";
	uint8_t msg[LAB_WIRE_SIZE];
	struct lab_dest d;
	char err[200] = "";

	lab_wire_encode(&sample, msg);
	check(!memcmp(msg, head, 16), "wire_layout_header",
	      "magic, version, lid, qpn, psn not at the documented offsets");
	check(!memcmp(msg + 16, sample.gid.raw, 16), "wire_layout_gid",
	      "GID not copied raw at offset 16");
	check(!memcmp(msg + 32, tail, 20), "wire_layout_tail",
	      "addr, rkey, len, mtu not big-endian at 32..51");
	check(lab_wire_decode(msg, sizeof(msg), &d, err, sizeof(err)) == 0,
	      "wire_decode_valid", err);
	check(d.qpn == sample.qpn && d.psn == sample.psn &&
		      d.lid == sample.lid &&
		      !memcmp(&d.gid, &sample.gid, sizeof(d.gid)) &&
		      d.addr == sample.addr && d.rkey == sample.rkey &&
		      d.len == sample.len && d.mtu == sample.mtu,
	      "wire_round_trip", "decoded fields differ from the encoded");
}

/* Encode sample, apply a change, and expect a rejection naming `want`. */
static void reject(const char *name, size_t len, int off, const void *bytes,
		   int n, const char *want)
{
	uint8_t msg[LAB_WIRE_SIZE + 8] = { 0 };
	struct lab_dest d;
	char err[200] = "", why[300];

	lab_wire_encode(&sample, msg);
	if (n)
		memcpy(msg + off, bytes, n);
	if (lab_wire_decode(msg, len, &d, err, sizeof(err)) == 0) {
		check(false, name, "accepted");
		return;
	}
	snprintf(why, sizeof(why), "message '%s' lacks '%s' or is multi-line",
		 err, want);
	check(strstr(err, want) && !strchr(err, '\n'), name, why);
}

static void test_rejections(void)
{
	static const uint8_t bad_magic[4] = { 'X', 'L', 'A', 'B' };
	static const uint8_t v2[2] = { 0, 2 };
	static const uint8_t big[4] = { 0x01, 0, 0, 0 };
	static const uint8_t zero[4] = { 0 };
	static const uint8_t huge_len[4] = { 0x04, 0, 0, 1 };
	static const uint8_t mtu1000[4] = { 0, 0, 0x03, 0xe8 };
	static const uint8_t mtu8192[4] = { 0, 0, 0x20, 0 };
	static const uint8_t wrap_addr[8] = { 0xff, 0xff, 0xff, 0xff,
					      0xff, 0xff, 0xff, 0xf0 };

	reject("wire_reject_short", LAB_WIRE_SIZE - 1, 0, NULL, 0, "51 bytes");
	reject("wire_reject_empty", 0, 0, NULL, 0, "0 bytes");
	reject("wire_reject_long", LAB_WIRE_SIZE + 1, 0, NULL, 0, "53 bytes");
	reject("wire_reject_magic", LAB_WIRE_SIZE, 0, bad_magic, 4, "magic");
	reject("wire_reject_version", LAB_WIRE_SIZE, 4, v2, 2, "version 2");
	reject("wire_reject_qpn", LAB_WIRE_SIZE, 8, big, 4, "QPN");
	reject("wire_reject_psn", LAB_WIRE_SIZE, 12, big, 4, "PSN");
	reject("wire_reject_len_zero", LAB_WIRE_SIZE, 44, zero, 4, "length");
	reject("wire_reject_len_huge", LAB_WIRE_SIZE, 44, huge_len, 4,
	       "length");
	reject("wire_reject_addr_wrap", LAB_WIRE_SIZE, 32, wrap_addr, 8,
	       "length");
	reject("wire_reject_mtu_1000", LAB_WIRE_SIZE, 48, mtu1000, 4, "MTU");
	reject("wire_reject_mtu_8192", LAB_WIRE_SIZE, 48, mtu8192, 4, "MTU");
	reject("wire_reject_mtu_zero", LAB_WIRE_SIZE, 48, zero, 4, "MTU");
}

static struct lab_gid_entry gid(const char *ip6, uint32_t type)
{
	struct lab_gid_entry e = { .type = type };

	if (ip6)
		inet_pton(AF_INET6, ip6, e.gid.raw);
	return e;
}

/* Expect index `want_idx`, or an error containing `want_err`. */
static void choose(const char *name, const struct lab_gid_entry *tab, int n,
		   int want, bool eth, int want_idx, const char *want_err)
{
	char err[200] = "", why[300];
	int idx = -99, ret;

	ret = lab_choose_gid(tab, n, want, eth, &idx, err, sizeof(err));
	if (want_err)
		snprintf(why, sizeof(why), "got %d/%d '%s', want error '%s'",
			 ret, idx, err, want_err);
	else
		snprintf(why, sizeof(why), "got %d/%d '%s', want index %d", ret,
			 idx, err, want_idx);
	if (want_err)
		check(ret != 0 && strstr(err, want_err), name, why);
	else
		check(ret == 0 && idx == want_idx, name, why);
}

static void test_gid_choice(void)
{
	const uint32_t v1 = IBV_GID_TYPE_ROCE_V1, v2 = IBV_GID_TYPE_ROCE_V2;
	/* rxe: only RoCE v2 entries, link-local first. */
	const struct lab_gid_entry rxe[] = {
		gid("fe80::5054:ff:fe12:3456", v2),
		gid("::ffff:192.0.2.1", v2),
		gid(NULL, v2),
	};
	/* A typical NIC: v1 and v2 per address. */
	const struct lab_gid_entry nic[] = {
		gid("fe80::1", v1),
		gid("fe80::1", v2),
		gid("::ffff:10.0.0.5", v1),
		gid("::ffff:10.0.0.5", v2),
	};
	const struct lab_gid_entry v6only[] = {
		gid("fe80::1", v2),
		gid("2001:db8::5", v1),
		gid("2001:db8::5", v2),
	};
	const struct lab_gid_entry nothing[] = {
		gid("fe80::1", v2),
		gid(NULL, v2),
	};
	const struct lab_gid_entry ib[] = {
		gid("fe80::2:c903:1:2345", IBV_GID_TYPE_IB),
	};

	choose("gid_auto_rxe", rxe, 3, -1, true, 1, NULL);
	choose("gid_auto_nic_v2_v4mapped", nic, 4, -1, true, 3, NULL);
	choose("gid_auto_ipv6_global", v6only, 3, -1, true, 2, NULL);
	choose("gid_auto_none_usable", nothing, 2, -1, true, 0, "no RoCE v2");
	choose("gid_auto_empty_table", nothing, 0, -1, true, 0, "no RoCE v2");
	choose("gid_manual_ok", rxe, 3, 1, true, 1, NULL);
	choose("gid_manual_out_of_range", rxe, 3, 3, true, 0, "out of range");
	choose("gid_manual_empty", rxe, 3, 2, true, 0, "empty");
	choose("gid_manual_roce_v1", nic, 4, 2, true, 0, "RoCE v1");
	choose("gid_manual_link_local", rxe, 3, 0, true, 0, "link-local");
	choose("gid_ib_auto_no_grh", ib, 1, -1, false, -1, NULL);
	choose("gid_ib_manual_link_local_ok", ib, 1, 0, false, 0, NULL);
	choose("gid_ib_manual_out_of_range", ib, 1, 1, false, 0,
	       "out of range");
}

static void test_helpers(void)
{
	char s[40];

	lab_format_gid(&sample.gid, s);
	check(!strcmp(s, "0000:0000:0000:0000:0000:ffff:c000:0201"),
	      "format_gid", s);
	check(lab_mtu_bytes(IBV_MTU_1024) == 1024 &&
		      lab_mtu_bytes(IBV_MTU_4096) == 4096 &&
		      lab_mtu_enum(256) == IBV_MTU_256 &&
		      lab_mtu_enum(4096) == IBV_MTU_4096 &&
		      lab_mtu_enum(1000) == 0 && lab_mtu_bytes(0) == 0,
	      "mtu_conversions", "lab_mtu_bytes/lab_mtu_enum disagree");
}

/* ---- TCP exchange over loopback: a forked server and this client ---- */

static struct lab_ctx tcp_ctx(const char *host, int port, int timeout)
{
	struct lab_ctx c = { .sock = -1, .step = "exchange" };

	c.opt.host = host;
	c.opt.tcp_port = port;
	c.opt.timeout = timeout;
	c.buf_len = 4096;
	return c;
}

/* Child: serve one exchange as the lab server would; exit 0 on success. */
static int tcp_server(int port, bool junk)
{
	struct lab_ctx s = tcp_ctx(NULL, port, 5);
	uint8_t bad[LAB_WIRE_SIZE] = { 'J', 'U', 'N', 'K' };

	s.local = sample;
	s.local.qpn = 0x000042;
	if (lab_tcp_open(&s))
		return 1;
	if (junk)
		return lab_io(&s, true, bad, sizeof(bad), "junk") ? 1 : 0;
	if (lab_exchange_dest(&s) || lab_barrier(&s) || lab_recv_write_done(&s))
		return 1;
	return s.remote.qpn == 0x000043 && s.write_len == 21 ? 0 : 1;
}

static int tcp_port_base(void)
{
	return 20000 + getpid() % 20000;
}

static void test_tcp(void)
{
	int port = tcp_port_base(), status;
	struct lab_ctx c = tcp_ctx("127.0.0.1", port, 5);
	int64_t t0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(tcp_server(port, false));
	c.local = sample;
	c.local.qpn = 0x000043;
	/* The client retries until the child listens. */
	check(lab_tcp_open(&c) == 0 && lab_exchange_dest(&c) == 0,
	      "tcp_exchange", "client side of the exchange failed");
	check(c.remote.qpn == 0x000042 && c.remote.addr == sample.addr,
	      "tcp_exchange_fields", "client decoded other values");
	check(lab_barrier(&c) == 0 && lab_send_write_done(&c, 21) == 0,
	      "tcp_barrier_and_notice", "barrier or write notice failed");
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "tcp_server_side",
	      "server side failed");
	close(c.sock);

	/* A peer that sends 52 bytes of junk is rejected. */
	c = tcp_ctx("127.0.0.1", port + 1, 5);
	c.local = sample;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(tcp_server(port + 1, true));
	check(lab_tcp_open(&c) == 0 && lab_exchange_dest(&c) != 0,
	      "tcp_rejects_junk_peer", "junk was accepted");
	waitpid(pid, &status, 0);
	close(c.sock);

	/* Nobody listening: give up after -t, not before, not much later. */
	c = tcp_ctx("127.0.0.1", port + 2, 1);
	t0 = lab_now_ms();
	check(lab_tcp_open(&c) != 0 && lab_now_ms() - t0 >= 800 &&
		      lab_now_ms() - t0 < 2500,
	      "tcp_no_server_times_out", "wrong result or timing");
}

int main(void)
{
	test_round_trip();
	test_rejections();
	test_gid_choice();
	test_helpers();
	test_tcp();
	return checks_done("test_unit");
}

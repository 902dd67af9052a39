/*
 * rdma-lab: one reliable-connected (RC) queue pair between two hosts over
 * raw ibverbs, one small step at a time.
 *
 *   server: rdma-lab [options]
 *   client: rdma-lab [options] HOST
 *
 * solution/main.c is the reference.  lab/main.c is generated from it by
 * solution/mkskeleton.awk ("make lab"): every solution region (between
 * the markers inside the step_* functions) becomes a stub that reports
 * "TODO <name> is not implemented".  Everything outside those regions is
 * shared scaffolding: argument parsing, the step order in main(), the report
 * lines, TCP and wire-format helpers and the completion-queue wait.  The wire
 * format and the report lines are described in docs/protocol.md.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define LAB_PROG	    "rdma-lab"
#define LAB_DEFAULT_PORT    18515
#define LAB_DEFAULT_SIZE    4096
#define LAB_DEFAULT_TIMEOUT 10
#define LAB_DEFAULT_IMM	    0x12345678u
#define LAB_DEFAULT_MESSAGE "hello from the client"
#define LAB_DEFAULT_WRITE   "written by RDMA WRITE"
#define LAB_MAX_BUF	    (64u << 20)
#define LAB_MAX_TIMEOUT	    3600
#define LAB_CQ_DEPTH	    16
#define LAB_SEND_DEPTH	    4
#define LAB_RECV_SLOTS	    2 /* SEND, SEND with imm */

/*
 * Transport timers (ibv_modify_qp(3), RTR/RTS).  A lost ACK is retried
 * after 4.096 us * 2^LAB_QP_TIMEOUT = 134 ms, LAB_QP_RETRY_CNT times, so a
 * dead peer yields IBV_WC_RETRY_EXC_ERR after about 1.1 s.  rnr_retry 7
 * would mean "retry forever" and a missing receive would only show up as
 * our own timeout; 6 retries of the peer's min_rnr_timer (24 = 40.96 ms)
 * turn it into IBV_WC_RNR_RETRY_EXC_ERR within about 0.3 s.  Both stay far
 * below the default -t of 10 s.
 */
#define LAB_QP_TIMEOUT	     15
#define LAB_QP_RETRY_CNT     7
#define LAB_QP_RNR_RETRY     6
#define LAB_QP_MIN_RNR_TIMER 24
/* RoCE v2 packets are routable IP packets; 1 would stop at the first hop. */
#define LAB_HOP_LIMIT 64

/* Exchange message: see docs/protocol.md, "Exchange message". */
#define LAB_WIRE_MAGIC	 0x524c4142u /* "RLAB" */
#define LAB_WIRE_VERSION 1
#define LAB_WIRE_SIZE	 52
#define LAB_QPN_MASK	 0xffffffu
/* How far a queried PSN may have moved past the start when checked. */
#define LAB_PSN_SLACK 4096

/* TCP bytes after the exchange message; see docs/protocol.md. */
#define LAB_SYNC_READY 'R'
#define LAB_SYNC_WRITE 'W'

/* What one side tells the other about itself. */
struct lab_dest {
	uint32_t qpn;	   /* 24 bits */
	uint32_t psn;	   /* 24 bits, first PSN this side will send */
	uint16_t lid;	   /* InfiniBand only; 0 on RoCE */
	union ibv_gid gid; /* all-zero when the side uses no GRH */
	uint64_t addr;	   /* buffer the peer may RDMA WRITE into */
	uint32_t rkey;
	uint32_t len;
	uint32_t mtu; /* active MTU of the port, in bytes */
};

/* One GID table entry, as lab_choose_gid() sees it. */
struct lab_gid_entry {
	union ibv_gid gid; /* all-zero: empty slot */
	uint32_t type;	   /* enum ibv_gid_type */
};

/* The last work request given to lab_post_send(), for reports and hints. */
struct lab_posted {
	enum ibv_wr_opcode opcode;
	uint64_t local_addr;
	uint32_t len;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t imm; /* host order */
	uint32_t psn; /* PSN of its first packet */
	uint32_t packets;
};

struct lab_opts {
	const char *host; /* NULL: server */
	const char *dev_name;
	int ib_port;
	int gid_idx; /* -1: automatic */
	int tcp_port;
	const char *message;
	uint32_t imm;
	const char *write_msg;
	uint32_t size;
	int timeout; /* seconds, bound on every wait */
};

/*
 * Everything the program owns.  Verbs objects are stored here the moment
 * they exist, so step_teardown() can release whatever subset a failed step
 * left behind: that is each set-up step's single unwind path.
 */
struct lab_ctx {
	struct lab_opts opt;
	const char *step; /* name of the running step, for messages */

	/* Verbs objects, in creation order. */
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_mr *buf_mr;	/* server: WRITE target; client: source */
	struct ibv_mr *recv_mr; /* server only: receive slots */
	struct ibv_qp *qp;

	/* Filled by open_device. */
	struct ibv_port_attr port_attr;
	int gid_idx; /* -1: no GRH (InfiniBand, LID routing) */
	union ibv_gid gid;

	/* Plain memory, owned by main(). */
	char *buf;	/* opt.size bytes */
	char *recv_buf; /* server: LAB_RECV_SLOTS * opt.size bytes */
	uint32_t buf_len;

	/* Filled by exchange. */
	int sock;
	struct lab_dest local;
	struct lab_dest remote;

	/* Filled by the server's send, send_imm and write steps. */
	uint32_t recv_len[LAB_RECV_SLOTS];
	uint32_t imm_received; /* host order */
	uint32_t write_len;

	/* Bookkeeping for reports: what went on the wire. */
	struct lab_posted posted;
	uint32_t path_mtu; /* bytes, after connect */
	uint32_t next_psn; /* client: next PSN it sends; server: expects */
};

/* ---------------------------------------------------------------------
 * Messages.  Failures go to stderr as "lab <step> FAIL: ...".
 */

int lab_fail(struct lab_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lab_hint(struct lab_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int lab_fail(struct lab_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "lab %s FAIL: ", ctx->step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void lab_hint(struct lab_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lab %s hint: ", ctx->step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int lab_todo(struct lab_ctx *ctx, const char *name)
{
	lab_fail(ctx, "TODO %s is not implemented", name);
	lab_hint(ctx, "read the TODO %s comment in lab/main.c", name);
	return -1;
}

static bool lab_is(const char *what, const char *prefix)
{
	return strncmp(what, prefix, strlen(prefix)) == 0;
}

/* A failed verb or system call: err is the errno value it reported. */
int lab_fail_verb(struct lab_ctx *ctx, const char *what, int err)
{
	lab_fail(ctx, "%s failed: %s (errno %d)", what, strerror(err), err);
	if (lab_is(what, "ibv_get_device_list") && err == ENOSYS)
		lab_hint(ctx, "this kernel has no RDMA support: run inside "
			      "the lab VMs");
	else if (lab_is(what, "ibv_reg_mr") && (err == ENOMEM || err == EPERM))
		lab_hint(ctx, "registration pins memory: raise the memlock "
			      "limit (ulimit -l)");
	else if (lab_is(what, "ibv_create_qp") && err == EINVAL)
		lab_hint(ctx, "a capability exceeds the device limits "
			      "(max_send_wr, max_inline_data; ibv_devinfo -v)");
	else if (lab_is(what, "ibv_modify_qp(RTR)") && err == ETIMEDOUT)
		lab_hint(ctx, "destination GID not resolvable: wrong GID "
			      "index (fe80::?) or peer unreachable");
	else if (lab_is(what, "ibv_modify_qp(RTR)") && err == EINVAL)
		lab_hint(ctx, "RTR needs STATE, AV (ah_attr.port_num, GRH on "
			      "RoCE), PATH_MTU, DEST_QPN, RQ_PSN, "
			      "MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER");
	else if (lab_is(what, "ibv_modify_qp(RTS)") && err == EINVAL)
		lab_hint(ctx, "RTS needs STATE, SQ_PSN, TIMEOUT (<= 31), "
			      "RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC");
	else if (lab_is(what, "ibv_modify_qp(INIT)") && err == EINVAL)
		lab_hint(ctx, "INIT needs STATE, PKEY_INDEX, PORT, "
			      "ACCESS_FLAGS");
	else if (lab_is(what, "ibv_post") && err == EINVAL)
		lab_hint(ctx, "bad work request (num_sge above the QP's cap, "
			      "opcode) or the QP is not in a state that "
			      "accepts it");
	else if (lab_is(what, "ibv_post") && err == ENOMEM)
		lab_hint(ctx, "the work queue is full: check the QP's cap "
			      "(max_send_wr, max_recv_wr) in create_resources");
	return -1;
}

/* Report a missing device and list those that exist. */
int lab_fail_no_device(struct lab_ctx *ctx, struct ibv_device **list, int n)
{
	char names[256] = "";
	size_t used = 0;
	int i;

	if (n == 0) {
		lab_fail(ctx, "no RDMA devices found");
		lab_hint(ctx, "load rdma_rxe and run 'rdma link add rxe0 type "
			      "rxe netdev eth0'");
		return -1;
	}
	for (i = 0; i < n && used < sizeof(names); i++)
		used += snprintf(names + used, sizeof(names) - used, "%s%s",
				 i ? ", " : "", ibv_get_device_name(list[i]));
	return lab_fail(ctx, "device '%s' not found; devices here: %s",
			ctx->opt.dev_name, names);
}

/* Print len bytes as a quoted string: \" \\ and non-printables as \xNN. */
static void lab_print_quoted(const char *s, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* "fe80:0000:...": eight groups of four hex digits, as sysfs shows them. */
void lab_format_gid(const union ibv_gid *gid, char out[40])
{
	int i;

	for (i = 0; i < 8; i++)
		sprintf(out + 5 * i, "%02x%02x%s", gid->raw[2 * i],
			gid->raw[2 * i + 1], i < 7 ? ":" : "");
}

bool lab_gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return memcmp(gid, &zero, sizeof(zero)) == 0;
}

static bool lab_gid_is_v4mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}

static bool lab_gid_is_link_local(const union ibv_gid *gid)
{
	return gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80;
}

uint32_t lab_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

enum ibv_mtu lab_mtu_enum(uint32_t bytes)
{
	enum ibv_mtu m;

	for (m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if (lab_mtu_bytes(m) == bytes)
			return m;
	return 0;
}

static int64_t lab_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------
 * GID choice, a pure function so it can be unit tested.
 *
 * Ethernet (RoCE): every packet carries a GRH built from the GID, so one
 * must be chosen.  Automatic choice is the RoCE v2 entry whose GID is an
 * IPv4-mapped address, else a non-link-local RoCE v2 entry (IPv6).
 * InfiniBand: inside a subnet the LID routes; no GRH unless -g asks.
 * On success *idx is the index, or -1 for "no GRH".
 */
int lab_choose_gid(const struct lab_gid_entry *tab, int n, int want,
		   bool ethernet, int *idx, char *err, size_t errlen)
{
	int i;

	if (want >= 0) {
		const struct lab_gid_entry *e;

		if (want >= n) {
			snprintf(err, errlen,
				 "GID index %d is out of range (the table has "
				 "%d entries)",
				 want, n);
			return -1;
		}
		e = &tab[want];
		if (lab_gid_is_zero(&e->gid)) {
			snprintf(err, errlen,
				 "GID index %d is empty (all-zero)", want);
			return -1;
		}
		if (ethernet && e->type != IBV_GID_TYPE_ROCE_V2) {
			snprintf(err, errlen,
				 "GID index %d is %s, not RoCE v2: v1 is not "
				 "routable over UDP/IP",
				 want,
				 e->type == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1"
								 : "not RoCE");
			return -1;
		}
		if (ethernet && lab_gid_is_link_local(&e->gid)) {
			snprintf(err, errlen,
				 "GID index %d is link-local (fe80::/10); use "
				 "the IPv4-mapped RoCE v2 entry",
				 want);
			return -1;
		}
		*idx = want;
		return 0;
	}
	if (!ethernet) {
		*idx = -1;
		return 0;
	}
	for (i = 0; i < n; i++)
		if (tab[i].type == IBV_GID_TYPE_ROCE_V2 &&
		    lab_gid_is_v4mapped(&tab[i].gid)) {
			*idx = i;
			return 0;
		}
	for (i = 0; i < n; i++)
		if (tab[i].type == IBV_GID_TYPE_ROCE_V2 &&
		    !lab_gid_is_zero(&tab[i].gid) &&
		    !lab_gid_is_link_local(&tab[i].gid)) {
			*idx = i;
			return 0;
		}
	snprintf(err, errlen,
		 "no RoCE v2 GID with an IP address among %d entries: give "
		 "the interface an IPv4 address, or pick one with -g",
		 n);
	return -1;
}

/* ---------------------------------------------------------------------
 * Exchange message: 52 bytes, every field in network byte order.
 */

static void lab_put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t lab_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

void lab_wire_encode(const struct lab_dest *d, uint8_t out[LAB_WIRE_SIZE])
{
	uint16_t v16;
	uint64_t v64;

	lab_put32(out + 0, LAB_WIRE_MAGIC);
	v16 = htons(LAB_WIRE_VERSION);
	memcpy(out + 4, &v16, 2);
	v16 = htons(d->lid);
	memcpy(out + 6, &v16, 2);
	lab_put32(out + 8, d->qpn);
	lab_put32(out + 12, d->psn);
	memcpy(out + 16, d->gid.raw, 16); /* already in network order */
	v64 = htobe64(d->addr);
	memcpy(out + 32, &v64, 8);
	lab_put32(out + 40, d->rkey);
	lab_put32(out + 44, d->len);
	lab_put32(out + 48, d->mtu);
}

int lab_wire_decode(const void *buf, size_t len, struct lab_dest *out,
		    char *err, size_t errlen)
{
	const uint8_t *p = buf;
	struct lab_dest d;
	uint32_t magic;
	uint16_t v16;
	uint64_t v64;

	if (len != LAB_WIRE_SIZE) {
		snprintf(err, errlen,
			 "exchange message is %zu bytes, expected %d", len,
			 LAB_WIRE_SIZE);
		return -1;
	}
	magic = lab_get32(p);
	if (magic != LAB_WIRE_MAGIC) {
		snprintf(err, errlen,
			 "bad magic 0x%08x (expected 0x%08x \"RLAB\"): is the "
			 "peer an rdma-lab?",
			 magic, LAB_WIRE_MAGIC);
		return -1;
	}
	memcpy(&v16, p + 4, 2);
	if (ntohs(v16) != LAB_WIRE_VERSION) {
		snprintf(err, errlen,
			 "exchange version %u not supported (expected %d)",
			 ntohs(v16), LAB_WIRE_VERSION);
		return -1;
	}
	memcpy(&v16, p + 6, 2);
	d.lid = ntohs(v16);
	d.qpn = lab_get32(p + 8);
	d.psn = lab_get32(p + 12);
	memcpy(d.gid.raw, p + 16, 16);
	memcpy(&v64, p + 32, 8);
	d.addr = be64toh(v64);
	d.rkey = lab_get32(p + 40);
	d.len = lab_get32(p + 44);
	d.mtu = lab_get32(p + 48);
	if (d.qpn > LAB_QPN_MASK || d.psn > LAB_QPN_MASK) {
		snprintf(err, errlen, "%s 0x%x does not fit in 24 bits",
			 d.qpn > LAB_QPN_MASK ? "QPN" : "PSN",
			 d.qpn > LAB_QPN_MASK ? d.qpn : d.psn);
		return -1;
	}
	if (d.len == 0 || d.len > LAB_MAX_BUF || d.addr + d.len < d.addr) {
		snprintf(err, errlen,
			 "buffer length %u out of range (1..%u, no wrap)",
			 d.len, LAB_MAX_BUF);
		return -1;
	}
	if (!lab_mtu_enum(d.mtu)) {
		snprintf(err, errlen,
			 "MTU %u is not one of 256, 512, 1024, 2048, 4096",
			 d.mtu);
		return -1;
	}
	*out = d;
	return 0;
}

/* ---------------------------------------------------------------------
 * TCP.  Every read and write is a loop bounded by -t.
 */

static int lab_io(struct lab_ctx *ctx, bool out, void *buf, size_t len,
		  const char *what)
{
	int64_t deadline = lab_now_ms() + ctx->opt.timeout * 1000LL;
	char *p = buf;

	if (ctx->sock < 0)
		return lab_fail(ctx, "no TCP connection (call lab_tcp_open())");
	while (len > 0) {
		struct pollfd pfd = {
			.fd = ctx->sock,
			.events = out ? POLLOUT : POLLIN,
		};
		int64_t left = deadline - lab_now_ms();
		ssize_t n;

		if (left <= 0)
			return lab_fail(ctx, "peer sent no %s within %d s",
					what, ctx->opt.timeout);
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return lab_fail_verb(ctx, "poll", errno);
		if (out)
			n = send(ctx->sock, p, len, MSG_NOSIGNAL);
		else
			n = recv(ctx->sock, p, len, 0);
		if (n == 0)
			return lab_fail(ctx,
					"peer closed the connection before "
					"the %s (it failed or exited)",
					what);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return lab_fail(ctx, "TCP %s of the %s failed: %s",
					out ? "send" : "receive", what,
					strerror(errno));
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int lab_sock_setup(struct lab_ctx *ctx)
{
	int one = 1;

	/* Small sync messages must not wait for Nagle. */
	if (setsockopt(ctx->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return lab_fail_verb(ctx, "setsockopt(TCP_NODELAY)", errno);
	return 0;
}

static int lab_listen(int family, int port)
{
	struct sockaddr_in6 a6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in a4 = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int fd, one = 1, zero = 0;

	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* A restarted server must not wait for TIME_WAIT to expire. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto fail;
	/* One socket for IPv4 and IPv6 clients. */
	if (family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)))
		goto fail;
	if (family == AF_INET6 ? bind(fd, (void *)&a6, sizeof(a6))
			       : bind(fd, (void *)&a4, sizeof(a4)))
		goto fail;
	if (listen(fd, 1))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static int lab_tcp_accept(struct lab_ctx *ctx)
{
	struct pollfd pfd = { .events = POLLIN };
	int n;

	pfd.fd = lab_listen(AF_INET6, ctx->opt.tcp_port);
	if (pfd.fd < 0 && errno == EAFNOSUPPORT)
		pfd.fd = lab_listen(AF_INET, ctx->opt.tcp_port);
	if (pfd.fd < 0)
		return lab_fail(ctx, "cannot listen on TCP port %d: %s",
				ctx->opt.tcp_port, strerror(errno));
	do
		n = poll(&pfd, 1, ctx->opt.timeout * 1000);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		ctx->sock = accept4(pfd.fd, NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC);
	close(pfd.fd);
	if (n == 0)
		return lab_fail(ctx,
				"no client connected to TCP port %d "
				"within %d s",
				ctx->opt.tcp_port, ctx->opt.timeout);
	if (ctx->sock < 0)
		return lab_fail_verb(ctx, "accept", errno);
	return lab_sock_setup(ctx);
}

/* One non-blocking connect, bounded by deadline.  Returns fd or -1. */
static int lab_try_connect(const struct addrinfo *ai, int64_t deadline)
{
	struct pollfd pfd = { .events = POLLOUT };
	socklen_t elen = sizeof(int);
	int err = 0;

	pfd.fd = socket(ai->ai_family,
			ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			ai->ai_protocol);
	if (pfd.fd < 0)
		return -1;
	if (connect(pfd.fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return pfd.fd;
	if (errno == EINPROGRESS) {
		int64_t left = deadline - lab_now_ms();

		if (left > 0 && poll(&pfd, 1, (int)left) == 1 &&
		    !getsockopt(pfd.fd, SOL_SOCKET, SO_ERROR, &err, &elen) &&
		    err == 0)
			return pfd.fd;
	}
	close(pfd.fd);
	return -1;
}

/* The server may still be starting: retry until -t runs out. */
static int lab_tcp_connect(struct lab_ctx *ctx)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	int64_t deadline = lab_now_ms() + ctx->opt.timeout * 1000LL;
	struct addrinfo *res, *ai;
	char port[8];
	int ret;

	snprintf(port, sizeof(port), "%d", ctx->opt.tcp_port);
	ret = getaddrinfo(ctx->opt.host, port, &hints, &res);
	if (ret)
		return lab_fail(ctx, "cannot resolve '%s': %s", ctx->opt.host,
				gai_strerror(ret));
	for (;;) {
		for (ai = res; ai && ctx->sock < 0; ai = ai->ai_next)
			ctx->sock = lab_try_connect(ai, deadline);
		if (ctx->sock >= 0 || lab_now_ms() + 200 >= deadline)
			break;
		usleep(200 * 1000);
	}
	freeaddrinfo(res);
	if (ctx->sock < 0)
		return lab_fail(ctx,
				"no server listening at %s:%d (tried "
				"for %d s)",
				ctx->opt.host, ctx->opt.tcp_port,
				ctx->opt.timeout);
	return lab_sock_setup(ctx);
}

/* Server: wait for one client.  Client: connect to HOST. */
int lab_tcp_open(struct lab_ctx *ctx)
{
	return ctx->opt.host ? lab_tcp_connect(ctx) : lab_tcp_accept(ctx);
}

/* Send ctx->local, receive and validate ctx->remote. */
int lab_exchange_dest(struct lab_ctx *ctx)
{
	uint8_t msg[LAB_WIRE_SIZE];
	char err[160];

	lab_wire_encode(&ctx->local, msg);
	/* 52 bytes fit in any socket buffer: both sides may send first. */
	if (lab_io(ctx, true, msg, sizeof(msg), "exchange message") ||
	    lab_io(ctx, false, msg, sizeof(msg), "exchange message"))
		return -1;
	if (lab_wire_decode(msg, sizeof(msg), &ctx->remote, err, sizeof(err)))
		return lab_fail(ctx, "rejected the peer's message: %s", err);
	return 0;
}

/* Both sides: "my QP is in RTS"; returns once the peer said the same. */
int lab_barrier(struct lab_ctx *ctx)
{
	uint8_t c = LAB_SYNC_READY;

	if (lab_io(ctx, true, &c, 1, "ready byte") ||
	    lab_io(ctx, false, &c, 1, "ready byte"))
		return -1;
	if (c != LAB_SYNC_READY)
		return lab_fail(ctx, "expected ready byte 0x%02x, got 0x%02x",
				LAB_SYNC_READY, c);
	return 0;
}

/* Client: "the WRITE of len bytes has completed". */
int lab_send_write_done(struct lab_ctx *ctx, uint32_t len)
{
	uint8_t msg[5] = { LAB_SYNC_WRITE };

	lab_put32(msg + 1, len);
	return lab_io(ctx, true, msg, sizeof(msg), "write notice");
}

/* Server: wait for the client's notice; sets ctx->write_len. */
int lab_recv_write_done(struct lab_ctx *ctx)
{
	uint8_t msg[5];
	uint32_t len;

	if (lab_io(ctx, false, msg, sizeof(msg), "write notice"))
		return -1;
	len = lab_get32(msg + 1);
	if (msg[0] != LAB_SYNC_WRITE)
		return lab_fail(ctx, "expected write notice 0x%02x, got 0x%02x",
				LAB_SYNC_WRITE, msg[0]);
	if (len > ctx->buf_len)
		return lab_fail(ctx,
				"write notice says %u bytes, buffer has %u",
				len, ctx->buf_len);
	ctx->write_len = len;
	return 0;
}

/* ---------------------------------------------------------------------
 * Work requests and completions.
 */

/* Refuse a payload the local or the peer's buffer cannot hold. */
int lab_check_fits(struct lab_ctx *ctx, const char *what, size_t len)
{
	if (len > ctx->buf_len)
		return lab_fail(ctx,
				"%s is %zu bytes, larger than the local buffer "
				"(%u, -s)",
				what, len, ctx->buf_len);
	if (len > ctx->remote.len)
		return lab_fail(
			ctx,
			"%s is %zu bytes, larger than the peer's buffer (%u)",
			what, len, ctx->remote.len);
	return 0;
}

/* ibv_post_send(3), remembering the request for the report and hints. */
int lab_post_send(struct lab_ctx *ctx, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	uint32_t len = 0, mtu = ctx->path_mtu ? ctx->path_mtu : 256;
	int i, ret;

	if (!ctx->qp)
		return lab_fail(ctx, "lab_post_send: ctx->qp is NULL");
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	ctx->posted = (struct lab_posted){
		.opcode = wr->opcode,
		.local_addr = wr->num_sge ? wr->sg_list[0].addr : 0,
		.len = len,
		.remote_addr = wr->wr.rdma.remote_addr,
		.rkey = wr->wr.rdma.rkey,
		.imm = ntohl(wr->imm_data),
		.psn = ctx->next_psn,
		.packets = len ? (len + mtu - 1) / mtu : 1,
	};
	ret = ibv_post_send(ctx->qp, wr, &bad);
	if (ret)
		return lab_fail_verb(ctx, "ibv_post_send", ret);
	ctx->next_psn = (ctx->next_psn + ctx->posted.packets) & LAB_QPN_MASK;
	return 0;
}

static void lab_wc_hint(struct lab_ctx *ctx, enum ibv_wc_status status)
{
	const struct lab_posted *p = &ctx->posted;
	const struct lab_dest *r = &ctx->remote;

	switch (status) {
	case IBV_WC_RETRY_EXC_ERR:
		lab_hint(ctx, "no ACK came back: wrong QPN, GID or PSN, or the "
			      "peer's QP was not in RTR (or the peer is gone)");
		break;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		lab_hint(ctx, "the receiver had no receive posted: post "
			      "receives before moving to RTR");
		break;
	case IBV_WC_REM_ACCESS_ERR:
		if (p->opcode != IBV_WR_RDMA_WRITE)
			lab_hint(ctx, "wrong rkey or address, or REMOTE_WRITE "
				      "missing on the peer's MR or QP");
		else if (p->remote_addr < r->addr ||
			 p->remote_addr + p->len > r->addr + r->len)
			lab_hint(ctx,
				 "address 0x%" PRIx64 "+%u lies outside the "
				 "advertised buffer 0x%" PRIx64 "+%u",
				 p->remote_addr, p->len, r->addr, r->len);
		else if (p->rkey != r->rkey)
			lab_hint(ctx,
				 "rkey 0x%x is not the advertised rkey 0x%x",
				 p->rkey, r->rkey);
		else
			lab_hint(ctx,
				 "the peer refused rkey 0x%x at 0x%" PRIx64
				 "+%u, both as it advertised them: its "
				 "rkey or address is wrong, or REMOTE_WRITE "
				 "is missing on its MR or QP",
				 p->rkey, p->remote_addr, p->len);
		break;
	case IBV_WC_LOC_PROT_ERR:
		lab_hint(ctx, "lkey wrong (rkey used?) or the SGE lies outside "
			      "the MR");
		break;
	case IBV_WC_LOC_LEN_ERR:
		lab_hint(ctx, "the incoming message is larger than the posted "
			      "receive buffer");
		break;
	case IBV_WC_REM_INV_REQ_ERR:
		lab_hint(ctx, "the peer rejected the request: message larger "
			      "than its receive, or an opcode its QP forbids");
		break;
	case IBV_WC_WR_FLUSH_ERR:
		lab_hint(ctx,
			 "the QP had already gone to the error state: look "
			 "at the first failure");
		break;
	default:
		break;
	}
}

/*
 * Wait for one completion without spinning: on a one-vCPU guest a busy
 * poll would starve the rxe kernel threads that produce the completion.
 * Also watches the TCP socket so that a peer which exits is noticed at
 * once instead of after -t.
 */
int lab_wait_wc(struct lab_ctx *ctx, struct ibv_wc *wc)
{
	int64_t deadline = lab_now_ms() + ctx->opt.timeout * 1000LL;
	bool armed = false, watch_peer = ctx->sock >= 0, peer_gone = false;

	if (!ctx->cq || !ctx->channel)
		return lab_fail(
			ctx, "lab_wait_wc needs ctx->cq and its ctx->channel");

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = ctx->channel->fd, .events = POLLIN },
			{ .fd = watch_peer ? ctx->sock : -1, .events = POLLIN },
		};
		struct ibv_cq *ev_cq;
		void *ev_ctx;
		int64_t left;
		int n, ret;
		char c;

		n = ibv_poll_cq(ctx->cq, 1, wc);
		if (n < 0)
			return lab_fail(ctx, "ibv_poll_cq failed (%d)", n);
		if (n == 1)
			break;
		if (peer_gone)
			return lab_fail(ctx, "peer closed the TCP connection "
					     "while we waited for a "
					     "completion (it failed or "
					     "exited)");
		if (!armed) {
			/* Poll once more after arming: a completion that
			 * arrived before the arm raises no event. */
			ret = ibv_req_notify_cq(ctx->cq, 0);
			if (ret)
				return lab_fail_verb(ctx, "ibv_req_notify_cq",
						     ret);
			armed = true;
			continue;
		}
		left = deadline - lab_now_ms();
		if (left <= 0) {
			lab_fail(ctx, "no completion within %d s",
				 ctx->opt.timeout);
			lab_hint(ctx, "the peer is silent or stuck; check its "
				      "output");
			return -1;
		}
		n = poll(pfd, 2, (int)left);
		if (n < 0 && errno != EINTR)
			return lab_fail_verb(ctx, "poll", errno);
		if (n > 0 && pfd[1].revents) {
			n = recv(ctx->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);
			/* A peer that sent and left may have left its
			 * completion behind: poll the CQ once more first. */
			peer_gone = n == 0 || (n < 0 && errno != EAGAIN);
			/* Early data is for a later step: stop watching. */
			watch_peer = false;
			if (peer_gone)
				continue;
		}
		if (pfd[0].revents & POLLIN) {
			if (ibv_get_cq_event(ctx->channel, &ev_cq, &ev_ctx))
				return lab_fail_verb(ctx, "ibv_get_cq_event",
						     errno);
			/* Unacked events make ibv_destroy_cq(3) hang. */
			ibv_ack_cq_events(ev_cq, 1);
			armed = false;
		}
	}
	if (wc->status != IBV_WC_SUCCESS) {
		lab_fail(ctx,
			 "completion with status %s (%d), wr_id %" PRIu64
			 ", vendor_err 0x%x",
			 ibv_wc_status_str(wc->status), wc->status, wc->wr_id,
			 wc->vendor_err);
		lab_wc_hint(ctx, wc->status);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * The steps.  Each one is a TODO in lab/main.c.
 */

static int step_open_device(struct lab_ctx *ctx)
{
	/*
	 * TODO open_device: open the RDMA device (-d, default the first one)
	 * and check that port -i is ACTIVE.  Fill ctx->verbs, ctx->port_attr
	 * (link layer, active MTU, LID), ctx->gid_idx and ctx->gid: read the
	 * port's GID table (ctx->port_attr.gid_tbl_len entries) into struct
	 * lab_gid_entry[] and let lab_choose_gid() pick; if -d names no
	 * device, report it with lab_fail_no_device().
	 * Verbs: ibv_get_device_list(3), ibv_open_device(3),
	 * ibv_query_port(3), ibv_query_gid_ex(3), ibv_free_device_list(3).
	 * Pitfall: GID index 0 on RoCE is usually fe80:: (link-local), which
	 * makes RTR fail with ETIMEDOUT; the IPv4-mapped RoCE v2 entry works.
	 */
	/* BEGIN SOLUTION open_device */
	struct lab_gid_entry *tab = NULL;
	struct ibv_device **list;
	char err[200];
	int n, i, ret, rc = -1, query_err = 0;
	bool ethernet;

	list = ibv_get_device_list(&n);
	if (!list)
		return lab_fail_verb(ctx, "ibv_get_device_list", errno);
	for (i = 0; i < n; i++)
		if (!ctx->opt.dev_name ||
		    !strcmp(ibv_get_device_name(list[i]), ctx->opt.dev_name))
			break;
	if (i == n) {
		lab_fail_no_device(ctx, list, n);
		goto out;
	}
	ctx->verbs = ibv_open_device(list[i]);
	if (!ctx->verbs) {
		lab_fail_verb(ctx, "ibv_open_device", errno);
		goto out;
	}
	ret = ibv_query_port(ctx->verbs, ctx->opt.ib_port, &ctx->port_attr);
	if (ret) {
		lab_fail_verb(ctx, "ibv_query_port", ret);
		goto out;
	}
	if (ctx->port_attr.state != IBV_PORT_ACTIVE) {
		lab_fail(ctx, "port %d is %s, not ACTIVE", ctx->opt.ib_port,
			 ibv_port_state_str(ctx->port_attr.state));
		lab_hint(ctx, "is the network interface up? (ip link; rdma "
			      "link show)");
		goto out;
	}
	/* Only Ethernet is RoCE; older providers report "unspecified" for
	 * InfiniBand. */
	ethernet = ctx->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (!ethernet && ctx->port_attr.lid == 0) {
		lab_fail(ctx, "InfiniBand port %d has LID 0", ctx->opt.ib_port);
		lab_hint(ctx, "no subnet manager has configured the port "
			      "(opensm)");
		goto out;
	}
	tab = calloc(ctx->port_attr.gid_tbl_len + 1, sizeof(*tab));
	if (!tab) {
		lab_fail_verb(ctx, "calloc", errno);
		goto out;
	}
	for (i = 0; i < ctx->port_attr.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		/* ENODATA: an empty slot, left all-zero in tab. */
		ret = ibv_query_gid_ex(ctx->verbs, ctx->opt.ib_port, i, &e, 0);
		if (ret == 0) {
			tab[i].gid = e.gid;
			tab[i].type = e.gid_type;
		} else if (ret != ENODATA && !query_err) {
			query_err = ret;
		}
	}
	if (lab_choose_gid(tab, ctx->port_attr.gid_tbl_len, ctx->opt.gid_idx,
			   ethernet, &ctx->gid_idx, err, sizeof(err))) {
		lab_fail(ctx, "%s", err);
		if (query_err)
			lab_hint(ctx,
				 "ibv_query_gid_ex failed for some "
				 "entries: %s",
				 strerror(query_err));
		goto out;
	}
	if (ctx->gid_idx >= 0)
		ctx->gid = tab[ctx->gid_idx].gid;
	rc = 0;
out:
	free(tab);
	ibv_free_device_list(list);
	return rc;
	/* END SOLUTION */
}

static int step_create_resources(struct lab_ctx *ctx)
{
	/*
	 * TODO create_resources: allocate a PD, a completion channel, a CQ of
	 * LAB_CQ_DEPTH entries bound to that channel, register the buffers
	 * and create an RC QP (send and receive CQ: ctx->cq; cap:
	 * LAB_SEND_DEPTH send and LAB_RECV_SLOTS receive requests, one SGE
	 * each).  Server: ctx->buf_mr over ctx->buf is the RDMA WRITE
	 * target, ctx->recv_mr over ctx->recv_buf (LAB_RECV_SLOTS *
	 * opt.size bytes) takes the receives.  Client: ctx->buf_mr over
	 * ctx->buf is only read locally.  Give each MR exactly the access
	 * the peer needs, no more.
	 * Verbs: ibv_alloc_pd(3), ibv_create_comp_channel(3),
	 * ibv_create_cq(3), ibv_reg_mr(3), ibv_create_qp(3).
	 * Pitfall: IBV_ACCESS_REMOTE_WRITE without IBV_ACCESS_LOCAL_WRITE
	 * makes ibv_reg_mr fail with EINVAL.  ibv_create_qp accepts a cap
	 * left at 0; the first ibv_post_recv/ibv_post_send then fails with
	 * ENOMEM.
	 */
	/* BEGIN SOLUTION create_resources */
	bool server = !ctx->opt.host;
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap.max_send_wr = LAB_SEND_DEPTH,
		.cap.max_recv_wr = LAB_RECV_SLOTS,
		.cap.max_send_sge = 1,
		.cap.max_recv_sge = 1,
		/* Only signaled sends complete: we ask for each one. */
		.sq_sig_all = 0,
	};
	int buf_access =
		server ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : 0;

	ctx->pd = ibv_alloc_pd(ctx->verbs);
	if (!ctx->pd)
		return lab_fail_verb(ctx, "ibv_alloc_pd", errno);
	ctx->channel = ibv_create_comp_channel(ctx->verbs);
	if (!ctx->channel)
		return lab_fail_verb(ctx, "ibv_create_comp_channel", errno);
	ctx->cq =
		ibv_create_cq(ctx->verbs, LAB_CQ_DEPTH, NULL, ctx->channel, 0);
	if (!ctx->cq)
		return lab_fail_verb(ctx, "ibv_create_cq", errno);
	ctx->buf_mr = ibv_reg_mr(ctx->pd, ctx->buf, ctx->buf_len, buf_access);
	if (!ctx->buf_mr)
		return lab_fail_verb(ctx, "ibv_reg_mr", errno);
	if (server) {
		ctx->recv_mr = ibv_reg_mr(ctx->pd, ctx->recv_buf,
					  LAB_RECV_SLOTS * ctx->buf_len,
					  IBV_ACCESS_LOCAL_WRITE);
		if (!ctx->recv_mr)
			return lab_fail_verb(ctx, "ibv_reg_mr", errno);
	}
	init.send_cq = ctx->cq;
	init.recv_cq = ctx->cq;
	ctx->qp = ibv_create_qp(ctx->pd, &init);
	if (!ctx->qp)
		return lab_fail_verb(ctx, "ibv_create_qp", errno);
	return 0;
	/* END SOLUTION */
}

static int step_qp_to_init(struct lab_ctx *ctx)
{
	/*
	 * TODO qp_to_init: move the QP from RESET to INIT on port -i, P_Key
	 * index 0, with the remote access the peer will use (server: the
	 * client RDMA WRITEs into it; client: nothing).
	 * Verbs: ibv_modify_qp(3) (report failures with lab_fail_verb(ctx,
	 * "ibv_modify_qp(INIT)", ret) to get a hint).
	 * Pitfall: the QP's qp_access_flags are checked too: REMOTE_WRITE
	 * on the MR alone still gives the writer IBV_WC_REM_ACCESS_ERR.
	 */
	/* BEGIN SOLUTION qp_to_init */
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = ctx->opt.ib_port,
		.qp_access_flags = ctx->opt.host ? 0 : IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(ctx->qp, &attr,
			    IBV_QP_STATE |		  // always
				    IBV_QP_PKEY_INDEX |	  // partition
				    IBV_QP_PORT |	  // bound port
				    IBV_QP_ACCESS_FLAGS); // peer rights
	if (ret)
		return lab_fail_verb(ctx, "ibv_modify_qp(INIT)", ret);
	return 0;
	/* END SOLUTION */
}

static int step_exchange(struct lab_ctx *ctx)
{
	/*
	 * TODO exchange: fill ctx->local with what the peer needs to reach
	 * this QP and buffer: QPN, a random 24-bit starting PSN, LID, GID,
	 * ctx->buf's address, rkey and length, and the port's active MTU in
	 * bytes (lab_mtu_bytes()).  Then connect with lab_tcp_open() and
	 * swap messages with lab_exchange_dest(), which validates
	 * ctx->remote.
	 * See: getrandom(2), ibv_reg_mr(3) (struct ibv_mr), docs/protocol.md.
	 * Pitfall: the address is a 64-bit virtual address; it goes on the
	 * wire whole (lab_wire_encode uses htobe64, not htonl).
	 */
	/* BEGIN SOLUTION exchange */
	uint32_t rnd;

	/* A random start PSN keeps a stale packet from an earlier run of
	 * the same QPN from looking valid. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return lab_fail_verb(ctx, "getrandom", errno);
	ctx->local = (struct lab_dest){
		.qpn = ctx->qp->qp_num,
		.psn = rnd & LAB_QPN_MASK,
		.lid = ctx->port_attr.lid,
		.gid = ctx->gid,
		.addr = (uintptr_t)ctx->buf,
		.rkey = ctx->buf_mr->rkey,
		.len = ctx->buf_len,
		.mtu = lab_mtu_bytes(ctx->port_attr.active_mtu),
	};
	if (lab_tcp_open(ctx))
		return -1;
	return lab_exchange_dest(ctx);
	/* END SOLUTION */
}

static int step_connect(struct lab_ctx *ctx)
{
	/*
	 * TODO connect: server: post LAB_RECV_SLOTS receives (wr_id = slot,
	 * slot i at ctx->recv_buf + i * ctx->buf_len).  Then both sides:
	 * INIT -> RTR towards ctx->remote (path MTU: the smaller of the two
	 * active MTUs; ah_attr.port_num = -i; a GRH when ctx->gid_idx >= 0,
	 * else the LID alone), RTR -> RTS with ctx->local.psn and the
	 * LAB_QP_* timers (max_rd_atomic and max_dest_rd_atomic: 1), then
	 * lab_barrier() so neither side sends before the other is ready.
	 * Verbs: ibv_post_recv(3), ibv_modify_qp(3) (use lab_fail_verb(ctx,
	 * "ibv_modify_qp(RTR)", ret) / "(RTS)" for hints).
	 * Pitfall: a SEND that finds no posted receive is answered with an
	 * RNR NAK: post the receives before RTR.
	 */
	/* BEGIN SOLUTION connect */
	const struct lab_dest *rem = &ctx->remote;
	bool grh = ctx->gid_idx >= 0;
	uint32_t mtu = rem->mtu < ctx->local.mtu ? rem->mtu : ctx->local.mtu;
	int i, ret;

	for (i = 0; !ctx->opt.host && i < LAB_RECV_SLOTS; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)ctx->recv_buf + i * ctx->buf_len,
			.length = ctx->buf_len,
			.lkey = ctx->recv_mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
		};
		struct ibv_recv_wr *bad;

		ret = ibv_post_recv(ctx->qp, &wr, &bad);
		if (ret)
			return lab_fail_verb(ctx, "ibv_post_recv", ret);
	}
	if (grh && lab_gid_is_zero(&rem->gid))
		return lab_fail(ctx, "the peer sent an all-zero GID but this "
				     "port needs a GRH");
	if (!grh && rem->lid == 0)
		return lab_fail(ctx, "the peer's LID is 0 and no GRH is used: "
				     "mixed RoCE and InfiniBand?");

	/*
	 * RoCE has no LIDs: the GRH (is_global) carries the destination GID
	 * and is mandatory.  InfiniBand routes by dlid inside a subnet and
	 * sends no GRH unless -g asked for one.
	 */
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = lab_mtu_enum(mtu),
		.dest_qp_num = rem->qpn,
		.rq_psn = rem->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = LAB_QP_MIN_RNR_TIMER,
		.ah_attr.dlid = rem->lid,
		.ah_attr.sl = 0,
		.ah_attr.src_path_bits = 0,
		.ah_attr.port_num = ctx->opt.ib_port,
		.ah_attr.is_global = grh,
		.ah_attr.grh.dgid = rem->gid,
		.ah_attr.grh.sgid_index = grh ? ctx->gid_idx : 0,
		.ah_attr.grh.hop_limit = LAB_HOP_LIMIT,
	};
	ret = ibv_modify_qp(ctx->qp, &rtr,
			    IBV_QP_STATE |			// always
				    IBV_QP_AV |			// path to peer
				    IBV_QP_PATH_MTU |		// payload/pkt
				    IBV_QP_DEST_QPN |		// peer QP
				    IBV_QP_RQ_PSN |		// peer 1st PSN
				    IBV_QP_MAX_DEST_RD_ATOMIC | // peer READs
				    IBV_QP_MIN_RNR_TIMER);	// RNR delay
	if (ret)
		return lab_fail_verb(ctx, "ibv_modify_qp(RTR)", ret);

	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = ctx->local.psn,
		.timeout = LAB_QP_TIMEOUT,
		.retry_cnt = LAB_QP_RETRY_CNT,
		.rnr_retry = LAB_QP_RNR_RETRY,
		.max_rd_atomic = 1,
	};
	ret = ibv_modify_qp(ctx->qp, &rts,
			    IBV_QP_STATE |		      // always
				    IBV_QP_SQ_PSN |	      // our 1st PSN
				    IBV_QP_TIMEOUT |	      // ACK wait
				    IBV_QP_RETRY_CNT |	      // on timeout
				    IBV_QP_RNR_RETRY |	      // on RNR NAK
				    IBV_QP_MAX_QP_RD_ATOMIC); // our READs
	if (ret)
		return lab_fail_verb(ctx, "ibv_modify_qp(RTS)", ret);
	return lab_barrier(ctx);
	/* END SOLUTION */
}

static int step_send(struct lab_ctx *ctx)
{
	/*
	 * TODO send: client: copy -m into ctx->buf, post a signaled SEND
	 * with lab_post_send() (checked first with lab_check_fits()) and
	 * wait for its completion with lab_wait_wc().  Server: wait for the
	 * receive completion of slot 0 and store its byte_len in
	 * ctx->recv_len[0].
	 * Verbs: ibv_post_send(3), ibv_poll_cq(3) (inside lab_wait_wc()).
	 * Pitfall: the SGE needs the lkey of the MR; the rkey there gives
	 * IBV_WC_LOC_PROT_ERR.
	 */
	/* BEGIN SOLUTION send */
	struct ibv_wc wc;

	if (!ctx->opt.host) {
		if (lab_wait_wc(ctx, &wc))
			return -1;
		if (wc.opcode != IBV_WC_RECV || wc.wr_id != 0 ||
		    (wc.wc_flags & IBV_WC_WITH_IMM))
			return lab_fail(ctx,
					"expected a plain receive in slot "
					"0, got opcode %d slot %" PRIu64,
					wc.opcode, wc.wr_id);
		ctx->recv_len[0] = wc.byte_len;
		return 0;
	}

	size_t len = strlen(ctx->opt.message);
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = len,
		.lkey = ctx->buf_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};

	if (lab_check_fits(ctx, "the message", len))
		return -1;
	memcpy(ctx->buf, ctx->opt.message, len);
	if (lab_post_send(ctx, &wr) || lab_wait_wc(ctx, &wc))
		return -1;
	if (wc.opcode != IBV_WC_SEND)
		return lab_fail(ctx,
				"expected a SEND completion, got opcode %d",
				wc.opcode);
	return 0;
	/* END SOLUTION */
}

static int step_send_imm(struct lab_ctx *ctx)
{
	/*
	 * TODO send_imm: like send, with IBV_WR_SEND_WITH_IMM carrying --imm.
	 * Server: wait for slot 1, check that the completion carries
	 * immediate data and store it in host order in ctx->imm_received,
	 * the length in ctx->recv_len[1].
	 * Verbs: ibv_post_send(3), ibv_poll_cq(3) (IBV_WC_WITH_IMM).
	 * Pitfall: imm_data is big-endian on the wire: htonl() before
	 * posting, ntohl() after polling.
	 */
	/* BEGIN SOLUTION send_imm */
	struct ibv_wc wc;

	if (!ctx->opt.host) {
		if (lab_wait_wc(ctx, &wc))
			return -1;
		if (wc.opcode != IBV_WC_RECV || wc.wr_id != 1)
			return lab_fail(ctx,
					"expected a receive in slot 1, got "
					"opcode %d slot %" PRIu64,
					wc.opcode, wc.wr_id);
		if (!(wc.wc_flags & IBV_WC_WITH_IMM))
			return lab_fail(ctx, "the completion carries no "
					     "immediate data");
		ctx->imm_received = ntohl(wc.imm_data);
		ctx->recv_len[1] = wc.byte_len;
		return 0;
	}

	size_t len = strlen(ctx->opt.message);
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = len,
		.lkey = ctx->buf_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(ctx->opt.imm),
	};

	if (lab_check_fits(ctx, "the message", len))
		return -1;
	memcpy(ctx->buf, ctx->opt.message, len);
	if (lab_post_send(ctx, &wr) || lab_wait_wc(ctx, &wc))
		return -1;
	if (wc.opcode != IBV_WC_SEND)
		return lab_fail(ctx,
				"expected a SEND completion, got opcode %d",
				wc.opcode);
	return 0;
	/* END SOLUTION */
}

static int step_write(struct lab_ctx *ctx)
{
	/*
	 * TODO write: client: copy -w into ctx->buf, RDMA WRITE it to the
	 * server's advertised address and rkey (ctx->remote), wait for the
	 * completion, then tell the server with lab_send_write_done().
	 * Server: a WRITE consumes no receive and completes nothing here:
	 * wait for the notice with lab_recv_write_done().
	 * Verbs: ibv_post_send(3) (IBV_WR_RDMA_WRITE, wr.rdma).
	 * Pitfall: without the notice the server would read its buffer
	 * before the data has arrived.
	 */
	/* BEGIN SOLUTION write */
	if (!ctx->opt.host)
		return lab_recv_write_done(ctx);

	/*
	 * The grader sets LAB_WRITE_DELAY_MS on the reference client: a
	 * server that reads its buffer without waiting for the notice then
	 * reads it too early every time, not only when it wins a race.
	 */
	const char *delay = getenv("LAB_WRITE_DELAY_MS");
	if (delay)
		usleep(1000 * (strtoul(delay, NULL, 10) % 10000));

	size_t len = strlen(ctx->opt.write_msg);
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = len,
		.lkey = ctx->buf_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 3,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = ctx->remote.addr,
		.wr.rdma.rkey = ctx->remote.rkey,
	};
	struct ibv_wc wc;

	if (lab_check_fits(ctx, "the write payload", len))
		return -1;
	memcpy(ctx->buf, ctx->opt.write_msg, len);
	if (lab_post_send(ctx, &wr) || lab_wait_wc(ctx, &wc))
		return -1;
	if (wc.opcode != IBV_WC_RDMA_WRITE)
		return lab_fail(ctx,
				"expected an RDMA WRITE completion, got "
				"opcode %d",
				wc.opcode);
	return lab_send_write_done(ctx, len);
	/* END SOLUTION */
}

static int step_teardown(struct lab_ctx *ctx)
{
	/*
	 * TODO teardown: destroy what exists, in reverse order of creation:
	 * QP, MRs, CQ, completion channel, PD, device.  Check every return
	 * value, keep going after a failure, and set each pointer to NULL
	 * once its object is gone.  Runs after failures too, so any
	 * pointer may be NULL.
	 * Verbs: ibv_destroy_qp(3), ibv_dereg_mr(3), ibv_destroy_cq(3),
	 * ibv_destroy_comp_channel(3), ibv_dealloc_pd(3),
	 * ibv_close_device(3).
	 * Pitfall: ibv_dealloc_pd returns EBUSY while an MR or QP still
	 * uses the PD.
	 */
	/* BEGIN SOLUTION teardown */
	int ret, rc = 0;

	if (ctx->qp) {
		ret = ibv_destroy_qp(ctx->qp);
		if (ret)
			rc = lab_fail_verb(ctx, "ibv_destroy_qp", ret);
		else
			ctx->qp = NULL;
	}
	if (ctx->recv_mr) {
		ret = ibv_dereg_mr(ctx->recv_mr);
		if (ret)
			rc = lab_fail_verb(ctx, "ibv_dereg_mr", ret);
		else
			ctx->recv_mr = NULL;
	}
	if (ctx->buf_mr) {
		ret = ibv_dereg_mr(ctx->buf_mr);
		if (ret)
			rc = lab_fail_verb(ctx, "ibv_dereg_mr", ret);
		else
			ctx->buf_mr = NULL;
	}
	if (ctx->cq) {
		ret = ibv_destroy_cq(ctx->cq);
		if (ret)
			rc = lab_fail_verb(ctx, "ibv_destroy_cq", ret);
		else
			ctx->cq = NULL;
	}
	if (ctx->channel) {
		ret = ibv_destroy_comp_channel(ctx->channel);
		if (ret)
			rc = lab_fail_verb(ctx, "ibv_destroy_comp_channel",
					   ret);
		else
			ctx->channel = NULL;
	}
	if (ctx->pd) {
		ret = ibv_dealloc_pd(ctx->pd);
		if (ret)
			rc = lab_fail_verb(ctx, "ibv_dealloc_pd", ret);
		else
			ctx->pd = NULL;
	}
	if (ctx->verbs) {
		ret = ibv_close_device(ctx->verbs);
		if (ret)
			rc = lab_fail_verb(ctx, "ibv_close_device", ret);
		else
			ctx->verbs = NULL;
	}
	return rc;
	/* END SOLUTION */
}

/* ---------------------------------------------------------------------
 * Report lines: "lab <step> ok key=value ...", see docs/protocol.md.
 * They also catch a step that returned 0 without doing its job.
 */

static const char *lab_role(const struct lab_ctx *ctx)
{
	return ctx->opt.host ? "client" : "server";
}

static int lab_query_qp(struct lab_ctx *ctx, struct ibv_qp_attr *attr,
			enum ibv_qp_state want)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS",
					     "SQD",   "SQE",  "ERR" };
	struct ibv_qp_init_attr init;
	int ret;

	if (!ctx->qp)
		return lab_fail(ctx, "the step returned 0 but ctx->qp is NULL");
	ret = ibv_query_qp(
		ctx->qp, attr,
		IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_SQ_PSN | IBV_QP_ACCESS_FLAGS |
			IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY,
		&init);
	if (ret)
		return lab_fail_verb(ctx, "ibv_query_qp", ret);
	if (attr->qp_state != want)
		return lab_fail(ctx, "the QP is in state %s, expected %s",
				attr->qp_state <= IBV_QPS_ERR
					? names[attr->qp_state]
					: "?",
				names[want]);
	return 0;
}

static int report_open_device(struct lab_ctx *ctx)
{
	char gid[40];

	if (!ctx->verbs)
		return lab_fail(ctx, "the step returned 0 but ctx->verbs is "
				     "NULL");
	lab_format_gid(&ctx->gid, gid);
	printf("lab open_device ok role=%s dev=%s port=%d link=%s mtu=%u "
	       "lid=0x%04x gid_idx=%d gid=%s\n",
	       lab_role(ctx), ibv_get_device_name(ctx->verbs->device),
	       ctx->opt.ib_port,
	       ctx->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET
		       ? "ethernet"
		       : "infiniband",
	       lab_mtu_bytes(ctx->port_attr.active_mtu), ctx->port_attr.lid,
	       ctx->gid_idx, gid);
	return 0;
}

static int report_create_resources(struct lab_ctx *ctx)
{
	if (!ctx->pd || !ctx->channel || !ctx->cq || !ctx->buf_mr || !ctx->qp ||
	    (!ctx->opt.host && !ctx->recv_mr))
		return lab_fail(ctx, "the step returned 0 but a PD, channel, "
				     "CQ, MR or QP is missing");
	printf("lab create_resources ok qpn=0x%06x pd=0x%x cq_depth=%d "
	       "buf=0x%" PRIxPTR " len=%u lkey=0x%x rkey=0x%x",
	       ctx->qp->qp_num, ctx->pd->handle, ctx->cq->cqe,
	       (uintptr_t)ctx->buf, ctx->buf_len, ctx->buf_mr->lkey,
	       ctx->buf_mr->rkey);
	if (ctx->recv_mr)
		printf(" recv_buf=0x%" PRIxPTR " recv_len=%u recv_lkey=0x%x",
		       (uintptr_t)ctx->recv_buf, LAB_RECV_SLOTS * ctx->buf_len,
		       ctx->recv_mr->lkey);
	putchar('\n');
	return 0;
}

static int report_qp_to_init(struct lab_ctx *ctx)
{
	struct ibv_qp_attr attr;

	if (lab_query_qp(ctx, &attr, IBV_QPS_INIT))
		return -1;
	printf("lab qp_to_init ok qpn=0x%06x state=INIT port=%d "
	       "remote_write=%d\n",
	       ctx->qp->qp_num, ctx->opt.ib_port,
	       !!(attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE));
	return 0;
}

static int report_exchange(struct lab_ctx *ctx)
{
	const struct lab_dest *l = &ctx->local, *r = &ctx->remote;
	char gid[40];

	if (ctx->sock < 0 || r->mtu == 0)
		return lab_fail(ctx, "the step returned 0 but nothing was "
				     "exchanged");
	lab_format_gid(&r->gid, gid);
	printf("lab exchange ok local_qpn=0x%06x local_psn=0x%06x "
	       "remote_qpn=0x%06x remote_psn=0x%06x remote_lid=0x%04x "
	       "remote_gid=%s remote_addr=0x%" PRIx64 " remote_rkey=0x%x "
	       "remote_len=%u remote_mtu=%u\n",
	       l->qpn, l->psn, r->qpn, r->psn, r->lid, gid, r->addr, r->rkey,
	       r->len, r->mtu);
	return 0;
}

static int report_connect(struct lab_ctx *ctx)
{
	struct ibv_qp_attr a;

	if (lab_query_qp(ctx, &a, IBV_QPS_RTS))
		return -1;
	if (a.dest_qp_num != ctx->remote.qpn)
		return lab_fail(ctx,
				"dest_qpn is 0x%06x, the peer's QPN is "
				"0x%06x",
				a.dest_qp_num, ctx->remote.qpn);
	/*
	 * After the barrier the peer may already be sending, so the queried
	 * PSNs may have moved on from the starting ones: a few packets
	 * ahead is fine, anything else was set wrong.
	 */
	if (((a.rq_psn - ctx->remote.psn) & LAB_QPN_MASK) > LAB_PSN_SLACK ||
	    ((a.sq_psn - ctx->local.psn) & LAB_QPN_MASK) > LAB_PSN_SLACK)
		return lab_fail(ctx,
				"rq_psn/sq_psn are 0x%06x/0x%06x, expected "
				"the peer's 0x%06x / our 0x%06x",
				a.rq_psn, a.sq_psn, ctx->remote.psn,
				ctx->local.psn);
	a.rq_psn = ctx->remote.psn;
	a.sq_psn = ctx->local.psn;
	ctx->path_mtu = lab_mtu_bytes(a.path_mtu);
	ctx->next_psn = ctx->opt.host ? a.sq_psn : a.rq_psn;
	printf("lab connect ok state=RTS path_mtu=%u dest_qpn=0x%06x "
	       "sq_psn=0x%06x rq_psn=0x%06x grh=%d sgid_idx=%d dlid=0x%04x "
	       "timeout=%u retry_cnt=%u rnr_retry=%u\n",
	       ctx->path_mtu, a.dest_qp_num, a.sq_psn, a.rq_psn,
	       a.ah_attr.is_global,
	       a.ah_attr.is_global ? a.ah_attr.grh.sgid_index : -1,
	       a.ah_attr.dlid, a.timeout, a.retry_cnt, a.rnr_retry);
	return 0;
}

static uint32_t lab_packets(const struct lab_ctx *ctx, uint32_t len)
{
	uint32_t mtu = ctx->path_mtu ? ctx->path_mtu : 256;

	return len ? (len + mtu - 1) / mtu : 1;
}

/* Client lines show the WR that went out; server lines what arrived. */
static int lab_report_sent(struct lab_ctx *ctx, const char *step,
			   enum ibv_wr_opcode opcode)
{
	const struct lab_posted *p = &ctx->posted;

	if (p->opcode != opcode || p->len == 0)
		return lab_fail(ctx, "no matching work request went through "
				     "lab_post_send()");
	printf("lab %s ok", step);
	if (opcode == IBV_WR_RDMA_WRITE)
		printf(" remote_addr=0x%" PRIx64 " rkey=0x%x", p->remote_addr,
		       p->rkey);
	if (opcode == IBV_WR_SEND_WITH_IMM)
		printf(" imm=0x%08x", p->imm);
	if (opcode != IBV_WR_RDMA_WRITE) {
		printf(" sent=");
		lab_print_quoted((const char *)(uintptr_t)p->local_addr,
				 p->len);
	}
	printf(" len=%u dest_qpn=0x%06x psn=0x%06x packets=%u\n", p->len,
	       ctx->remote.qpn, p->psn, p->packets);
	if (opcode == IBV_WR_SEND_WITH_IMM && p->imm != ctx->opt.imm)
		return lab_fail(ctx,
				"imm_data on the wire is 0x%08x, --imm is "
				"0x%08x: use htonl()",
				p->imm, ctx->opt.imm);
	return 0;
}

static int lab_report_received(struct lab_ctx *ctx, const char *step,
			       const char *data, uint32_t len)
{
	if (len > ctx->buf_len)
		return lab_fail(ctx, "length %u exceeds the buffer", len);
	printf("lab %s ok received=", step);
	lab_print_quoted(data, len);
	printf(" len=%u", len);
	if (!strcmp(step, "send_imm"))
		printf(" imm=0x%08x", ctx->imm_received);
	if (!strcmp(step, "write"))
		printf(" addr=0x%" PRIxPTR " rkey=0x%x\n", (uintptr_t)data,
		       ctx->buf_mr->rkey);
	else
		printf(" qpn=0x%06x psn=0x%06x packets=%u\n", ctx->local.qpn,
		       ctx->next_psn, lab_packets(ctx, len));
	ctx->next_psn = (ctx->next_psn + lab_packets(ctx, len)) & LAB_QPN_MASK;
	return 0;
}

static int report_send(struct lab_ctx *ctx)
{
	if (ctx->opt.host)
		return lab_report_sent(ctx, "send", IBV_WR_SEND);
	return lab_report_received(ctx, "send", ctx->recv_buf,
				   ctx->recv_len[0]);
}

static int report_send_imm(struct lab_ctx *ctx)
{
	if (ctx->opt.host)
		return lab_report_sent(ctx, "send_imm", IBV_WR_SEND_WITH_IMM);
	return lab_report_received(ctx, "send_imm",
				   ctx->recv_buf + ctx->buf_len,
				   ctx->recv_len[1]);
}

static int report_write(struct lab_ctx *ctx)
{
	if (ctx->opt.host)
		return lab_report_sent(ctx, "write", IBV_WR_RDMA_WRITE);
	return lab_report_received(ctx, "write", ctx->buf, ctx->write_len);
}

static int report_teardown(struct lab_ctx *ctx)
{
	if (ctx->qp || ctx->recv_mr || ctx->buf_mr || ctx->cq || ctx->channel ||
	    ctx->pd || ctx->verbs)
		return lab_fail(ctx, "the step returned 0 but some objects "
				     "are still set in ctx");
	printf("lab teardown ok\n");
	return 0;
}

/* ---------------------------------------------------------------------
 * Arguments.
 */

static void lab_usage(void)
{
	printf("usage: " LAB_PROG " [options]          server\n"
	       "       " LAB_PROG " [options] HOST     client\n"
	       "  -d, --ib-dev NAME        RDMA device (default: the first)\n"
	       "  -i, --ib-port N          device port (default 1)\n"
	       "  -g, --gid-idx N          GID index (default: automatic; "
	       "RoCE v2\n"
	       "                           IPv4-mapped, none on InfiniBand)\n"
	       "  -p, --port N             TCP port of the exchange "
	       "(default %d)\n"
	       "  -m, --message TEXT       SEND payload (default \"%s\")\n"
	       "      --imm N              immediate value, decimal or 0x hex\n"
	       "                           (default 0x%08x)\n"
	       "  -w, --write-message TEXT RDMA WRITE payload\n"
	       "                           (default \"%s\")\n"
	       "  -s, --size N             buffer size in bytes (default %d)\n"
	       "  -t, --timeout S          bound on every wait, seconds "
	       "(default %d)\n"
	       "  -h, --help               this text\n",
	       LAB_DEFAULT_PORT, LAB_DEFAULT_MESSAGE, LAB_DEFAULT_IMM,
	       LAB_DEFAULT_WRITE, LAB_DEFAULT_SIZE, LAB_DEFAULT_TIMEOUT);
}

static int lab_bad_arg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int lab_bad_arg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, LAB_PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see -h)\n");
	return 2;
}

/* Decimal, or hex with 0x; no sign, no trailing junk. */
static int lab_parse_num(const char *s, unsigned long long min,
			 unsigned long long max, unsigned long long *out)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	char *end;

	if (!(hex ? isxdigit((unsigned char)*digits)
		  : isdigit((unsigned char)*digits)))
		return -1;
	errno = 0;
	*out = strtoull(digits, &end, hex ? 16 : 10);
	if (errno || *end || *out < min || *out > max)
		return -1;
	return 0;
}

/* Returns -1 to run, or the exit status (0 for -h, 2 for bad input). */
static int lab_parse_args(struct lab_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
		{ .name = "ib-port", .has_arg = 1, .val = 'i' },
		{ .name = "gid-idx", .has_arg = 1, .val = 'g' },
		{ .name = "port", .has_arg = 1, .val = 'p' },
		{ .name = "message", .has_arg = 1, .val = 'm' },
		{ .name = "imm", .has_arg = 1, .val = 'I' },
		{ .name = "write-message", .has_arg = 1, .val = 'w' },
		{ .name = "size", .has_arg = 1, .val = 's' },
		{ .name = "timeout", .has_arg = 1, .val = 't' },
		{ .name = "help", .has_arg = 0, .val = 'h' },
		{ 0 },
	};
	unsigned long long v;
	int c;

	*o = (struct lab_opts){
		.ib_port = 1,
		.gid_idx = -1,
		.tcp_port = LAB_DEFAULT_PORT,
		.message = LAB_DEFAULT_MESSAGE,
		.imm = LAB_DEFAULT_IMM,
		.write_msg = LAB_DEFAULT_WRITE,
		.size = LAB_DEFAULT_SIZE,
		.timeout = LAB_DEFAULT_TIMEOUT,
	};
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:g:p:m:w:s:t:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev_name = optarg;
			break;
		case 'i':
			if (lab_parse_num(optarg, 1, 255, &v))
				return lab_bad_arg("bad -i '%s': want 1..255",
						   optarg);
			o->ib_port = v;
			break;
		case 'g':
			if (lab_parse_num(optarg, 0, 65535, &v))
				return lab_bad_arg("bad -g '%s': want a GID "
						   "index 0..65535",
						   optarg);
			o->gid_idx = v;
			break;
		case 'p':
			if (lab_parse_num(optarg, 1, 65535, &v))
				return lab_bad_arg("bad -p '%s': want 1..65535",
						   optarg);
			o->tcp_port = v;
			break;
		case 'm':
			o->message = optarg;
			break;
		case 'I':
			if (lab_parse_num(optarg, 0, UINT32_MAX, &v))
				return lab_bad_arg("bad --imm '%s': want a "
						   "32-bit value (0x.. or "
						   "decimal)",
						   optarg);
			o->imm = v;
			break;
		case 'w':
			o->write_msg = optarg;
			break;
		case 's':
			if (lab_parse_num(optarg, 1, LAB_MAX_BUF, &v))
				return lab_bad_arg("bad -s '%s': want 1..%u",
						   optarg, LAB_MAX_BUF);
			o->size = v;
			break;
		case 't':
			if (lab_parse_num(optarg, 1, LAB_MAX_TIMEOUT, &v))
				return lab_bad_arg("bad -t '%s': want 1..%d "
						   "seconds",
						   optarg, LAB_MAX_TIMEOUT);
			o->timeout = v;
			break;
		case 'h':
			lab_usage();
			return 0;
		case ':':
			return lab_bad_arg("option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return lab_bad_arg("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return lab_bad_arg("unexpected argument '%s'",
				   argv[optind + 1]);
	o->host = optind < argc ? argv[optind] : NULL;
	if (!*o->message || !*o->write_msg)
		return lab_bad_arg("-m and -w must not be empty");
	if (o->host && strlen(o->message) > o->size)
		return lab_bad_arg("-m is %zu bytes, larger than -s %u",
				   strlen(o->message), o->size);
	if (o->host && strlen(o->write_msg) > o->size)
		return lab_bad_arg("-w is %zu bytes, larger than -s %u",
				   strlen(o->write_msg), o->size);
	return -1;
}

/* ---------------------------------------------------------------------
 * main: the steps in order; teardown whenever a device was opened.
 */

#ifndef LAB_NO_MAIN
static const struct {
	const char *name;
	int (*run)(struct lab_ctx *ctx);
	int (*report)(struct lab_ctx *ctx);
} lab_steps[] = {
	{ "open_device", step_open_device, report_open_device },
	{ "create_resources", step_create_resources, report_create_resources },
	{ "qp_to_init", step_qp_to_init, report_qp_to_init },
	{ "exchange", step_exchange, report_exchange },
	{ "connect", step_connect, report_connect },
	{ "send", step_send, report_send },
	{ "send_imm", step_send_imm, report_send_imm },
	{ "write", step_write, report_write },
};

int main(int argc, char **argv)
{
	struct lab_ctx ctx = { .sock = -1, .gid_idx = -1 };
	bool ok = true;
	size_t i;
	int ret;

	ret = lab_parse_args(&ctx.opt, argc, argv);
	if (ret >= 0)
		return ret;
	/* Keep stdout and stderr in order when both go to one pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);

	ctx.buf_len = ctx.opt.size;
	if (posix_memalign((void **)&ctx.buf, 4096, ctx.buf_len) ||
	    posix_memalign((void **)&ctx.recv_buf, 4096,
			   LAB_RECV_SLOTS * ctx.buf_len)) {
		fprintf(stderr, LAB_PROG ": out of memory\n");
		free(ctx.buf);
		return 1;
	}
	memset(ctx.buf, 0, ctx.buf_len);
	memset(ctx.recv_buf, 0, LAB_RECV_SLOTS * ctx.buf_len);

	for (i = 0; ok && i < sizeof(lab_steps) / sizeof(lab_steps[0]); i++) {
		ctx.step = lab_steps[i].name;
		ok = !lab_steps[i].run(&ctx) && !lab_steps[i].report(&ctx);
	}
	if (ctx.verbs) {
		ctx.step = "teardown";
		if (step_teardown(&ctx) || report_teardown(&ctx))
			ok = false;
	}
	if (ctx.sock >= 0)
		close(ctx.sock);
	free(ctx.recv_buf);
	free(ctx.buf);
	return ok ? 0 : 1;
}
#endif

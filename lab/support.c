/*
 * support.c: the helpers a step may call (declared and documented in
 * lab.h): messages and hints, the GID choice, the exchange message and
 * its TCP transport, posting and waiting.  Not the student's file: the
 * grader always links this project's own copy.  The exchange message and
 * the TCP bytes are described in docs/protocol.md.
 */
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
#include "lab.h"

/* ---------------------------------------------------------------------
 * Messages.  Failures go to stderr as "lab <step> FAIL: ... code=NAME",
 * NAME from lab/codes.h.
 */

static const char *const lab_code_names[] = {
	[LAB_CODE_NONE] = "NONE",
#define LAB_CODE(name)	[LAB_CODE_##name] = #name,
#define LAB_WC(name)	[LAB_CODE_WC_##name] = "WC_" #name,
#define LAB_ERRNO(name) [LAB_CODE_ERRNO_##name] = "ERRNO_" #name,
#include "codes.h"
#undef LAB_CODE
#undef LAB_WC
#undef LAB_ERRNO
};

static const char *lab_code_name(enum lab_code code)
{
	size_t n = sizeof(lab_code_names) / sizeof(lab_code_names[0]);

	return (size_t)code < n ? lab_code_names[code] : "NONE";
}

/* The code of a completion status, or of an errno value. */
static enum lab_code lab_wc_code(enum ibv_wc_status status)
{
	switch (status) {
#define LAB_CODE(name)
#define LAB_WC(name)                                                           \
	case IBV_WC_##name:                                                    \
		return LAB_CODE_WC_##name;
#define LAB_ERRNO(name)
#include "codes.h"
#undef LAB_CODE
#undef LAB_WC
#undef LAB_ERRNO
	default:
		return LAB_CODE_WC_OTHER;
	}
}

static enum lab_code lab_errno_code(int err)
{
	switch (err) {
#define LAB_CODE(name)
#define LAB_WC(name)
#define LAB_ERRNO(name)                                                        \
	case name:                                                             \
		return LAB_CODE_ERRNO_##name;
#include "codes.h"
#undef LAB_CODE
#undef LAB_WC
#undef LAB_ERRNO
	default:
		return LAB_CODE_ERRNO_OTHER;
	}
}

static int lab_vfail(struct lab_ctx *ctx, enum lab_code code, const char *fmt,
		     va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "lab %s FAIL: ", ctx->step);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " code=%s\n", lab_code_name(code));
	return -1;
}

int lab_fail_code(struct lab_ctx *ctx, enum lab_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lab_vfail(ctx, code, fmt, ap);
	va_end(ap);
	return -1;
}

int lab_fail(struct lab_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lab_vfail(ctx, LAB_CODE_STUDENT, fmt, ap);
	va_end(ap);
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
	lab_fail_code(ctx, LAB_CODE_TODO, "TODO %s is not implemented", name);
	lab_hint(ctx, "read the TODO %s comment in lab/main.c", name);
	return -1;
}

/*
 * The hint follows the verb's identity, not its spelling: what only has
 * to contain the verb's name ("ibv_modify_qp", "modify_qp to RTR", ...),
 * and a failed ibv_modify_qp is told apart by the state the QP is still
 * in, since a refused transition leaves it where it was.
 */
static bool lab_is(const char *what, const char *verb)
{
	return strstr(what, verb) != NULL;
}

static enum ibv_qp_state lab_target_state(struct lab_ctx *ctx)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	if (!ctx->qp || ibv_query_qp(ctx->qp, &attr, IBV_QP_STATE, &init))
		return IBV_QPS_ERR;
	switch (attr.qp_state) {
	case IBV_QPS_RESET:
		return IBV_QPS_INIT;
	case IBV_QPS_INIT:
		return IBV_QPS_RTR;
	case IBV_QPS_RTR:
		return IBV_QPS_RTS;
	default:
		return IBV_QPS_ERR;
	}
}

static bool lab_is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	       op == IBV_WR_ATOMIC_CMP_AND_SWP;
}

/* -i names no port of the device: say how many it has, when it is open. */
static void lab_hint_port(struct lab_ctx *ctx)
{
	struct ibv_device_attr attr;

	if (ctx->verbs && !ibv_query_device(ctx->verbs, &attr))
		lab_hint(ctx,
			 "-i %d: %s has %d port(s), numbered from 1; leave "
			 "-i out for port 1 (ibv_devinfo lists them)",
			 ctx->opt.ib_port,
			 ibv_get_device_name(ctx->verbs->device),
			 attr.phys_port_cnt);
	else
		lab_hint(ctx,
			 "-i %d: no such port on this device; ports are "
			 "numbered from 1 (rxe has only port 1; ibv_devinfo "
			 "lists them)",
			 ctx->opt.ib_port);
}

/* A failed verb or system call: err is the errno value it reported. */
int lab_fail_verb(struct lab_ctx *ctx, const char *what, int err)
{
	enum ibv_qp_state to = IBV_QPS_ERR;

	lab_fail_code(ctx, lab_errno_code(err), "%s failed: %s (errno %d)",
		      what, strerror(err), err);
	if (lab_is(what, "modify_qp"))
		to = lab_target_state(ctx);
	if (lab_is(what, "get_device_list") && err == ENOSYS)
		lab_hint(ctx, "this kernel has no RDMA support: run inside "
			      "the lab VMs");
	else if (lab_is(what, "query_port") && err == EINVAL)
		lab_hint_port(ctx);
	else if (lab_is(what, "reg_mr") && (err == ENOMEM || err == EPERM))
		lab_hint(ctx, "registration pins memory: raise the memlock "
			      "limit (ulimit -l)");
	else if (lab_is(what, "create_qp") && err == EINVAL)
		lab_hint(ctx, "a capability exceeds the device limits "
			      "(max_send_wr, max_inline_data; ibv_devinfo -v)");
	else if (to == IBV_QPS_RTR && err == ETIMEDOUT)
		lab_hint(ctx, "destination GID not resolvable: wrong GID "
			      "index (fe80::?) or peer unreachable");
	else if (to == IBV_QPS_RTR && err == EINVAL)
		lab_hint(ctx, "RTR needs STATE, AV (ah_attr.port_num, GRH on "
			      "RoCE), PATH_MTU, DEST_QPN, RQ_PSN, "
			      "MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER");
	else if (to == IBV_QPS_RTS && err == EINVAL)
		lab_hint(ctx, "RTS needs STATE, SQ_PSN, TIMEOUT (<= 31), "
			      "RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC");
	else if (to == IBV_QPS_INIT && err == EINVAL)
		lab_hint(ctx, "INIT needs STATE, PKEY_INDEX, PORT, "
			      "ACCESS_FLAGS");
	else if (lab_is(what, "post_send") && err == EINVAL &&
		 lab_is_atomic(ctx->posted.opcode) &&
		 ctx->posted.remote_addr % 8)
		lab_hint(ctx,
			 "the atomic's remote address 0x%" PRIx64
			 " is not 8-byte aligned",
			 ctx->posted.remote_addr);
	else if (lab_is(what, "post") && err == EINVAL)
		lab_hint(ctx, "bad work request (num_sge above the QP's cap, "
			      "opcode) or the QP is not in a state that "
			      "accepts it");
	else if (lab_is(what, "post") && err == ENOMEM)
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
		lab_fail_code(ctx, LAB_CODE_NO_DEVICE, "no RDMA devices found");
		lab_hint(ctx, "load rdma_rxe and run 'rdma link add rxe0 type "
			      "rxe netdev eth0'");
		return -1;
	}
	for (i = 0; i < n && used < sizeof(names); i++)
		used += snprintf(names + used, sizeof(names) - used, "%s%s",
				 i ? ", " : "", ibv_get_device_name(list[i]));
	return lab_fail_code(ctx, LAB_CODE_NO_DEVICE,
			     "device '%s' not found; devices here: %s",
			     ctx->opt.dev_name, names);
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

enum lab_code lab_wire_decode(const void *buf, size_t len, struct lab_dest *out,
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
		return LAB_CODE_EXCH_SIZE;
	}
	magic = lab_get32(p);
	if (magic != LAB_WIRE_MAGIC) {
		snprintf(err, errlen,
			 "bad magic 0x%08x (expected 0x%08x \"RLAB\"): is the "
			 "peer an rdma-lab?",
			 magic, LAB_WIRE_MAGIC);
		return LAB_CODE_EXCH_MAGIC;
	}
	memcpy(&v16, p + 4, 2);
	if (ntohs(v16) != LAB_WIRE_VERSION) {
		snprintf(err, errlen,
			 "exchange version %u not supported (expected %d)",
			 ntohs(v16), LAB_WIRE_VERSION);
		return LAB_CODE_EXCH_VERSION;
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
		return d.qpn > LAB_QPN_MASK ? LAB_CODE_EXCH_QPN
					    : LAB_CODE_EXCH_PSN;
	}
	if (d.len == 0 || d.len > LAB_MAX_BUF || d.addr + d.len < d.addr) {
		snprintf(err, errlen,
			 "buffer length %u out of range (1..%u, no wrap)",
			 d.len, LAB_MAX_BUF);
		return LAB_CODE_EXCH_LEN;
	}
	if (!lab_mtu_enum(d.mtu)) {
		snprintf(err, errlen,
			 "MTU %u is not one of 256, 512, 1024, 2048, 4096",
			 d.mtu);
		return LAB_CODE_EXCH_MTU;
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
		return lab_fail_code(ctx, LAB_CODE_MISUSE,
				     "no TCP connection (call lab_tcp_open())");
	while (len > 0) {
		struct pollfd pfd = {
			.fd = ctx->sock,
			.events = out ? POLLOUT : POLLIN,
		};
		int64_t left = deadline - lab_now_ms();
		ssize_t n;

		if (left <= 0)
			return lab_fail_code(ctx, LAB_CODE_PEER_SILENT,
					     "peer sent no %s within %d s",
					     what, ctx->opt.timeout);
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return lab_fail_verb(ctx, "poll", errno);
		if (out)
			n = send(ctx->sock, p, len, MSG_NOSIGNAL);
		else
			n = recv(ctx->sock, p, len, 0);
		if (n == 0)
			return lab_fail_code(
				ctx, LAB_CODE_PEER_CLOSED,
				"peer closed the connection before "
				"the %s (it failed or exited)",
				what);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return lab_fail_code(ctx, lab_errno_code(errno),
					     "TCP %s of the %s failed: %s",
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
		return lab_fail_code(ctx, lab_errno_code(errno),
				     "cannot listen on TCP port %d: %s",
				     ctx->opt.tcp_port, strerror(errno));
	do
		n = poll(&pfd, 1, ctx->opt.timeout * 1000);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		ctx->sock = accept4(pfd.fd, NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC);
	close(pfd.fd);
	if (n == 0)
		return lab_fail_code(ctx, LAB_CODE_NO_CLIENT,
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

/* The server may still be starting: retry until -t runs out, often (a
 * grading run starts the client with the server). */
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
		return lab_fail_code(ctx, LAB_CODE_RESOLVE,
				     "cannot resolve '%s': %s", ctx->opt.host,
				     gai_strerror(ret));
	for (;;) {
		for (ai = res; ai && ctx->sock < 0; ai = ai->ai_next)
			ctx->sock = lab_try_connect(ai, deadline);
		if (ctx->sock >= 0 || lab_now_ms() + 50 >= deadline)
			break;
		usleep(50 * 1000);
	}
	freeaddrinfo(res);
	if (ctx->sock < 0)
		return lab_fail_code(ctx, LAB_CODE_NO_SERVER,
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
	enum lab_code code;
	char err[160];

	lab_wire_encode(&ctx->local, msg);
	/* 52 bytes fit in any socket buffer: both sides may send first. */
	if (lab_io(ctx, true, msg, sizeof(msg), "exchange message") ||
	    lab_io(ctx, false, msg, sizeof(msg), "exchange message"))
		return -1;
	code = lab_wire_decode(msg, sizeof(msg), &ctx->remote, err,
			       sizeof(err));
	if (code)
		return lab_fail_code(ctx, code,
				     "rejected the peer's message: %s", err);
	return 0;
}

/*
 * Both sides: "my QP is in RTS"; returns once the peer said the same.
 * The grader's guest kernel records every TCP send next to the verbs
 * calls (grader/guest/probes.c): whether the receives were posted before
 * this byte told the peer it may send, and whether the WRITE had
 * completed before the write notice, are read from the order of events,
 * not left to the timing of one run.
 */
int lab_barrier(struct lab_ctx *ctx)
{
	uint8_t c = LAB_SYNC_READY;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	/*
	 * The peer sends only once it has our ready byte: the QP's state
	 * now is what the step made of it, whatever the peer's requests do
	 * to it later (one the QP refuses moves it to ERR).
	 */
	if (ctx->barrier_qp_state < 0 && ctx->qp &&
	    !ibv_query_qp(ctx->qp, &attr, IBV_QP_STATE, &init))
		ctx->barrier_qp_state = attr.qp_state;
	if (lab_io(ctx, true, &c, 1, "ready byte") ||
	    lab_io(ctx, false, &c, 1, "ready byte"))
		return -1;
	if (c != LAB_SYNC_READY)
		return lab_fail_code(ctx, LAB_CODE_BAD_SYNC,
				     "expected ready byte 0x%02x, got 0x%02x",
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
		return lab_fail_code(ctx, LAB_CODE_BAD_SYNC,
				     "expected write notice 0x%02x, got 0x%02x",
				     LAB_SYNC_WRITE, msg[0]);
	if (len > ctx->buf_len)
		return lab_fail_code(
			ctx, LAB_CODE_BAD_SYNC,
			"write notice says %u bytes, buffer has %u", len,
			ctx->buf_len);
	ctx->write_len = len;
	return 0;
}

static void lab_put64(uint8_t *p, uint64_t v)
{
	lab_put32(p, v >> 32);
	lab_put32(p + 4, (uint32_t)v);
}

static uint64_t lab_get64(const uint8_t *p)
{
	return (uint64_t)lab_get32(p) << 32 | lab_get32(p + 4);
}

/* Server: "the atomic word is at addr and now holds start". */
int lab_send_atomic_target(struct lab_ctx *ctx, uint64_t addr, uint64_t start)
{
	uint8_t msg[17] = { LAB_SYNC_TARGET };

	lab_put64(msg + 1, addr);
	lab_put64(msg + 9, start);
	return lab_io(ctx, true, msg, sizeof(msg), "atomic target");
}

/* Client: sets ctx->atomic_addr and ctx->atomic_start. */
int lab_recv_atomic_target(struct lab_ctx *ctx)
{
	uint8_t msg[17];

	if (lab_io(ctx, false, msg, sizeof(msg), "atomic target"))
		return -1;
	if (msg[0] != LAB_SYNC_TARGET)
		return lab_fail_code(
			ctx, LAB_CODE_BAD_SYNC,
			"expected atomic target 0x%02x, got 0x%02x",
			LAB_SYNC_TARGET, msg[0]);
	ctx->atomic_addr = lab_get64(msg + 1);
	ctx->atomic_start = lab_get64(msg + 9);
	return 0;
}

/* Client: "my atomics have completed". */
int lab_send_atomic_done(struct lab_ctx *ctx)
{
	uint8_t c = LAB_SYNC_ATOMIC;

	return lab_io(ctx, true, &c, 1, "atomic notice");
}

/* Server: wait for the client's notice. */
int lab_recv_atomic_done(struct lab_ctx *ctx)
{
	uint8_t c;

	if (lab_io(ctx, false, &c, 1, "atomic notice"))
		return -1;
	if (c != LAB_SYNC_ATOMIC)
		return lab_fail_code(
			ctx, LAB_CODE_BAD_SYNC,
			"expected atomic notice 0x%02x, got 0x%02x",
			LAB_SYNC_ATOMIC, c);
	return 0;
}

/* The reference client's wait before the data it sends (lab.h). */
void lab_ref_delay(void)
{
	const char *ms = getenv("LAB_REF_DELAY_MS");

	if (ms)
		usleep(1000 * (strtoul(ms, NULL, 10) % 10000));
}

/* The reference client's swap value (lab.h): drawn once per process. */
uint64_t lab_ref_swap(void)
{
	static uint64_t swap;
	static int drawn;
	const char *how = getenv("LAB_REF_SWAP");

	if (!how || strcmp(how, "random"))
		return LAB_ATOMIC_SWAP;
	/* getrandom(2) blocks until the kernel's pool is ready, and then
	 * does not fail for 8 bytes. */
	if (!drawn && getrandom(&swap, sizeof(swap), 0) != sizeof(swap))
		swap = LAB_ATOMIC_SWAP;
	drawn = 1;
	return swap;
}

/* ---------------------------------------------------------------------
 * Work requests and completions.
 */

/* Refuse a payload the local or the peer's buffer cannot hold. */
int lab_check_fits(struct lab_ctx *ctx, const char *what, size_t len)
{
	if (len > ctx->buf_len)
		return lab_fail_code(ctx, LAB_CODE_BUF_TOO_SMALL,
				     "%s is %zu bytes, larger than the local "
				     "buffer (%u, -s)",
				     what, len, ctx->buf_len);
	if (len > ctx->remote.len)
		return lab_fail_code(ctx, LAB_CODE_BUF_TOO_SMALL,
				     "%s is %zu bytes, larger than the peer's "
				     "buffer (%u)",
				     what, len, ctx->remote.len);
	return 0;
}

/* ibv_post_send(3), remembering the request for the report and hints. */
int lab_post_send(struct lab_ctx *ctx, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad, *w;
	uint32_t mtu = ctx->path_mtu ? ctx->path_mtu : 256, psn;
	int i, ret;

	if (!ctx->qp)
		return lab_fail_code(ctx, LAB_CODE_MISUSE,
				     "lab_post_send: ctx->qp is NULL");
	/*
	 * A list of requests (chained through next) goes out in order: the
	 * report and the hints are about its last one, and each request
	 * takes its own PSNs.
	 */
	psn = ctx->next_psn;
	for (w = wr; w; w = w->next) {
		uint32_t len = 0, span;

		for (i = 0; i < w->num_sge; i++)
			len += w->sg_list[i].length;
		span = len ? (len + mtu - 1) / mtu : 1;
		ctx->posted = (struct lab_posted){
			.opcode = w->opcode,
			.local_addr = w->num_sge ? w->sg_list[0].addr : 0,
			.len = len,
			.remote_addr = w->wr.rdma.remote_addr,
			.rkey = w->wr.rdma.rkey,
			.imm = ntohl(w->imm_data),
			.psn = psn,
			.packets = span,
		};
		/* A READ request is one packet, but its responses use span
		 * PSNs. */
		if (w->opcode == IBV_WR_RDMA_READ)
			ctx->posted.packets = 1;
		/* Atomics keep their rkey elsewhere in the union. */
		if (lab_is_atomic(w->opcode)) {
			ctx->posted.remote_addr = w->wr.atomic.remote_addr;
			ctx->posted.rkey = w->wr.atomic.rkey;
			ctx->posted.compare_add = w->wr.atomic.compare_add;
			ctx->posted.swap = w->wr.atomic.swap;
			ctx->posted.packets = span = 1;
		}
		psn = (psn + span) & LAB_QPN_MASK;
	}
	ret = ibv_post_send(ctx->qp, wr, &bad);
	if (ret)
		return lab_fail_verb(ctx, "ibv_post_send", ret);
	ctx->next_psn = psn;
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
		if (p->opcode == IBV_WR_RDMA_READ)
			lab_hint(ctx, "wrong rkey or address, or REMOTE_READ "
				      "missing on the peer's MR");
		else if (lab_is_atomic(p->opcode))
			lab_hint(ctx, "wrong rkey or address, or "
				      "REMOTE_ATOMIC missing on the peer's MR");
		else if (p->opcode != IBV_WR_RDMA_WRITE &&
			 p->opcode != IBV_WR_RDMA_WRITE_WITH_IMM)
			lab_hint(ctx, "wrong rkey or address, or REMOTE_WRITE "
				      "missing on the peer's MR");
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
				 "is missing on its MR",
				 p->rkey, p->remote_addr, p->len);
		break;
	case IBV_WC_LOC_PROT_ERR:
		if (p->opcode == IBV_WR_RDMA_READ || lab_is_atomic(p->opcode))
			lab_hint(ctx, "the response is written into the SGE: "
				      "its MR needs IBV_ACCESS_LOCAL_WRITE "
				      "(and the lkey, not the rkey)");
		else
			lab_hint(ctx, "lkey wrong (rkey used?) or the SGE lies "
				      "outside the MR");
		break;
	case IBV_WC_LOC_LEN_ERR:
		lab_hint(ctx, "the incoming message is larger than the posted "
			      "receive buffer");
		break;
	case IBV_WC_REM_INV_REQ_ERR:
		if (lab_is_atomic(p->opcode) && p->remote_addr % 8)
			lab_hint(ctx,
				 "the atomic's remote address 0x%" PRIx64
				 " is not 8-byte aligned",
				 p->remote_addr);
		else if (p->opcode == IBV_WR_RDMA_READ ||
			 lab_is_atomic(p->opcode))
			lab_hint(ctx,
				 "the peer's QP refused it: %s missing "
				 "in its qp_access_flags (INIT), or its "
				 "RTR max_dest_rd_atomic is 0",
				 p->opcode == IBV_WR_RDMA_READ
					 ? "REMOTE_READ"
					 : "REMOTE_ATOMIC");
		else if (p->opcode == IBV_WR_RDMA_WRITE ||
			 p->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
			lab_hint(ctx, "the peer's QP refused it: REMOTE_WRITE "
				      "missing in its qp_access_flags (INIT)");
		else
			lab_hint(ctx, "the peer's QP refused it: packets "
				      "larger than its path MTU (RTR)");
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

/* A READ or atomic with no credits stays queued: nothing goes out. */
static void lab_timeout_hint(struct lab_ctx *ctx)
{
	enum ibv_wr_opcode op = ctx->posted.opcode;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ctx->opt.host && ctx->qp &&
	    (op == IBV_WR_RDMA_READ || lab_is_atomic(op)) &&
	    !ibv_query_qp(ctx->qp, &attr, IBV_QP_MAX_QP_RD_ATOMIC, &init) &&
	    attr.max_rd_atomic == 0)
		lab_hint(ctx, "max_rd_atomic is 0 (RTS): the QP may have no "
			      "READ or atomic in flight, so it never sent it");
	else
		lab_hint(ctx, "the peer is silent or stuck; check its "
			      "output");
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
		return lab_fail_code(
			ctx, LAB_CODE_MISUSE,
			"lab_wait_wc needs ctx->cq and its ctx->channel");

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
			return lab_fail_code(ctx, LAB_CODE_POLL_CQ,
					     "ibv_poll_cq failed (%d)", n);
		if (n == 1)
			break;
		if (peer_gone)
			return lab_fail_code(ctx, LAB_CODE_PEER_CLOSED,
					     "peer closed the TCP connection "
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
			lab_fail_code(ctx, LAB_CODE_NO_COMPLETION,
				      "no completion within %d s",
				      ctx->opt.timeout);
			lab_timeout_hint(ctx);
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
		lab_fail_code(ctx, lab_wc_code(wc->status),
			      "completion with status %s (%d), wr_id %" PRIu64
			      ", vendor_err 0x%x",
			      ibv_wc_status_str(wc->status), wc->status,
			      wc->wr_id, wc->vendor_err);
		lab_wc_hint(ctx, wc->status);
		return -1;
	}
	return 0;
}

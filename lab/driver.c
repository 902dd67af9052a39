/*
 * driver.c: rdma-lab's main().  Parses the options, runs the steps of
 * lab/main.c in the order of steps.h and, after each, prints its report
 * line "lab <step> ok key=value ..." (docs/protocol.md), checking that the
 * step really did its job: a step that returns 0 without creating its
 * objects or reaching its QP state fails here.  Teardown runs whenever a
 * device was opened.  Not the student's file: the grader always links
 * this project's own copy.
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
 * Report lines: "lab <step> ok key=value ...", see docs/protocol.md.
 * They also catch a step that returned 0 without doing its job.
 */

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

static const char *lab_role(const struct lab_ctx *ctx)
{
	return ctx->opt.host ? "client" : "server";
}

/* The QP's attributes; fails unless it is in state want (-1: any). */
static int lab_query_qp(struct lab_ctx *ctx, struct ibv_qp_attr *attr, int want)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS",
					     "SQD",   "SQE",  "ERR" };
	struct ibv_qp_init_attr init;
	int ret;

	if (!ctx->qp)
		return lab_fail_code(ctx, LAB_CODE_NOT_DONE,
				     "the step returned 0 but ctx->qp is NULL");
	ret = ibv_query_qp(ctx->qp, attr,
			   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_SQ_PSN | IBV_QP_ACCESS_FLAGS |
				   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				   IBV_QP_RNR_RETRY | IBV_QP_MAX_DEST_RD_ATOMIC,
			   &init);
	if (ret)
		return lab_fail_verb(ctx, "ibv_query_qp", ret);
	if (want >= 0 && attr->qp_state != (enum ibv_qp_state)want)
		return lab_fail_code(ctx, LAB_CODE_QP_STATE,
				     "the QP is in state %s, expected %s",
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
		return lab_fail_code(ctx, LAB_CODE_NOT_DONE,
				     "the step returned 0 but ctx->verbs is "
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
		return lab_fail_code(ctx, LAB_CODE_NOT_DONE,
				     "the step returned 0 but a PD, channel, "
				     "CQ, MR or QP is missing");
	/* Caught here, or lab_wait_wc() would wait or not depending on
	 * whether a completion was already there when it first polled. */
	if (ctx->cq->channel != ctx->channel)
		return lab_fail_code(ctx, LAB_CODE_CQ_CHANNEL,
				     "ctx->cq was not created on ctx->channel: "
				     "nothing would wake lab_wait_wc()");
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
		return lab_fail_code(ctx, LAB_CODE_NOT_DONE,
				     "the step returned 0 but nothing was "
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

/*
 * The state a step that began with a barrier must find: RTS, or any when
 * the QP was in RTS at the barrier.  After it, a request of the peer's
 * that the QP refuses (a wrong rkey) may already have moved it to ERR,
 * which is that request's step's failure, not this one's.
 */
static int lab_want_rts(const struct lab_ctx *ctx)
{
	return ctx->barrier_qp_state == IBV_QPS_RTS ? -1 : IBV_QPS_RTS;
}

static int report_connect(struct lab_ctx *ctx)
{
	struct ibv_qp_attr a;

	if (lab_query_qp(ctx, &a, lab_want_rts(ctx)))
		return -1;
	if (a.dest_qp_num != ctx->remote.qpn)
		return lab_fail_code(ctx, LAB_CODE_DEST_QPN,
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
		return lab_fail_code(
			ctx, LAB_CODE_PSN,
			"rq_psn/sq_psn are 0x%06x/0x%06x, expected "
			"the peer's 0x%06x / our 0x%06x",
			a.rq_psn, a.sq_psn, ctx->remote.psn, ctx->local.psn);
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

static bool lab_has_imm(enum ibv_wr_opcode opcode)
{
	return opcode == IBV_WR_SEND_WITH_IMM ||
	       opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * The client's last work request was an opcode one, with the immediate
 * of --imm.  Every check of a step comes before its line: a step prints
 * "ok" or "FAIL", never both (docs/protocol.md).
 */
static int lab_check_sent(struct lab_ctx *ctx, enum ibv_wr_opcode opcode)
{
	const struct lab_posted *p = &ctx->posted;

	if (p->opcode != opcode || p->len == 0)
		return lab_fail_code(ctx, LAB_CODE_NO_WR,
				     "no matching work request went through "
				     "lab_post_send()");
	if (lab_has_imm(opcode) && p->imm != ctx->opt.imm)
		return lab_fail_code(ctx, LAB_CODE_IMM_ORDER,
				     "imm_data on the wire is 0x%08x, --imm is "
				     "0x%08x: use htonl()",
				     p->imm, ctx->opt.imm);
	return 0;
}

/* Client lines show the WR that went out; server lines what arrived.
 * The caller has run lab_check_sent(). */
static int lab_report_sent(struct lab_ctx *ctx, const char *step,
			   enum ibv_wr_opcode opcode)
{
	const struct lab_posted *p = &ctx->posted;
	bool rdma = opcode != IBV_WR_SEND && opcode != IBV_WR_SEND_WITH_IMM;
	bool imm = lab_has_imm(opcode);

	printf("lab %s ok", step);
	if (rdma)
		printf(" remote_addr=0x%" PRIx64 " rkey=0x%x", p->remote_addr,
		       p->rkey);
	if (imm)
		printf(" imm=0x%08x", p->imm);
	/* A WRITE's bytes are on the server's line; a READ's come back. */
	if (!rdma || opcode == IBV_WR_RDMA_READ) {
		printf(opcode == IBV_WR_RDMA_READ ? " read=" : " sent=");
		lab_print_quoted((const char *)(uintptr_t)p->local_addr,
				 p->len);
	}
	printf(" len=%u dest_qpn=0x%06x psn=0x%06x packets=%u\n", p->len,
	       ctx->remote.qpn, p->psn, p->packets);
	return 0;
}

static int lab_report_received(struct lab_ctx *ctx, const char *step,
			       const char *data, uint32_t len)
{
	if (len > ctx->buf_len)
		return lab_fail_code(ctx, LAB_CODE_RECV_LEN,
				     "length %u exceeds the buffer", len);
	printf("lab %s ok received=", step);
	lab_print_quoted(data, len);
	printf(" len=%u", len);
	if (!strcmp(step, "send_imm"))
		printf(" imm=0x%08x", ctx->imm_received);
	if (!strcmp(step, "write_imm"))
		printf(" imm=0x%08x", ctx->write_imm_imm);
	if (!strcmp(step, "write") || !strcmp(step, "write_imm"))
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
		return lab_check_sent(ctx, IBV_WR_SEND)
			       ?: lab_report_sent(ctx, "send", IBV_WR_SEND);
	return lab_report_received(ctx, "send", ctx->recv_buf,
				   ctx->recv_len[0]);
}

static int report_send_imm(struct lab_ctx *ctx)
{
	if (ctx->opt.host)
		return lab_check_sent(ctx, IBV_WR_SEND_WITH_IMM)
			       ?: lab_report_sent(ctx, "send_imm",
						  IBV_WR_SEND_WITH_IMM);
	return lab_report_received(ctx, "send_imm",
				   ctx->recv_buf + ctx->buf_len,
				   ctx->recv_len[1]);
}

static int report_write(struct lab_ctx *ctx)
{
	if (ctx->opt.host)
		return lab_check_sent(ctx, IBV_WR_RDMA_WRITE)
			       ?: lab_report_sent(ctx, "write",
						  IBV_WR_RDMA_WRITE);
	return lab_report_received(ctx, "write", ctx->buf, ctx->write_len);
}

static int report_read(struct lab_ctx *ctx)
{
	const char *want = ctx->opt.write_msg;
	size_t len = strlen(want);
	struct ibv_qp_attr a;

	if (!ctx->opt.host) {
		/*
		 * The device serves the READ; the server only allowed it.
		 * The client's WRITE with immediate follows with no barrier.
		 */
		if (lab_query_qp(ctx, &a, lab_want_rts(ctx)))
			return -1;
		printf("lab read ok remote_read=%d max_dest_rd_atomic=%u\n",
		       !!(a.qp_access_flags & IBV_ACCESS_REMOTE_READ),
		       a.max_dest_rd_atomic);
		return 0;
	}
	if (lab_check_sent(ctx, IBV_WR_RDMA_READ))
		return -1;
	if (ctx->read_len != len || memcmp(ctx->buf, want, len))
		return lab_fail_code(
			ctx, LAB_CODE_READ_DATA,
			"ctx->buf does not hold the %zu bytes of -w "
			"after the READ (ctx->read_len %u)",
			len, ctx->read_len);
	return lab_report_sent(ctx, "read", IBV_WR_RDMA_READ);
}

static int report_write_imm(struct lab_ctx *ctx)
{
	if (ctx->opt.host)
		return lab_check_sent(ctx, IBV_WR_RDMA_WRITE_WITH_IMM)
			       ?: lab_report_sent(ctx, "write_imm",
						  IBV_WR_RDMA_WRITE_WITH_IMM);
	return lab_report_received(ctx, "write_imm", ctx->buf,
				   ctx->write_imm_len);
}

static int report_atomic(struct lab_ctx *ctx)
{
	const struct lab_posted *p = &ctx->posted;
	uint64_t start = ctx->atomic_start, added = start + LAB_ATOMIC_ADD;

	if (!ctx->opt.host) {
		/* Not a test against LAB_ATOMIC_SWAP: the grader's reference
		 * client swaps in a value of its own (lab_ref_swap()), and
		 * the grader compares final with it. */
		if (ctx->atomic_final == start || ctx->atomic_final == added)
			return lab_fail_code(
				ctx, LAB_CODE_ATOMIC_FINAL,
				"the word holds 0x%016" PRIx64
				", the start%s: the client's atomics had "
				"not both landed when it was read",
				ctx->atomic_final,
				ctx->atomic_final == start
					? ""
					: " + LAB_ATOMIC_ADD");
		printf("lab atomic ok addr=0x%" PRIx64 " start=0x%016" PRIx64
		       " final=0x%016" PRIx64 "\n",
		       ctx->atomic_addr, start, ctx->atomic_final);
		return 0;
	}
	if (p->opcode != IBV_WR_ATOMIC_CMP_AND_SWP)
		return lab_fail_code(ctx, LAB_CODE_NO_WR,
				     "the last work request through "
				     "lab_post_send() was not the "
				     "compare-and-swap");
	if (ctx->atomic_orig[0] != start || ctx->atomic_orig[1] != added)
		return lab_fail_code(
			ctx, LAB_CODE_ATOMIC_ORIG,
			"the atomics returned 0x%016" PRIx64
			" and 0x%016" PRIx64 ", expected the start "
			"0x%016" PRIx64 " and 0x%016" PRIx64,
			ctx->atomic_orig[0], ctx->atomic_orig[1], start, added);
	printf("lab atomic ok remote_addr=0x%" PRIx64 " rkey=0x%x "
	       "start=0x%016" PRIx64 " fetch_add=0x%016" PRIx64
	       " cmp_swap=0x%016" PRIx64 " dest_qpn=0x%06x\n",
	       p->remote_addr, p->rkey, start, ctx->atomic_orig[0],
	       ctx->atomic_orig[1], ctx->remote.qpn);
	return 0;
}

static int report_teardown(struct lab_ctx *ctx)
{
	if (ctx->qp || ctx->recv_mr || ctx->buf_mr || ctx->cq || ctx->channel ||
	    ctx->pd || ctx->verbs)
		return lab_fail_code(ctx, LAB_CODE_NOT_DONE,
				     "the step returned 0 but some objects "
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

/*
 * The steps of the parts this course does (LAB_PARTS) and their report
 * lines, in the order of steps.h.  A later part's steps are left out at
 * compile time, so a handout without them still links.
 */
static const struct {
	const char *name;
	int (*run)(struct lab_ctx *ctx);
	int (*report)(struct lab_ctx *ctx);
} lab_steps[] = {
#define LAB_STEP(name, points, part)                                           \
	{ #name, (part) <= LAB_PARTS ? step_##name : NULL, report_##name },
#include "steps.h"
#undef LAB_STEP
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

	/* The steps stop at the first failure; teardown, the last, runs
	 * whenever a device was opened, to release what the others made. */
	for (i = 0; i < sizeof(lab_steps) / sizeof(lab_steps[0]); i++) {
		bool last = lab_steps[i].run == step_teardown;

		if (!lab_steps[i].run || (last ? !ctx.verbs : !ok))
			continue;
		/* What -w left in the client's buffer must not pass for what
		 * the READ brought back. */
		if (!strcmp(lab_steps[i].name, "read") && ctx.opt.host)
			memset(ctx.buf, 0, ctx.buf_len);
		ctx.step = lab_steps[i].name;
		ctx.barrier_qp_state = -1;
		if (lab_steps[i].run(&ctx) || lab_steps[i].report(&ctx))
			ok = false;
	}
	if (ctx.sock >= 0)
		close(ctx.sock);
	free(ctx.recv_buf);
	free(ctx.buf);
	return ok ? 0 : 1;
}

/*
 * lab.h: the reference card for lab/main.c.  Everything a step may use is
 * declared here: the constants, the context every step fills in (struct
 * lab_ctx; each field says which step fills it), and the helpers from
 * lab/support.c.  lab/driver.c runs the steps in order and checks each
 * one's result.  Only lab/main.c is yours: the grader builds it against
 * this project's own copy of every other file.
 */
#ifndef LAB_H
#define LAB_H

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* LAB_PARTS, the parts this course does, is set in the step list. */
#define LAB_STEP(name, points, part)
#include "steps.h"
#undef LAB_STEP

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

/* Receives the server posts in connect: SEND, SEND with imm (part 2: and
 * WRITE with imm, which consumes one but puts no data in it). */
#define LAB_RECV_SLOTS (LAB_PARTS >= 2 ? 3 : 2)

/* Part two's atomic step: fetch-and-add LAB_ATOMIC_ADD, then compare the
 * word with what it must hold now and swap in LAB_ATOMIC_SWAP. */
#define LAB_ATOMIC_ADD	1ull
#define LAB_ATOMIC_SWAP 0x0123456789abcdefull

/*
 * Transport timers (ibv_modify_qp(3), RTR/RTS).  A request with no ACK is
 * resent after 4.096 us * 2^LAB_QP_TIMEOUT (134 ms; rxe: 33 jiffies at
 * HZ=250, the resend about 135 ms later), LAB_QP_RETRY_CNT times at
 * most; then it completes with IBV_WC_RETRY_EXC_ERR (recorded:
 * docs/runs/deadpeer-client.txt).  Not 7: on rxe a retry_cnt of 7 is
 * never counted down (drivers/infiniband/sw/rxe/rxe_comp.c), so a
 * request to a dead peer is resent forever, and only the program's own
 * wait (-t) ends it (recorded: docs/runs/loss-gone7-client.txt, one
 * SEND sent 37 times in 4.9 s).  rnr_retry 7 means "retry forever" on
 * every device, and a missing receive would only show up as our own
 * timeout; 6 retries of
 * the peer's min_rnr_timer (24 = 40.96 ms) turn it into
 * IBV_WC_RNR_RETRY_EXC_ERR within about 0.35 s (recorded:
 * docs/runs/rnr.pcap; rxe waits 11 jiffies, 44 ms, per NAK, plus
 * scheduling), far below the default -t of 10 s.
 */
#define LAB_QP_TIMEOUT	     15
#define LAB_QP_RETRY_CNT     6
#define LAB_QP_RNR_RETRY     6
#define LAB_QP_MIN_RNR_TIMER 24
/* The GRH's hop limit.  On RoCE the kernel replaces it at RTR with the
 * IP route's (drivers/infiniband/core/verbs.c, ib_resolve_eth_dmac()): a
 * program that passed 0 still sent TTL 64 (recorded: seed hop_limit_0). */
#define LAB_HOP_LIMIT 64

/* Exchange message: see docs/protocol.md, "Exchange message". */
#define LAB_WIRE_MAGIC	 0x524c4142u /* "RLAB" */
#define LAB_WIRE_VERSION 1
#define LAB_WIRE_SIZE	 52
#define LAB_QPN_MASK	 0xffffffu
/* How far a queried PSN may have moved past the start when checked. */
#define LAB_PSN_SLACK 4096

/* TCP bytes after the exchange message; see docs/protocol.md. */
#define LAB_SYNC_READY	'R'
#define LAB_SYNC_WRITE	'W'
#define LAB_SYNC_TARGET 'T' /* part 2: the server's atomic word */
#define LAB_SYNC_ATOMIC 'A' /* part 2: the client's atomics are done */

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
	uint64_t compare_add; /* atomics */
	uint64_t swap;
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
 * left behind: that is each set-up step's single unwind path.  Each group
 * of fields names the step that fills it.
 */
struct lab_ctx {
	struct lab_opts opt; /* the command line, parsed by the driver */
	const char *step;    /* name of the running step, for messages */

	/* open_device. */
	struct ibv_context *verbs;
	struct ibv_port_attr port_attr; /* of port -i */
	int gid_idx;	   /* lab_choose_gid(); -1: no GRH (InfiniBand) */
	union ibv_gid gid; /* entry gid_idx of the GID table */

	/* create_resources, in this order. */
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;	/* LAB_CQ_DEPTH entries, bound to channel */
	struct ibv_mr *buf_mr;	/* buf; server: WRITE target; client: source */
	struct ibv_mr *recv_mr; /* server only: recv_buf, the receive slots */
	struct ibv_qp *qp;	/* RC; send and receive CQ: cq */

	/* Plain memory, allocated by the driver before the first step. */
	char *buf;	/* buf_len (-s) bytes */
	char *recv_buf; /* LAB_RECV_SLOTS slots of buf_len bytes each */
	uint32_t buf_len;

	/* exchange: local is filled by the step, the rest by the helpers. */
	int sock;		/* lab_tcp_open() */
	struct lab_dest local;	/* what the peer needs to reach us */
	struct lab_dest remote; /* lab_exchange_dest() */

	/* The server's send, send_imm and write steps. */
	uint32_t recv_len[LAB_RECV_SLOTS]; /* wc.byte_len of each slot */
	uint32_t imm_received;		   /* host order */
	uint32_t write_len;		   /* lab_recv_write_done() */

	/* Part two: read (client), write_imm (server), atomic (both). */
	/* Set by the client's read step once the READ's completion came
	 * back successful: the length it read (strlen(-w)), now in buf. */
	uint32_t read_len;
	uint32_t write_imm_len;	 /* wc.byte_len of the receive it used */
	uint32_t write_imm_imm;	 /* host order */
	uint64_t atomic_addr;	 /* the word, as the server advertised it */
	uint64_t atomic_start;	 /* its value before the client's atomics */
	uint64_t atomic_orig[2]; /* client: what FETCH_ADD, CMP_SWP returned */
	uint64_t atomic_final;	 /* server: the word after them */

	/* Kept by the helpers and the driver, for the report lines. */
	struct lab_posted posted; /* lab_post_send() */
	uint32_t path_mtu;	  /* bytes, after connect */
	uint32_t next_psn;    /* client: next PSN it sends; server: expects */
	int barrier_qp_state; /* QP state at the step's first lab_barrier() */
};

/* ---------------------------------------------------------------------
 * The steps (lab/main.c), run by lab/driver.c in the order of steps.h.
 * Each returns 0 on success, or -1 after printing why (lab_fail*).
 */
#define LAB_STEP(name, points, part) int step_##name(struct lab_ctx *ctx);
#include "steps.h"
#undef LAB_STEP

/* ---------------------------------------------------------------------
 * Messages: "lab <step> FAIL: ... code=NAME" and "lab <step> hint: ..."
 * on stderr.  NAME is the cause, for programs (the grader) to read: one of
 * lab/codes.h, whose meanings docs/protocol.md lists.
 *
 * The contract of every helper below that returns int: 0 on success;
 * -1 on failure, AFTER it has printed the step's one FAIL line (and a
 * hint where it has one).  A step then only returns -1: it prints no
 * second FAIL line, and it releases nothing itself (step_teardown() does,
 * from what ctx holds).  Where a helper prints nothing, it says so.
 */

/* LAB_CODE_<NAME> for each code=<NAME> of lab/codes.h; 0: none. */
enum lab_code {
	LAB_CODE_NONE,
#define LAB_CODE(name)	LAB_CODE_##name,
#define LAB_WC(name)	LAB_CODE_WC_##name,
#define LAB_ERRNO(name) LAB_CODE_ERRNO_##name,
#include "codes.h"
#undef LAB_CODE
#undef LAB_WC
#undef LAB_ERRNO
};

/* Print a failure, "lab <step> FAIL: <fmt...> code=STUDENT" (a check of
 * the step's own), after flushing stdout; returns -1, so that a step can
 * "return lab_fail(ctx, ...)".  Once per failure: no second FAIL line. */
int lab_fail(struct lab_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, naming its cause: lab_fail_code(ctx, LAB_CODE_NO_IMM, ...)
 * prints "... code=NO_IMM".  Returns -1. */
int lab_fail_code(struct lab_ctx *ctx, enum lab_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print "lab <step> hint: <fmt...>", after the FAIL line it explains
 * (any number of them).  It is no failure by itself. */
void lab_hint(struct lab_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A verb or system call failed with errno value err: the value that a
 * verb returning int gave back (ibv_modify_qp(3), ibv_post_recv(3), ...),
 * or errno after one that returned NULL (ibv_alloc_pd(3), ibv_reg_mr(3),
 * ...).  what names it, as "ibv_reg_mr" or "ibv_modify_qp(RTR)", and is
 * printed as it is: "lab <step> FAIL: <what> failed: <strerror> (errno
 * <err>) code=ERRNO_<NAME>".  The hint that may follow is chosen from
 * the verb's name within what and, for ibv_modify_qp, from the state the
 * QP is still in (so call it before anything else touches the QP).
 * Returns -1.
 */
int lab_fail_verb(struct lab_ctx *ctx, const char *what, int err);
/* -d named no device in list (n entries, from ibv_get_device_list(3)):
 * the FAIL line (code=NO_DEVICE) names the devices that exist, or says
 * there is none, with a hint.  Returns -1.  It does not free list: the
 * caller still calls ibv_free_device_list(3), once. */
int lab_fail_no_device(struct lab_ctx *ctx, struct ibv_device **list, int n);
/* The stub of a step not written yet: "TODO <name> is not implemented"
 * (code=TODO) and a hint; returns -1.  Replace the call when you write
 * the step. */
int lab_todo(struct lab_ctx *ctx, const char *name);

/* ---------------------------------------------------------------------
 * GIDs and MTUs.
 */

/* "fe80:0000:...": eight groups of four hex digits, as sysfs shows them;
 * out gets 39 characters and the closing NUL.  Prints nothing. */
void lab_format_gid(const union ibv_gid *gid, char out[40]);
/* True when all 16 bytes are 0 (an empty slot, or "no GRH"). */
bool lab_gid_is_zero(const union ibv_gid *gid);
/* IBV_MTU_1024 -> 1024; 0 for a value that is not an MTU. */
uint32_t lab_mtu_bytes(enum ibv_mtu mtu);
/* 1024 -> IBV_MTU_1024; 0 for a size that is not an MTU. */
enum ibv_mtu lab_mtu_enum(uint32_t bytes);
/*
 * Choose the GID index from the port's table of n entries (n is
 * port_attr.gid_tbl_len; tab[i] is entry i, all-zero for an empty slot
 * or one that could not be read).  want: -g (ctx->opt.gid_idx), or -1
 * for automatic: the RoCE v2 entry with an IPv4-mapped address, else a
 * RoCE v2 entry that is not link-local.  ethernet: the port's link layer
 * is Ethernet (RoCE), which needs a GRH; an index asked for must then be
 * a non-empty, non-link-local RoCE v2 entry.
 * Returns 0 with *idx the index, or -1 for "no GRH" (InfiniBand, no -g).
 * Returns -1 with err (errlen bytes, NUL-terminated) saying why, and *idx
 * untouched.  It prints nothing, unlike the helpers below: the caller
 * prints the FAIL line, e.g. lab_fail_code(ctx, LAB_CODE_GID_CHOICE,
 * "%s", err).  It does not set ctx->gid: copy tab[*idx].gid there.
 */
int lab_choose_gid(const struct lab_gid_entry *tab, int n, int want,
		   bool ethernet, int *idx, char *err, size_t errlen);

/* ---------------------------------------------------------------------
 * The exchange over TCP (docs/protocol.md).  Every wait is bounded by -t.
 */

/* The 52-byte exchange message, every field in network byte order.
 * Encoding writes LAB_WIRE_SIZE bytes and cannot fail.  Decoding returns
 * 0 with *out filled, or the cause (LAB_CODE_EXCH_*) with err saying why
 * and *out untouched.  Neither prints anything: lab_exchange_dest() calls
 * both and prints the FAIL line. */
void lab_wire_encode(const struct lab_dest *d, uint8_t out[LAB_WIRE_SIZE]);
enum lab_code lab_wire_decode(const void *buf, size_t len, struct lab_dest *out,
			      char *err, size_t errlen);
/* Server: wait for one client on -p.  Client: connect to HOST:-p,
 * retrying until -t runs out.  Call once: it sets ctx->sock, which the
 * driver closes after the last step (do not close it).  -1 after the FAIL
 * line (NO_CLIENT, NO_SERVER, RESOLVE, or the errno's code). */
int lab_tcp_open(struct lab_ctx *ctx);
/* Send ctx->local (fill it first), then receive and validate the peer's
 * message into ctx->remote.  Call once, after lab_tcp_open().  -1 after
 * the FAIL line: no connection (MISUSE), the peer silent for -t
 * (PEER_SILENT) or gone (PEER_CLOSED), its message refused (EXCH_*). */
int lab_exchange_dest(struct lab_ctx *ctx);
/* Both sides: "my QP is in RTS"; returns once the peer said the same.
 * One ready byte each way per call: both sides call it at the same
 * points, as often.  -1 after the FAIL line (as lab_exchange_dest, or
 * BAD_SYNC for another byte). */
int lab_barrier(struct lab_ctx *ctx);
/* Client: "the WRITE of len bytes has completed" (send it after the
 * WRITE's completion, not before).  -1 after the FAIL line. */
int lab_send_write_done(struct lab_ctx *ctx, uint32_t len);
/* Server: wait for the client's notice; sets ctx->write_len.  -1 after
 * the FAIL line (BAD_SYNC: another message, or more than buf_len). */
int lab_recv_write_done(struct lab_ctx *ctx);
/* Part 2, server: "the atomic word is at addr and now holds start".
 * -1 after the FAIL line. */
int lab_send_atomic_target(struct lab_ctx *ctx, uint64_t addr, uint64_t start);
/* Part 2, client: wait for it; sets ctx->atomic_addr, ctx->atomic_start.
 * -1 after the FAIL line (BAD_SYNC for another message). */
int lab_recv_atomic_target(struct lab_ctx *ctx);
/* Part 2, client: "my atomics have completed".  -1 after the FAIL line. */
int lab_send_atomic_done(struct lab_ctx *ctx);
/* Part 2, server: wait for that notice.  -1 after the FAIL line. */
int lab_recv_atomic_done(struct lab_ctx *ctx);

/*
 * The grader's reference client calls this before its WRITE, its WRITE
 * with immediate and its atomics: it waits LAB_REF_DELAY_MS (set by the
 * grader alone), so that a server which reads its buffer without waiting
 * for the peer's notice reads too early every time, not only when it
 * wins a race.  Nothing to do for a student's program.
 */
void lab_ref_delay(void);

/*
 * What the grader's reference client swaps into the server's word: a
 * random value of its own per run (LAB_REF_SWAP=random, set by the grader
 * alone), so that a student's server reports it only if it read the word
 * after the swap landed; the value is nowhere else in its reach.
 * LAB_ATOMIC_SWAP for everyone else.
 */
uint64_t lab_ref_swap(void);

/* ---------------------------------------------------------------------
 * Work requests and completions.
 */

/*
 * Refuse a payload of len bytes that the local buffer (ctx->buf_len, -s)
 * or the peer's (ctx->remote.len: call it after the exchange) cannot
 * hold.  what names the payload in the message, a noun phrase that
 * starts it: "the message" gives "lab send FAIL: the message is 5000
 * bytes, larger than the local buffer (4096, -s) code=BUF_TOO_SMALL".
 * Returns 0 when it fits, else -1 after that FAIL line: post nothing.
 */
int lab_check_fits(struct lab_ctx *ctx, const char *what, size_t len);
/*
 * ibv_post_send(3) of one work request, or a list of them chained through
 * next, on ctx->qp, remembering the last in ctx->posted for the report
 * line and the hints, and the PSNs they take (ctx->next_psn).  Use it
 * instead of ibv_post_send, once per request: it posts, it does not wait
 * (lab_wait_wc(), once per signaled request, does).  Returns 0 when the
 * device took the list; -1 after the FAIL line ("ibv_post_send failed:
 * ..." with ibv_post_send's errno value as the code, through
 * lab_fail_verb(), and a hint), or MISUSE when ctx->qp is NULL.  On -1
 * the request was not posted (in a list, the one refused and those after
 * it): do not post it again nor wait for it; return -1.  ctx->next_psn
 * moves only on success.  (A program that posts through the extended
 * API, ibv_wr_*, fills ctx->posted itself.)
 */
int lab_post_send(struct lab_ctx *ctx, struct ibv_send_wr *wr);
/*
 * Wait, at most -t seconds, for one completion on ctx->cq through its
 * completion channel ctx->channel (never a busy poll: it would starve
 * rxe on a one-CPU guest), and put it in *wc.  It arms the CQ and
 * acknowledges its events itself (ibv_req_notify_cq, ibv_get_cq_event,
 * ibv_ack_cq_events): a step calls none of them.  One completion per
 * call, of whatever work request came first: a step checks wc->opcode
 * (and wc->wr_id) itself.  Returns 0 when wc->status is IBV_WC_SUCCESS;
 * else -1 after the FAIL line: a completion with an error status
 * (code=WC_<STATUS>, with a hint; *wc holds it), none within -t
 * (NO_COMPLETION), the peer's TCP connection closed meanwhile
 * (PEER_CLOSED), or no ctx->cq or ctx->channel (MISUSE).
 */
int lab_wait_wc(struct lab_ctx *ctx, struct ibv_wc *wc);

#endif /* LAB_H */

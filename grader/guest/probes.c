/*
 * probes.c: the definitions of the grader's kernel trace, for this guest.
 *
 * The evidence of a student's verbs calls must not come from inside the
 * student's process, which can write anything there.  So the guest's
 * kernel records them: a uprobe on each libibverbs entry point and on the
 * rxe provider's post functions (the int3 the kernel puts there fires
 * whatever the program does, and only the kernel writes the trace
 * buffer), a return probe on the provider's poll_cq (how many
 * completions a poll took), a kprobe on rxe_cq_post, the kernel writing
 * a completion into a CQ, and one on tcp_sendmsg_locked, every byte sent
 * over TCP (the barrier and the notices are bytes at known places of a
 * side's stream to its peer: docs/protocol.md).  The fields the uprobes
 * read are offsets in the public structures of <infiniband/verbs.h> and
 * <rdma/ib_user_verbs.h>, taken here with offsetof(), so they are right
 * for this build and this architecture.
 *
 *   probes DEV   the lines for uprobe_events and kprobe_events (group
 *                "lab"; a kprobe's place is a kernel symbol, an uprobe's
 *                FILE:OFFSET): libibverbs' entry points, found with
 *                dlvsym(), and the provider's post_send, post_recv and
 *                poll_cq, read from DEV's context ops, and the extended
 *                API's (ibv_create_qp_ex, ibv_wr_*, ibv_create_cq_ex,
 *                ibv_start_poll), read from its verbs_context and from a
 *                QP and a CQ made for the purpose, placed through
 *                /proc/self/maps
 *
 * The calls above are what the program asked for, read in its own
 * memory: hints and its log.  What the kernel made of them (each PD, CQ,
 * MR and QP, each modify and destroy, as the kernel did them) comes from
 * kprobes on the kernel's side of the uverbs interface (kfacts.c), and
 * the grader's points rest on those.
 *
 * Run as root in the guest at boot.  Exit status 1 with one line on
 * stderr when something is missing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "kfacts.h"

/* The argument registers: A for plain strings, F in printf formats. */
#if defined(__x86_64__)
#define A1 "%di"
#define A2 "%si"
#define A3 "%dx"
#define A4 "%cx"
#define A5 "%r8"
#define F1 "%%di"
#define F2 "%%si"
#define F3 "%%dx"
#define F4 "%%cx"
#elif defined(__aarch64__)
#define A1 "%x0"
#define A2 "%x1"
#define A3 "%x2"
#define A4 "%x3"
#define A5 "%x4"
#define F1 "%%x0"
#define F2 "%%x1"
#define F3 "%%x2"
#define F4 "%%x3"
#else
#error "probes.c knows the argument registers of x86-64 and arm64 only"
#endif

#define OFF(type, field) ((unsigned int)offsetof(type, field))

static int probes_err(const char *what, const char *arg)
{
	fprintf(stderr, "probes: %s %s\n", what, arg);
	return 1;
}

/* Where addr lies in a mapped file: its path and file offset. */
static int probes_place(const void *addr, char *path, size_t size,
			unsigned long *off)
{
	unsigned long a = (unsigned long)addr, lo, hi, pgoff;
	char line[4096], file[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi,
			   &pgoff, file) < 3)
			continue;
		if (a < lo || a >= hi || file[0] != '/')
			continue;
		snprintf(path, size, "%s", file);
		*off = a - lo + pgoff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* One uprobe (and its return probe when ret is not NULL) at addr. */
static int probes_at(const char *event, const void *addr, const char *args,
		     const char *ret)
{
	char path[4096];
	unsigned long off;

	if (!addr || probes_place(addr, path, sizeof(path), &off))
		return probes_err("cannot place", event);
	printf("p:lab/%s %s:0x%lx %s\n", event, path, off, args);
	if (ret)
		printf("r:lab/%s_ret %s:0x%lx %s\n", event, path, off, ret);
	return 0;
}

/* A return probe alone, at addr. */
static int probes_ret(const char *event, const void *addr, const char *ret)
{
	char path[4096];
	unsigned long off;

	if (!addr || probes_place(addr, path, sizeof(path), &off))
		return probes_err("cannot place", event);
	printf("r:lab/%s_ret %s:0x%lx %s\n", event, path, off, ret);
	return 0;
}

static int probes_fn(const char *event, const char *sym, const char *ver,
		     const char *args, const char *ret)
{
	void *addr = dlvsym(RTLD_DEFAULT, sym, ver);

	if (!addr)
		return probes_err("no symbol", sym);
	return probes_at(event, addr, args, ret);
}

/* The modify_qp probe: every attribute the judges look at. */
static void probes_modify_args(char *buf, size_t size)
{
	typedef struct ibv_qp_attr qa;

	snprintf(buf, size,
		 "qp=" F1 ":x64 qpn=+%u(" F1 "):x32 mask=" F3 ":x32 "
		 "state=+%u(" F2 "):u32 access=+%u(" F2 "):x32 "
		 "port=+%u(" F2 "):u8 path_mtu=+%u(" F2 "):u32 "
		 "dest_qpn=+%u(" F2 "):x32 rq_psn=+%u(" F2 "):x32 "
		 "sq_psn=+%u(" F2 "):x32 is_global=+%u(" F2 "):u8 "
		 "sgid_idx=+%u(" F2 "):u8 hop_limit=+%u(" F2 "):u8 "
		 "dgid_a=+%u(" F2 "):x64 dgid_b=+%u(" F2 "):x64 "
		 "dlid=+%u(" F2 "):x16 timeout=+%u(" F2 "):u8 "
		 "retry_cnt=+%u(" F2 "):u8 rnr_retry=+%u(" F2 "):u8 "
		 "ah_port=+%u(" F2 "):u8 min_rnr_timer=+%u(" F2 "):u8 "
		 "max_dest_rd_atomic=+%u(" F2 "):u8 "
		 "max_rd_atomic=+%u(" F2 "):u8 pkey_index=+%u(" F2 "):u16",
		 OFF(struct ibv_qp, qp_num), OFF(qa, qp_state),
		 OFF(qa, qp_access_flags), OFF(qa, port_num), OFF(qa, path_mtu),
		 OFF(qa, dest_qp_num), OFF(qa, rq_psn), OFF(qa, sq_psn),
		 OFF(qa, ah_attr.is_global), OFF(qa, ah_attr.grh.sgid_index),
		 OFF(qa, ah_attr.grh.hop_limit), OFF(qa, ah_attr.grh.dgid),
		 OFF(qa, ah_attr.grh.dgid) + 8, OFF(qa, ah_attr.dlid),
		 OFF(qa, timeout), OFF(qa, retry_cnt), OFF(qa, rnr_retry),
		 OFF(qa, ah_attr.port_num), OFF(qa, min_rnr_timer),
		 OFF(qa, max_dest_rd_atomic), OFF(qa, max_rd_atomic),
		 OFF(qa, pkey_index));
}

/*
 * The fields of one send request at the address fetched by wr (a fetch
 * argument: a register, or a register's pointer followed), names ending
 * in sfx: both places a remote address can be (wr.rdma for READ and
 * WRITE, wr.atomic for the atomics, members of one union) and its first
 * SGE.
 */
static int probes_wr(char *buf, size_t size, const char *wr, const char *sfx)
{
	typedef struct ibv_send_wr w;
	unsigned int sg = OFF(w, sg_list);
	int n = snprintf(
		buf, size,
		" opcode%s=+%u(%s):u32 flags%s=+%u(%s):x32 imm%s=+%u(%s):x32"
		" raddr%s=+%u(%s):x64 rkey%s=+%u(%s):x32"
		" araddr%s=+%u(%s):x64 arkey%s=+%u(%s):x32"
		" cmp_add%s=+%u(%s):x64 swap%s=+%u(%s):x64"
		" num_sge%s=+%u(%s):s32 laddr%s=+%u(+%u(%s)):x64"
		" len%s=+%u(+%u(%s)):u32",
		sfx, OFF(w, opcode), wr, sfx, OFF(w, send_flags), wr, sfx,
		OFF(w, imm_data), wr, sfx, OFF(w, wr.rdma.remote_addr), wr, sfx,
		OFF(w, wr.rdma.rkey), wr, sfx, OFF(w, wr.atomic.remote_addr),
		wr, sfx, OFF(w, wr.atomic.rkey), wr, sfx,
		OFF(w, wr.atomic.compare_add), wr, sfx, OFF(w, wr.atomic.swap),
		wr, sfx, OFF(w, num_sge), wr, sfx, OFF(struct ibv_sge, addr),
		sg, wr, sfx, OFF(struct ibv_sge, length), sg, wr);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

/*
 * post_send: the first two requests of the list, each a post of its own
 * to the judges (a program may chain its two atomics, or a WRITE and a
 * SEND), and whether a third follows (next2).  A second request's
 * fields are read only when next says there is one.
 */
static int probes_send_args(char *buf, size_t size)
{
	unsigned int nx = OFF(struct ibv_send_wr, next);
	char second[64];
	int n, m, k;

	snprintf(second, sizeof(second), "+%u(%s)", nx, A2);
	n = snprintf(buf, size,
		     "qpn=+%u(%s):x32 next=+%u(%s):x64 next2=+%u(+%u(%s)):x64",
		     OFF(struct ibv_qp, qp_num), A1, nx, A2, nx, nx, A2);
	if (n < 0 || (size_t)n >= size)
		return -1;
	m = probes_wr(buf + n, size - n, A2, "");
	if (m < 0)
		return -1;
	k = probes_wr(buf + n + m, size - n - m, second, "2");
	return k < 0 ? -1 : 0;
}

/* post_recv: how long the list is, up to four (the lab posts three). */
static void probes_recv_args(char *buf, size_t size)
{
	unsigned int nx = OFF(struct ibv_recv_wr, next);

	snprintf(buf, size,
		 "qpn=+%u(" F1 "):x32 wr=" F2 ":x64 n1=+%u(" F2 "):x64 "
		 "n2=+%u(+%u(" F2 ")):x64 n3=+%u(+%u(+%u(" F2 "))):x64",
		 OFF(struct ibv_qp, qp_num), nx, nx, nx, nx, nx, nx);
}

/* One uprobe of the extended API: its event, where, what it reads. */
struct probes_ext_fn {
	const char *event;
	const void *addr;
	char args[512];
	const char *ret;
};

/*
 * The extended verbs API: ibv_create_qp_ex and ibv_create_cq_ex call the
 * context's create_qp_ex and create_cq_ex (its verbs_context), and
 * ibv_wr_* and ibv_start_poll/ibv_next_poll are inlines of verbs.h that
 * call through pointers of the QP and the CQ, which rxe sets to the same
 * functions of its own in every QP and CQ it makes: a QP and a CQ made
 * here, and destroyed at once, say where those lie.  parse_ktrace
 * (grader/labgrader/evidence/kernel.py) makes the records of the
 * classic calls of these events: a QP is a QP whichever call made it,
 * the requests of one ibv_wr_start..ibv_wr_complete are posted by the
 * complete, and a start_poll or next_poll that returned 0 took one
 * completion (the guest driver keeps only those).
 */
static int probes_ext(struct ibv_context *ctx, const char *qp_ret)
{
	typedef struct ibv_qp_init_attr_ex qi;
	typedef struct ibv_cq_init_attr_ex ci;
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 1,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qp_attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1,
			 .max_recv_wr = 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_cq_ex *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_qp_ex *x = NULL;
	char qpf[128], rk[256];
	int i, bad = 0;

	if (!vctx || !vctx->create_qp_ex || !vctx->create_cq_ex)
		return probes_err("no extended verbs on", "the device");
	qp_attr.pd = ibv_alloc_pd(ctx);
	if (qp_attr.pd)
		cq = ibv_create_cq_ex(ctx, &cq_attr);
	if (cq) {
		qp_attr.send_cq = qp_attr.recv_cq = ibv_cq_ex_to_cq(cq);
		qp = ibv_create_qp_ex(ctx, &qp_attr);
	}
	if (qp)
		x = ibv_qp_to_qp_ex(qp);
	/* The QP and its requests' flags (set before each ibv_wr_*). */
	snprintf(qpf, sizeof(qpf),
		 "qp=%s:x64 qpn=+%u(%s):x32 flags=+%u(%s):x32", A1,
		 OFF(struct ibv_qp_ex, qp_base.qp_num), A1,
		 OFF(struct ibv_qp_ex, wr_flags), A1);
	snprintf(rk, sizeof(rk), "%s rkey=%s:x32 raddr=%s:x64", qpf, A2, A3);
	if (x) {
		struct probes_ext_fn fns[] = {
			{ .event = "ibv_create_qp_ex",
			  .addr = (void *)vctx->create_qp_ex,
			  .ret = qp_ret },
			{ .event = "ibv_create_cq_ex",
			  .addr = (void *)vctx->create_cq_ex,
			  .ret = "ret=$retval:x64" },
			{ .event = "ibv_wr_start",
			  .addr = (void *)x->wr_start },
			{ .event = "ibv_wr_send", .addr = (void *)x->wr_send },
			{ .event = "ibv_wr_send_imm",
			  .addr = (void *)x->wr_send_imm },
			{ .event = "ibv_wr_rdma_write",
			  .addr = (void *)x->wr_rdma_write },
			{ .event = "ibv_wr_rdma_write_imm",
			  .addr = (void *)x->wr_rdma_write_imm },
			{ .event = "ibv_wr_rdma_read",
			  .addr = (void *)x->wr_rdma_read },
			{ .event = "ibv_wr_atomic_fetch_add",
			  .addr = (void *)x->wr_atomic_fetch_add },
			{ .event = "ibv_wr_atomic_cmp_swp",
			  .addr = (void *)x->wr_atomic_cmp_swp },
			{ .event = "ibv_wr_set_sge",
			  .addr = (void *)x->wr_set_sge },
			{ .event = "ibv_wr_set_sge_list",
			  .addr = (void *)x->wr_set_sge_list },
			{ .event = "ibv_wr_set_inline_data",
			  .addr = (void *)x->wr_set_inline_data },
			{ .event = "ibv_wr_set_inline_data_list",
			  .addr = (void *)x->wr_set_inline_data_list },
			{ .event = "ibv_wr_complete",
			  .addr = (void *)x->wr_complete,
			  .ret = "ret=$retval:s32" },
			{ .event = "ibv_wr_abort",
			  .addr = (void *)x->wr_abort },
		};

		snprintf(fns[0].args, sizeof(fns[0].args),
			 "ctx=%s:x64 pd=+%u(%s):x64 type=+%u(%s):u32 "
			 "send_cq=+%u(%s):x64 recv_cq=+%u(%s):x64 "
			 "mask=+%u(%s):x32 ops=+%u(%s):x64 "
			 "max_send_wr=+%u(%s):u32 sig_all=+%u(%s):s32",
			 A1, OFF(qi, pd), A2, OFF(qi, qp_type), A2,
			 OFF(qi, send_cq), A2, OFF(qi, recv_cq), A2,
			 OFF(qi, comp_mask), A2, OFF(qi, send_ops_flags), A2,
			 OFF(qi, cap.max_send_wr), A2, OFF(qi, sq_sig_all), A2);
		snprintf(fns[1].args, sizeof(fns[1].args),
			 "ctx=%s:x64 cqe=+%u(%s):u32 ch=+%u(%s):x64", A1,
			 OFF(ci, cqe), A2, OFF(ci, channel), A2);
		for (i = 2; i < 4; i++)
			snprintf(fns[i].args, sizeof(fns[i].args), "%s", qpf);
		snprintf(fns[4].args, sizeof(fns[4].args), "%s imm=%s:x32", qpf,
			 A2);
		snprintf(fns[5].args, sizeof(fns[5].args), "%s", rk);
		snprintf(fns[6].args, sizeof(fns[6].args), "%s imm=%s:x32", rk,
			 A4);
		snprintf(fns[7].args, sizeof(fns[7].args), "%s", rk);
		snprintf(fns[8].args, sizeof(fns[8].args), "%s cmp_add=%s:x64",
			 rk, A4);
		snprintf(fns[9].args, sizeof(fns[9].args),
			 "%s cmp_add=%s:x64 swap=%s:x64", rk, A4, A5);
		snprintf(fns[10].args, sizeof(fns[10].args),
			 "%s lkey=%s:x32 laddr=%s:x64 len=%s:u32", qpf, A2, A3,
			 A4);
		snprintf(fns[11].args, sizeof(fns[11].args),
			 "%s num_sge=%s:s32 laddr=+%u(%s):x64 len=+%u(%s):u32",
			 qpf, A2, OFF(struct ibv_sge, addr), A3,
			 OFF(struct ibv_sge, length), A3);
		snprintf(fns[12].args, sizeof(fns[12].args),
			 "%s laddr=%s:x64 len=%s:u32", qpf, A2, A3);
		snprintf(fns[13].args, sizeof(fns[13].args),
			 "%s num_sge=%s:s32 laddr=+%u(%s):x64 len=+%u(%s):u32",
			 qpf, A2, OFF(struct ibv_data_buf, addr), A3,
			 OFF(struct ibv_data_buf, length), A3);
		for (i = 14; i < 16; i++)
			snprintf(fns[i].args, sizeof(fns[i].args), "%s", qpf);
		for (i = 0; i < (int)(sizeof(fns) / sizeof(fns[0])); i++)
			bad |= probes_at(fns[i].event, fns[i].addr, fns[i].args,
					 fns[i].ret);
		/* How many completions a poll of the extended CQ took. */
		bad |= probes_ret("ibv_start_poll", (void *)cq->start_poll,
				  "ret=$retval:s32");
		bad |= probes_ret("ibv_next_poll", (void *)cq->next_poll,
				  "ret=$retval:s32");
	} else {
		bad |= probes_err("cannot make an extended QP on",
				  "the device");
	}
	if (qp && ibv_destroy_qp(qp))
		bad |= probes_err("cannot destroy", "the extended QP");
	if (cq && ibv_destroy_cq(ibv_cq_ex_to_cq(cq)))
		bad |= probes_err("cannot destroy", "the extended CQ");
	if (qp_attr.pd && ibv_dealloc_pd(qp_attr.pd))
		bad |= probes_err("cannot deallocate", "the PD");
	return bad;
}

static int probes_lib(const char *devname)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	char modify[2048], send[4096], recv[1024], mr_ret[256], qp_ret[256];
	char qp_args[256];
	int i, bad = 0;
	typedef struct ibv_qp_init_attr qi;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return probes_err("cannot open the device", devname);
	probes_modify_args(modify, sizeof(modify));
	if (probes_send_args(send, sizeof(send)))
		return probes_err("too long:", "the post_send probe");
	probes_recv_args(recv, sizeof(recv));
	snprintf(mr_ret, sizeof(mr_ret),
		 "ret=$retval:x64 lkey=+%u($retval):x32 rkey=+%u($retval):x32",
		 OFF(struct ibv_mr, lkey), OFF(struct ibv_mr, rkey));
	snprintf(qp_ret, sizeof(qp_ret), "ret=$retval:x64 qpn=+%u($retval):x32",
		 OFF(struct ibv_qp, qp_num));
	/* The send queue's depth and sq_sig_all: what the program asked
	 * for, by which its unsignaled requests are judged. */
	snprintf(qp_args, sizeof(qp_args),
		 "pd=" F1 ":x64 type=+%u(" F2 "):u32 send_cq=+%u(" F2 "):x64 "
		 "recv_cq=+%u(" F2 "):x64 max_send_wr=+%u(" F2 "):u32 "
		 "sig_all=+%u(" F2 "):s32",
		 OFF(qi, qp_type), OFF(qi, send_cq), OFF(qi, recv_cq),
		 OFF(qi, cap.max_send_wr), OFF(qi, sq_sig_all));

	bad |= probes_fn("ibv_get_device_list", "ibv_get_device_list",
			 "IBVERBS_1.1", "num=" A1 ":x64", "ret=$retval:x64");
	bad |= probes_fn("ibv_free_device_list", "ibv_free_device_list",
			 "IBVERBS_1.1", "list=" A1 ":x64", NULL);
	bad |= probes_fn("ibv_open_device", "ibv_open_device", "IBVERBS_1.1",
			 "dev=" A1 ":x64", "ret=$retval:x64");
	bad |= probes_fn("ibv_close_device", "ibv_close_device", "IBVERBS_1.1",
			 "ctx=" A1 ":x64", "ret=$retval:s32");
	bad |= probes_fn("ibv_alloc_pd", "ibv_alloc_pd", "IBVERBS_1.1",
			 "ctx=" A1 ":x64", "ret=$retval:x64");
	bad |= probes_fn("ibv_dealloc_pd", "ibv_dealloc_pd", "IBVERBS_1.1",
			 "pd=" A1 ":x64", "ret=$retval:s32");
	bad |= probes_fn("ibv_create_comp_channel", "ibv_create_comp_channel",
			 "IBVERBS_1.0", "ctx=" A1 ":x64", "ret=$retval:x64");
	bad |= probes_fn("ibv_destroy_comp_channel", "ibv_destroy_comp_channel",
			 "IBVERBS_1.0", "ch=" A1 ":x64", "ret=$retval:s32");
	bad |= probes_fn("ibv_create_cq", "ibv_create_cq", "IBVERBS_1.1",
			 "ctx=" A1 ":x64 cqe=" A2 ":s32 ch=" A4 ":x64",
			 "ret=$retval:x64");
	bad |= probes_fn("ibv_destroy_cq", "ibv_destroy_cq", "IBVERBS_1.1",
			 "cq=" A1 ":x64", "ret=$retval:s32");
	/* ibv_reg_mr and ibv_reg_mr_iova end in this one. */
	bad |= probes_fn("ibv_reg_mr", "ibv_reg_mr_iova2", "IBVERBS_1.8",
			 "pd=" A1 ":x64 addr=" A2 ":x64 len=" A3 ":u64 "
			 "iova=" A4 ":x64 access=" A5 ":x32",
			 mr_ret);
	bad |= probes_fn("ibv_dereg_mr", "ibv_dereg_mr", "IBVERBS_1.1",
			 "mr=" A1 ":x64", "ret=$retval:s32");
	bad |= probes_fn("ibv_create_qp", "ibv_create_qp", "IBVERBS_1.1",
			 qp_args, qp_ret);
	bad |= probes_fn("ibv_destroy_qp", "ibv_destroy_qp", "IBVERBS_1.1",
			 "qp=" A1 ":x64", "ret=$retval:s32");
	bad |= probes_fn("ibv_modify_qp", "ibv_modify_qp", "IBVERBS_1.1",
			 modify, "ret=$retval:s32");
	/* Static inlines of verbs.h call these through the context. */
	bad |= probes_at("ibv_post_send", (void *)ctx->ops.post_send, send,
			 "ret=$retval:s32");
	bad |= probes_at("ibv_post_recv", (void *)ctx->ops.post_recv, recv,
			 "ret=$retval:s32");
	/*
	 * How many completions the program took from a CQ: the return of
	 * the provider's poll_cq (the guest driver keeps only the polls
	 * that took some).  Which ones, the kernel's order says (below).
	 */
	bad |= probes_ret("ibv_poll_cq", (void *)ctx->ops.poll_cq,
			  "ret=$retval:s32");
	/*
	 * The kernel's own completions: rxe_cq_post(cq, cqe, solicited)
	 * writes a user CQ's entries as struct ib_uverbs_wc, in the order
	 * the program's polls then take them.
	 */
	printf("p:lab/wc rxe_cq_post qpn=+%u($arg2):x32 opcode=+%u($arg2):u32 "
	       "status=+%u($arg2):u32 byte_len=+%u($arg2):u32 "
	       "flags=+%u($arg2):x32 imm=+%u($arg2):x32\n",
	       OFF(struct ib_uverbs_wc, qp_num),
	       OFF(struct ib_uverbs_wc, opcode),
	       OFF(struct ib_uverbs_wc, status),
	       OFF(struct ib_uverbs_wc, byte_len),
	       OFF(struct ib_uverbs_wc, wc_flags),
	       OFF(struct ib_uverbs_wc, ex.imm_data));
	/*
	 * The bytes a program sends over TCP, and to whom: sock_common
	 * begins with the destination address (skc_daddr), in every
	 * kernel since 2.6.  tcp_sendmsg_locked is where tcp_sendmsg and
	 * kernel TLS both end; the return says how many bytes went.
	 */
	printf("p:lab/tcp tcp_sendmsg_locked daddr=+0($arg1):x32 "
	       "size=$arg3:u64\n");
	printf("r:lab/tcp_ret tcp_sendmsg_locked ret=$retval:s64\n");
	bad |= probes_ext(ctx, qp_ret);
	/* The kernel's own record of the objects (kfacts.c). */
	bad |= kfacts_print();
	if (ibv_close_device(ctx))
		bad |= probes_err("cannot close", devname);
	ibv_free_device_list(list);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 2)
		return probes_lib(argv[1]);
	fprintf(stderr, "usage: probes DEV\n");
	return 2;
}

/*
 * A correct solution written with the extended verbs API, for
 * tests/grader/grade.sh: the CQ from ibv_create_cq_ex (on the channel), polled
 * with ibv_start_poll/ibv_end_poll in a wait of its own (armed on the
 * channel, bounded by -t); the QP from ibv_create_qp_ex with its send
 * operations, every request posted with ibv_wr_start, ibv_wr_<op>,
 * ibv_wr_set_sge and ibv_wr_complete, both atomics in one
 * start..complete; the server's receives posted as one chained list.
 * lab_post_send() takes a struct ibv_send_wr, so ext_note() fills
 * ctx->posted for the report lines as it would.  The grader's evidence
 * must not depend on which API made the objects (issue 25): this gets
 * full marks.  tests/grader/seeds/mkalt.py puts the HELPERS block before
 * step_open_device in lab/main.c and each STEP block in place of that
 * step's "return lab_todo(...)".
 */
/* HELPERS */
#include <poll.h>
#include <time.h>

/* The CQ as the extended API made it; ctx->cq is its struct ibv_cq. */
static struct ibv_cq_ex *ext_cq;

/* What ext_wait() read of a completion. */
struct ext_wc {
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	unsigned int flags;
	uint32_t imm; /* host order */
};

static struct ibv_device *ext_find(struct ibv_device **devs, int count,
				   const char *want)
{
	for (int k = 0; k < count; k++)
		if (!want || strcmp(ibv_get_device_name(devs[k]), want) == 0)
			return devs[k];
	return NULL;
}

static int ext_to(struct lab_ctx *ctx, struct ibv_qp_attr *a, int mask,
		  const char *what)
{
	int err = ibv_modify_qp(ctx->qp, a, mask);

	return err ? lab_fail_verb(ctx, what, err) : 0;
}

static int64_t ext_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * One completion, at most -t seconds away: ibv_start_poll takes it when
 * it is there; otherwise the CQ is armed (and polled once more: one that
 * came before the arm raises no event) and the wait sleeps on the
 * channel, never a busy poll (it would starve rxe on a one-CPU guest).
 */
static int ext_wait(struct lab_ctx *ctx, struct ext_wc *wc)
{
	int64_t deadline = ext_now_ms() + ctx->opt.timeout * 1000LL;
	bool armed = false;

	for (;;) {
		struct ibv_poll_cq_attr attr = {.comp_mask = 0};
		struct pollfd pfd = {.fd = ctx->channel->fd, .events = POLLIN};
		enum ibv_wc_status status;
		struct ibv_cq *ev_cq;
		void *ev_ctx;
		int64_t left;
		int ret = ibv_start_poll(ext_cq, &attr);

		if (ret == 0) {
			status = ext_cq->status;
			wc->wr_id = ext_cq->wr_id;
			wc->opcode = ibv_wc_read_opcode(ext_cq);
			wc->byte_len = ibv_wc_read_byte_len(ext_cq);
			wc->flags = ibv_wc_read_wc_flags(ext_cq);
			wc->imm = wc->flags & IBV_WC_WITH_IMM
					  ? be32toh(ibv_wc_read_imm_data(ext_cq))
					  : 0;
			ibv_end_poll(ext_cq);
			if (status != IBV_WC_SUCCESS)
				return lab_fail(ctx, "completion failed: %s",
						ibv_wc_status_str(status));
			return 0;
		}
		if (ret != ENOENT)
			return lab_fail_verb(ctx, "ibv_start_poll", ret);
		if (!armed) {
			ret = ibv_req_notify_cq(ctx->cq, 0);
			if (ret)
				return lab_fail_verb(ctx, "ibv_req_notify_cq",
						     ret);
			armed = true;
			continue;
		}
		left = deadline - ext_now_ms();
		if (left <= 0)
			return lab_fail(ctx, "no completion within %d s",
					ctx->opt.timeout);
		ret = poll(&pfd, 1, (int)left);
		if (ret < 0 && errno != EINTR)
			return lab_fail_verb(ctx, "poll", errno);
		if (ret > 0) {
			if (ibv_get_cq_event(ctx->channel, &ev_cq, &ev_ctx))
				return lab_fail_verb(ctx, "ibv_get_cq_event",
						     errno);
			/* Unacked events make ibv_destroy_cq(3) hang. */
			ibv_ack_cq_events(ev_cq, 1);
			armed = false;
		}
	}
}

/*
 * What lab_post_send() remembers of a request, for the driver's report
 * line: the last request, and the PSNs each takes.
 */
static void ext_note(struct lab_ctx *ctx, enum ibv_wr_opcode op,
		     uint64_t laddr, uint32_t len, uint64_t raddr,
		     uint32_t rkey)
{
	uint32_t mtu = ctx->path_mtu ? ctx->path_mtu : 256;
	uint32_t span = len ? (len + mtu - 1) / mtu : 1;
	bool atomic = op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
		      op == IBV_WR_ATOMIC_CMP_AND_SWP;

	if (atomic)
		span = 1;
	ctx->posted = (struct lab_posted){
		.opcode = op,
		.local_addr = laddr,
		.len = len,
		.remote_addr = raddr,
		.rkey = rkey,
		.imm = ctx->opt.imm,
		.psn = ctx->next_psn,
		.packets = op == IBV_WR_RDMA_READ ? 1 : span,
	};
	ctx->next_psn = (ctx->next_psn + span) & LAB_QPN_MASK;
}

/* One signaled request of len bytes from ctx->buf, waited for. */
static int ext_issue(struct lab_ctx *ctx, enum ibv_wr_opcode op,
		     uint32_t len, enum ibv_wc_opcode done)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(ctx->qp);
	uint64_t raddr = ctx->remote.addr;
	uint32_t rkey = ctx->remote.rkey;
	__be32 imm = htobe32(ctx->opt.imm);
	struct ext_wc wc;
	int err;

	ibv_wr_start(qx);
	qx->wr_id = 100 + op;
	qx->wr_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case IBV_WR_SEND:
		ibv_wr_send(qx);
		break;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(qx, imm);
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(qx, rkey, raddr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(qx, rkey, raddr, imm);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(qx, rkey, raddr);
		break;
	default:
		ibv_wr_abort(qx);
		return lab_fail(ctx, "ext_issue: opcode %d", op);
	}
	ibv_wr_set_sge(qx, ctx->buf_mr->lkey, (uintptr_t)ctx->buf, len);
	err = ibv_wr_complete(qx);
	if (err)
		return lab_fail_verb(ctx, "ibv_wr_complete", err);
	ext_note(ctx, op, (uintptr_t)ctx->buf, len, raddr, rkey);
	if (ext_wait(ctx, &wc))
		return -1;
	if (wc.opcode != done)
		return lab_fail(ctx, "unexpected completion opcode %d",
				wc.opcode);
	return 0;
}

/* A text into ctx->buf, then sent by ext_issue(). */
static int ext_send_text(struct lab_ctx *ctx, enum ibv_wr_opcode op,
			 const char *text, enum ibv_wc_opcode done)
{
	size_t n = strlen(text);

	if (lab_check_fits(ctx, "payload", n))
		return -1;
	memcpy(ctx->buf, text, n);
	return ext_issue(ctx, op, (uint32_t)n, done);
}

/* Server: the receive of slot, with or without an immediate. */
static int ext_take(struct lab_ctx *ctx, uint64_t slot, bool imm)
{
	struct ext_wc wc;

	if (ext_wait(ctx, &wc))
		return -1;
	if (wc.wr_id != slot || wc.opcode != IBV_WC_RECV)
		return lab_fail(ctx, "receive in the wrong slot");
	if (imm != !!(wc.flags & IBV_WC_WITH_IMM))
		return lab_fail(ctx, "immediate flag mismatch");
	if (imm)
		ctx->imm_received = wc.imm;
	ctx->recv_len[slot] = wc.byte_len;
	return 0;
}
/* STEP open_device */
	struct ibv_device **devs;
	struct ibv_device *dev;
	struct lab_gid_entry *table;
	char why[200];
	int count = 0, status = -1;

	devs = ibv_get_device_list(&count);
	if (!devs)
		return lab_fail_verb(ctx, "ibv_get_device_list", errno);
	dev = ext_find(devs, count, ctx->opt.dev_name);
	if (!dev) {
		lab_fail_no_device(ctx, devs, count);
		ibv_free_device_list(devs);
		return -1;
	}
	ctx->verbs = ibv_open_device(dev);
	ibv_free_device_list(devs);
	if (!ctx->verbs)
		return lab_fail_verb(ctx, "ibv_open_device", errno);
	if (ibv_query_port(ctx->verbs, ctx->opt.ib_port, &ctx->port_attr))
		return lab_fail(ctx, "cannot query port %d", ctx->opt.ib_port);
	if (ctx->port_attr.state != IBV_PORT_ACTIVE)
		return lab_fail(ctx, "port %d not active", ctx->opt.ib_port);
	table = calloc(ctx->port_attr.gid_tbl_len + 1, sizeof(*table));
	if (!table)
		return lab_fail(ctx, "out of memory");
	for (int k = 0; k < ctx->port_attr.gid_tbl_len; k++) {
		struct ibv_gid_entry ent;

		if (ibv_query_gid_ex(ctx->verbs, ctx->opt.ib_port, k, &ent,
				     0) == 0) {
			table[k].gid = ent.gid;
			table[k].type = ent.gid_type;
		}
	}
	if (!lab_choose_gid(table, ctx->port_attr.gid_tbl_len,
			    ctx->opt.gid_idx,
			    ctx->port_attr.link_layer ==
				IBV_LINK_LAYER_ETHERNET,
			    &ctx->gid_idx, why, sizeof(why))) {
		if (ctx->gid_idx >= 0)
			ctx->gid = table[ctx->gid_idx].gid;
		status = 0;
	} else {
		lab_fail(ctx, "%s", why);
	}
	free(table);
	return status;
/* STEP create_resources */
	bool srv = ctx->opt.host == NULL;
	struct ibv_cq_init_attr_ex cqa = {
		.cqe = LAB_CQ_DEPTH,
		.cq_context = ctx,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qpa = {
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 8, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
	};

	ctx->pd = ibv_alloc_pd(ctx->verbs);
	if (!ctx->pd)
		return lab_fail_verb(ctx, "ibv_alloc_pd", errno);
	ctx->channel = ibv_create_comp_channel(ctx->verbs);
	if (!ctx->channel)
		return lab_fail_verb(ctx, "ibv_create_comp_channel", errno);
	cqa.channel = ctx->channel;
	ext_cq = ibv_create_cq_ex(ctx->verbs, &cqa);
	if (!ext_cq)
		return lab_fail_verb(ctx, "ibv_create_cq_ex", errno);
	ctx->cq = ibv_cq_ex_to_cq(ext_cq);
	ctx->buf_mr = ibv_reg_mr(
		ctx->pd, ctx->buf, ctx->buf_len,
		srv ? IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE |
			      (LAB_PARTS > 1 ? IBV_ACCESS_REMOTE_ATOMIC |
						       IBV_ACCESS_REMOTE_READ
					     : 0)
		    : (LAB_PARTS > 1 ? IBV_ACCESS_LOCAL_WRITE : 0));
	if (!ctx->buf_mr)
		return lab_fail_verb(ctx, "ibv_reg_mr", errno);
	if (srv) {
		ctx->recv_mr =
		    ibv_reg_mr(ctx->pd, ctx->recv_buf,
			       (size_t)ctx->buf_len * LAB_RECV_SLOTS,
			       IBV_ACCESS_LOCAL_WRITE);
		if (!ctx->recv_mr)
			return lab_fail_verb(ctx, "ibv_reg_mr", errno);
	}
	qpa.send_cq = qpa.recv_cq = ctx->cq;
	qpa.pd = ctx->pd;
	ctx->qp = ibv_create_qp_ex(ctx->verbs, &qpa);
	return ctx->qp ? 0 : lab_fail_verb(ctx, "ibv_create_qp_ex", errno);
/* STEP qp_to_init */
	struct ibv_qp_attr st;
	struct ibv_sge s[LAB_RECV_SLOTS];
	struct ibv_recv_wr rw[LAB_RECV_SLOTS], *oops;
	int e;

	memset(&st, 0, sizeof(st));
	st.qp_state = IBV_QPS_INIT;
	st.port_num = ctx->opt.ib_port;
	if (!ctx->opt.host)
		st.qp_access_flags =
			IBV_ACCESS_REMOTE_WRITE |
			(LAB_PARTS > 1 ? IBV_ACCESS_REMOTE_ATOMIC |
						 IBV_ACCESS_REMOTE_READ
				       : 0);
	if (ext_to(ctx, &st,
		   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS,
		   "ibv_modify_qp(INIT)"))
		return -1;
	if (ctx->opt.host)
		return 0;
	/* Every receive slot, posted before RTR as one chained list. */
	for (int slot = 0; slot < LAB_RECV_SLOTS; slot++) {
		s[slot] = (struct ibv_sge){
		    .addr = (uintptr_t)(ctx->recv_buf +
					(size_t)slot * ctx->buf_len),
		    .length = ctx->buf_len,
		    .lkey = ctx->recv_mr->lkey};
		rw[slot] = (struct ibv_recv_wr){
		    .wr_id = slot,
		    .next = slot + 1 < LAB_RECV_SLOTS ? &rw[slot + 1] : NULL,
		    .sg_list = &s[slot],
		    .num_sge = 1};
	}
	e = ibv_post_recv(ctx->qp, rw, &oops);
	return e ? lab_fail_verb(ctx, "ibv_post_recv", e) : 0;
/* STEP exchange */
	struct lab_dest *me = &ctx->local;
	unsigned int seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();

	memset(me, 0, sizeof(*me));
	me->mtu = lab_mtu_bytes(ctx->port_attr.active_mtu);
	me->len = ctx->buf_len;
	me->rkey = ctx->buf_mr->rkey;
	me->addr = (uint64_t)(uintptr_t)ctx->buf;
	memcpy(&me->gid, &ctx->gid, sizeof(me->gid));
	me->lid = ctx->port_attr.lid;
	me->psn = (uint32_t)rand_r(&seed) & 0xffffff;
	me->qpn = ctx->qp->qp_num;
	return lab_tcp_open(ctx) ? -1 : lab_exchange_dest(ctx);
/* STEP connect */
	struct ibv_qp_attr st;
	enum ibv_mtu lo = ctx->port_attr.active_mtu;

	if (lab_mtu_enum(ctx->remote.mtu) < lo)
		lo = lab_mtu_enum(ctx->remote.mtu);
	memset(&st, 0, sizeof(st));
	st.qp_state = IBV_QPS_RTR;
	st.path_mtu = lo;
	st.dest_qp_num = ctx->remote.qpn;
	st.rq_psn = ctx->remote.psn;
	st.max_dest_rd_atomic = 1;
	st.min_rnr_timer = 12;
	st.ah_attr.port_num = ctx->opt.ib_port;
	st.ah_attr.dlid = ctx->remote.lid;
	if (ctx->gid_idx >= 0) {
		st.ah_attr.is_global = 1;
		st.ah_attr.grh.dgid = ctx->remote.gid;
		st.ah_attr.grh.sgid_index = ctx->gid_idx;
		st.ah_attr.grh.hop_limit = 8;
	}
	if (ext_to(ctx, &st,
		   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		   "ibv_modify_qp(RTR)"))
		return -1;
	memset(&st, 0, sizeof(st));
	st.qp_state = IBV_QPS_RTS;
	st.sq_psn = ctx->local.psn;
	st.timeout = 14;
	st.retry_cnt = 6;
	st.rnr_retry = 5;
	st.max_rd_atomic = 1;
	if (ext_to(ctx, &st,
		   IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_MAX_QP_RD_ATOMIC,
		   "ibv_modify_qp(RTS)"))
		return -1;
	return lab_barrier(ctx);
/* STEP send */
	if (ctx->opt.host)
		return ext_send_text(ctx, IBV_WR_SEND, ctx->opt.message,
				     IBV_WC_SEND);
	return ext_take(ctx, 0, false);
/* STEP send_imm */
	if (ctx->opt.host)
		return ext_send_text(ctx, IBV_WR_SEND_WITH_IMM,
				     ctx->opt.message, IBV_WC_SEND);
	return ext_take(ctx, 1, true);
/* STEP write */
	if (!ctx->opt.host)
		return lab_recv_write_done(ctx);
	if (ext_send_text(ctx, IBV_WR_RDMA_WRITE, ctx->opt.write_msg,
			  IBV_WC_RDMA_WRITE))
		return -1;
	return lab_send_write_done(ctx, strlen(ctx->opt.write_msg));
/* STEP read */
	int sync = lab_barrier(ctx);
	uint32_t n = (uint32_t)strlen(ctx->opt.write_msg);

	if (sync || !ctx->opt.host)
		return sync;
	memset(ctx->buf, 0xff, n);
	if (ext_issue(ctx, IBV_WR_RDMA_READ, n, IBV_WC_RDMA_READ))
		return -1;
	ctx->read_len = n;
	return 0;
/* STEP write_imm */
	struct ext_wc wc;

	if (ctx->opt.host)
		return ext_send_text(ctx, IBV_WR_RDMA_WRITE_WITH_IMM,
				     ctx->opt.message, IBV_WC_RDMA_WRITE);
	if (ext_wait(ctx, &wc))
		return -1;
	if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
	    !(wc.flags & IBV_WC_WITH_IMM))
		return lab_fail(ctx, "not a WRITE with immediate");
	ctx->write_imm_imm = wc.imm;
	ctx->write_imm_len = wc.byte_len;
	return 0;
/* STEP atomic */
	struct ibv_qp_ex *qx;
	int err;

	if (!ctx->opt.host) {
		uint64_t *word = (uint64_t *)(ctx->buf + 128);
		unsigned int seed = (unsigned int)getpid();

		*word = (uint64_t)rand_r(&seed) << 36 ^ (uint64_t)time(NULL);
		ctx->atomic_start = *word;
		ctx->atomic_addr = (uintptr_t)word;
		if (lab_send_atomic_target(ctx, ctx->atomic_addr, *word) ||
		    lab_recv_atomic_done(ctx))
			return -1;
		ctx->atomic_final = __atomic_load_n(word, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (lab_recv_atomic_target(ctx))
		return -1;
	/* Both atomics in one start..complete: the QP runs them in order,
	 * each original value into its own 8 bytes of ctx->buf. */
	qx = ibv_qp_to_qp_ex(ctx->qp);
	ibv_wr_start(qx);
	qx->wr_id = 200;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qx, ctx->remote.rkey, ctx->atomic_addr,
				LAB_ATOMIC_ADD);
	ibv_wr_set_sge(qx, ctx->buf_mr->lkey, (uintptr_t)ctx->buf, 8);
	qx->wr_id = 201;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(qx, ctx->remote.rkey, ctx->atomic_addr,
			      ctx->atomic_start + LAB_ATOMIC_ADD,
			      LAB_ATOMIC_SWAP);
	ibv_wr_set_sge(qx, ctx->buf_mr->lkey, (uintptr_t)ctx->buf + 8, 8);
	err = ibv_wr_complete(qx);
	if (err)
		return lab_fail_verb(ctx, "ibv_wr_complete", err);
	ext_note(ctx, IBV_WR_ATOMIC_FETCH_AND_ADD, (uintptr_t)ctx->buf, 8,
		 ctx->atomic_addr, ctx->remote.rkey);
	ext_note(ctx, IBV_WR_ATOMIC_CMP_AND_SWP, (uintptr_t)ctx->buf + 8, 8,
		 ctx->atomic_addr, ctx->remote.rkey);
	for (int k = 0; k < 2; k++) {
		struct ext_wc wc;

		if (ext_wait(ctx, &wc))
			return -1;
		if (wc.wr_id < 200 || wc.wr_id > 201)
			return lab_fail(ctx, "unexpected completion");
		memcpy(&ctx->atomic_orig[wc.wr_id - 200],
		       ctx->buf + 8 * (wc.wr_id - 200), 8);
	}
	return lab_send_atomic_done(ctx);
/* STEP teardown */
	int bad = 0;

	if (ctx->qp && ibv_destroy_qp(ctx->qp) == 0)
		ctx->qp = NULL;
	struct ibv_mr **mrs[] = {&ctx->buf_mr, &ctx->recv_mr};
	for (size_t k = 0; k < sizeof(mrs) / sizeof(mrs[0]); k++)
		if (*mrs[k] && ibv_dereg_mr(*mrs[k]) == 0)
			*mrs[k] = NULL;
	if (ctx->cq && ibv_destroy_cq(ctx->cq) == 0)
		ctx->cq = NULL;
	if (ctx->channel && ibv_destroy_comp_channel(ctx->channel) == 0)
		ctx->channel = NULL;
	if (ctx->pd && ibv_dealloc_pd(ctx->pd) == 0)
		ctx->pd = NULL;
	bad = ctx->qp || ctx->buf_mr || ctx->recv_mr || ctx->cq ||
	      ctx->channel || ctx->pd;
	if (!bad && ibv_close_device(ctx->verbs) == 0)
		ctx->verbs = NULL;
	return bad || ctx->verbs ? lab_fail(ctx, "teardown incomplete") : 0;

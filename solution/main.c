/*
 * rdma-lab: one reliable-connected (RC) queue pair between two hosts over
 * raw ibverbs, one step at a time.  This file holds the steps, in the
 * order they run; each TODO says what to achieve, which verbs to use and
 * one pitfall.  Everything a step may use is in lab.h, your reference
 * card.  lab/driver.c runs the steps and prints a checked report line
 * after each; lab/support.c holds the helpers.  Edit only this file.
 *
 *   make run      both sides in the two SoftRoCE guests, with a capture
 *   make grade    your steps graded against the reference
 */
#include "lab.h"

int step_open_device(struct lab_ctx *ctx)
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
	 * Pitfall: GID index 0 on RoCE is usually fe80:: (link-local): with
	 * the peer on its IPv4-mapped GID, RTR fails with EINVAL (recorded:
	 * seed gid_index_0); the IPv4-mapped RoCE v2 entry works.
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
		lab_fail_code(ctx, LAB_CODE_PORT_NOT_ACTIVE,
			      "port %d is %s, not ACTIVE", ctx->opt.ib_port,
			      ibv_port_state_str(ctx->port_attr.state));
		lab_hint(ctx, "is the network interface up? (ip link; rdma "
			      "link show)");
		goto out;
	}
	/* Only Ethernet is RoCE; older providers report "unspecified" for
	 * InfiniBand. */
	ethernet = ctx->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (!ethernet && ctx->port_attr.lid == 0) {
		lab_fail_code(ctx, LAB_CODE_PORT_NO_LID,
			      "InfiniBand port %d has LID 0", ctx->opt.ib_port);
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
		lab_fail_code(ctx, LAB_CODE_GID_CHOICE, "%s", err);
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

int step_create_resources(struct lab_ctx *ctx)
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
	 * Part two: the client also READs the server's buffer and does
	 * atomics on it; the READ responses and atomic results land in the
	 * client's buffer.
	 * Verbs: ibv_alloc_pd(3), ibv_create_comp_channel(3),
	 * ibv_create_cq(3), ibv_reg_mr(3), ibv_create_qp(3).
	 * Pitfall: IBV_ACCESS_REMOTE_WRITE without IBV_ACCESS_LOCAL_WRITE
	 * makes ibv_reg_mr fail with EINVAL (the kernel's
	 * ib_check_mr_access(), include/rdma/ib_verbs.h).  ibv_create_qp
	 * accepts a cap left at 0; the first ibv_post_recv/ibv_post_send
	 * then fails with ENOMEM.
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
	int buf_access = 0;

	if (server)
		buf_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (server && LAB_PARTS >= 2)
		buf_access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	/* The client's own device writes READ data and atomic results. */
	if (!server && LAB_PARTS >= 2)
		buf_access = IBV_ACCESS_LOCAL_WRITE;

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

int step_qp_to_init(struct lab_ctx *ctx)
{
	/*
	 * TODO qp_to_init: move the QP from RESET to INIT on port -i, P_Key
	 * index 0, with the remote access the peer will use (server: the
	 * client RDMA WRITEs into it; client: nothing).
	 * Part two: the client also READs the server's buffer and does
	 * atomics on it.
	 * Verbs: ibv_modify_qp(3) (report failures with lab_fail_verb(ctx,
	 * "ibv_modify_qp(INIT)", ret) to get a hint).
	 * Pitfall: the QP's qp_access_flags are checked too, and first:
	 * REMOTE_WRITE on the MR alone gives the writer
	 * IBV_WC_REM_INV_REQ_ERR (recorded: seed qp_no_remote_write).
	 */
	/* BEGIN SOLUTION qp_to_init */
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = ctx->opt.ib_port,
	};
	int ret;

	if (!ctx->opt.host)
		attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (!ctx->opt.host && LAB_PARTS >= 2)
		attr.qp_access_flags |=
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

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

int step_exchange(struct lab_ctx *ctx)
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

int step_connect(struct lab_ctx *ctx)
{
	/*
	 * TODO connect: server: post LAB_RECV_SLOTS receives (wr_id = slot,
	 * slot i at ctx->recv_buf + i * ctx->buf_len).  Then both sides:
	 * INIT -> RTR towards ctx->remote (path MTU: the smaller of the two
	 * active MTUs; ah_attr.port_num = -i; a GRH when ctx->gid_idx >= 0,
	 * else the LID alone), RTR -> RTS with ctx->local.psn and the
	 * LAB_QP_* timers (max_rd_atomic and max_dest_rd_atomic: 1, the
	 * READs and atomics each side may have in flight), then
	 * lab_barrier() so neither side sends before the other is ready.
	 * Verbs: ibv_post_recv(3), ibv_modify_qp(3) (use lab_fail_verb(ctx,
	 * "ibv_modify_qp(RTR)", ret) / "(RTS)" for hints).
	 * Pitfall: a SEND that finds no posted receive is answered with an
	 * RNR NAK, and after LAB_QP_RNR_RETRY of them the sender's completion
	 * is IBV_WC_RNR_RETRY_EXC_ERR (recorded: seed no_recv): post the
	 * receives before RTR.
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
		return lab_fail_code(ctx, LAB_CODE_PEER_NO_GID,
				     "the peer sent an all-zero GID but this "
				     "port needs a GRH");
	if (!grh && rem->lid == 0)
		return lab_fail_code(ctx, LAB_CODE_PEER_NO_LID,
				     "the peer's LID is 0 and no GRH is used: "
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

int step_send(struct lab_ctx *ctx)
{
	/*
	 * TODO send: client: copy -m into ctx->buf, post a signaled SEND
	 * with lab_post_send() (checked first with lab_check_fits()) and
	 * wait for its completion with lab_wait_wc().  Server: wait for the
	 * receive completion of slot 0 and store its byte_len in
	 * ctx->recv_len[0].
	 * Verbs: ibv_post_send(3), ibv_poll_cq(3) (inside lab_wait_wc()).
	 * Pitfall: the SGE needs the lkey of the MR; the rkey there gives
	 * IBV_WC_LOC_QP_OP_ERR on rxe (recorded: seed rkey_as_lkey).
	 */
	/* BEGIN SOLUTION send */
	struct ibv_wc wc;

	if (!ctx->opt.host) {
		if (lab_wait_wc(ctx, &wc))
			return -1;
		if (wc.opcode != IBV_WC_RECV || wc.wr_id != 0 ||
		    (wc.wc_flags & IBV_WC_WITH_IMM))
			return lab_fail_code(ctx, LAB_CODE_WRONG_COMPLETION,
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
		return lab_fail_code(
			ctx, LAB_CODE_WRONG_COMPLETION,
			"expected a SEND completion, got opcode %d", wc.opcode);
	return 0;
	/* END SOLUTION */
}

int step_send_imm(struct lab_ctx *ctx)
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
			return lab_fail_code(
				ctx, LAB_CODE_WRONG_COMPLETION,
				"expected a receive in slot 1, got "
				"opcode %d slot %" PRIu64,
				wc.opcode, wc.wr_id);
		if (!(wc.wc_flags & IBV_WC_WITH_IMM))
			return lab_fail_code(ctx, LAB_CODE_NO_IMM,
					     "the completion carries no "
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
		return lab_fail_code(
			ctx, LAB_CODE_WRONG_COMPLETION,
			"expected a SEND completion, got opcode %d", wc.opcode);
	return 0;
	/* END SOLUTION */
}

int step_write(struct lab_ctx *ctx)
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

	lab_ref_delay();

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
		return lab_fail_code(ctx, LAB_CODE_WRONG_COMPLETION,
				     "expected an RDMA WRITE completion, got "
				     "opcode %d",
				     wc.opcode);
	return lab_send_write_done(ctx, len);
	/* END SOLUTION */
}

int step_read(struct lab_ctx *ctx)
{
	/*
	 * TODO read: (part two) both sides first lab_barrier(): the server
	 * has finished with what the write step put in its buffer, which
	 * write_imm will overwrite.  Then client: RDMA READ strlen(-w) bytes
	 * of the server's buffer into ctx->buf, which the driver has
	 * cleared, wait for the completion and set ctx->read_len.  Server:
	 * nothing more: its RDMA device answers the READ without the CPU.
	 * Verbs: ibv_post_send(3) (IBV_WR_RDMA_READ, wr.rdma).
	 * Pitfall: the READ response is written into the client's buffer
	 * by its own device: without IBV_ACCESS_LOCAL_WRITE on that MR the
	 * completion is IBV_WC_LOC_PROT_ERR (recorded: seed
	 * client_mr_no_local_write).
	 */
	/* BEGIN SOLUTION read */
	if (lab_barrier(ctx))
		return -1;
	if (!ctx->opt.host)
		return 0;

	size_t len = strlen(ctx->opt.write_msg);
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = len,
		.lkey = ctx->buf_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 4,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = ctx->remote.addr,
		.wr.rdma.rkey = ctx->remote.rkey,
	};
	struct ibv_wc wc;

	if (lab_check_fits(ctx, "the read", len))
		return -1;
	if (lab_post_send(ctx, &wr) || lab_wait_wc(ctx, &wc))
		return -1;
	if (wc.opcode != IBV_WC_RDMA_READ)
		return lab_fail_code(ctx, LAB_CODE_WRONG_COMPLETION,
				     "expected an RDMA READ completion, got "
				     "opcode %d",
				     wc.opcode);
	ctx->read_len = len;
	return 0;
	/* END SOLUTION */
}

int step_write_imm(struct lab_ctx *ctx)
{
	/*
	 * TODO write_imm: (part two) client: copy -m into ctx->buf and RDMA
	 * WRITE it, with immediate data --imm, to the server's advertised
	 * address and rkey; wait for the completion.  No TCP notice: the
	 * immediate is the signal.  Server: wait for the completion of the
	 * receive it consumes (slot 2): check that it carries immediate
	 * data, store it in host order in ctx->write_imm_imm and its
	 * byte_len, the length written, in ctx->write_imm_len.
	 * Verbs: ibv_post_send(3) (IBV_WR_RDMA_WRITE_WITH_IMM), ibv_poll_cq(3)
	 * (IBV_WC_RECV_RDMA_WITH_IMM).
	 * Pitfall: the data lands at the WRITE's address, not in the
	 * receive's buffer, but without a posted receive the WRITE is
	 * answered with RNR NAKs like a SEND, and its completion is
	 * IBV_WC_RNR_RETRY_EXC_ERR (recorded: seed recv_two).
	 */
	/* BEGIN SOLUTION write_imm */
	struct ibv_wc wc;

	if (!ctx->opt.host) {
		if (lab_wait_wc(ctx, &wc))
			return -1;
		if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.wr_id != 2)
			return lab_fail_code(ctx, LAB_CODE_WRONG_COMPLETION,
					     "expected a WRITE with immediate "
					     "in slot 2, got opcode %d slot "
					     "%" PRIu64,
					     wc.opcode, wc.wr_id);
		if (!(wc.wc_flags & IBV_WC_WITH_IMM))
			return lab_fail_code(ctx, LAB_CODE_NO_IMM,
					     "the completion carries no "
					     "immediate data");
		ctx->write_imm_imm = ntohl(wc.imm_data);
		ctx->write_imm_len = wc.byte_len;
		return 0;
	}

	lab_ref_delay();

	size_t len = strlen(ctx->opt.message);
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = len,
		.lkey = ctx->buf_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 5,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(ctx->opt.imm),
		.wr.rdma.remote_addr = ctx->remote.addr,
		.wr.rdma.rkey = ctx->remote.rkey,
	};

	if (lab_check_fits(ctx, "the message", len))
		return -1;
	memcpy(ctx->buf, ctx->opt.message, len);
	if (lab_post_send(ctx, &wr) || lab_wait_wc(ctx, &wc))
		return -1;
	if (wc.opcode != IBV_WC_RDMA_WRITE)
		return lab_fail_code(ctx, LAB_CODE_WRONG_COMPLETION,
				     "expected an RDMA WRITE completion, got "
				     "opcode %d",
				     wc.opcode);
	return 0;
	/* END SOLUTION */
}

int step_atomic(struct lab_ctx *ctx)
{
	/*
	 * TODO atomic: (part two) server: put a random 64-bit start value
	 * into an 8-byte aligned word of ctx->buf, advertise the word with
	 * lab_send_atomic_target(), wait for lab_recv_atomic_done(), then
	 * store what the word holds in ctx->atomic_final.  Client:
	 * lab_recv_atomic_target(), then FETCH_AND_ADD LAB_ATOMIC_ADD, then
	 * COMPARE_AND_SWAP: if the word holds start + LAB_ATOMIC_ADD, swap
	 * in LAB_ATOMIC_SWAP.  Store what each returned (the word's value
	 * before it) in ctx->atomic_orig[0] and [1], then
	 * lab_send_atomic_done().
	 * Verbs: ibv_post_send(3) (IBV_WR_ATOMIC_FETCH_AND_ADD,
	 * IBV_WR_ATOMIC_CMP_AND_SWP, wr.atomic; the original value is
	 * written into the 8-byte SGE).
	 * Pitfall: the remote address must be 8-byte aligned: rxe refuses
	 * to post the request (EINVAL, recorded: seed atomic_misaligned); an
	 * adapter that sends it gets a NAK back (IBV_WC_REM_INV_REQ_ERR).
	 */
	/* BEGIN SOLUTION atomic */
	if (!ctx->opt.host) {
		volatile uint64_t *word = (uint64_t *)ctx->buf;
		uint64_t start;

		if (ctx->buf_len < sizeof(*word))
			return lab_fail_code(ctx, LAB_CODE_BUF_TOO_SMALL,
					     "-s is below the 8 bytes of the "
					     "atomic word");
		if (getrandom(&start, sizeof(start), 0) != sizeof(start))
			return lab_fail_verb(ctx, "getrandom", errno);
		*word = start;
		ctx->atomic_addr = (uintptr_t)word;
		ctx->atomic_start = start;
		if (lab_send_atomic_target(ctx, ctx->atomic_addr, start) ||
		    lab_recv_atomic_done(ctx))
			return -1;
		ctx->atomic_final = *word;
		return 0;
	}

	/* The original value is written here, as the SGE says. */
	volatile uint64_t *res = (uint64_t *)ctx->buf;
	struct ibv_sge sge = {
		.addr = (uintptr_t)ctx->buf,
		.length = sizeof(uint64_t),
		.lkey = ctx->buf_mr->lkey,
	};
	int i;

	if (lab_check_fits(ctx, "the atomic result", sizeof(uint64_t)) ||
	    lab_recv_atomic_target(ctx))
		return -1;
	lab_ref_delay();
	for (i = 0; i < 2; i++) {
		/* 0: add; 1: swap if the add is the last thing that
		 * happened to the word. */
		struct ibv_send_wr wr = {
			.wr_id = 6 + i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = i ? IBV_WR_ATOMIC_CMP_AND_SWP
				    : IBV_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.atomic.remote_addr = ctx->atomic_addr,
			.wr.atomic.compare_add =
				i ? ctx->atomic_orig[0] + LAB_ATOMIC_ADD
				  : LAB_ATOMIC_ADD,
			.wr.atomic.swap = lab_ref_swap(),
			.wr.atomic.rkey = ctx->remote.rkey,
		};
		struct ibv_wc wc;

		if (lab_post_send(ctx, &wr) || lab_wait_wc(ctx, &wc))
			return -1;
		if (wc.opcode != (i ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD))
			return lab_fail_code(
				ctx, LAB_CODE_WRONG_COMPLETION,
				"expected an atomic completion, got "
				"opcode %d",
				wc.opcode);
		ctx->atomic_orig[i] = *res;
	}
	return lab_send_atomic_done(ctx);
	/* END SOLUTION */
}

int step_teardown(struct lab_ctx *ctx)
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
	 * uses the PD (recorded: seed leak_mr).
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

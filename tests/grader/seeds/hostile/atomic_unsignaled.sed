# Not hostile: a correct client that chains an unsignaled FETCH_AND_ADD
# before a signaled COMPARE_AND_SWAP in one ibv_post_send and waits for
# the one completion (each atomic's original value in its own 8 bytes;
# the compare is the advertised start plus the add).  By the verbs' rules
# the CMP_SWAP's completion, polled, completes the FETCH_AND_ADD before
# it on the same send queue, so both were done before the notice: full
# marks (it lost atomic's 4 points when only a request's own completion
# counted, issue 39).
# score: 20
# text: Score: 20/20
/^	\/\* The original value is written here, as the SGE says\. \*\/$/,/^	return lab_send_atomic_done(ctx);$/c\
	/* Each original value in its own 8 bytes of ctx->buf. */\
	volatile uint64_t *res = (uint64_t *)ctx->buf;\
	struct ibv_sge sge[2] = {\
		{ .addr = (uintptr_t)ctx->buf, .length = sizeof(uint64_t),\
		  .lkey = ctx->buf_mr->lkey },\
		{ .addr = (uintptr_t)ctx->buf + sizeof(uint64_t),\
		  .length = sizeof(uint64_t), .lkey = ctx->buf_mr->lkey },\
	};\
	struct ibv_send_wr wr[2];\
	struct ibv_wc wc;\
\
	if (lab_check_fits(ctx, "the atomic results", 2 * sizeof(uint64_t)) ||\
	    lab_recv_atomic_target(ctx))\
		return -1;\
	lab_ref_delay();\
	/* The add, unsignaled, chained before the swap, signaled: the\
	 * swap's completion completes both. */\
	wr[0] = (struct ibv_send_wr){\
		.wr_id = 6,\
		.next = &wr[1],\
		.sg_list = &sge[0],\
		.num_sge = 1,\
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,\
		.wr.atomic.remote_addr = ctx->atomic_addr,\
		.wr.atomic.compare_add = LAB_ATOMIC_ADD,\
		.wr.atomic.rkey = ctx->remote.rkey,\
	};\
	wr[1] = (struct ibv_send_wr){\
		.wr_id = 7,\
		.sg_list = &sge[1],\
		.num_sge = 1,\
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,\
		.send_flags = IBV_SEND_SIGNALED,\
		.wr.atomic.remote_addr = ctx->atomic_addr,\
		.wr.atomic.compare_add = ctx->atomic_start + LAB_ATOMIC_ADD,\
		.wr.atomic.swap = lab_ref_swap(),\
		.wr.atomic.rkey = ctx->remote.rkey,\
	};\
	if (lab_post_send(ctx, &wr[0]) || lab_wait_wc(ctx, &wc))\
		return -1;\
	if (wc.opcode != IBV_WC_COMP_SWAP)\
		return lab_fail_code(ctx, LAB_CODE_WRONG_COMPLETION,\
				     "expected a COMP_SWAP completion, got "\
				     "opcode %d", wc.opcode);\
	ctx->atomic_orig[0] = res[0];\
	ctx->atomic_orig[1] = res[1];\
	return lab_send_atomic_done(ctx);

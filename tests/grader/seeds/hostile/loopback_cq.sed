# loopback_write with the loopback QP on a CQ of its own, polled after
# the real WRITE's completion was written: the client posts its real
# WRITE, sleeps 200 ms (the ACK comes back and the kernel writes the
# completion into ctx->cq), WRITEs on the loopback QP and polls the
# loopback's CQ, then sends the notice, then polls ctx->cq.  A poll's CQ
# is not in the kernel's trace: matched in the kernel's order, the
# loopback poll would take the real WRITE's completion.  A completion
# counts only from the poll that must have taken it (more taken than
# the other CQs held), here the one after the notice: write loses as
# notice_early's does, every time (issue 39).
# score: 17
# text: the write notice went out before the WRITE's completion
/^#include "lab\.h"$/a\
\
static struct ibv_qp *lb_qp;\
static struct ibv_mr *lb_mr;\
static struct ibv_cq *lb_cq;\
static char lb_target[64];\
\
/* A QP connected to itself on a CQ of its own, an MR it may WRITE. */\
static int loopback_setup(struct lab_ctx *ctx)\
{\
	struct ibv_qp_init_attr init = {\
		.qp_type = IBV_QPT_RC,\
		.cap.max_send_wr = 1,\
		.cap.max_recv_wr = 1,\
		.cap.max_send_sge = 1,\
		.cap.max_recv_sge = 1,\
	};\
	struct ibv_qp_attr a = {\
		.qp_state = IBV_QPS_INIT,\
		.port_num = ctx->opt.ib_port,\
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,\
	};\
\
	lb_cq = ibv_create_cq(ctx->verbs, 4, NULL, NULL, 0);\
	if (!lb_cq)\
		return -1;\
	init.send_cq = lb_cq;\
	init.recv_cq = lb_cq;\
	lb_mr = ibv_reg_mr(ctx->pd, lb_target, sizeof(lb_target),\
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);\
	lb_qp = ibv_create_qp(ctx->pd, &init);\
	if (!lb_mr || !lb_qp ||\
	    ibv_modify_qp(lb_qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |\
				     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))\
		return -1;\
	memset(&a, 0, sizeof(a));\
	a.qp_state = IBV_QPS_RTR;\
	a.path_mtu = IBV_MTU_1024;\
	a.dest_qp_num = lb_qp->qp_num;\
	a.max_dest_rd_atomic = 1;\
	a.min_rnr_timer = 12;\
	a.ah_attr.port_num = ctx->opt.ib_port;\
	a.ah_attr.dlid = ctx->port_attr.lid;\
	a.ah_attr.is_global = ctx->gid_idx >= 0;\
	a.ah_attr.grh.dgid = ctx->gid;\
	a.ah_attr.grh.sgid_index = ctx->gid_idx >= 0 ? ctx->gid_idx : 0;\
	a.ah_attr.grh.hop_limit = 1;\
	if (ibv_modify_qp(lb_qp, &a, IBV_QP_STATE | IBV_QP_AV |\
				     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |\
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |\
				     IBV_QP_MIN_RNR_TIMER))\
		return -1;\
	memset(&a, 0, sizeof(a));\
	a.qp_state = IBV_QPS_RTS;\
	a.timeout = 14;\
	a.retry_cnt = 6;\
	a.rnr_retry = 6;\
	a.max_rd_atomic = 1;\
	return ibv_modify_qp(lb_qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |\
					IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |\
					IBV_QP_RNR_RETRY |\
					IBV_QP_MAX_QP_RD_ATOMIC) ? -1 : 0;\
}\
\
/* After a while, a WRITE on the loopback QP, its completion polled from\
 * the loopback's CQ. */\
static int loopback_write(struct lab_ctx *ctx)\
{\
	struct ibv_sge sge = {\
		.addr = (uintptr_t)ctx->buf,\
		.length = 8,\
		.lkey = ctx->buf_mr->lkey,\
	};\
	struct ibv_send_wr wr = {\
		.wr_id = 99,\
		.sg_list = &sge,\
		.num_sge = 1,\
		.opcode = IBV_WR_RDMA_WRITE,\
		.send_flags = IBV_SEND_SIGNALED,\
		.wr.rdma.remote_addr = (uintptr_t)lb_target,\
		.wr.rdma.rkey = lb_mr->rkey,\
	};\
	struct ibv_send_wr *bad;\
	struct ibv_wc wc;\
	int i, n = 0;\
\
	usleep(200000);\
	if (ibv_post_send(lb_qp, &wr, &bad))\
		return -1;\
	for (i = 0; i < 50000 && n == 0; i++) {\
		n = ibv_poll_cq(lb_cq, 1, &wc);\
		if (n == 0)\
			usleep(100);\
	}\
	return n == 1 && wc.opcode == IBV_WC_RDMA_WRITE ? 0 : -1;\
}
s/^\tinit\.send_cq = ctx->cq;$/\tif (!server \&\& loopback_setup(ctx))\n\t\treturn lab_fail_verb(ctx, "loopback", EINVAL);\n\tinit.send_cq = ctx->cq;/
s/^\tif (ctx->qp) {$/\tif (lb_qp \&\& !ibv_destroy_qp(lb_qp))\n\t\tlb_qp = NULL;\n\tif (lb_mr \&\& !ibv_dereg_mr(lb_mr))\n\t\tlb_mr = NULL;\n\tif (lb_cq \&\& !ibv_destroy_cq(lb_cq))\n\t\tlb_cq = NULL;\n\tif (ctx->qp) {/
/BEGIN SOLUTION write \*\//,/END SOLUTION/s/if (lab_post_send(ctx, \&wr) || lab_wait_wc(ctx, \&wc))/if (lab_post_send(ctx, \&wr) || loopback_write(ctx) || lab_send_write_done(ctx, len) || lab_wait_wc(ctx, \&wc))/
/BEGIN SOLUTION write \*\//,/END SOLUTION/s/return lab_send_write_done(ctx, len);/return 0;/

# Hides an early write notice behind a loopback WRITE: the client makes a
# second QP connected to itself (set up before its real QP, so that one
# is still the last created and connected), and in the write step
# WRITEs on it and polls that completion, then posts the real WRITE and
# sends the notice before its completion (as the notice_early mistake
# does).  A completion of another QP completes nothing of the real one:
# write loses as notice_early's does, every time (issue 39).
# score: 17
# text: the write notice went out before the WRITE's completion
/^#include "lab\.h"$/a\
\
static struct ibv_qp *lb_qp;\
static struct ibv_mr *lb_mr;\
static char lb_target[64];\
\
/* A QP connected to itself on this device, and an MR it may WRITE. */\
static int loopback_setup(struct lab_ctx *ctx)\
{\
	struct ibv_qp_init_attr init = {\
		.qp_type = IBV_QPT_RC,\
		.send_cq = ctx->cq,\
		.recv_cq = ctx->cq,\
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
/* A WRITE on the loopback QP, its completion polled from ctx->cq. */\
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
\
	if (ibv_post_send(lb_qp, &wr, &bad) || lab_wait_wc(ctx, &wc))\
		return -1;\
	return wc.opcode == IBV_WC_RDMA_WRITE ? 0 : -1;\
}
s/^\tinit\.send_cq = ctx->cq;$/\tif (!server \&\& loopback_setup(ctx))\n\t\treturn lab_fail_verb(ctx, "loopback", EINVAL);\n\tinit.send_cq = ctx->cq;/
s/^\tif (ctx->qp) {$/\tif (lb_qp \&\& !ibv_destroy_qp(lb_qp))\n\t\tlb_qp = NULL;\n\tif (lb_mr \&\& !ibv_dereg_mr(lb_mr))\n\t\tlb_mr = NULL;\n\tif (ctx->qp) {/
/BEGIN SOLUTION write \*\//,/END SOLUTION/s/^\tmemcpy(ctx->buf, ctx->opt\.write_msg, len);$/\tif (loopback_write(ctx))\n\t\treturn -1;\n\tmemcpy(ctx->buf, ctx->opt.write_msg, len);/
/BEGIN SOLUTION write \*\//,/END SOLUTION/s/if (lab_post_send(ctx, \&wr) || lab_wait_wc(ctx, \&wc))/if (lab_post_send(ctx, \&wr) || lab_send_write_done(ctx, len) || lab_wait_wc(ctx, \&wc))/
/BEGIN SOLUTION write \*\//,/END SOLUTION/s/return lab_send_write_done(ctx, len);/return 0;/

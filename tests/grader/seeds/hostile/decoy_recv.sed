# Hides late receives behind a decoy QP: the server makes a second QP,
# never connected, and posts LAB_RECV_SLOTS receives on it before the
# barrier, and posts its real QP's receives after lab_barrier() (as the
# late_recv mistake does).  Receives of another QP take none of the
# client's messages: the race judges count only the QP the peer talks
# to, so connect loses as late_recv's does, every time (issue 39).
# score: 17
# text: before lab_barrier\(\) told the peer
/^#include "lab\.h"$/a\
\
static struct ibv_qp *decoy;\
\
/* A second QP in INIT, its receives posted, never connected. */\
static int decoy_recvs(struct lab_ctx *ctx)\
{\
	struct ibv_qp_init_attr init = {\
		.qp_type = IBV_QPT_RC,\
		.send_cq = ctx->cq,\
		.recv_cq = ctx->cq,\
		.cap.max_send_wr = 1,\
		.cap.max_recv_wr = LAB_RECV_SLOTS,\
		.cap.max_send_sge = 1,\
		.cap.max_recv_sge = 1,\
	};\
	struct ibv_qp_attr attr = {\
		.qp_state = IBV_QPS_INIT,\
		.port_num = ctx->opt.ib_port,\
	};\
	int i;\
\
	decoy = ibv_create_qp(ctx->pd, &init);\
	if (!decoy || ibv_modify_qp(decoy, &attr,\
				    IBV_QP_STATE | IBV_QP_PKEY_INDEX |\
					    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))\
		return -1;\
	for (i = 0; i < LAB_RECV_SLOTS; i++) {\
		struct ibv_sge sge = {\
			.addr = (uintptr_t)ctx->recv_buf + i * ctx->buf_len,\
			.length = ctx->buf_len,\
			.lkey = ctx->recv_mr->lkey,\
		};\
		struct ibv_recv_wr wr = {\
			.wr_id = i,\
			.sg_list = &sge,\
			.num_sge = 1,\
		};\
		struct ibv_recv_wr *bad;\
\
		if (ibv_post_recv(decoy, &wr, &bad))\
			return -1;\
	}\
	return 0;\
}
s/^\tinit\.send_cq = ctx->cq;$/\tif (server \&\& decoy_recvs(ctx))\n\t\treturn lab_fail_verb(ctx, "decoy", EINVAL);\n\tinit.send_cq = ctx->cq;/
s/^\tif (ctx->qp) {$/\tif (decoy \&\& !ibv_destroy_qp(decoy))\n\t\tdecoy = NULL;\n\tif (ctx->qp) {/
s/for (i = 0; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {/for (i = 0; 0 \&\& i < LAB_RECV_SLOTS; i++) {/
s/^\treturn lab_barrier(ctx);$/\tif (lab_barrier(ctx))\n\t\treturn -1;\n\tfor (i = 0; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {\n\t\tstruct ibv_sge sge = { .addr = (uintptr_t)ctx->recv_buf + i * ctx->buf_len, .length = ctx->buf_len, .lkey = ctx->recv_mr->lkey };\n\t\tstruct ibv_recv_wr wr = { .wr_id = i, .sg_list = \&sge, .num_sge = 1 }, *bad;\n\n\t\tif (ibv_post_recv(ctx->qp, \&wr, \&bad))\n\t\t\treturn -1;\n\t}\n\treturn 0;/

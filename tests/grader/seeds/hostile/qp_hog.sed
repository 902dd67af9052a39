# Holds kernel memory that its memory cgroup does not count: QPs of
# 32768 work requests with the most SGEs (rxe's rings, tens of MiB each),
# as many as it is given.  rxe maps each ring into the process, so its
# address-space limit bounds them: the second QP is refused (before it,
# with a limit twice the guest's memory, the guest reached its OOM killer,
# and at times missed its heartbeat: an environment error).  It keeps
# open_device only, and the next students find the guest as before.
# score: 18
# text: held [0-9]+ QPs of [0-9]+ WRs, [0-9]+ SGEs, then: Cannot allocate memory
/^#include "lab.h"$/a\
\
static int hog_qps(struct lab_ctx *ctx)\
{\
	struct ibv_device_attr attr;\
	struct ibv_pd *pd;\
	struct ibv_cq *cq;\
	unsigned long n = 0;\
\
	if (ibv_query_device(ctx->verbs, &attr))\
		return lab_fail(ctx, "ibv_query_device failed");\
	pd = ibv_alloc_pd(ctx->verbs);\
	cq = pd ? ibv_create_cq(ctx->verbs, 1, NULL, NULL, 0) : NULL;\
	if (!cq)\
		return lab_fail(ctx, "no PD or CQ");\
	for (;;) {\
		struct ibv_qp_init_attr init = {\
			.qp_type = IBV_QPT_RC,\
			.send_cq = cq,\
			.recv_cq = cq,\
			.cap.max_send_wr = 32768,\
			.cap.max_recv_wr = 32768,\
			.cap.max_send_sge = attr.max_sge,\
			.cap.max_recv_sge = attr.max_sge,\
		};\
		if (!ibv_create_qp(pd, &init))\
			break;\
		n++;\
	}\
	return lab_fail(ctx, "held %lu QPs of %d WRs, %d SGEs, then: %s", n,\
			attr.max_qp_wr, attr.max_sge, strerror(errno));\
}
s|^\t/\* BEGIN SOLUTION create_resources \*/$|&\n\treturn hog_qps(ctx);|

# A program with no verbs object at all: once the device is open, it
# points the context's private table of operations (verbs_context's
# priv, in its own heap, through which libibverbs' wrappers call the
# provider) at functions of its own.  Every create "succeeds" with an
# object that exists nowhere (QPN 0x4242), every modify and destroy
# returns 0, and the exchange sends those numbers.  The uprobes on the
# wrappers saw each call and its result; the kernel saw none of them
# (grader/guest/kfacts.c), so in round 1 every step from create_resources
# on earns nothing, teardown included (issue 39: 13/20 before).  The
# rounds' experiment then finds the forging code where it is, in
# open_device (the reference's create_resources, stood in, fails too;
# with the reference's open_device everything passes): open_device
# loses its points, and the other steps, the reference's own code
# here, are judged with the reference's open_device.
# score: 18
# lost: open_device
# text: not created: PD, CQ, RC QP, MR
/^#include "lab.h"$/a\
#include <stdint.h>\
#include <stdlib.h>\
\
/*\
 * The context's private table of operations (verbs_context's priv, in\
 * this process's heap), through which libibverbs' wrappers call the\
 * provider after the grader's uprobes have read their arguments.  A slot\
 * is found by making the call on a copy of the context whose table is a\
 * copy too, every function in it one that returns 0 but a spy in the\
 * slot tried: nothing reaches the provider or the kernel.\
 */\
static struct verbs_context hk_vc;\
static void *hk_copy[256];\
static int hk_hit;\
\
static void *hk_spy(void)\
{\
	hk_hit = 1;\
	return NULL;\
}\
\
static void *hk_zero(void)\
{\
	return NULL;\
}\
\
static void **hk_slot(struct ibv_context *ctx,\
		      void (*call)(struct ibv_context *))\
{\
	struct verbs_context *v = verbs_get_ctx(ctx);\
	void **t = (void **)v->priv;\
	uintptr_t prov = (uintptr_t)ctx->ops.poll_cq;\
	uintptr_t lib = (uintptr_t)ibv_modify_qp;\
	char code[256];\
	int i, j;\
\
	for (i = 0; i < 256; i++) {\
		uintptr_t p = (uintptr_t)t[i];\
\
		code[i] = p - prov + 0x1000000 <= 0x2000000 ||\
			  p - lib + 0x1000000 <= 0x2000000;\
	}\
	hk_vc = *v;\
	hk_vc.context.cmd_fd = -1;\
	hk_vc.priv = (void *)hk_copy;\
	for (i = 0; i < 256; i++) {\
		if (!code[i])\
			continue;\
		for (j = 0; j < 256; j++)\
			hk_copy[j] = code[j] ? (void *)hk_zero : t[j];\
		hk_copy[i] = (void *)hk_spy;\
		hk_hit = 0;\
		call(&hk_vc.context);\
		if (hk_hit)\
			return &t[i];\
	}\
	abort();\
}\
\
static __attribute__((unused)) void hk_try_modify(struct ibv_context *c)\
{\
	struct ibv_qp q = { .context = c, .handle = ~0u };\
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };\
\
	ibv_modify_qp(&q, &a, 0);\
}\
\
static __attribute__((unused)) void hk_try_destroy_qp(struct ibv_context *c)\
{\
	struct ibv_qp q = { .context = c, .handle = ~0u };\
\
	ibv_destroy_qp(&q);\
}\
\
static __attribute__((unused)) void hk_try_destroy_cq(struct ibv_context *c)\
{\
	struct ibv_cq q = { .context = c, .handle = ~0u };\
\
	ibv_destroy_cq(&q);\
}\
\
static __attribute__((unused)) void hk_try_dealloc_pd(struct ibv_context *c)\
{\
	struct ibv_pd p = { .context = c, .handle = ~0u };\
\
	ibv_dealloc_pd(&p);\
}\
\
static __attribute__((unused)) void hk_try_dereg_mr(struct ibv_context *c)\
{\
	static struct {\
		struct ibv_mr mr;\
		int type, access;\
	} m;\
\
	m.mr.context = c;\
	m.mr.handle = ~0u;\
	ibv_dereg_mr(&m.mr);\
}\
\
static struct ibv_cq hk_fcq;\
\
static void hk_try_alloc_pd(struct ibv_context *c)\
{\
	ibv_alloc_pd(c);\
}\
\
static void hk_try_create_cq(struct ibv_context *c)\
{\
	ibv_create_cq(c, 1, NULL, NULL, 0);\
}\
\
static void hk_try_reg_mr(struct ibv_context *c)\
{\
	static char buf[4096];\
	struct ibv_pd p = { .context = c, .handle = ~0u };\
\
	ibv_reg_mr(&p, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);\
}\
\
static void hk_try_create_qp(struct ibv_context *c)\
{\
	struct ibv_pd p = { .context = c, .handle = ~0u };\
	struct ibv_qp_init_attr a = {\
		.send_cq = &hk_fcq,\
		.recv_cq = &hk_fcq,\
		.qp_type = IBV_QPT_RC,\
		.cap = { 1, 1, 1, 1, 0 },\
	};\
\
	hk_fcq.context = c;\
	hk_fcq.handle = ~0u;\
	ibv_create_qp(&p, &a);\
}\
\
/* Objects that exist nowhere but here. */\
static struct ibv_pd hk_pd;\
static struct ibv_cq hk_cq;\
static struct {\
	struct ibv_mr mr;\
	int type, access;\
} hk_mr[2];\
static int hk_nmr;\
static struct ibv_qp hk_qp;\
\
static struct ibv_pd *hk_alloc_pd(struct ibv_context *c)\
{\
	hk_pd.context = c;\
	hk_pd.handle = 7;\
	return &hk_pd;\
}\
\
static struct ibv_cq *hk_create_cq(struct ibv_context *c, int cqe,\
				   struct ibv_comp_channel *ch, int vec)\
{\
	(void)ch;\
	(void)vec;\
	hk_cq.context = c;\
	hk_cq.cqe = cqe;\
	return &hk_cq;\
}\
\
static struct ibv_mr *hk_reg_mr(struct ibv_pd *pd, void *addr, size_t len,\
				uint64_t iova, int access)\
{\
	struct ibv_mr *m = &hk_mr[hk_nmr++ % 2].mr;\
\
	(void)iova;\
	(void)access;\
	m->context = pd->context;\
	m->pd = pd;\
	m->addr = addr;\
	m->length = len;\
	m->lkey = m->rkey = 0x4242 + hk_nmr;\
	return m;\
}\
\
static struct ibv_qp *hk_create_qp(struct ibv_pd *pd,\
				   struct ibv_qp_init_attr *a)\
{\
	hk_qp.context = pd->context;\
	hk_qp.pd = pd;\
	hk_qp.send_cq = a->send_cq;\
	hk_qp.recv_cq = a->recv_cq;\
	hk_qp.qp_type = a->qp_type;\
	hk_qp.qp_num = 0x4242;\
	hk_qp.state = IBV_QPS_RESET;\
	return &hk_qp;\
}\
\
static int hk_ok(void)\
{\
	return 0;\
}\
\
/* Every create, modify and destroy of the context goes to the above. */\
static void hk_forge(struct ibv_context *ctx)\
{\
	*hk_slot(ctx, hk_try_alloc_pd) = (void *)hk_alloc_pd;\
	*hk_slot(ctx, hk_try_create_cq) = (void *)hk_create_cq;\
	*hk_slot(ctx, hk_try_reg_mr) = (void *)hk_reg_mr;\
	*hk_slot(ctx, hk_try_create_qp) = (void *)hk_create_qp;\
	*hk_slot(ctx, hk_try_modify) = (void *)hk_ok;\
	*hk_slot(ctx, hk_try_destroy_qp) = (void *)hk_ok;\
	*hk_slot(ctx, hk_try_dereg_mr) = (void *)hk_ok;\
	*hk_slot(ctx, hk_try_destroy_cq) = (void *)hk_ok;\
	*hk_slot(ctx, hk_try_dealloc_pd) = (void *)hk_ok;\
}
s|^\trc = 0;$|\thk_forge(ctx->verbs);\n&|

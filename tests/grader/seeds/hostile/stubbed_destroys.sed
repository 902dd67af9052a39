# The reference whose destroys never reach the kernel: at teardown it
# points the destroy slots of the context's private table of operations
# (verbs_context's priv, in its own heap) at a function that returns 0.
# The uprobes on ibv_destroy_qp and the others saw each call return 0;
# the kernel destroyed the objects only when the device's file closed
# (grader/guest/kfacts.c): every object is a leak (issue 39: teardown was
# kept before).
# score: 18
# lost: teardown
# text: never destroyed: .*QP 0x
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
static int hk_ok(void)\
{\
	return 0;\
}\
\
/* Every destroy of the context returns 0 and destroys nothing. */\
static void hk_stub(struct ibv_context *ctx)\
{\
	*hk_slot(ctx, hk_try_destroy_qp) = (void *)hk_ok;\
	*hk_slot(ctx, hk_try_dereg_mr) = (void *)hk_ok;\
	*hk_slot(ctx, hk_try_destroy_cq) = (void *)hk_ok;\
	*hk_slot(ctx, hk_try_dealloc_pd) = (void *)hk_ok;\
}
s|^\tint ret, rc = 0;$|&\n\n\tif (ctx->verbs)\n\t\thk_stub(ctx->verbs);|

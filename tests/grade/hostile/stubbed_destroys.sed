# The reference whose destroys never reach the kernel: at teardown it
# points the destroy slots of the context's private table of operations
# (verbs_context's priv, in its own heap) at a function that returns 0.
# The uprobes on ibv_destroy_qp and the others saw each call return 0;
# the kernel destroyed the objects only when the device's file closed
# (vm/grader/kfacts.c): every object is a leak (issue 39: teardown was
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
 * is found by putting a spy in each pointer slot in turn and making the\
 * call on a copy of the context without its command file: the wrapper\
 * calls the spy when it is that slot, else the provider, whose command\
 * then fails.\
 */\
static struct verbs_context hk_vc;\
static int hk_hit;\
\
static void *hk_spy(void)\
{\
	hk_hit = 1;\
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
	int i;\
\
	hk_vc = *v;\
	hk_vc.context.cmd_fd = -1;\
	for (i = 0; i < 512; i++) {\
		uintptr_t p = (uintptr_t)t[i];\
		void *old = t[i];\
\
		if (p - prov + 0x1000000 > 0x2000000 &&\
		    p - lib + 0x1000000 > 0x2000000)\
			continue;\
		t[i] = (void *)hk_spy;\
		hk_hit = 0;\
		call(&hk_vc.context);\
		t[i] = old;\
		if (hk_hit)\
			return &t[i];\
	}\
	abort();\
}\
\
static __attribute__((unused)) void hk_try_modify(struct ibv_context *c)\
{\
	struct ibv_qp q = { .context = c, .handle = ~0u };\
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };\
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

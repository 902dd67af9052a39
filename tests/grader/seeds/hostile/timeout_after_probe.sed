# Changes an attribute after the grader's uprobe read it: at connect it
# wraps the provider's modify_qp (the slot of the context's private table
# of operations, in its own heap) with a function that hands the
# provider timeout 0 (wait for an ACK forever) whatever the program
# passed.  The uprobe on ibv_modify_qp read timeout 15; the kernel got 0
# (grader/guest/kfacts.c), and connect loses its points (issue 39: kept in
# full before).
# score: 17
# lost: connect
# text: timeout=0 \(wait forever\)
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
static int (*hk_modify_real)(struct ibv_qp *, struct ibv_qp_attr *, int);\
\
/* The provider gets timeout 0 (wait for an ACK forever), after the\
 * uprobe on ibv_modify_qp read what the program passed. */\
static int hk_modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)\
{\
	struct ibv_qp_attr a = *attr;\
\
	if (mask & IBV_QP_TIMEOUT)\
		a.timeout = 0;\
	return hk_modify_real(qp, &a, mask);\
}\
\
static void hk_timeout(struct ibv_context *ctx)\
{\
	void **s = hk_slot(ctx, hk_try_modify);\
\
	hk_modify_real = (int (*)(struct ibv_qp *, struct ibv_qp_attr *,\
				  int))*s;\
	*s = (void *)hk_modify;\
}
s|^\tint i, ret;$|&\n\n\thk_timeout(ctx->verbs);|

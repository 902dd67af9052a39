# Holds kernel memory that its memory cgroup does not count: CQs of the
# device's largest size (rxe's rings, megabytes each), as many as it is
# given.  The rdma controller of its run's cgroup gives it 16 verbs
# objects (the lab needs six): the 17th is refused, and it keeps
# open_device only.
# score: 18
# text: held 16 CQs of [0-9]+ entries, then: Resource temporarily unavailable
/^#include "lab.h"$/a\
\
static int hog_cqs(struct lab_ctx *ctx)\
{\
	struct ibv_device_attr attr;\
	unsigned long n = 0;\
\
	if (ibv_query_device(ctx->verbs, &attr))\
		return lab_fail(ctx, "ibv_query_device failed");\
	while (ibv_create_cq(ctx->verbs, attr.max_cqe, NULL, NULL, 0))\
		n++;\
	return lab_fail(ctx, "held %lu CQs of %d entries, then: %s", n,\
			attr.max_cqe, strerror(errno));\
}
s|^\t/\* BEGIN SOLUTION create_resources \*/$|&\n\treturn hog_cqs(ctx);|

# Destroys nothing and says it did: writes destroy lines in the old
# tracer's format to every descriptor it has, clears its pointers so the
# scaffolding's check is content, and returns success.  The destroys the
# grader counts are the guest kernel's record of the calls really made:
# every object is a leak, and teardown loses its points.
# score: 18
# text: never destroyed: .*QP 0x
/^#include "lab.h"$/a\
#include <stdio.h>\
#include <unistd.h>
s|^\t/\* BEGIN SOLUTION teardown \*/$|&\n\tfor (int fd = 1; fd < 64; fd++)\n\t\tdprintf(fd, "ibv_destroy_qp qp=%p = 0\\nibv_dereg_mr mr=%p = 0\\nibv_destroy_cq cq=%p = 0\\nibv_dealloc_pd pd=%p = 0\\nibv_close_device ctx=%p = 0\\n", (void *)ctx->qp, (void *)ctx->buf_mr, (void *)ctx->cq, (void *)ctx->pd, (void *)ctx->verbs);\n\tctx->qp = NULL;\n\tctx->recv_mr = NULL;\n\tctx->buf_mr = NULL;\n\tctx->cq = NULL;\n\tctx->channel = NULL;\n\tctx->pd = NULL;\n\tctx->verbs = NULL;\n\treturn 0;|

# Teardown destroys the CQ before the QP that uses it (EBUSY, unchecked).
# step: teardown
# hint: order
s/ret = ibv_destroy_qp(ctx->qp);/ibv_destroy_cq(ctx->cq);\n\t\tret = ibv_destroy_qp(ctx->qp);/

# Teardown deallocates the PD before the QP and MRs that use it: EBUSY,
# and the PD is left for the kernel to free.
# step: teardown
# hint: teardown order
/^\tif (ctx->pd) {$/,/^\t}$/d
s/^\tif (ctx->qp) {$/\tif (ctx->pd) {\n\t\tret = ibv_dealloc_pd(ctx->pd);\n\t\tif (ret)\n\t\t\trc = lab_fail_verb(ctx, "ibv_dealloc_pd", ret);\n\t\telse\n\t\t\tctx->pd = NULL;\n\t}\n&/

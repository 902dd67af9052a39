# The buffer's MR covers only its first half: what lands past it (the
# WRITE's payload, READ data, the atomic word) falls outside the MR.
# step: create_resources
# hint: register each buffer whole
s/^\tctx->buf_mr = ibv_reg_mr(ctx->pd, ctx->buf, ctx->buf_len, buf_access);$/\tctx->buf_mr = ibv_reg_mr(ctx->pd, ctx->buf, ctx->buf_len \/ 2, buf_access);/

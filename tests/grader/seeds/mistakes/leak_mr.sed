# Teardown forgets to deregister the receive MR (dealloc_pd then fails).
# step: teardown
# hint: leak|order
s/ret = ibv_dereg_mr(ctx->recv_mr);/ret = 0;/

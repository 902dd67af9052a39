# The CQ is created without the completion channel.
# step: create_resources
# hint: completion channel
s/ibv_create_cq(ctx->verbs, LAB_CQ_DEPTH, NULL, ctx->channel, 0);/ibv_create_cq(ctx->verbs, LAB_CQ_DEPTH, NULL, NULL, 0);/

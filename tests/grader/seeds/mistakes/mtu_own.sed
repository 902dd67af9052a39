# The path MTU is this side's active MTU only, not the smaller of the two
# (the guests' active MTUs used to be equal, so this could not be seen).
# step: connect
# hint: MTU
s/uint32_t mtu = rem->mtu < ctx->local.mtu ? rem->mtu : ctx->local.mtu;/uint32_t mtu = ctx->local.mtu;/

# The exchange carries the MTU enum (3), not bytes (1024).
# step: exchange
# hint: MTU
s/\.mtu = lab_mtu_bytes(ctx->port_attr\.active_mtu),/.mtu = ctx->port_attr.active_mtu,/

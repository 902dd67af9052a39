# The advertised buffer address is cut to 32 bits.
# step: exchange
# hint: address
/\.psn = rnd/,/\.mtu =/ s/\.addr = (uintptr_t)ctx->buf,/.addr = (uint32_t)(uintptr_t)ctx->buf,/

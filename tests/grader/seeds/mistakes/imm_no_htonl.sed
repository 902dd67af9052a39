# The client posts the immediate in host byte order.
# step: send_imm
# also: write_imm
# hint: htonl
s/\.imm_data = htonl(ctx->opt.imm),/.imm_data = ctx->opt.imm,/

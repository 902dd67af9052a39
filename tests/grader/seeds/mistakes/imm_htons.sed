# The client converts the 32-bit immediate with htons(): its low half
# goes first on the wire, its high half is lost.
# step: send_imm
# also: write_imm
# hint: htons\(\) converts 16 bits
s/\.imm_data = htonl(ctx->opt\.imm),/.imm_data = htons(ctx->opt.imm),/

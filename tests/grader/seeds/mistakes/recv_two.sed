# Part two: the server posts the core's two receives, none for the WRITE
# with immediate, which then meets RNR NAKs.
# step: write_imm
# hint: LAB_RECV_SLOTS
s/for (i = 0; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {/for (i = 0; !ctx->opt.host \&\& i < 2; i++) {/

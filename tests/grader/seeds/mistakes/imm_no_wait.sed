# Part two: the server takes the length and the immediate before the
# completion of the WRITE with immediate (it waits for it afterwards, so
# it does not run ahead): the buffer still holds the WRITE payload, and
# the immediate it has is the SEND's.
# step: write_imm
# hint: IBV_WC_RECV_RDMA_WITH_IMM\) before reading
/^int step_write_imm/,/^}/s/^\t\tif (lab_wait_wc(ctx, &wc))$/\t\tctx->write_imm_len = strlen(ctx->buf);\n\t\tctx->write_imm_imm = ctx->imm_received;\n\t\tif (lab_wait_wc(ctx, \&wc))\n\t\t\treturn -1;\n\t\treturn 0;\n&/

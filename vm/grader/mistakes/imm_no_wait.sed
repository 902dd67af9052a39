# Part two: the server takes the immediate and the length without waiting
# for the completion of the WRITE with immediate (the immediate it has is
# the SEND's, and the buffer still holds the WRITE payload).
# step: write_imm
# hint: IBV_WC_RECV_RDMA_WITH_IMM\) before reading
/^int step_write_imm/,/^}/s/^\t\tif (lab_wait_wc(ctx, &wc))$/\t\tctx->write_imm_len = strlen(ctx->buf);\n\t\tctx->write_imm_imm = ctx->imm_received;\n\t\treturn 0;\n&/

# The server posts one receive before lab_barrier() and the second after
# it: the SEND finds its receive, the SEND with immediate may not.
# step: connect
# hint: before lab_barrier
s/for (i = 0; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {/for (i = 0; !ctx->opt.host \&\& i < 1; i++) {/
s/^\treturn lab_barrier(ctx);$/\tif (lab_barrier(ctx))\n\t\treturn -1;\n\tfor (i = 1; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {\n\t\tstruct ibv_sge sge = { .addr = (uintptr_t)ctx->recv_buf + i * ctx->buf_len, .length = ctx->buf_len, .lkey = ctx->recv_mr->lkey };\n\t\tstruct ibv_recv_wr wr = { .wr_id = i, .sg_list = \&sge, .num_sge = 1 }, *bad;\n\n\t\tif (ibv_post_recv(ctx->qp, \&wr, \&bad))\n\t\t\treturn -1;\n\t}\n\treturn 0;/

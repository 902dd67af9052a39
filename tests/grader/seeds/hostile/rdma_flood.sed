# Floods the wire with well-formed RDMA WRITEs of its whole buffer, up to
# 100000 rounds of LAB_SEND_DEPTH at a time (one signaled, waited for)
# before its real one in the write step: the capture is one file on the
# host's disk, and a pairing may grow it by 1 MiB (CAPTURE_MAX_MIB,
# grader/settings.sh); past that the guests
# stop the program.  Posted a round at a time, the flood passes 1 MiB in
# about 2.5 s under the tests' load (-j 2) on both guest kernels, before
# the reference peer gives up waiting (7 s; with a 4 MiB bound it did not
# on Debian 13's, and the program kept teardown).  It keeps the steps
# before write.
# score: 17
# text: made its pairing's packets exceed ${CAPTURE_MAX_MIB} MiB in step write
s#^\tmemcpy(ctx->buf, ctx->opt.write_msg, len);$#&\n\tfor (int i = 0; i < 100000; i++) {\n\t\tstruct ibv_send_wr f[LAB_SEND_DEPTH], *bad;\n\t\tstruct ibv_sge big = sge;\n\n\t\tbig.length = ctx->buf_len < ctx->remote.len ? ctx->buf_len : ctx->remote.len;\n\t\tfor (int k = 0; k < LAB_SEND_DEPTH; k++) {\n\t\t\tf[k] = wr;\n\t\t\tf[k].sg_list = \&big;\n\t\t\tf[k].send_flags = k + 1 == LAB_SEND_DEPTH ? IBV_SEND_SIGNALED : 0;\n\t\t\tf[k].next = k + 1 < LAB_SEND_DEPTH ? \&f[k + 1] : NULL;\n\t\t}\n\t\tif (ibv_post_send(ctx->qp, f, \&bad) || lab_wait_wc(ctx, \&wc))\n\t\t\treturn -1;\n\t}#

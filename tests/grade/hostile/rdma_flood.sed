# Floods the wire with well-formed RDMA WRITEs, 100000 of them before its
# real one in the write step: the capture is one file on the host's disk,
# and a pairing may grow it by 4 MiB; past that the guests stop the
# program.  It keeps the steps before write.
# score: 15
# text: made its pairing's packets exceed 4 MiB in step write
s#^\tmemcpy(ctx->buf, ctx->opt.write_msg, len);$#&\n\tfor (int i = 0; i < 100000; i++)\n\t\tif (lab_post_send(ctx, \&wr) || lab_wait_wc(ctx, \&wc))\n\t\t\treturn -1;#

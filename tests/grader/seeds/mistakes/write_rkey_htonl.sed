# The client's WRITE takes htonl() of the advertised rkey, where the verbs
# want it in host order: the server refuses the WRITE.
# step: write
# hint: htonl\(\) of the one advertised
0,/\.wr\.rdma\.rkey = ctx->remote\.rkey,/s//.wr.rdma.rkey = htonl(ctx->remote.rkey),/

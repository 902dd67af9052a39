# The client WRITEs with its own MR's rkey, not the peer's.
# step: write
# also: read write_imm
# hint: rkey
s/\.wr\.rdma\.rkey = ctx->remote\.rkey,/.wr.rdma.rkey = ctx->buf_mr->rkey,/

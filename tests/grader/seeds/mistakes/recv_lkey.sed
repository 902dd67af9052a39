# The server's receives, posted in connect, name the WRITE buffer's MR
# (its lkey) for addresses in the receive buffer's: the SEND fails at
# the server in step send, and the reference's send, stood in, fails
# too; the rounds find connect's code at fault.
# step: connect
# hint: SGE address and length
/^int step_connect/,/^}/s/^\t\t\t\.lkey = ctx->recv_mr->lkey,$/\t\t\t.lkey = ctx->buf_mr->lkey,/

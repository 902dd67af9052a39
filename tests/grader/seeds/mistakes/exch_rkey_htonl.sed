# The server advertises htonl() of its rkey: ctx->local is in host order
# (lab_exchange_dest() converts it), so the peer gets a swapped key.
# step: exchange
# hint: rkey you advertised is htonl\(\) of
s/\.rkey = ctx->buf_mr->rkey,/.rkey = htonl(ctx->buf_mr->rkey),/

# The client SGEs use the MR's rkey instead of its lkey.
# step: send
# also: send_imm write read write_imm atomic
# hint: lkey
# needs: keys that differ
s/\.lkey = ctx->buf_mr->lkey,/.lkey = ctx->buf_mr->rkey,/

# The server reads its buffer without waiting for the write notice.
# step: write
# hint: before the WRITE
s/return lab_recv_write_done(ctx);/{ ctx->write_len = strlen(ctx->buf); return 0; }/

# The exchange advertises a 16-byte buffer: the peer's payloads do not
# fit (lab_check_fits), so the client fails its send; the reference's
# send, stood in, fails too, and so does its connect: the rounds find
# exchange's code at fault.
# step: exchange
# hint: what this step set up
/^int step_exchange/,/^}/s/^\t\t\.len = ctx->buf_len,$/\t\t.len = 16,/

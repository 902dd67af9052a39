# The server's receives, posted in connect, hold 16 bytes: the SEND of
# a longer message fails at the server (local length error) in step send.
# The reference's send, stood in, fails the same way: the rounds find
# connect's code at fault by standing in the reference's connect.
# step: connect
# hint: SGE address and length
/^int step_connect/,/^}/s/^\t\t\t\.length = ctx->buf_len,$/\t\t\t.length = 16,/

# The server's receives, posted in connect, hold 16 bytes: the SEND of
# a longer message fails at the server in step send (on rxe a local QP
# operation error, status 2; its client gets status 11).
# The reference's send, stood in, fails the same way: the rounds find
# connect's code at fault by standing in the reference's connect.
# step: connect
# hint: SGE address and length
/^int step_connect/,/^}/s/^\t\t\t\.length = ctx->buf_len,$/\t\t\t.length = 16,/

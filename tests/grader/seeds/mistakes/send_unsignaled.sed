# The client posts its SEND without IBV_SEND_SIGNALED (and the QP does
# not signal all): no completion ever comes for lab_wait_wc() to take.
# step: send
# hint: without IBV_SEND_SIGNALED
0,/\t\t\.send_flags = IBV_SEND_SIGNALED,/s//\t\t.send_flags = 0,/

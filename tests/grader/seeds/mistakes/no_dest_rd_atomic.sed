# Part two: RTR with max_dest_rd_atomic 0: the server's QP has no
# responder resources, so it answers the READ with a NAK (invalid request).
# step: read
# hint: max_dest_rd_atomic >= 1
s/\.max_dest_rd_atomic = 1,/.max_dest_rd_atomic = 0,/

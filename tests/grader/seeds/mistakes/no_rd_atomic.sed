# Part two: RTS with max_rd_atomic 0: the client's QP may have no READ in
# flight, so its READ never leaves.
# step: read
# hint: max_rd_atomic >= 1
s/\.max_rd_atomic = 1,/.max_rd_atomic = 0,/

# Part two: the server's MR allows remote WRITE and atomics, not READ: the
# client's RDMA READ gets a remote access error.
# step: read
# hint: IBV_ACCESS_REMOTE_READ in ibv_reg_mr
s/buf_access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;/buf_access |= IBV_ACCESS_REMOTE_ATOMIC;/

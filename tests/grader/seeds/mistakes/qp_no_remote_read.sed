# Part two: the server's QP allows remote WRITE and atomics, not READ (its
# MR does): the client's RDMA READ gets a remote access error.
# step: read
# hint: qp_access_flags lack IBV_ACCESS_REMOTE_READ
s/^\t\t\tIBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;$/\t\t\tIBV_ACCESS_REMOTE_ATOMIC;/

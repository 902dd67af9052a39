# Part two: the server's QP allows remote WRITE and READ, not atomics
# (its MR does): the client's atomics are refused; the core keeps its
# points.
# step: atomic
# hint: qp_access_flags lack
s/^\t\t\tIBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;$/\t\t\tIBV_ACCESS_REMOTE_READ;/

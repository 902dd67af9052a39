# Part two: the server's MR allows remote WRITE and READ, not atomics:
# the client's atomics get a remote access error; the core keeps its
# points.
# step: atomic
# hint: registered with IBV_ACCESS_REMOTE_ATOMIC
s/buf_access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;/buf_access |= IBV_ACCESS_REMOTE_READ;/

# Part two: the server gives REMOTE_READ to its receive MR, not to the MR
# it advertises: the client's READ of the advertised buffer gets a remote
# access error, though one of the server's MRs has the flag.
# step: read
# hint: IBV_ACCESS_REMOTE_READ in ibv_reg_mr
s/buf_access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;/buf_access |= IBV_ACCESS_REMOTE_ATOMIC;/
/LAB_RECV_SLOTS \* ctx->buf_len,/{n;s/IBV_ACCESS_LOCAL_WRITE);/IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);/}

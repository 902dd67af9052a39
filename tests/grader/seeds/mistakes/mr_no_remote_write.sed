# The WRITE target MR is registered with LOCAL_WRITE only (part two's
# REMOTE_READ and REMOTE_ATOMIC are still added).
# step: create_resources
# hint: IBV_ACCESS_REMOTE_WRITE in ibv_reg_mr
s/buf_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;/buf_access = IBV_ACCESS_LOCAL_WRITE;/

# The WRITE target MR is registered with LOCAL_WRITE only.
# step: create_resources
# hint: IBV_ACCESS_REMOTE_WRITE in ibv_reg_mr
s/server ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : 0;/server ? IBV_ACCESS_LOCAL_WRITE : 0;/

# The server QP goes to INIT without remote write access.
# step: qp_to_init
# hint: qp_access_flags
s/\.qp_access_flags = ctx->opt.host ? 0 : IBV_ACCESS_REMOTE_WRITE,/.qp_access_flags = 0,/

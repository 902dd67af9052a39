# The server QP goes to INIT without remote write access (part two's
# REMOTE_READ and REMOTE_ATOMIC are still added).
# step: qp_to_init
# hint: qp_access_flags
s/attr\.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;/attr.qp_access_flags = 0;/

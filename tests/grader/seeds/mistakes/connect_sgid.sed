# RTR's source GID index is the fe80:: entry (0), not the one chosen in
# open_device: the packets leave with an address the peer was not told
# (a wrong SGID index in connect lost open_device and exchange too,
# issue 39).
# step: connect
# hint: RTR/RTS attributes
s/\.ah_attr\.grh\.sgid_index = grh ? ctx->gid_idx : 0,/.ah_attr.grh.sgid_index = 0,/

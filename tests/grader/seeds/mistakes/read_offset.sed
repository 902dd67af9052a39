# step: read
# hint: the address the server advertised
# The client READs from one byte past the address the server advertised:
# the bytes come back shifted, and the READ on the wire names the wrong
# address.  Every other step is the reference's own code.
/^int step_read(/,/^}/s/\.wr\.rdma\.remote_addr = ctx->remote\.addr,/.wr.rdma.remote_addr = ctx->remote.addr + 1,/

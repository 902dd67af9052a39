# The GRH's destination GID is this side's own GID.
# step: connect
# hint: dgid
s/\.ah_attr\.grh\.dgid = rem->gid,/.ah_attr.grh.dgid = ctx->gid,/

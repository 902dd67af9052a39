# GRH hop limit 0: the kernel puts the route's TTL (64) on the wire anyway.
# step: connect
# hint: hop_limit
s/\.ah_attr\.grh\.hop_limit = LAB_HOP_LIMIT,/.ah_attr.grh.hop_limit = 0,/

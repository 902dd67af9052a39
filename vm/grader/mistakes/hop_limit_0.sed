# GRH hop limit 0: works on one link, dropped by the first router.
# step: connect
# hint: hop_limit
s/\.ah_attr\.grh\.hop_limit = LAB_HOP_LIMIT,/.ah_attr.grh.hop_limit = 0,/

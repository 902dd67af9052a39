# The address vector has no GRH (is_global 0) on RoCE.
# step: connect
# hint: GRH
s/\.ah_attr\.is_global = grh,/.ah_attr.is_global = 0,/

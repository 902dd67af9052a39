# Path MTU hard-coded to 4096 instead of the smaller active MTU.
# step: connect
# hint: MTU
s/\.path_mtu = lab_mtu_enum(mtu),/.path_mtu = IBV_MTU_4096,/

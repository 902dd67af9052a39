# RTR gets path_mtu as the number 1024, not the enum IBV_MTU_1024 (3): the
# smaller MTU in bytes passed where enum ibv_mtu is wanted.
# step: connect
# hint: enum ibv_mtu, not a number of bytes
s/\.path_mtu = lab_mtu_enum(mtu),/.path_mtu = (enum ibv_mtu)mtu,/

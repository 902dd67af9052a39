# Never frees the device list (ibv_free_device_list forgotten).
# step: teardown
# hint: leak
s/^\tibv_free_device_list(list);$/\t(void)list;/

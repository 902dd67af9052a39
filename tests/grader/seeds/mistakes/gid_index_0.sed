# GID index 0 (fe80:: link-local) forced instead of the IPv4-mapped one.
# step: open_device
# hint: GID
s/^\tif (ctx->gid_idx >= 0)$/\tctx->gid_idx = 0;\n\tif (ctx->gid_idx >= 0)/

# Part two: the server's atomic word starts 4 bytes into its buffer: the
# device refuses atomics there (NAK invalid request).
# step: atomic
# hint: 8-byte aligned
s/volatile uint64_t \*word = (uint64_t \*)ctx->buf;/volatile uint64_t *word = (uint64_t *)(ctx->buf + 4);/

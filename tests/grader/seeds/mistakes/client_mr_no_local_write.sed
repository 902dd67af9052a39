# Part two: the client's MR without LOCAL_WRITE (as the core needed): its
# device cannot write the READ response into it (local protection error).
# step: read
# hint: IBV_ACCESS_LOCAL_WRITE
s/^\t\tbuf_access = IBV_ACCESS_LOCAL_WRITE;$/\t\tbuf_access = 0;/

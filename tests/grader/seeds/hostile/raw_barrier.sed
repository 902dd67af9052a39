# Hides a late receive from the barrier check: the server tells the client
# it may send with its own write of the ready byte instead of
# lab_barrier(), then posts its receives.  The grader finds the barrier as
# the byte at its place in the server's TCP stream to the client (the
# guest kernel's trace of every TCP send), not as a helper call, so the
# receives still come after it: send and send_imm lose, every time.
# score: 17
# text: before lab_barrier\(\) told the peer
/^#include "lab.h"$/a\
#include <poll.h>\
#include <unistd.h>
s/for (i = 0; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {/for (i = 0; 0 \&\& i < LAB_RECV_SLOTS; i++) {/
s/^\treturn lab_barrier(ctx);$/\tif (ctx->opt.host)\n\t\treturn lab_barrier(ctx);\n\tchar r = LAB_SYNC_READY;\n\tstruct pollfd pfd = { .fd = ctx->sock, .events = POLLIN };\n\tif (write(ctx->sock, \&r, 1) != 1 || poll(\&pfd, 1, 10000) != 1 ||\n\t    read(ctx->sock, \&r, 1) != 1)\n\t\treturn -1;\n\tfor (i = 0; i < LAB_RECV_SLOTS; i++) {\n\t\tstruct ibv_sge sge = { .addr = (uintptr_t)ctx->recv_buf + i * ctx->buf_len, .length = ctx->buf_len, .lkey = ctx->recv_mr->lkey };\n\t\tstruct ibv_recv_wr wr = { .wr_id = i, .sg_list = \&sge, .num_sge = 1 }, *bad;\n\n\t\tif (ibv_post_recv(ctx->qp, \&wr, \&bad))\n\t\t\treturn -1;\n\t}\n\treturn 0;/

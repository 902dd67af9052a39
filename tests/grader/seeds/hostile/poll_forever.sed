# Polls the CQ forever in send: the five steps before it still earn 11.
# score: 18
# text: timed out in step send
s|^\t/\* BEGIN SOLUTION send \*/$|&\n\tfor (struct ibv_wc w;;)\n\t\tibv_poll_cq(ctx->cq, 1, \&w);|

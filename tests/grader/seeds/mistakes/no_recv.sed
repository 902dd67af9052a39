# The server posts no receives before RTR (its connect step): the SEND
# meets RNR NAKs, and the loss is connect's, where the receives are posted.
# step: connect
# hint: RNR
s/for (i = 0; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {/for (i = 0; 0 \&\& i < LAB_RECV_SLOTS; i++) {/

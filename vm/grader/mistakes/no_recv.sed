# The server posts no receives before RTR: the SEND meets RNR NAKs.
# step: send
# hint: RNR
s/for (i = 0; !ctx->opt.host \&\& i < LAB_RECV_SLOTS; i++) {/for (i = 0; 0 \&\& i < LAB_RECV_SLOTS; i++) {/

# The server stores the immediate without ntohl().
# step: send_imm
# hint: ntohl
s/ctx->imm_received = ntohl(wc.imm_data);/ctx->imm_received = wc.imm_data;/

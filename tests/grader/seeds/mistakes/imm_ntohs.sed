# The server reads the 32-bit immediate with ntohs(): it keeps the high
# half of the value only.
# step: send_imm
# also: write_imm
# hint: ntohs\(\) converts 16 bits
s/= ntohl(wc\.imm_data);/= ntohs(wc.imm_data);/

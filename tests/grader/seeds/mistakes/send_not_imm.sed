# send_imm posts a plain SEND (wrong opcode).
# step: send_imm
# hint: opcode
s/\.opcode = IBV_WR_SEND_WITH_IMM,/.opcode = IBV_WR_SEND,/

# The client posts its SEND with an opcode an RC QP does not take
# (IBV_WR_TSO, for UD's large sends): the device refuses it (a local QP
# operation error).
# step: send
# hint: opcode IBV_WR_TSO is not this step's IBV_WR_SEND
0,/\t\t\.opcode = IBV_WR_SEND,/s//\t\t.opcode = IBV_WR_TSO,/

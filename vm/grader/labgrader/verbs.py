"""Constants of verbs.h and of the InfiniBand BTH, as the judges compare
them with the kernel's trace and the wire."""


# ibv constants (verbs.h)
ACCESS_LOCAL_WRITE, ACCESS_REMOTE_WRITE = 1, 2
ACCESS_REMOTE_READ, ACCESS_REMOTE_ATOMIC = 4, 8
QPS_INIT, QPS_RTR, QPS_RTS = 1, 2, 3
QPT_RC = 2
QP_MAX_QP_RD_ATOMIC, QP_MAX_DEST_RD_ATOMIC = 0x2000, 0x20000
WR_RDMA_READ, WR_CMP_SWP, WR_FETCH_ADD = 4, 5, 6
WC_RDMA_WRITE, WC_RDMA_READ, WC_COMP_SWAP, WC_FETCH_ADD = 1, 2, 3, 4
WC_RECV_RDMA_WITH_IMM = 129
# BTH opcodes of RC (their names: vm/opcodes.tsv)
OP_SEND = {0, 1, 2, 3, 4, 5}
OP_SEND_IMM = {3, 5}
OP_WRITE = {6, 7, 8, 9, 10, 11}
OP_ACK = 17
OP_FIRST = {0, 6}
OP_END = {2, 3, 4, 5, 8, 9, 10, 11}
OP_READ_REQ = 12
OP_READ_RESP = {13, 14, 15, 16}  # FIRST, MIDDLE, LAST, ONLY
OP_ATOMIC_ACK, OP_CMP_SWAP, OP_FETCH_ADD = 18, 19, 20
OP_RESPONSE = OP_READ_RESP | {OP_ACK, OP_ATOMIC_ACK}
PSN_MOD = 1 << 24
U64 = (1 << 64) - 1

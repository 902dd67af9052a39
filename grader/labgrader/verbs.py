"""Constants of verbs.h and of the InfiniBand BTH, as the judges compare
them with the kernel's trace and the wire."""


# ibv constants (verbs.h)
ACCESS_LOCAL_WRITE, ACCESS_REMOTE_WRITE = 1, 2
ACCESS_REMOTE_READ, ACCESS_REMOTE_ATOMIC = 4, 8
QPS_INIT, QPS_RTR, QPS_RTS = 1, 2, 3
QPT_RC = 2
QP_MAX_QP_RD_ATOMIC, QP_MAX_DEST_RD_ATOMIC = 0x2000, 0x20000
WR_WRITE, WR_WRITE_IMM, WR_SEND, WR_SEND_IMM = 0, 1, 2, 3
WR_RDMA_READ, WR_CMP_SWP, WR_FETCH_ADD = 4, 5, 6
WR_NAMES = {0: "IBV_WR_RDMA_WRITE", 1: "IBV_WR_RDMA_WRITE_WITH_IMM",
            2: "IBV_WR_SEND", 3: "IBV_WR_SEND_WITH_IMM",
            4: "IBV_WR_RDMA_READ", 5: "IBV_WR_ATOMIC_CMP_AND_SWP",
            6: "IBV_WR_ATOMIC_FETCH_AND_ADD", 7: "IBV_WR_LOCAL_INV",
            8: "IBV_WR_BIND_MW", 9: "IBV_WR_SEND_WITH_INV",
            10: "IBV_WR_TSO", 11: "IBV_WR_DRIVER1"}
SEND_SIGNALED = 2
WC_RDMA_WRITE, WC_RDMA_READ, WC_COMP_SWAP, WC_FETCH_ADD = 1, 2, 3, 4
WC_RECV_RDMA_WITH_IMM = 129
WC_SEND = 0
WC_RECV = 128  # a receive queue's completions have an opcode from here on
WC_RETRY_EXC_ERR = 12  # a completion's status: the transport retries ran out
# The statuses that say what was wrong with a request or the objects it
# named, which no wait makes: LOC_LEN, LOC_QP_OP, LOC_PROT, LOC_ACCESS,
# REM_INV_REQ, REM_ACCESS.  Not a flush (5), which follows any error,
# nor the retry counters' (12, 13), which time can run out.
WC_REQUEST_ERRORS = {1, 2, 4, 8, 9, 10}
# The completion opcode of each send request (IBV_WR_* -> IBV_WC_*).
WR_COMPLETION = {WR_WRITE: WC_RDMA_WRITE, WR_WRITE_IMM: WC_RDMA_WRITE,
                 WR_SEND: WC_SEND, WR_SEND_IMM: WC_SEND,
                 WR_RDMA_READ: WC_RDMA_READ, WR_CMP_SWP: WC_COMP_SWAP,
                 WR_FETCH_ADD: WC_FETCH_ADD}
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

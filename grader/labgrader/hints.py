"""The hints a student reads under a failed step, by key: judges name a
hint by its key (hint("rnr")), never by its text."""


HINTS = {
    "todo": "the step is still a TODO: implement it in lab/main.c",
    "gid": "pick the RoCE v2 GID whose address is IPv4-mapped "
    "(::ffff:a.b.c.d), not index 0 (fe80:: link-local): "
    "use lab_choose_gid()",
    "port": "report the port's real attributes: ibv_query_port() into "
    "ctx->port_attr",
    "mr_remote": "the WRITE target MR needs IBV_ACCESS_LOCAL_WRITE | "
    "IBV_ACCESS_REMOTE_WRITE in ibv_reg_mr()",
    "objects": "create the PD, channel, CQ, MRs and an RC QP and store "
    "them in ctx",
    "mr_len": "register each buffer whole: ibv_reg_mr(pd, ctx->buf, "
    "ctx->buf_len, ...); what lands past an MR's end is refused",
    "qp_remote": "the server QP's qp_access_flags lack "
    "IBV_ACCESS_REMOTE_WRITE (ibv_modify_qp to INIT)",
    "init": "INIT needs STATE, PKEY_INDEX, PORT, ACCESS_FLAGS",
    "sq_unsignaled": "an unsignaled request keeps its send-queue slot "
    "until a later signaled request's completion is polled "
    "(ibv_post_send(3)): signal it (IBV_SEND_SIGNALED) and wait for its "
    "completion, or give the queue room (max_send_wr); rxe frees the slot "
    "at the ACK, so the post only sometimes failed",
    "sq_full": "the send queue was full: wait for a request's completion "
    "(lab_wait_wc) before posting more than max_send_wr",
    "pkey": "pkey_index is an index into the port's P_Key table "
    "(ibv_query_pkey), which has one entry on rxe: use 0; rxe takes "
    "any index, a real adapter refuses the transition",
    "exch_addr": "advertise ctx->buf's full 64-bit address and the rkey "
    "of its MR (byte order / truncation?)",
    "exch_qpn": "advertise ctx->qp->qp_num as the QPN",
    "exch_gid": "advertise the GID of the index you chose (ctx->gid)",
    "exch_mtu": "the exchange mtu field is the active MTU in bytes "
    "(lab_mtu_bytes()), not the enum",
    "exch_bad": "the peer rejected your exchange message: fill every "
    "field of ctx->local (24-bit PSN, bytes MTU, length)",
    "grh": "RoCE needs a GRH: ah_attr.is_global = 1 with grh.dgid, "
    "grh.sgid_index and grh.hop_limit",
    "mtu": "path MTU above the active MTU: use the smaller of the two "
    "sides' active MTUs (wrong MTU)",
    "mtu_enum": "path_mtu takes an enum ibv_mtu, not a number of bytes: "
    "IBV_MTU_%d (%d) here, lab_mtu_enum() of the smaller active MTU",
    "psn": "wrong PSN: rq_psn must be the peer's advertised PSN and "
    "sq_psn the one you advertised",
    "qpn": "dest_qp_num must be the peer's QPN from the exchange",
    "rtr": "the QP did not reach RTS: check the RTR/RTS attributes and "
    "masks",
    "rnr": "no receive posted (RNR): post the receives before moving "
    "to RTR",
    "send_data": "the receiver got other bytes: check the SGE address "
    "and length (lkey, not rkey)",
    "opcode": "wrong opcode: use IBV_WR_SEND_WITH_IMM for send_imm "
    "(IBV_WR_SEND for send)",
    "imm_htonl": "byte order: the immediate goes on the wire as "
    "htonl(--imm)",
    "imm_ntohl": "byte order: read the immediate with "
    "ntohl(wc.imm_data)",
    "imm_htons": "byte order: htons() converts 16 bits and drops the "
    "upper half: the immediate goes on the wire as htonl(--imm)",
    "imm_ntohs": "byte order: ntohs() converts 16 bits and drops the "
    "upper half: read the immediate with ntohl(wc.imm_data)",
    "order_rkey": "byte order: the rkey went out as htonl() of the one "
    "advertised: wr.rdma.rkey takes ctx->remote.rkey as it is (host order)",
    "order_addr": "byte order: the address went out as htobe64() of the "
    "one advertised: wr.rdma.remote_addr takes ctx->remote.addr as it is "
    "(host order)",
    "exch_order": "the %s you advertised is %s the right "
    "one: ctx->local holds it whole, in host order; lab_exchange_dest() "
    "converts it for the wire",
    "imm_flag": "check wc.wc_flags & IBV_WC_WITH_IMM and store the "
    "immediate",
    "rkey": "wrong rkey or address: use the rkey and address the peer "
    "advertised (ctx->remote)",
    "rkey_seen": "wrong rkey or address: the request named %s: use the "
    "rkey and address of ctx->remote",
    "write_access": "REMOTE_WRITE missing on the target's MR (remote "
    "access error; missing on its QP, rxe answers with a remote invalid "
    "request error)",
    "early_read": "read the buffer before the WRITE completed: wait "
    "for the write notice (lab_recv_write_done())",
    "write_data": "the WRITE did not deliver the payload: check the "
    "opcode, SGE and remote address",
    "teardown_order": "teardown order: destroy the QP, then MRs, CQ, "
    "channel, PD, device; check every return value",
    "teardown_leak": "leak: free the device list, and destroy every "
    "verbs object before ibv_close_device()",
    "teardown_nothing": "teardown earns its points by destroying what "
    "your program created (QP, MRs, CQ, channel, PD, then the device): it "
    "had nothing but the device to close",
    "teardown_line": "teardown must run (and print its line) after "
    "every run that opened the device",
    "hung": "the program hung in step %s",
    "crash": "the program crashed (signal): run it under gdb or "
    "valgrind",
    "flood": "the program wrote too much output and was stopped",
    "limit": "the program %s, a limit of the grader's sandbox: free "
    "what you allocate, start no processes, post only the lab's work",
    "compile": "the program does not compile: run make and fix the "
    "errors",
    "traced": "the work must be done by your own program's verbs "
    "calls (ibv_open_device, ...), not only printed",
    "wire": "the data must cross the wire through your QP: nothing "
    "else earns the data steps",
    "cq_channel": "create the CQ on the completion channel "
    "(ibv_create_cq(..., ctx->channel, 0)): lab_wait_wc() sleeps on it",
    "dgid": "grh.dgid must be the peer's GID from the exchange "
    "(ctx->remote.gid)",
    "hop_limit": "grh.hop_limit 0 asks that no router forward the "
    "packets (on RoCE the kernel puts the route's TTL in its place at RTR, "
    "so rxe still sent 64): use LAB_HOP_LIMIT",
    "timeout": "an RTS timeout of 0 waits for an ACK forever: use "
    "LAB_QP_TIMEOUT",
    "loss_retry": "a retry_cnt of 0 resends nothing: the first time a "
    "request's ACK does not come in time, its completion is "
    "IBV_WC_RETRY_EXC_ERR (status 12) and the QP goes to the error "
    "state; use LAB_QP_RETRY_CNT",
    "retry_none": "your QP gave up on a request that its peer did "
    "answer (the capture shows the answer): its retry_cnt of 0 resends "
    "nothing, so one answer late on a busy machine ends the QP with "
    "status 12 even on a clean wire; the step is judged again with the "
    "reference's connect, and a retry_cnt of 0 is charged to part "
    "three's loss alone: use LAB_QP_RETRY_CNT",
    "retry_timer": "your QP gave up on a request that its peer did "
    "answer (the capture shows the answer): its transport timer "
    "(4.096 us * 2^timeout, retry_cnt + 1 times) ran out first; an "
    "answer takes milliseconds under TCG: use LAB_QP_TIMEOUT and "
    "LAB_QP_RETRY_CNT in connect",
    "loss": "your client lost what a wire that drops packets took from "
    "it, where the reference's recovers: compare its QP's RTS "
    "attributes (timeout, retry_cnt, rnr_retry) with LAB_QP_TIMEOUT, "
    "LAB_QP_RETRY_CNT and LAB_QP_RNR_RETRY, and its waits with the "
    "program's -t",
    "late_recv": "receiver not ready (RNR): too few receives were "
    "posted before lab_barrier() told the peer it may send; post all "
    "LAB_RECV_SLOTS before RTR",
    "early_notice": "the write notice went out before the WRITE's "
    "completion: wait for it (lab_wait_wc()) before "
    "lab_send_write_done()",
    "no_notice": "the write notice never went: send it with "
    "lab_send_write_done() once the WRITE's completion is taken",
    "peer_adv": "the %s used what the peer advertised, and the "
    "peer's advertisement was wrong: see its exchange step",
    "adv_wrong": "the MR and QP allow REMOTE_WRITE, but the rkey or "
    "address you advertised is not your MR's: see the exchange step",
    "peer_quit": "the peer stopped first (step %s): this side's "
    "failure follows from it; fix that step",
    # From a FAIL line's code and the evidence around it (judges/causes.py):
    # what a failure with no judge of its own is told.
    "fail": "the step failed, its FAIL line naming no cause (no code=): "
    "see that line",
    "own_check": "your program's own check failed (lab_fail()): its FAIL "
    "line says why",
    "misuse": "a lab helper was called without what it needs (ctx->qp, "
    "ctx->cq and its channel, or the TCP connection): an earlier step must "
    "set it",
    "not_done": "the step returned 0 but did not create or set what it "
    "must: store each object in its ctx field (the FAIL line names it)",
    "teardown_null": "every object was destroyed, but teardown left its "
    "pointer in ctx: set each pointer to NULL once its object is gone",
    "no_device": "no RDMA device of the name -d gives: take it from "
    "ibv_get_device_list() (lab_fail_no_device() lists them)",
    "tcp": "the TCP connection to the peer was not made: the exchange "
    "step opens it with lab_tcp_open() before lab_exchange_dest(), on "
    "both sides",
    "peer_closed": "the peer closed the TCP connection while this step "
    "waited: it failed or exited first (see its lines in this pairing)",
    "peer_done": "the peer had done its whole part and exited while this "
    "side still waited in step %s: this side waits for a completion or a "
    "message the step does not bring (the wrong receive slot, a request "
    "not signaled, a notice the protocol does not send)",
    "peer_left": "your %s closed the TCP connection before this step was "
    "done: it ended its part without a notice or a wait this step needs "
    "(the barrier, lab_send_*/lab_recv_*; see its lines in this pairing)",
    "qp_err": "the QP went to the error state: a request of this step or "
    "of one before it failed, or the peer refused one (see the first "
    "failure in this pairing)",
    "qp_mask": "ibv_modify_qp() to %s refused: its attr_mask 0x%x lacks "
    "%s (each attribute the transition needs, set and named in the mask)",
    "peer_silent": "the peer sent nothing within -t: each side waits for "
    "the other's barrier or notice, so check that yours go out in the "
    "order of docs/protocol.md",
    "bad_sync": "a message after the exchange is not the one the protocol "
    "expects: call the lab's barrier and notice helpers in the order of "
    "docs/protocol.md, on both sides",
    "exch_recv": "the exchange message received was refused (its size, "
    "magic, version, QPN or length): each side fills every field of "
    "ctx->local and sends it with lab_exchange_dest()",
    "length": "a payload larger than a buffer: send strlen(-m) bytes, at "
    "most ctx->buf_len and the peer's advertised length (ctx->remote.len)",
    "recv_len": "the received length is larger than the buffer: report "
    "wc.byte_len of the receive's own completion",
    "wrong_wc": "the completion taken is of another opcode or receive "
    "slot: wait for this step's own (its wr_id, its opcode)",
    "no_wc": "no completion within -t: post the request with "
    "IBV_SEND_SIGNALED and wait on ctx->cq; a receive completes only when "
    "the peer sends",
    "unsignaled": "no completion within -t: the request was posted "
    "without IBV_SEND_SIGNALED (send_flags=%s), so none comes",
    "poll_cq": "ibv_poll_cq() returned an error: poll ctx->cq with at most "
    "as many entries as the wc array holds",
    "loc_len": "local length error: a message longer than the receive's "
    "SGE, or an SGE longer than its MR: post receives of ctx->buf_len "
    "bytes, send strlen(-m) bytes",
    "flushed": "flushed: the QP had already gone to the error state after "
    "an earlier failure; fix the first failed completion (this side's or "
    "the peer's)",
    "rem_inv": "the peer's QP refused the request as invalid: a message "
    "longer than its receive buffer, an operation its qp_access_flags do "
    "not allow, or a misaligned atomic",
    "rem_op": "the peer's device could not carry out the request (remote "
    "operation error): its receive buffer or its MR",
    "retry": "no ACK came back (transport retries exceeded): dest_qp_num, "
    "the GID and the PSNs must be the peer's, and the peer's QP in RTR",
    "wc_status": "a completion of this step failed with IBV_WC_%s: the "
    "FAIL line says what the device saw",
    "wc_other": "a completion of this step failed with a status the lab "
    "does not name: the FAIL line gives its number (ibv_wc_status_str())",
    "loc_qp_op": "local QP operation error: the request does not fit the "
    "QP (num_sge above its cap, inline data above max_inline_data, an "
    "opcode an RC QP cannot do)",
    "post_opcode": "the work request was refused (%s): opcode %s is not "
    "this step's %s",
    "post_bad": "the driver refused the work request (%s): num_sge at "
    "most the queue's cap (max_send_sge, max_recv_sge), each SGE inside an "
    "MR, the QP in a state that takes it (RTS to send)",
    "queue_full": "the work queue is full (%s: ENOMEM): take each "
    "completion before posting more, or raise the QP's max_send_wr / "
    "max_recv_wr",
    "reg_mr": "ibv_reg_mr() refused (%s): register ctx->buf (or "
    "ctx->recv_buf) with its length and valid access flags (REMOTE_WRITE "
    "and REMOTE_ATOMIC need LOCAL_WRITE)",
    "create": "%s refused (%s): its attributes exceed the device's limits "
    "or name no object (ibv_devinfo -v shows the limits)",
    "errno": "%s failed with %s: see its man page for that error",
    # Part two.
    "read_op": "use IBV_WR_RDMA_READ with wr.rdma.remote_addr and rkey as "
    "the server advertised, strlen(-w) bytes into ctx->buf",
    "read_data": "the READ brought back other bytes: read strlen(-w) bytes "
    "from the address the server advertised (ctx->remote.addr)",
    "read_mr": "REMOTE_READ missing: the server's MR needs "
    "IBV_ACCESS_REMOTE_READ in ibv_reg_mr() for the client's RDMA READ",
    "read_qp": "REMOTE_READ missing: the server QP's qp_access_flags lack "
    "IBV_ACCESS_REMOTE_READ (ibv_modify_qp to INIT)",
    "rd_credits": "no read credits: READs and atomics need RTR "
    "max_dest_rd_atomic >= 1 on the server and RTS max_rd_atomic >= 1 on "
    "the client",
    "read_local": "the READ's data and an atomic's original value are "
    "written into the client's own MR: register it with "
    "IBV_ACCESS_LOCAL_WRITE (and use its lkey)",
    "read_traced": "the READ must be done by your own program: post an "
    "IBV_WR_RDMA_READ and wait for its completion",
    "sge_lkey": "the SGE must lie in an MR of yours, with that MR's "
    "lkey (not its rkey)",
    "wimm_opcode": "use IBV_WR_RDMA_WRITE_WITH_IMM for write_imm, with "
    "imm_data = htonl(--imm), to the address and rkey the server "
    "advertised",
    "wimm_wait": "wait for the receive completion of the WRITE with "
    "immediate (IBV_WC_RECV_RDMA_WITH_IMM) before reading the buffer: its "
    "immediate is the signal that the data is there; store its byte_len "
    "and ntohl(imm_data)",
    "atomic_align": "the atomic word must be 8-byte aligned: the device "
    "refuses an atomic on any other address (IBV_WC_REM_INV_REQ_ERR)",
    "atomic_mr": "the atomic word must lie inside an MR registered with "
    "IBV_ACCESS_REMOTE_ATOMIC, and the client must use that MR's rkey",
    "atomic_qp": "REMOTE_ATOMIC missing: the server QP's qp_access_flags "
    "lack IBV_ACCESS_REMOTE_ATOMIC (ibv_modify_qp to INIT)",
    "atomic_ops": "FETCH_AND_ADD LAB_ATOMIC_ADD first, then "
    "COMPARE_AND_SWAP with compare = what the add returned + "
    "LAB_ATOMIC_ADD and swap = LAB_ATOMIC_SWAP, both on the advertised "
    "word (wr.atomic, not wr.rdma)",
    "atomic_start": "the word at the address you advertise must hold the "
    "start value you advertise: write it before lab_send_atomic_target()",
    "atomic_final": "read the word only after lab_recv_atomic_done(): the "
    "client's atomics change it",
    "atomic_notice": "the atomic notice went out before both atomics "
    "completed: wait for each completion before lab_send_atomic_done()",
    "atomic_no_notice": "the atomic notice never went: send it with "
    "lab_send_atomic_done() once both atomics' completions are taken",
    "atomic_traced": "the atomics must be done by your own program: post "
    "them and wait for their completions",
    "found": "the reference's own %s failed too after your %s, and "
    "passed with the reference's version of this step: what this step "
    "set up (a receive's buffer or lkey, a value it advertised) is what "
    "%s met",
}


class Hint(str):
    """A hint's text that knows its key in HINTS: the student reads the
    text, and the points (points.py) charge a failure by the key, so that
    rewording a hint changes no verdict."""
    key = None


def hint(key, *args):
    """The hint of HINTS[key], its %s filled with args."""
    h = Hint(HINTS[key] % args if args else HINTS[key])
    h.key = key
    return h


def key_of(text):
    """The key a hint was made from, or None (the program's own hint
    line, a hint reworded after it was made)."""
    return getattr(text, "key", None)

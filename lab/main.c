/* Generated from solution/main.c by solution/mkskeleton.awk. */
/*
 * rdma-lab: one reliable-connected (RC) queue pair between two hosts over
 * raw ibverbs, one step at a time.  This file holds the steps, in the
 * order they run; each TODO says what to achieve, which verbs to use and
 * one pitfall.  Everything a step may use is in lab.h, your reference
 * card.  lab/driver.c runs the steps and prints a checked report line
 * after each; lab/support.c holds the helpers.  Edit only this file.
 *
 *   make run      both sides in the two SoftRoCE guests, with a capture
 *   make grade    your steps graded against the reference
 *
 * solution/main.c is the reference.  lab/main.c is generated from it by
 * solution/mkskeleton.awk ("make lab"): every solution region (between the
 * markers inside the step_* functions) becomes a stub that reports "TODO
 * <name> is not implemented".
 */
#include "lab.h"

int step_open_device(struct lab_ctx *ctx)
{
	/*
	 * TODO open_device: open the RDMA device (-d, default the first one)
	 * and check that port -i is ACTIVE.  Fill ctx->verbs, ctx->port_attr
	 * (link layer, active MTU, LID), ctx->gid_idx and ctx->gid: read the
	 * port's GID table (ctx->port_attr.gid_tbl_len entries) into struct
	 * lab_gid_entry[] and let lab_choose_gid() pick; if -d names no
	 * device, report it with lab_fail_no_device().
	 * Verbs: ibv_get_device_list(3), ibv_open_device(3),
	 * ibv_query_port(3), ibv_query_gid_ex(3), ibv_free_device_list(3).
	 * Pitfall: GID index 0 on RoCE is usually fe80:: (link-local), which
	 * makes RTR fail with ETIMEDOUT; the IPv4-mapped RoCE v2 entry works.
	 */
	return lab_todo(ctx, "open_device");
}

int step_create_resources(struct lab_ctx *ctx)
{
	/*
	 * TODO create_resources: allocate a PD, a completion channel, a CQ of
	 * LAB_CQ_DEPTH entries bound to that channel, register the buffers
	 * and create an RC QP (send and receive CQ: ctx->cq; cap:
	 * LAB_SEND_DEPTH send and LAB_RECV_SLOTS receive requests, one SGE
	 * each).  Server: ctx->buf_mr over ctx->buf is the RDMA WRITE
	 * target, ctx->recv_mr over ctx->recv_buf (LAB_RECV_SLOTS *
	 * opt.size bytes) takes the receives.  Client: ctx->buf_mr over
	 * ctx->buf is only read locally.  Give each MR exactly the access
	 * the peer needs, no more.
	 * Part two: the client also READs the server's buffer and does
	 * atomics on it; the READ responses and atomic results land in the
	 * client's buffer.
	 * Verbs: ibv_alloc_pd(3), ibv_create_comp_channel(3),
	 * ibv_create_cq(3), ibv_reg_mr(3), ibv_create_qp(3).
	 * Pitfall: IBV_ACCESS_REMOTE_WRITE without IBV_ACCESS_LOCAL_WRITE
	 * makes ibv_reg_mr fail with EINVAL.  ibv_create_qp accepts a cap
	 * left at 0; the first ibv_post_recv/ibv_post_send then fails with
	 * ENOMEM.
	 */
	return lab_todo(ctx, "create_resources");
}

int step_qp_to_init(struct lab_ctx *ctx)
{
	/*
	 * TODO qp_to_init: move the QP from RESET to INIT on port -i, P_Key
	 * index 0, with the remote access the peer will use (server: the
	 * client RDMA WRITEs into it; client: nothing).
	 * Part two: the client also READs the server's buffer and does
	 * atomics on it.
	 * Verbs: ibv_modify_qp(3) (report failures with lab_fail_verb(ctx,
	 * "ibv_modify_qp(INIT)", ret) to get a hint).
	 * Pitfall: the QP's qp_access_flags are checked too: REMOTE_WRITE
	 * on the MR alone still gives the writer IBV_WC_REM_ACCESS_ERR.
	 */
	return lab_todo(ctx, "qp_to_init");
}

int step_exchange(struct lab_ctx *ctx)
{
	/*
	 * TODO exchange: fill ctx->local with what the peer needs to reach
	 * this QP and buffer: QPN, a random 24-bit starting PSN, LID, GID,
	 * ctx->buf's address, rkey and length, and the port's active MTU in
	 * bytes (lab_mtu_bytes()).  Then connect with lab_tcp_open() and
	 * swap messages with lab_exchange_dest(), which validates
	 * ctx->remote.
	 * See: getrandom(2), ibv_reg_mr(3) (struct ibv_mr), docs/protocol.md.
	 * Pitfall: the address is a 64-bit virtual address; it goes on the
	 * wire whole (lab_wire_encode uses htobe64, not htonl).
	 */
	return lab_todo(ctx, "exchange");
}

int step_connect(struct lab_ctx *ctx)
{
	/*
	 * TODO connect: server: post LAB_RECV_SLOTS receives (wr_id = slot,
	 * slot i at ctx->recv_buf + i * ctx->buf_len).  Then both sides:
	 * INIT -> RTR towards ctx->remote (path MTU: the smaller of the two
	 * active MTUs; ah_attr.port_num = -i; a GRH when ctx->gid_idx >= 0,
	 * else the LID alone), RTR -> RTS with ctx->local.psn and the
	 * LAB_QP_* timers (max_rd_atomic and max_dest_rd_atomic: 1, the
	 * READs and atomics each side may have in flight), then
	 * lab_barrier() so neither side sends before the other is ready.
	 * Verbs: ibv_post_recv(3), ibv_modify_qp(3) (use lab_fail_verb(ctx,
	 * "ibv_modify_qp(RTR)", ret) / "(RTS)" for hints).
	 * Pitfall: a SEND that finds no posted receive is answered with an
	 * RNR NAK: post the receives before RTR.
	 */
	return lab_todo(ctx, "connect");
}

int step_send(struct lab_ctx *ctx)
{
	/*
	 * TODO send: client: copy -m into ctx->buf, post a signaled SEND
	 * with lab_post_send() (checked first with lab_check_fits()) and
	 * wait for its completion with lab_wait_wc().  Server: wait for the
	 * receive completion of slot 0 and store its byte_len in
	 * ctx->recv_len[0].
	 * Verbs: ibv_post_send(3), ibv_poll_cq(3) (inside lab_wait_wc()).
	 * Pitfall: the SGE needs the lkey of the MR; the rkey there gives
	 * IBV_WC_LOC_PROT_ERR.
	 */
	return lab_todo(ctx, "send");
}

int step_send_imm(struct lab_ctx *ctx)
{
	/*
	 * TODO send_imm: like send, with IBV_WR_SEND_WITH_IMM carrying --imm.
	 * Server: wait for slot 1, check that the completion carries
	 * immediate data and store it in host order in ctx->imm_received,
	 * the length in ctx->recv_len[1].
	 * Verbs: ibv_post_send(3), ibv_poll_cq(3) (IBV_WC_WITH_IMM).
	 * Pitfall: imm_data is big-endian on the wire: htonl() before
	 * posting, ntohl() after polling.
	 */
	return lab_todo(ctx, "send_imm");
}

int step_write(struct lab_ctx *ctx)
{
	/*
	 * TODO write: client: copy -w into ctx->buf, RDMA WRITE it to the
	 * server's advertised address and rkey (ctx->remote), wait for the
	 * completion, then tell the server with lab_send_write_done().
	 * Server: a WRITE consumes no receive and completes nothing here:
	 * wait for the notice with lab_recv_write_done().
	 * Verbs: ibv_post_send(3) (IBV_WR_RDMA_WRITE, wr.rdma).
	 * Pitfall: without the notice the server would read its buffer
	 * before the data has arrived.
	 */
	return lab_todo(ctx, "write");
}

int step_read(struct lab_ctx *ctx)
{
	/*
	 * TODO read: (part two) both sides first lab_barrier(): the server
	 * has finished with what the write step put in its buffer, which
	 * write_imm will overwrite.  Then client: RDMA READ strlen(-w) bytes
	 * of the server's buffer into ctx->buf, which the driver has
	 * cleared, wait for the completion and set ctx->read_len.  Server:
	 * nothing more: its RDMA device answers the READ without the CPU.
	 * Verbs: ibv_post_send(3) (IBV_WR_RDMA_READ, wr.rdma).
	 * Pitfall: the READ response is written into the client's buffer
	 * by its own device: without IBV_ACCESS_LOCAL_WRITE on that MR the
	 * completion is IBV_WC_LOC_PROT_ERR.
	 */
	return lab_todo(ctx, "read");
}

int step_write_imm(struct lab_ctx *ctx)
{
	/*
	 * TODO write_imm: (part two) client: copy -m into ctx->buf and RDMA
	 * WRITE it, with immediate data --imm, to the server's advertised
	 * address and rkey; wait for the completion.  No TCP notice: the
	 * immediate is the signal.  Server: wait for the completion of the
	 * receive it consumes (slot 2): check that it carries immediate
	 * data, store it in host order in ctx->write_imm_imm and its
	 * byte_len, the length written, in ctx->write_imm_len.
	 * Verbs: ibv_post_send(3) (IBV_WR_RDMA_WRITE_WITH_IMM), ibv_poll_cq(3)
	 * (IBV_WC_RECV_RDMA_WITH_IMM).
	 * Pitfall: the data lands at the WRITE's address, not in the
	 * receive's buffer, but without a posted receive the WRITE is
	 * answered with RNR NAKs like a SEND.
	 */
	return lab_todo(ctx, "write_imm");
}

int step_atomic(struct lab_ctx *ctx)
{
	/*
	 * TODO atomic: (part two) server: put a random 64-bit start value
	 * into an 8-byte aligned word of ctx->buf, advertise the word with
	 * lab_send_atomic_target(), wait for lab_recv_atomic_done(), then
	 * store what the word holds in ctx->atomic_final.  Client:
	 * lab_recv_atomic_target(), then FETCH_AND_ADD LAB_ATOMIC_ADD, then
	 * COMPARE_AND_SWAP: if the word holds start + LAB_ATOMIC_ADD, swap
	 * in LAB_ATOMIC_SWAP.  Store what each returned (the word's value
	 * before it) in ctx->atomic_orig[0] and [1], then
	 * lab_send_atomic_done().
	 * Verbs: ibv_post_send(3) (IBV_WR_ATOMIC_FETCH_AND_ADD,
	 * IBV_WR_ATOMIC_CMP_AND_SWP, wr.atomic; the original value is
	 * written into the 8-byte SGE).
	 * Pitfall: the remote address must be 8-byte aligned: rxe refuses
	 * to post the request (EINVAL); an adapter that sends it gets a
	 * NAK back (IBV_WC_REM_INV_REQ_ERR).
	 */
	return lab_todo(ctx, "atomic");
}

int step_teardown(struct lab_ctx *ctx)
{
	/*
	 * TODO teardown: destroy what exists, in reverse order of creation:
	 * QP, MRs, CQ, completion channel, PD, device.  Check every return
	 * value, keep going after a failure, and set each pointer to NULL
	 * once its object is gone.  Runs after failures too, so any
	 * pointer may be NULL.
	 * Verbs: ibv_destroy_qp(3), ibv_dereg_mr(3), ibv_destroy_cq(3),
	 * ibv_destroy_comp_channel(3), ibv_dealloc_pd(3),
	 * ibv_close_device(3).
	 * Pitfall: ibv_dealloc_pd returns EBUSY while an MR or QP still
	 * uses the PD.
	 */
	return lab_todo(ctx, "teardown");
}

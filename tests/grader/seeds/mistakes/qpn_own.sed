# RTR connects the QP to its own number instead of the peer's.  Both
# guests used to hand out the same QPNs, so this worked by coincidence.
# step: connect
# hint: dest_qp_num
s/\.dest_qp_num = rem->qpn,/.dest_qp_num = ctx->qp->qp_num,/

# The client's send posts its signaled SEND and returns without waiting
# for the completion: the next step's wait takes it instead (a send step
# that did not wait lost send_imm too, issue 39).
# step: send
# hint: failed too after your send
/BEGIN SOLUTION send \*\//,/END SOLUTION/{
s/^\tif (lab_post_send(ctx, &wr) || lab_wait_wc(ctx, &wc))$/\tif (lab_post_send(ctx, \&wr))/
/^\tif (wc\.opcode != IBV_WC_SEND)$/,/^\t\t\t"expected a SEND completion, got opcode %d", wc\.opcode);$/d
}

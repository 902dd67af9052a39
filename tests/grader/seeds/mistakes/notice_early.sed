# The client sends the write notice right after posting the WRITE, before
# its completion: the server may read its buffer before the data lands.
# Judged from the order of events in the trace, so it loses every time.
# step: write
# hint: before lab_send_write_done
/BEGIN SOLUTION write \*\//,/END SOLUTION/s/if (lab_post_send(ctx, \&wr) || lab_wait_wc(ctx, \&wc))/if (lab_post_send(ctx, \&wr) || lab_send_write_done(ctx, len) || lab_wait_wc(ctx, \&wc))/
/BEGIN SOLUTION write \*\//,/END SOLUTION/s/return lab_send_write_done(ctx, len);/return 0;/

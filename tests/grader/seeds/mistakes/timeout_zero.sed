# RTS with timeout 0: the QP waits for a lost ACK forever.  Nothing on the
# wire shows it; only the traced attribute can.
# step: connect
# hint: timeout
s/\.timeout = LAB_QP_TIMEOUT,/.timeout = 0,/

# The SEND with immediate carries the right immediate but one byte too few:
# the hint must be about the bytes, not the immediate's byte order.
# step: send_imm
# hint: other bytes
/BEGIN SOLUTION send_imm \*\//,/END SOLUTION/s/\.length = len,/.length = len - 1,/

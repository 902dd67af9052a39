# step: qp_to_init
# hint: P_Key table
# The INIT transition names P_Key index 1 of a table with one entry:
# rxe moves the QP anyway, a real adapter refuses it.
s/^		\.pkey_index = 0,$/		.pkey_index = 1,/

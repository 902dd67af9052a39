# A program that only opens and closes the device: every other step is
# still a TODO, and teardown closes the device alone.  Teardown earns
# nothing for that: where the stand-ins made the objects, it leaks them.
# step: teardown
# also: create_resources qp_to_init exchange connect send send_imm write read write_imm atomic
# hint: leak
/BEGIN SOLUTION create_resources \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "create_resources");
/BEGIN SOLUTION qp_to_init \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "qp_to_init");
/BEGIN SOLUTION exchange \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "exchange");
/BEGIN SOLUTION connect \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "connect");
/BEGIN SOLUTION send \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "send");
/BEGIN SOLUTION send_imm \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "send_imm");
/BEGIN SOLUTION write \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "write");
/BEGIN SOLUTION read \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "read");
/BEGIN SOLUTION write_imm \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "write_imm");
/BEGIN SOLUTION atomic \*\//,/END SOLUTION/c\
	return lab_todo(ctx, "atomic");
/BEGIN SOLUTION teardown \*\//,/END SOLUTION/c\
	int ret = ibv_close_device(ctx->verbs);\
\
	if (ret)\
		return lab_fail_verb(ctx, "ibv_close_device", ret);\
	ctx->verbs = NULL;\
	return 0;

# Does not compile.
# score: 0
# text: does not compile
s/^int step_open_device(struct lab_ctx \*ctx)$/& syntax error/

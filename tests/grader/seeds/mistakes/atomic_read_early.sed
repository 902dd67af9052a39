# step: atomic
# hint: after lab_recv_atomic_done
# The server reads the atomic word as soon as it has advertised it, not
# after the client's notice: it holds the start value, not the swap's.
# Caught every time: the reference client waits before its atomics.
/lab_send_atomic_target(ctx, ctx->atomic_addr, start) ||$/{
	s/ ||$/)\
			return -1;\
		ctx->atomic_final = *word;\
		if (/
}
/^		ctx->atomic_final = \*word;$/d

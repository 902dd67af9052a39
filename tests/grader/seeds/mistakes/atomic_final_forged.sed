# step: atomic
# hint: after lab_recv_atomic_done
# The server waits for the client's notice but never reads the word: it
# stores LAB_ATOMIC_SWAP, the value the handout's client swaps in.  The
# grader's reference client swaps in a random value of its own
# (lab_ref_swap), which only a read of the word can report.
s/^		ctx->atomic_final = \*word;$/		ctx->atomic_final = LAB_ATOMIC_SWAP;/

# step: atomic
# hint: swap = LAB_ATOMIC_SWAP
# The client's compare-and-swap swaps in LAB_ATOMIC_ADD, the add's
# operand, not LAB_ATOMIC_SWAP.  The server's driver sees a word that
# changed twice and does not object; the wire shows the swap value.
s/^			\.wr\.atomic\.swap = lab_ref_swap(),$/			.wr.atomic.swap = LAB_ATOMIC_ADD,/

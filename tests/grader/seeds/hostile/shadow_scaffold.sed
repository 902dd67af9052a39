# Redefines a scaffolding function (lab_barrier, which writes the trace's
# barrier note) so that a late receive would go unseen: refused before
# the link.
# score: 0
# text: defines lab_barrier, which the scaffolding \(support.c\) already defines
/^#include "lab.h"$/a\
\
int lab_barrier(struct lab_ctx *ctx)\
{\
	(void)ctx;\
	return 0;\
}


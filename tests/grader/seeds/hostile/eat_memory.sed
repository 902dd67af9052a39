# Allocates and touches memory without end in open_device: its run's
# cgroup kills it at the limit (never the guest driver or the
# reference): graded, it loses what it did not finish, and the hint names
# the memory.
# score: 18
# text: exhausted its memory
/^#include "lab.h"$/a\
\
static void eat_memory(void)\
{\
	for (;;) {\
		char *p = malloc(1 << 20);\
\
		if (!p)\
			break;\
		memset(p, 1, 1 << 20);\
	}\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\teat_memory();|

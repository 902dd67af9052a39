# Writes outside its folder, then works: nothing lands, full marks.
# score: 20
# text: Score: 20/20
/^#include "lab.h"$/a\
\
static void write_outside(void)\
{\
	const char *paths[] = {"/lab-out/pwned", "/tmp/rdma-lab-pwned"};\
\
	for (int i = 0; i < 2; i++) {\
		FILE *f = fopen(paths[i], "w");\
\
		if (f) {\
			fputs("pwned\\n", f);\
			fclose(f);\
		}\
	}\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\twrite_outside();|

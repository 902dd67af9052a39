# Runs code before main (a constructor): refused before the link, as
# every section that would run code before main or at exit.
# score: 0
# text: has a section .init_array, which would run code before main
/^#include "lab.h"$/a\
\
__attribute__((constructor)) static void before_main(void)\
{\
	fputs("before main\\n", stderr);\
}


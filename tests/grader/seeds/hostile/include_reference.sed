# Includes the reference's source instead of its own steps, by a relative
# and an absolute path (tests/grader/grade.sh puts the project's in for @ROOT@):
# refused before compiling.
# score: 0
# text: only "lab.h" may be included with quotes
/^#include "lab.h"$/!d
a\
#if __has_include("../../..@ROOT@/solution/main.c")\
#include "../../..@ROOT@/solution/main.c"\
#else\
#include "@ROOT@/solution/main.c"\
#endif

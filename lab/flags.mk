# The one set of flags for every build of a student's main.c: make, make
# grade and the batch grader (vm/grader/batch reads this file), so a
# program graded is the program its author built and tested.
LAB_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror
LAB_LDLIBS := -libverbs

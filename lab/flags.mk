# The one set of flags for every build of a student's main.c: make, make
# grade and the batch grader (grader/batch reads this file), so a
# program graded is the program its author built and tested.
LAB_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror
# -z noexecstack: the stack is never executable, whatever an object says
# (the grader's seccomp filter refuses executable memory made at run time;
# this is the one the kernel would make at exec).
LAB_LDLIBS := -Wl,-z,noexecstack -libverbs
# What a student's main.c is linked with: always the project's own copies.
LAB_SCAFFOLD := lab/support.c lab/driver.c
LAB_HEADERS := lab/lab.h lab/steps.h lab/codes.h

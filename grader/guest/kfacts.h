/* kfacts.h: the kernel's record of a program's verbs objects (kfacts.c). */
#ifndef KFACTS_H
#define KFACTS_H

/*
 * Prints the kprobe_events lines (group "lab") of the kernel's side of
 * the uverbs interface, their fields' offsets read from the running
 * kernel's BTF; 1 with a line on stderr when something is missing.
 */
int kfacts_print(void);

#endif

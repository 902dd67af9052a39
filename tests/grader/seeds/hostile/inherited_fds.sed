# Descriptor games: writes lines to every descriptor from 3 up, as to a
# control pipe of the guest driver it might have inherited.  The jail
# closes them all (the program gets 0-2 only): none is
# open, so it works and loses nothing.
# score: 20
# text: Score: 20/20
/^#include "lab.h"$/a\
#include <fcntl.h>\
\
static int write_inherited(struct lab_ctx *ctx)\
{\
	static char lines[4096];\
\
	memset(lines, '\\n', sizeof(lines));\
	for (int fd = 3; fd < 1024; fd++)\
		if (fcntl(fd, F_GETFD) >= 0) {\
			for (int i = 0; i < 64; i++)\
				if (write(fd, lines, sizeof(lines)) < 0)\
					break;\
			return lab_fail(ctx, "descriptor %d was open", fd);\
		}\
	return 0;\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tif (write_inherited(ctx))\n\t\treturn -1;|

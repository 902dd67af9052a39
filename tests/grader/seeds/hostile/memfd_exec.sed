# A cheat that carries a whole program in its bytes (here a tiny x86-64
# ELF that exits 0; the reference binary would do) and runs it instead of
# its own code: from a memfd (memfd_create + fexecve), else from a file
# of its own in /tmp.  The jail refuses memfd_create and every exec after
# its own, so the stand-in never runs and the program says why.
# score: 18
# text: memfd_create: Operation not permitted; execve of /tmp/stand-in: Operation not permitted
/^#include "lab.h"$/a\
#include <fcntl.h>\
#include <sys/mman.h>\
\
static const char stand_in[] =\
	"\\x7f\\x45\\x4c\\x46\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"\
	"\\x02\\x00\\x3e\\x00\\x01\\x00\\x00\\x00\\x78\\x00\\x40\\x00\\x00\\x00\\x00\\x00"\
	"\\x40\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"\
	"\\x00\\x00\\x00\\x00\\x40\\x00\\x38\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00"\
	"\\x01\\x00\\x00\\x00\\x05\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"\
	"\\x00\\x00\\x40\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x40\\x00\\x00\\x00\\x00\\x00"\
	"\\x81\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x81\\x00\\x00\\x00\\x00\\x00\\x00\\x00"\
	"\\x00\\x10\\x00\\x00\\x00\\x00\\x00\\x00\\xb8\\x3c\\x00\\x00\\x00\\x31\\xff\\x0f"\
	"\\x05";\
\
static int run_stand_in(struct lab_ctx *ctx)\
{\
	char *argv[] = { "stand-in", NULL };\
	char why[160];\
	ssize_t len = sizeof(stand_in) - 1;\
	int fd = memfd_create("stand-in", MFD_CLOEXEC);\
\
	if (fd >= 0) {\
		if (write(fd, stand_in, len) == len)\
			fexecve(fd, argv, environ);\
		return lab_fail(ctx, "fexecve: %s", strerror(errno));\
	}\
	snprintf(why, sizeof(why), "memfd_create: %s", strerror(errno));\
	fd = open("/tmp/stand-in", O_WRONLY | O_CREAT | O_TRUNC, 0700);\
	if (fd < 0 || write(fd, stand_in, len) != len || close(fd))\
		return lab_fail(ctx, "%s; /tmp/stand-in: %s", why,\
				strerror(errno));\
	execv("/tmp/stand-in", argv);\
	return lab_fail(ctx, "%s; execve of /tmp/stand-in: %s", why,\
			strerror(errno));\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\treturn run_stand_in(ctx);|

# Machine code made at run time, the way a loader of a carried binary
# works: an anonymous executable mapping, a writable one turned
# executable, the code written over a mapped library through
# /proc/self/mem, a file of its own in /tmp mapped executable.  The jail
# refuses each (seccomp W^X, /proc read-only, /tmp noexec); had one
# worked, the code (return 42) would have run and said so.
# score: 18
# text: no code: mmap Operation not permitted, mprotect Operation not permitted, /proc/self/mem Read-only file system, /tmp Operation not permitted
/^#include "lab.h"$/a\
#include <fcntl.h>\
#include <sys/mman.h>\
\
#if defined(__x86_64__)\
static const unsigned char ret42[] = { 0xb8, 0x2a, 0, 0, 0, 0xc3 };\
#elif defined(__aarch64__)\
static const unsigned char ret42[] = { 0x40, 0x05, 0x80, 0x52,\
				       0xc0, 0x03, 0x5f, 0xd6 };\
#else\
static const unsigned char ret42[] = { 0 };\
#endif\
\
static int ran(struct lab_ctx *ctx, void *p, const char *how)\
{\
	int (*f)(void) = (int (*)(void))p;\
\
	memcpy(p, ret42, sizeof(ret42));\
	return lab_fail(ctx, "ran code made at run time (%s): %d", how, f());\
}\
\
static int load_code(struct lab_ctx *ctx)\
{\
	char e1[40], e2[40], e3[40];\
	void *p;\
	int fd;\
\
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,\
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\
	if (p != MAP_FAILED)\
		return ran(ctx, p, "mmap");\
	snprintf(e1, sizeof(e1), "%s", strerror(errno));\
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,\
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\
	if (p == MAP_FAILED)\
		return lab_fail(ctx, "mmap: %s", strerror(errno));\
	memcpy(p, ret42, sizeof(ret42));\
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0)\
		return lab_fail(ctx, "ran code made at run time (mprotect): "\
				"%d", ((int (*)(void))p)());\
	snprintf(e2, sizeof(e2), "%s", strerror(errno));\
	/* A library's code mapped again, then patched through /proc. */\
	fd = open("/proc/self/mem", O_RDWR);\
	snprintf(e3, sizeof(e3), "%s", fd < 0 ? strerror(errno) : "open");\
	if (fd >= 0)\
		return lab_fail(ctx, "/proc/self/mem opened for writing");\
	fd = open("/tmp/code", O_RDWR | O_CREAT | O_TRUNC, 0700);\
	if (fd < 0 || write(fd, ret42, sizeof(ret42)) != sizeof(ret42))\
		return lab_fail(ctx, "/tmp/code: %s", strerror(errno));\
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);\
	if (p != MAP_FAILED)\
		return lab_fail(ctx, "ran code made at run time (/tmp): %d",\
				((int (*)(void))p)());\
	return lab_fail(ctx,\
			"no code: mmap %s, mprotect %s, /proc/self/mem %s, "\
			"/tmp %s",\
			e1, e2, e3, strerror(errno));\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\treturn load_code(ctx);|

# Runs a second program: itself again (as a cheat would to shed the
# tracer, or to run the reference), then /bin/true from a child.  The
# jail lets only its own exec of the program through: both are refused.
# score: 18
# text: execve of /proc/self/exe: Operation not permitted; a child's execve of /bin/true: Operation not permitted
/^#include "lab.h"$/a\
#include <sys/wait.h>\
\
static int exec_again(struct lab_ctx *ctx)\
{\
	char *argv[] = { "rdma-lab", "-h", NULL };\
	char why[120];\
	int st = 0;\
	pid_t pid;\
\
	execv("/proc/self/exe", argv);\
	snprintf(why, sizeof(why), "%s", strerror(errno));\
	pid = fork();\
	if (pid == 0) {\
		execl("/bin/true", "true", (char *)NULL);\
		_exit(errno == EPERM ? 42 : 43);\
	}\
	if (pid < 0 || waitpid(pid, &st, 0) != pid)\
		return lab_fail(ctx, "fork: %s", strerror(errno));\
	return lab_fail(ctx,\
			"execve of /proc/self/exe: %s; a child's execve of "\
			"/bin/true: %s",\
			why,\
			WIFEXITED(st) && WEXITSTATUS(st) == 42 ?\
				"Operation not permitted" :\
				"it ran");\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\treturn exec_again(ctx);|

# Leaves 48 MiB of SysV shared memory behind in every run (it outlived
# its run in the guest's IPC namespace, until the OOM killer took the
# grader).  Each run has an IPC namespace of its own: none of an earlier
# run's segments is there (that would fail open_device), and it works.
# score: 20
# text: Score: 20/20
/^#include "lab.h"$/a\
#include <sys/shm.h>\
\
static int leave_shm(struct lab_ctx *ctx)\
{\
	struct shm_info info;\
	size_t len = 48 << 20;\
	void *p;\
	int id;\
\
	if (shmctl(0, SHM_INFO, (struct shmid_ds *)&info) >= 0 &&\
	    info.used_ids)\
		return lab_fail(ctx, "%d SysV segments of another run",\
				info.used_ids);\
	id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);\
	p = id >= 0 ? shmat(id, NULL, 0) : (void *)-1;\
	if (p != (void *)-1) {\
		memset(p, 1, len);\
		shmdt(p);\
	}\
	return 0;\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tif (leave_shm(ctx))\n\t\treturn -1;|

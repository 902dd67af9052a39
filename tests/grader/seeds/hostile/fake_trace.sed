# Does no RDMA: writes a made-up trace to every descriptor it has and to
# $LAB_TRACE, prints the ok lines with what it finds in the payloads under
# /lab-out, and exits.  The trace the grader reads is the guest kernel's,
# which no descriptor of the program reaches; the payloads are not there
# to be read.
# score: 18
# text: no device opened in the kernel's trace of your process
/^#include "lab.h"$/a\
#include <glob.h>\
\
static void fake_trace(void)\
{\
	static const char fake[] =\
		"ibv_get_device_list num=0x1 = 0x10 n=1 errno=0\\n"\
		"ibv_open_device name=rxe0 = 0x20 errno=0\\n"\
		"ibv_free_device_list list=0x10 = 0\\n"\
		"ibv_alloc_pd ctx=0x20 = 0x30 errno=0\\n"\
		"ibv_create_comp_channel ctx=0x20 = 0x40 errno=0\\n"\
		"ibv_create_cq ctx=0x20 cqe=16 ch=0x40 = 0x50 errno=0\\n"\
		"ibv_reg_mr pd=0x30 addr=0x1000 len=4096 iova=0x1000 access=0x3 "\
		"= 0x60 lkey=0x1 rkey=0x1 errno=0\\n"\
		"ibv_create_qp pd=0x30 type=2 send_cq=0x50 recv_cq=0x50 = 0x70 "\
		"qpn=0x000011 errno=0\\n"\
		"ibv_modify_qp qp=0x70 mask=0x39 state=1 access=0x2 port=1 = 0\\n"\
		"ibv_destroy_qp qp=0x70 = 0\\nibv_dereg_mr mr=0x60 = 0\\n"\
		"ibv_destroy_cq cq=0x50 = 0\\nibv_destroy_comp_channel ch=0x40 = 0\\n"\
		"ibv_dealloc_pd pd=0x30 = 0\\nibv_close_device ctx=0x20 = 0\\n";\
	const char *path = getenv("LAB_TRACE");\
	char line[4096];\
	glob_t g;\
\
	for (int fd = 3; fd < 64; fd++)\
		if (write(fd, fake, sizeof(fake) - 1) < 0) {\
		}\
	if (path) {\
		FILE *f = fopen(path, "a");\
\
		if (f) {\
			fputs(fake, f);\
			fclose(f);\
		}\
	}\
	printf("lab open_device ok role=server dev=rxe0 port=1 link=ethernet "\
	       "mtu=1024 gid_idx=1\\n");\
	printf("lab create_resources ok qpn=0x000011\\n");\
	printf("lab qp_to_init ok qpn=0x000011 state=INIT remote_write=1\\n");\
	if (!glob("/lab-out/res/*/payload.p*", 0, NULL, &g))\
		for (size_t i = 0; i < g.gl_pathc; i++) {\
			FILE *f = fopen(g.gl_pathv[i], "r");\
\
			if (f && fgets(line, sizeof(line), f)) {\
				line[strcspn(line, "\\n")] = 0;\
				printf("lab send ok received=\\"%s\\"\\n", line);\
			}\
			if (f)\
				fclose(f);\
		}\
	printf("lab teardown ok\\n");\
	exit(0);\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tfake_trace();|

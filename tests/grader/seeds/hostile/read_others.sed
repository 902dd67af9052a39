# Tries to read what the grader keeps from it: the run's config and
# payloads, the job list, other students' sources, the project tree.  It
# stops if it read anything, so full marks mean nothing was there.
# score: 20
# text: Score: 20/20
/^#include "lab.h"$/a\
#include <glob.h>\
\
static void read_others(void)\
{\
	/* Not all of /usr, /sys, /proc: that walk outlasts a run. */\
	const char *pat[] = {"/lab-out/config", "/lab-out/jobs.txt",\
			     "/lab-out/res/*/payload.p1",\
			     "/tmp/grade/cc-*/main.c", "/*/solution/main.c",\
			     "/[hortw]*/*/solution/main.c",\
			     "/[hortw]*/*/*/solution/main.c",\
			     "/usr/src/*/solution/main.c",\
			     "/usr/local/*/solution/main.c",\
			     "/[hortw]*/*/students/*/main.c",\
			     "/proc/1/root/lab-out/config"};\
	char path[4096];\
	const char *proj = getenv("LAB_PROJECT");\
	glob_t g;\
\
	snprintf(path, sizeof(path), "%s/solution/main.c", proj ? proj : "/");\
	for (int i = -1; i < (int)(sizeof(pat) / sizeof(pat[0])); i++) {\
		const char *p = i < 0 ? path : pat[i];\
\
		if (glob(p, 0, NULL, &g) || !g.gl_pathc)\
			continue;\
		for (size_t j = 0; j < g.gl_pathc; j++) {\
			FILE *f = fopen(g.gl_pathv[j], "r");\
\
			if (f && fgetc(f) != EOF) {\
				fprintf(stderr, "lab open_device FAIL: read %s\\n",\
					g.gl_pathv[j]);\
				exit(1);\
			}\
			if (f)\
				fclose(f);\
		}\
		globfree(&g);\
	}\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\tread_others();|

/*
 * jail.c: the sandbox students' code is compiled and run in, in one
 * program.  In a grading guest (box, run; as root) every program start
 * costs about a tenth of a second under TCG: the chain it replaces
 * (timeout, unshare, bash, mount, chroot, nice, setpriv, env) cost a
 * second per run of a student's program, and building the root with
 * mount(8) two seconds per boot.  On the grading host (host), it lets the
 * compile run natively, 20 times faster than in a guest.
 *
 *   jail box ROOT GRADER [HIDE...]
 *   jail run ROOT SECONDS UID JOB [-u NPROC] [-f KIB] [-v KIB] [-o]
 *            [VAR=VALUE...] CMD [ARG...]
 *   jail host JOBDIR GRADER HIDE SECONDS [-f KIB] [-v KIB]
 *            [VAR=VALUE...] CMD [ARG...]
 *
 * box builds ROOT once per boot: a tmpfs holding the system read-only
 * (/usr, /etc, /sys; /bin, /lib... as the same links or read-only
 * binds), four harmless devices, /dev/infiniband, an empty /jobs (mode
 * 711: a job's folder can be entered, not found), GRADER read-only at
 * /grader, and an empty folder over each HIDE that would show through
 * (the project tree, the reference).  ROOT is then made read-only.
 *
 * run starts CMD in ROOT, in mount and PID namespaces of its own with an
 * empty /tmp and its own /proc: as UID (group UID, no other groups, no
 * new privileges), at nice 19, from /jobs/JOB, with stdin /dev/null, the
 * environment PATH, HOME=/tmp, LANG=C and the VAR=VALUE words only, and
 * the limits -u (processes), -f (file size), -v (address space), -o (the
 * first the OOM killer takes).  After SECONDS, on SIGTERM or SIGINT, or
 * when this program dies, every process in the namespace is killed.
 *
 * host is run for a compile on the grading host, as any user: it builds
 * the box of box, without /sys (HIDE: folders joined by ':'), in
 * namespaces of its own (a user namespace too when not run as root),
 * with JOBDIR read-write at /jobs/job, and runs CMD there as run does: as
 * nobody when run as root, else as the caller without any capability.
 * A compiler needs no more: the point is what it can read (#include,
 * .incbin).
 *
 * Exit status: CMD's, 128+N when signal N ended it, 124 after SECONDS,
 * 128+N when signal N stopped the jail (as timeout(1) does), 125 when the
 * jail could not be set up, 127 when CMD could not be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#define JAIL_SETUP 125

struct jail_run {
	const char *root;
	unsigned int seconds;
	uid_t uid;
	const char *job;
	rlim_t nproc;
	rlim_t fsize;
	rlim_t as;
	int oom;
	int userns; /* host, not root: drop capabilities, keep the uid */
	char **cmd; /* VAR=VALUE words, then CMD and its arguments */
};

static void jail_die(const char *what, const char *arg)
{
	fprintf(stderr, "jail: %s %s: %s\n", what, arg, strerror(errno));
	_exit(JAIL_SETUP);
}

static void jail_mount(const char *src, const char *dst, const char *type,
		       unsigned long flags, const char *data)
{
	if (mount(src, dst, type, flags, data))
		jail_die("cannot mount on", dst);
}

/*
 * A bind mount is made read-only by a second call: flags on the first are
 * ignored.  The flags the mount had stay (in a user namespace, dropping
 * one is refused).
 */
static void jail_bind(const char *src, const char *dst, int ro)
{
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID;
	struct statvfs sv;

	jail_mount(src, dst, NULL, MS_BIND, NULL);
	if (!ro)
		return;
	if (statvfs(dst, &sv) == 0) {
		flags |= sv.f_flag & ST_NODEV ? MS_NODEV : 0;
		flags |= sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0;
		flags |= sv.f_flag & ST_NOATIME ? MS_NOATIME : 0;
		flags |= sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0;
		flags |= sv.f_flag & ST_RELATIME ? MS_RELATIME : 0;
	}
	jail_mount(NULL, dst, NULL, flags, NULL);
}

static void jail_path(char *buf, const char *root, const char *path)
{
	if ((size_t)snprintf(buf, PATH_MAX, "%s%s", root, path) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		jail_die("path too long:", path);
	}
}

static void jail_mkdir(const char *root, const char *path)
{
	char p[PATH_MAX];

	jail_path(p, root, path);
	if (mkdir(p, 0755) && errno != EEXIST)
		jail_die("cannot create", p);
}

static void jail_box_mounts(const char *root, const char *grader, char **hide,
			    int host)
{
	static const char *const sys_dirs[] = { "/bin",	 "/lib", "/lib64",
						"/sbin", "/usr", "/etc",
						"/sys" };
	static const char *const devs[] = { "/dev/null", "/dev/zero",
					    "/dev/random", "/dev/urandom" };
	char p[PATH_MAX], link[PATH_MAX];
	struct stat st;
	size_t i;
	ssize_t n;
	int fd;

	jail_mount("box", root, "tmpfs", 0, "mode=755,size=64m");
	for (i = 0; i < sizeof(sys_dirs) / sizeof(sys_dirs[0]); i++) {
		/* A compile needs no /sys, and a user namespace may not
		 * bind it without the mounts under it. */
		if (lstat(sys_dirs[i], &st) ||
		    (host && !strcmp(sys_dirs[i], "/sys")))
			continue;
		jail_path(p, root, sys_dirs[i]);
		if (S_ISLNK(st.st_mode)) {
			n = readlink(sys_dirs[i], link, sizeof(link) - 1);
			if (n < 0)
				jail_die("cannot read the link", sys_dirs[i]);
			link[n] = '\0';
			if (symlink(link, p))
				jail_die("cannot create", p);
		} else if (S_ISDIR(st.st_mode)) {
			jail_mkdir(root, sys_dirs[i]);
			jail_bind(sys_dirs[i], p, 1);
		}
	}
	jail_mkdir(root, "/dev");
	jail_mkdir(root, "/dev/infiniband");
	jail_mkdir(root, "/tmp");
	jail_mkdir(root, "/proc");
	jail_mkdir(root, "/jobs");
	jail_mkdir(root, "/grader");
	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		jail_path(p, root, devs[i]);
		fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd))
			jail_die("cannot create", p);
		jail_bind(devs[i], p, 0);
	}
	jail_path(p, root, "/dev/infiniband");
	if (stat("/dev/infiniband", &st) == 0)
		jail_bind("/dev/infiniband", p, 0);
	jail_path(p, root, "/jobs");
	jail_mount("jobs", p, "tmpfs", MS_NOSUID | MS_NODEV,
		   "mode=711,size=128m");
	jail_path(p, root, "/grader");
	jail_bind(grader, p, 1);
	/* A project cloned under /usr/src, or an output folder under /etc,
	 * would show through its system tree. */
	for (; *hide; hide++) {
		char *real = realpath(*hide, NULL);

		if (!real)
			continue;
		jail_path(p, root, real);
		free(real);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			jail_mount("hidden", p, "tmpfs", MS_RDONLY, "size=4k");
	}
	if (!host)
		jail_mount("box", root, "tmpfs", MS_REMOUNT | MS_RDONLY,
			   "mode=755,size=64m");
}

static void jail_limit(int resource, rlim_t value, const char *name)
{
	struct rlimit rl = {
		.rlim_cur = value,
		.rlim_max = value,
	};

	if (value != RLIM_INFINITY && setrlimit(resource, &rl))
		jail_die("cannot set the limit", name);
}

/* The program itself: never returns. */
static void jail_exec(const struct jail_run *r)
{
	char job[PATH_MAX];
	char **cmd = r->cmd;
	int fd;

	jail_limit(RLIMIT_NPROC, r->nproc, "-u");
	jail_limit(RLIMIT_FSIZE, r->fsize, "-f");
	jail_limit(RLIMIT_AS, r->as, "-v");
	if (r->oom) {
		fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "1000", 4) != 4 || close(fd))
			jail_die("cannot set", "oom_score_adj");
	}
	jail_path(job, "/jobs/", r->job);
	if (chroot(r->root) || chdir(job))
		jail_die("cannot enter", job);
	if (setpriority(PRIO_PROCESS, 0, 19))
		jail_die("cannot set", "the priority");
	if (r->userns) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct none[2] = { { 0 } };

		if (syscall(SYS_capset, &h, none))
			jail_die("cannot drop", "capabilities");
	} else if (setgroups(0, NULL) || setresgid(r->uid, r->uid, r->uid) ||
		   setresuid(r->uid, r->uid, r->uid)) {
		jail_die("cannot drop", "privileges");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		jail_die("cannot drop", "privileges");
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0 || (fd != 0 && close(fd)))
		jail_die("cannot open", "/dev/null");
	if (clearenv() || setenv("PATH", "/usr/bin:/bin", 1) ||
	    setenv("HOME", "/tmp", 1) || setenv("LANG", "C", 1))
		jail_die("cannot set", "the environment");
	for (; *cmd && strchr(*cmd, '=') && **cmd != '='; cmd++)
		if (putenv(*cmd))
			jail_die("cannot set", *cmd);
	if (!*cmd) {
		fprintf(stderr, "jail: no command\n");
		_exit(JAIL_SETUP);
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "jail: cannot run %s: %s\n", cmd[0], strerror(errno));
	_exit(127);
}

static int jail_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * PID 1 of the namespace: its end takes every process in it along.  It
 * dies with the jail; alive is the read end of a pipe only the jail holds
 * open, which tells whether the jail died before that was arranged (its
 * PID is not visible from here).
 */
static int jail_init(const struct jail_run *r, int alive)
{
	char p[PATH_MAX];
	pid_t prog, w;
	int st;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || read(alive, p, 1) == 0)
		_exit(JAIL_SETUP);
	close(alive);
	jail_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	jail_path(p, r->root, "/tmp");
	jail_mount("tmp", p, "tmpfs", MS_NOSUID | MS_NODEV,
		   "size=64m,mode=1777");
	jail_path(p, r->root, "/proc");
	jail_mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	prog = fork();
	if (prog < 0)
		jail_die("cannot", "fork");
	if (prog == 0)
		jail_exec(r);
	for (;;) {
		w = wait(&st);
		if (w == prog)
			_exit(jail_status(st));
		if (w < 0 && errno != EINTR)
			_exit(JAIL_SETUP);
	}
}

static volatile sig_atomic_t jail_stop;
static volatile pid_t jail_ns_init;

static void jail_on_signal(int sig)
{
	jail_stop = sig;
	if (jail_ns_init > 0)
		kill(jail_ns_init, SIGKILL);
}

/* A positive number times unit (1024 for KiB, as ulimit(1) counts). */
static int jail_num(const char *s, rlim_t unit, rlim_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > (1ULL << 40))
		return -1;
	*out = (rlim_t)v * unit;
	return 0;
}

static void jail_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = (ssize_t)strlen(text);

	if (fd < 0 || write(fd, text, n) != n || close(fd))
		jail_die("cannot write", path);
}

/*
 * host: private namespaces (a user namespace first when not root), and
 * the box built over /tmp there, JOBDIR at /jobs/job.  Both folders are
 * held open before: the box may cover where they are.
 */
static void jail_host(struct jail_run *r, const char *jobdir,
		      const char *grader, char *hide)
{
	char *hides[9] = { NULL };
	size_t n = 0;
	char g[64], j[64], map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int gfd, jfd;

	r->userns = geteuid() != 0;
	if (unshare(CLONE_NEWNS | (r->userns ? CLONE_NEWUSER : 0)))
		jail_die("cannot", "unshare (user namespaces off?)");
	if (r->userns) {
		jail_write("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
		jail_write("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
		jail_write("/proc/self/gid_map", map);
	}
	jail_mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	/* Opened in this namespace: a bind from another one is refused. */
	gfd = open(grader, O_PATH | O_DIRECTORY | O_CLOEXEC);
	jfd = open(jobdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (gfd < 0 || jfd < 0)
		jail_die("cannot open", gfd < 0 ? grader : jobdir);
	snprintf(g, sizeof(g), "/proc/self/fd/%d", gfd);
	snprintf(j, sizeof(j), "/proc/self/fd/%d", jfd);
	for (hide = strtok(hide, ":"); hide && n < 8; hide = strtok(NULL, ":"))
		hides[n++] = hide;
	r->root = "/tmp";
	jail_box_mounts(r->root, g, hides, 1);
	jail_mkdir(r->root, "/jobs/job");
	jail_bind(j, "/tmp/jobs/job", 0);
	jail_mount("box", r->root, "tmpfs", MS_REMOUNT | MS_RDONLY,
		   "mode=755,size=64m");
	close(gfd);
	close(jfd);
}

static int jail_usage(void)
{
	fprintf(stderr, "usage: jail box ROOT GRADER [HIDE...]\n"
			"       jail run ROOT SECONDS UID JOB [-u NPROC] "
			"[-f KIB] [-v KIB] [-o] [VAR=VALUE...] CMD [ARG...]\n"
			"       jail host JOBDIR GRADER HIDE SECONDS [-f KIB] "
			"[-v KIB] [VAR=VALUE...] CMD [ARG...]\n");
	return 2;
}

/* The options and VAR=VALUE words, then CMD: into r. */
static int jail_options(struct jail_run *r, char **argv)
{
	int bad;

	for (; *argv && (*argv)[0] == '-'; argv++) {
		if (!strcmp(*argv, "-o")) {
			r->oom = 1;
			continue;
		}
		if (!argv[1])
			return -1;
		if (!strcmp(*argv, "-u"))
			bad = jail_num(argv[1], 1, &r->nproc);
		else if (!strcmp(*argv, "-f"))
			bad = jail_num(argv[1], 1024, &r->fsize);
		else if (!strcmp(*argv, "-v"))
			bad = jail_num(argv[1], 1024, &r->as);
		else
			bad = 1;
		if (bad)
			return -1;
		argv++;
	}
	r->cmd = argv;
	return *argv ? 0 : -1;
}

static int jail_seconds(struct jail_run *r, const char *s)
{
	char *end;

	r->seconds = (unsigned int)strtoul(s, &end, 10);
	return *end || !r->seconds || r->seconds > 86400 ? -1 : 0;
}

static int jail_run(struct jail_run *r)
{
	struct sigaction sa = {
		.sa_handler = jail_on_signal,
	};
	pid_t init;
	int st, alive[2];

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGALRM, &sa, NULL))
		jail_die("cannot", "set signal handlers");
	if (pipe2(alive, O_CLOEXEC | O_NONBLOCK))
		jail_die("cannot", "make a pipe");
	if (unshare(CLONE_NEWNS | CLONE_NEWPID))
		jail_die("cannot", "unshare");
	init = fork();
	if (init < 0)
		jail_die("cannot", "fork");
	if (init == 0) {
		close(alive[1]);
		return jail_init(r, alive[0]);
	}
	close(alive[0]);
	jail_ns_init = init;
	if (jail_stop) /* a signal came before the child was known */
		kill(init, SIGKILL);
	alarm(r->seconds);
	while (waitpid(init, &st, 0) < 0)
		if (errno != EINTR)
			jail_die("cannot", "wait");
	if (jail_stop == SIGALRM)
		return 124;
	if (jail_stop)
		return 128 + jail_stop;
	return jail_status(st);
}

int main(int argc, char **argv)
{
	struct jail_run r = {
		.nproc = RLIM_INFINITY,
		.fsize = RLIM_INFINITY,
		.as = RLIM_INFINITY,
	};
	char *end;

	if (argc >= 4 && !strcmp(argv[1], "box")) {
		jail_box_mounts(argv[2], argv[3], argv + 4, 0);
		return 0;
	}
	if (argc >= 7 && !strcmp(argv[1], "run")) {
		r.root = argv[2];
		r.uid = (uid_t)strtoul(argv[4], &end, 10);
		r.job = argv[5];
		if (*end || !r.uid || strchr(r.job, '/') ||
		    jail_seconds(&r, argv[3]) || jail_options(&r, argv + 6))
			return jail_usage();
		return jail_run(&r);
	}
	if (argc >= 7 && !strcmp(argv[1], "host")) {
		r.uid = 65534;
		r.job = "job";
		if (jail_seconds(&r, argv[5]) || jail_options(&r, argv + 6))
			return jail_usage();
		jail_host(&r, argv[2], argv[3], argv[4]);
		return jail_run(&r);
	}
	return jail_usage();
}

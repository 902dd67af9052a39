/*
 * jail_probe.c: what a program run by "grader/guest/jail run -x -k 5" may
 * and may not do, tried from inside (tests/unit.sh runs it on the
 * host, where no RDMA is needed for these).  One "ok NAME" or "FAIL NAME:
 * why" line per check.
 *
 *   jail_probe all        the checks, inside the jail
 *   jail_probe shm-make   outside: a SysV segment the jail must not see
 *   jail_probe shm-rm ID  outside: removes it
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/netlink.h>

#include <infiniband/verbs.h>

extern char **environ;

static int probe_failed;

/* name: ok when got (a return value, -1 with errno) is what want says. */
static void probe_expect(const char *name, long got, int want_errno)
{
	int err = errno;

	if (want_errno == 0 && got >= 0) {
		printf("ok   %s\n", name);
	} else if (want_errno && got < 0 && err == want_errno) {
		printf("ok   %s (%s)\n", name, strerror(err));
	} else {
		probe_failed = 1;
		printf("FAIL %s: returned %ld, errno %s, want %s\n", name, got,
		       got < 0 ? strerror(err) : "none",
		       want_errno ? strerror(want_errno) : "success");
	}
}

static void probe_socket(const char *name, int domain, int type, int proto,
			 int want_errno)
{
	int fd = socket(domain, type, proto);

	probe_expect(name, fd, want_errno);
	if (fd >= 0)
		close(fd);
}

/* Status of f run in a child: the way to see a kill. */
static int probe_child(void (*f)(void))
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		f();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void probe_exec_true(void)
{
	char *argv[] = { "true", NULL };

	execve("/bin/true", argv, environ);
	_exit(errno == EPERM ? 42 : 43);
}

#ifdef __x86_64__
static void probe_x32(void)
{
	/* getpid by the x32 numbering */
	syscall(0x40000000 | SYS_getpid);
}
#endif

static void *probe_thread(void *arg)
{
	return arg;
}

/* The rxe providers in the libibverbs/ folder beside the libibverbs that
 * this program loaded, as glob(3) returns them. */
static int probe_provider_glob(glob_t *g)
{
	char pat[4096];
	Dl_info info;
	char *slash;

	if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname ||
	    strlen(info.dli_fname) > sizeof(pat) - 32)
		return GLOB_NOMATCH;
	strcpy(pat, info.dli_fname);
	slash = strrchr(pat, '/');
	if (!slash)
		return GLOB_NOMATCH;
	strcpy(slash, "/libibverbs/librxe-*.so");
	return glob(pat, 0, NULL, g);
}

static int probe_all(void)
{
	char *argv[] = { "true", NULL };
	char path[] = "/tmp/probeXXXXXX";
	struct ibv_device **l;
	struct shm_info si;
	pthread_t t;
	glob_t g;
	void *p, *h;
	long r;
	int fd, st, i, open_fds = 0;

	/* The second exec, in every form. */
	r = execve("/bin/true", argv, environ);
	probe_expect("execve refused", r, EPERM);
	r = execveat(AT_FDCWD, "/bin/true", argv, environ, 0);
	probe_expect("execveat refused", r, EPERM);
	st = probe_child(probe_exec_true);
	probe_expect("execve by a child refused",
		     WIFEXITED(st) && WEXITSTATUS(st) == 42 ? 0 : -1, 0);
	st = system("true");
	probe_expect("system() runs no shell",
		     WIFEXITED(st) && WEXITSTATUS(st) == 127 ? 0 : -1, 0);
	r = memfd_create("x", 0);
	probe_expect("memfd_create refused", r, EPERM);

	/* No executable memory but the files' own code. */
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	probe_expect("mmap anonymous exec refused", p == MAP_FAILED ? -1 : 0,
		     EPERM);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	probe_expect("mmap anonymous read-write", p == MAP_FAILED ? -1 : 0, 0);
	if (p != MAP_FAILED) {
		r = mprotect(p, 4096, PROT_READ | PROT_EXEC);
		probe_expect("mprotect to exec refused", r, EPERM);
		r = syscall(SYS_pkey_mprotect, p, 4096, PROT_READ | PROT_EXEC,
			    -1);
		probe_expect("pkey_mprotect to exec refused", r, EPERM);
	}
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE,
		 fd, 0);
	probe_expect("mmap of a file write+exec refused",
		     p == MAP_FAILED ? -1 : 0, EPERM);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	probe_expect("mmap of a file read+exec (as ld.so does)",
		     p == MAP_FAILED ? -1 : 0, 0);
	if (fd >= 0)
		close(fd);
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	probe_expect("/proc/self/mem not writable", fd, EROFS);
	fd = mkstemp(path);
	if (fd >= 0 && write(fd, "\xc3", 1) == 1) {
		p = mmap(NULL, 1, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		probe_expect("mmap exec of a file in /tmp refused (noexec)",
			     p == MAP_FAILED ? -1 : 0, EPERM);
	} else {
		probe_expect("a file in /tmp", -1, 0);
	}
	if (fd >= 0)
		close(fd);
	r = personality(READ_IMPLIES_EXEC);
	probe_expect("personality(READ_IMPLIES_EXEC) refused", r, EPERM);
	r = personality(0xffffffff);
	probe_expect("personality query", r, 0);
	r = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (r >= 0) {
		p = shmat((int)r, NULL, SHM_EXEC);
		probe_expect("shmat SHM_EXEC refused", p == (void *)-1 ? -1 : 0,
			     EPERM);
		shmctl((int)r, IPC_RMID, NULL);
	} else {
		probe_expect("shmget", r, 0);
	}
	r = syscall(SYS_io_uring_setup, 8, NULL);
	probe_expect("io_uring_setup refused", r, ENOSYS);
	r = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	probe_expect("ptrace refused", r, EPERM);
	r = process_vm_readv(getppid(), NULL, 0, NULL, 0, 0);
	probe_expect("process_vm_readv refused", r, EPERM);
	r = unshare(CLONE_NEWUSER);
	probe_expect("unshare(CLONE_NEWUSER) refused", r, EPERM);
	r = syscall(SYS_clone3, NULL, 0);
	probe_expect("clone3 refused (C library falls back)", r, ENOSYS);
	r = pthread_create(&t, NULL, probe_thread, NULL);
	if (r == 0)
		pthread_join(t, NULL);
	probe_expect("pthread_create works", r ? -1 : 0, 0);
	/* The loader and libibverbs' provider loading work: the provider
	 * beside this program's libibverbs (a multiarch host has others,
	 * the arm64 guests' cross builds). */
	if (probe_provider_glob(&g) == 0) {
		h = dlopen(g.gl_pathv[0], RTLD_NOW);
		probe_expect("dlopen of the rxe provider", h ? 0 : -1, 0);
		globfree(&g);
	} else {
		printf("SKIP: no rxe provider installed here to dlopen\n");
	}
	/* Its netlink queries and sysfs reads; no device on a host. */
	l = ibv_get_device_list(&i);
	if (l)
		ibv_free_device_list(l);
	probe_expect("ibv_get_device_list runs", 0, 0);

	/* Sockets: TCP, AF_UNIX and netlink only. */
	probe_socket("socket TCP", AF_INET, SOCK_STREAM, 0, 0);
	probe_socket("socket TCP cloexec nonblock", AF_INET,
		     SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP,
		     0);
	probe_socket("socket TCP over IPv6", AF_INET6, SOCK_STREAM, 0, 0);
	probe_socket("socket AF_UNIX datagram", AF_UNIX, SOCK_DGRAM, 0, 0);
	probe_socket("socket netlink", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, 0);
	probe_socket("socket UDP refused", AF_INET, SOCK_DGRAM, 0, EPERM);
	probe_socket("socket UDP over IPv6 refused", AF_INET6, SOCK_DGRAM, 0,
		     EPERM);
	probe_socket("socket raw refused", AF_INET, SOCK_RAW, IPPROTO_UDP,
		     EPERM);
	/* TCP's bytes only through send/write: the grader counts them at
	 * tcp_sendmsg_locked. */
	probe_expect("sendfile refused", syscall(SYS_sendfile, 1, 0, NULL, 1),
		     EPERM);
	probe_expect("splice refused",
		     syscall(SYS_splice, 0, NULL, 1, NULL, 1, 0), EPERM);
	probe_expect("vmsplice refused", syscall(SYS_vmsplice, 1, NULL, 0, 0),
		     EPERM);
	probe_socket("socket packet refused", AF_PACKET, SOCK_RAW, 0, EPERM);
	probe_socket("socket SCTP stream refused", AF_INET, SOCK_STREAM, 132,
		     EPERM);

#ifdef __x86_64__
	st = probe_child(probe_x32);
	probe_expect("an x32 system call kills",
		     WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS ? 0 : -1, 0);
#endif

	/* Descriptors: 0-4 only (-k 5), and no SysV segment of the
	 * caller's IPC namespace. */
	for (i = 5; i < 1024; i++)
		open_fds += fcntl(i, F_GETFD) >= 0;
	probe_expect("descriptors above 4 closed", open_fds ? -1 : 0, 0);
	probe_expect("descriptor 4 kept", fcntl(4, F_GETFD), 0);
	r = shmctl(0, SHM_INFO, (struct shmid_ds *)&si);
	probe_expect("an IPC namespace of its own",
		     r >= 0 && si.used_ids == 0 ? 0 : -1, 0);
	return probe_failed;
}

int main(int argc, char **argv)
{
	char *end;
	long id;

	if (argc == 2 && !strcmp(argv[1], "all"))
		return probe_all();
	if (argc == 2 && !strcmp(argv[1], "shm-make")) {
		id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		if (id < 0) {
			perror("jail_probe: shmget");
			return 1;
		}
		printf("%ld\n", id);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "shm-rm")) {
		id = strtol(argv[2], &end, 10);
		if (*end || shmctl((int)id, IPC_RMID, NULL)) {
			fprintf(stderr, "jail_probe: cannot remove %s\n",
				argv[2]);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "usage: jail_probe all | shm-make | shm-rm ID\n");
	return 2;
}

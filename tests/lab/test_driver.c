/*
 * Host-side tests of lab/driver.c's report lines and lab/support.c's
 * hints: a step prints its "ok" line or its "FAIL" line, never both
 * (docs/protocol.md, "Step lines"), and a bad -i gets a hint.  No RDMA
 * device is needed: the checks run on a hand-filled ctx.  Prints one
 * "ok name" or "FAIL name: why" line per check; LAB_TEST_ONLY,
 * LAB_TEST_SKIP and LAB_TEST_LIST choose them by name (checks.h).
 */
#include "../../lab/support.c"
#define main lab_driver_main
#include "../../lab/driver.c"
#undef main
#include "checks.h"

#include <sys/wait.h>

/* The steps themselves are not under test here. */
#define LAB_STEP(name, points, part)                                           \
	int step_##name(struct lab_ctx *ctx)                                   \
	{                                                                      \
		(void)ctx;                                                     \
		return 0;                                                      \
	}
#include "../../lab/steps.h"
#undef LAB_STEP

/* What one call printed: its status and both streams. */
struct captured {
	int ret;
	char out[1024];
	char err[1024];
};

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
}

/* Run fn(ctx) with stdout and stderr sent to files, and read them back. */
static void capture(int (*fn)(struct lab_ctx *), struct lab_ctx *ctx,
		    struct captured *c)
{
	FILE *out = tmpfile(), *err = tmpfile();
	int old_out = dup(1), old_err = dup(2);

	fflush(stdout);
	fflush(stderr);
	dup2(fileno(out), 1);
	dup2(fileno(err), 2);
	c->ret = fn(ctx);
	fflush(stdout);
	fflush(stderr);
	dup2(old_out, 1);
	dup2(old_err, 2);
	close(old_out);
	close(old_err);
	slurp(out, c->out, sizeof(c->out));
	slurp(err, c->err, sizeof(c->err));
	fclose(out);
	fclose(err);
}

/* The text ends with " code=NAME\n" (docs/protocol.md, "Failure codes"). */
static bool ends_with_code(const char *text, const char *code)
{
	char want[64];
	size_t n = strlen(text), k;

	snprintf(want, sizeof(want), " code=%s\n", code);
	k = strlen(want);
	return n >= k && !strcmp(text + n - k, want);
}

/* A step that fails in its report prints one FAIL line and no ok line,
 * which names the cause code. */
static void expect_fail_only(const char *name, int (*fn)(struct lab_ctx *),
			     struct lab_ctx *ctx, const char *reason,
			     const char *code)
{
	struct captured c;

	capture(fn, ctx, &c);
	check_line(c.ret == -1 && !c.out[0] && count_lines(c.err) == 1 &&
			   strstr(c.err, " FAIL: ") && strstr(c.err, reason) &&
			   ends_with_code(c.err, code),
		   name, "status %d, stdout '%s', stderr '%s'", c.ret, c.out,
		   c.err);
}

static void client(struct lab_ctx *ctx, const char *step)
{
	static char host[] = "192.0.2.1";

	memset(ctx, 0, sizeof(*ctx));
	ctx->opt.host = host;
	ctx->opt.imm = LAB_DEFAULT_IMM;
	ctx->opt.write_msg = LAB_DEFAULT_WRITE;
	ctx->step = step;
	ctx->sock = -1;
}

static int query_port_einval(struct lab_ctx *ctx)
{
	return lab_fail_verb(ctx, "ibv_query_port", EINVAL);
}

static int student_fail(struct lab_ctx *ctx)
{
	return lab_fail(ctx, "my own check");
}

static int unknown_errno(struct lab_ctx *ctx)
{
	return lab_fail_verb(ctx, "ibv_foo", 4095);
}

/* expect_code NAME CODE: fn(ctx) printed one FAIL line with code=CODE. */
static void expect_code(const char *name, int (*fn)(struct lab_ctx *),
			struct lab_ctx *ctx, const char *code)
{
	struct captured c;

	capture(fn, ctx, &c);
	check_line(c.ret == -1 && count_lines(c.err) == 1 &&
			   strstr(c.err, " FAIL: ") &&
			   ends_with_code(c.err, code),
		   name, "stderr '%s'", c.err);
}

/* Every status and errno of lab/codes.h maps to its own code, and each
 * code has its name; lab_fail() is STUDENT, an unlisted errno OTHER. */
static void codes(void)
{
	struct lab_ctx ctx;
	int bad = 0;

#define LAB_CODE(name)
#define LAB_WC(name)                                                           \
	bad += lab_wc_code(IBV_WC_##name) != LAB_CODE_WC_##name ||             \
	       strcmp(lab_code_name(LAB_CODE_WC_##name), "WC_" #name);
#define LAB_ERRNO(name)                                                        \
	bad += lab_errno_code(name) != LAB_CODE_ERRNO_##name ||                \
	       strcmp(lab_code_name(LAB_CODE_ERRNO_##name), "ERRNO_" #name);
#include "../../lab/codes.h"
#undef LAB_CODE
#undef LAB_WC
#undef LAB_ERRNO
	check_line(!bad, "codes_wc_errno_names", "%d wrong", bad);
	client(&ctx, "send");
	expect_code("codes_student", student_fail, &ctx, "STUDENT");
	expect_code("codes_errno_other", unknown_errno, &ctx, "ERRNO_OTHER");
}

int main(void)
{
	static char buf[64];
	/* Not a cast of a literal: clang-format 14 and 19 space it apart. */
	static const char hello[] = "hello";
	struct lab_ctx ctx;
	struct captured c;

	/* send_imm without htonl(): the immediate on the wire is swapped. */
	client(&ctx, "send_imm");
	ctx.posted = (struct lab_posted){ .opcode = IBV_WR_SEND_WITH_IMM,
					  .local_addr = (uintptr_t)hello,
					  .len = 5,
					  .imm = 0x78563412 };
	expect_fail_only("send_imm_swapped_imm_one_line", report_send_imm, &ctx,
			 "use htonl()", "IMM_ORDER");

	client(&ctx, "write_imm");
	ctx.posted = (struct lab_posted){ .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
					  .local_addr = (uintptr_t)hello,
					  .len = 5,
					  .imm = 0x78563412 };
	expect_fail_only("write_imm_swapped_imm_one_line", report_write_imm,
			 &ctx, "use htonl()", "IMM_ORDER");

	/* read: the READ went out, but its bytes are not in ctx->buf. */
	client(&ctx, "read");
	ctx.buf = buf;
	ctx.buf_len = sizeof(buf);
	ctx.posted = (struct lab_posted){ .opcode = IBV_WR_RDMA_READ,
					  .local_addr = (uintptr_t)buf,
					  .len = 21 };
	ctx.read_len = 21;
	expect_fail_only("read_wrong_bytes_one_line", report_read, &ctx,
			 "does not hold", "READ_DATA");

	/* atomic, client: the results are not the start and start + 1. */
	client(&ctx, "atomic");
	ctx.posted = (struct lab_posted){ .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
					  .len = 8 };
	ctx.atomic_start = 5;
	ctx.atomic_orig[0] = 5;
	ctx.atomic_orig[1] = 5;
	expect_fail_only("atomic_client_wrong_results_one_line", report_atomic,
			 &ctx, "the atomics returned", "ATOMIC_ORIG");

	/* atomic, server: the word was not swapped, or read before the
	 * atomics. */
	client(&ctx, "atomic");
	ctx.opt.host = NULL;
	ctx.atomic_start = 5;
	ctx.atomic_final = 6;
	expect_fail_only("atomic_server_not_swapped_one_line", report_atomic,
			 &ctx, "the start + LAB_ATOMIC_ADD", "ATOMIC_FINAL");
	client(&ctx, "atomic");
	ctx.opt.host = NULL;
	ctx.atomic_start = 5;
	ctx.atomic_final = 5;
	expect_fail_only("atomic_server_read_early_one_line", report_atomic,
			 &ctx,
			 "0x0000000000000005, the start:", "ATOMIC_FINAL");

	/* -i 2: ibv_query_port fails with EINVAL, and a hint says why. */
	client(&ctx, "open_device");
	ctx.opt.ib_port = 2;
	capture(query_port_einval, &ctx, &c);
	check_line(
		c.ret == -1 && !c.out[0] && count_lines(c.err) == 2 &&
			strstr(c.err,
			       "lab open_device FAIL: ibv_query_port failed: "
			       "Invalid argument (errno 22) "
			       "code=ERRNO_EINVAL\n") &&
			strstr(c.err, "lab open_device hint: -i 2: "),
		"query_port_einval_hint", "stderr '%s'", c.err);
	codes();
	return checks_done("test_driver");
}

/*
 * skew.c: creates and destroys N QPs and N MRs on a device, so that the
 * next ones it hands out get other numbers than on the peer guest.
 *
 *   skew DEVICE N
 *
 * Both guests boot the same way and run the same programs, so without
 * this they hand out equal QPNs and MR indexes in the same order (rxe
 * allocates both cyclically), and a QP connected to its own number, or
 * to the peer's rkey read from the wrong side, would work by accident.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define SKEW_MAX 64

static int skew_fail(const char *what)
{
	fprintf(stderr, "skew: %s failed\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp[SKEW_MAX] = { 0 };
	struct ibv_mr *mr[SKEW_MAX] = { 0 };
	static char buf[4096];
	int i, n, num = 0, rc = 1;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > SKEW_MAX) {
		fprintf(stderr, "usage: skew DEVICE N (1..%d)\n", SKEW_MAX);
		return 2;
	}
	list = ibv_get_device_list(&num);
	for (i = 0; list && i < num && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "skew: cannot open device %s\n", argv[1]);
		goto out_list;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 1, NULL, NULL, 0) : NULL;
	if (!cq) {
		skew_fail("ibv_alloc_pd/ibv_create_cq");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1,
				 .max_recv_wr = 1,
				 .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		qp[i] = ibv_create_qp(pd, &a);
		mr[i] = ibv_reg_mr(pd, buf, sizeof(buf),
				   IBV_ACCESS_LOCAL_WRITE);
		if (!qp[i] || !mr[i]) {
			skew_fail("ibv_create_qp/ibv_reg_mr");
			goto out;
		}
	}
	rc = 0;
out:
	for (i = n - 1; i >= 0; i--) {
		if (qp[i] && ibv_destroy_qp(qp[i]))
			rc = skew_fail("ibv_destroy_qp");
		if (mr[i] && ibv_dereg_mr(mr[i]))
			rc = skew_fail("ibv_dereg_mr");
	}
	if (cq && ibv_destroy_cq(cq))
		rc = skew_fail("ibv_destroy_cq");
	if (pd && ibv_dealloc_pd(pd))
		rc = skew_fail("ibv_dealloc_pd");
	if (ctx && ibv_close_device(ctx))
		rc = skew_fail("ibv_close_device");
out_list:
	if (list)
		ibv_free_device_list(list);
	return rc;
}

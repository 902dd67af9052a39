/*
 * skew.c: creates and destroys N QPs and N MRs on a device, so that the
 * next ones it hands out get other numbers than on the peer guest; then
 * prints port 1's state, MTUs and link layer as ibv_devinfo(1) does (the
 * guest's facts), once its active MTU is MTU bytes (at most TRIES looks,
 * a tenth of a second apart; taken as it is after that).
 *
 *   skew DEVICE N [MTU TRIES]
 *
 * Both guests boot the same way and run the same programs, so without
 * this they hand out equal QPNs and MR indexes in the same order (rxe
 * allocates both cyclically), and a QP connected to its own number, or
 * to the peer's rkey read from the wrong side, would work by accident.
 * The port's facts come from here, not from ibv_devinfo and a loop of
 * it: each program start costs a guest a tenth of a second under TCG,
 * before the first pairing of every grading.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define SKEW_MAX 64

static int skew_fail(const char *what)
{
	fprintf(stderr, "skew: %s failed\n", what);
	return 1;
}

/* ibv_devinfo's words for an MTU: bytes, then the enum's value. */
static int skew_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

/* ibv_devinfo's words for a port's state. */
static const char *skew_state(enum ibv_port_state state)
{
	switch (state) {
	case IBV_PORT_DOWN:
		return "PORT_DOWN";
	case IBV_PORT_INIT:
		return "PORT_INIT";
	case IBV_PORT_ARMED:
		return "PORT_ARMED";
	case IBV_PORT_ACTIVE:
		return "PORT_ACTIVE";
	default:
		return "invalid state";
	}
}

/* Port 1 as ibv_devinfo prints it (the lines the driver's facts read),
 * once its active MTU is mtu bytes or after tries looks. */
static int skew_port(struct ibv_context *ctx, int mtu, int tries)
{
	struct ibv_port_attr pa;

	for (;;) {
		if (ibv_query_port(ctx, 1, &pa))
			return skew_fail("ibv_query_port");
		if (!mtu || skew_mtu_bytes(pa.active_mtu) == mtu ||
		    --tries <= 0)
			break;
		usleep(100 * 1000);
	}
	printf("state: %s (%d)\n", skew_state(pa.state), pa.state);
	printf("max_mtu: %d (%d)\n", skew_mtu_bytes(pa.max_mtu), pa.max_mtu);
	printf("active_mtu: %d (%d)\n", skew_mtu_bytes(pa.active_mtu),
	       pa.active_mtu);
	printf("link_layer: %s\n", pa.link_layer == IBV_LINK_LAYER_ETHERNET
					   ? "Ethernet"
					   : "InfiniBand");
	return 0;
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

	if ((argc != 3 && argc != 5) || (n = atoi(argv[2])) < 0 ||
	    n > SKEW_MAX) {
		fprintf(stderr, "usage: skew DEVICE N (0..%d) [MTU TRIES]\n",
			SKEW_MAX);
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
	/* The server guest skews nothing (n = 0): its port's facts only. */
	pd = n ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 1, NULL, NULL, 0) : NULL;
	if (n && !cq) {
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
	rc = argc == 5 ? skew_port(ctx, atoi(argv[3]), atoi(argv[4])) : 0;
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

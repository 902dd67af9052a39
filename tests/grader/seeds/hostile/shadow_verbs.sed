# Redefines a verbs function the scaffolding's self-checks call
# (ibv_query_qp, in driver.c and support.c), to fake the QP's state:
# refused before the link, with one line that says why.
# score: 0
# text: defines ibv_query_qp, which libibverbs already defines: make it static or rename it
/^#include "lab.h"$/a\
\
int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,\
		 struct ibv_qp_init_attr *init)\
{\
	(void)qp;\
	(void)mask;\
	(void)init;\
	memset(attr, 0, sizeof(*attr));\
	attr->qp_state = IBV_QPS_RTS;\
	return 0;\
}


# Fakes RoCE from a plain socket: a UDP socket to port 4791 of both
# guests (a forged ACK would follow), else a raw one.  The jail allows
# TCP, AF_UNIX and netlink only: both are refused.
# score: 18
# text: socket\(UDP\): Operation not permitted; socket\(raw\): Operation not permitted
/^#include "lab.h"$/a\
#include <netinet/in.h>\
\
static int fake_roce(struct lab_ctx *ctx)\
{\
	static const char *peers[] = { "192.0.2.1", "192.0.2.2" };\
	char ack[64] = { 0x11 }; /* BTH opcode: ACKNOWLEDGE */\
	struct sockaddr_in to = {\
		.sin_family = AF_INET,\
		.sin_port = htons(4791),\
	};\
	char why[80];\
	int fd = socket(AF_INET, SOCK_DGRAM, 0);\
\
	if (fd >= 0) {\
		for (int i = 0; i < 2; i++) {\
			inet_pton(AF_INET, peers[i], &to.sin_addr);\
			sendto(fd, ack, sizeof(ack), 0, (void *)&to,\
			       sizeof(to));\
		}\
		return lab_fail(ctx, "sent UDP to port 4791");\
	}\
	snprintf(why, sizeof(why), "%s", strerror(errno));\
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);\
	if (fd >= 0)\
		return lab_fail(ctx, "socket(raw) opened");\
	return lab_fail(ctx, "socket(UDP): %s; socket(raw): %s", why,\
			strerror(errno));\
}
s|^\t/\* BEGIN SOLUTION open_device \*/$|&\n\treturn fake_roce(ctx);|

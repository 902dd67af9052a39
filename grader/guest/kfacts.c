/*
 * kfacts.c: the kernel's own record of a program's verbs objects, for the
 * grader's trace (grader/guest/probes.c prints these lines with its own).
 *
 * A uprobe on a libibverbs wrapper sees what the program passed to it,
 * and the wrapper calls through a table of function pointers in the
 * program's own memory: a program can point that table at functions of
 * its own, "create" objects that exist nowhere, stub its destroys or
 * change an attribute after the probe read it.  The kprobes here sit on
 * the kernel's side of the uverbs interface, which the program reaches
 * only by a system call and cannot steer:
 *
 *   k_pd, k_pd_free       rxe_alloc_pd, rxe_dealloc_pd: the ib_pd
 *   k_cq, k_cq_free       rxe_create_cq (its size, its completion
 *                         channel: ib_cq.cq_context), rxe_destroy_cq
 *   k_mr, k_mr_free       rxe_reg_user_mr (start, length, iova, access;
 *                         the ib_mr it returned with its lkey and rkey),
 *                         rxe_dereg_mr
 *   k_qp                  ib_create_qp_user: the type, caps, CQs and
 *                         sq_sig_type the kernel was asked for, and the
 *                         ib_qp it returned with its QPN
 *   k_modify              ib_modify_qp_with_udata: the ib_qp_attr and
 *                         mask built from the program's command, as the
 *                         kernel hands them on (RTR's GID is resolved
 *                         after this), and the result, driver's included
 *   k_qp_free             rxe_destroy_qp
 *   k_uobj_free           uverbs_destroy_uobject: why an object goes
 *                         (0, RDMA_REMOVE_DESTROY: the program's own
 *                         destroy; others: its file closed, its process
 *                         ended), the object, and the result (a PD
 *                         still in use is refused here, EBUSY)
 *
 * Each has a return probe (NAME_ret).  The kernel's structures have no
 * header in user space and kprobe_events of Linux 6.1 cannot name their
 * fields: their offsets are read here from the running kernel's BTF
 * (/sys/kernel/btf/vmlinux and the modules' split BTF beside it), so
 * they are right for the kernel the guest booted, whatever its version.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/btf.h>

#include "kfacts.h"

#ifndef BTF_DIR
#define BTF_DIR "/sys/kernel/btf/"
#endif

/* One BTF blob: the base (vmlinux) or a module's, split on the base. */
struct kf_blob {
	unsigned char *data;
	const char *str;
	uint32_t str_len;
	const struct btf_type **types; /* by id, from first */
	uint32_t first, n;
};

static struct kf_blob kf_base, kf_mod;

static int kf_err(const char *what, const char *arg)
{
	fprintf(stderr, "probes: %s %s\n", what, arg);
	return 1;
}

static unsigned char *kf_slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	unsigned char *buf = malloc(cap), *p;
	ssize_t got;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((got = read(fd, buf + n, cap - n)) > 0) {
		n += got;
		if (n == cap) {
			p = realloc(buf, cap * 2);
			if (!p) {
				got = -1;
				break;
			}
			buf = p;
			cap *= 2;
		}
	}
	close(fd);
	if (got < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* How many bytes follow a type's header, by its kind. */
static size_t kf_extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return vlen * sizeof(struct btf_enum64);
	default:
		return 0;
	}
}

/* Reads one blob whose first type id is first; 0 on success. */
static int kf_load(struct kf_blob *b, const char *path, uint32_t first)
{
	const struct btf_header *h;
	const unsigned char *p, *end;
	size_t len = 0, cap = 4096;

	memset(b, 0, sizeof(*b));
	b->data = kf_slurp(path, &len);
	if (!b->data)
		return kf_err("cannot read", path);
	h = (const struct btf_header *)b->data;
	if (len < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > len)
		return kf_err("no BTF in", path);
	b->str = (const char *)b->data + h->hdr_len + h->str_off;
	b->str_len = h->str_len;
	b->first = first;
	b->types = malloc(cap * sizeof(*b->types));
	p = b->data + h->hdr_len + h->type_off;
	end = p + h->type_len;
	while (b->types && p + sizeof(struct btf_type) <= end) {
		const struct btf_type *t = (const void *)p;

		if (b->n == cap) {
			const struct btf_type **nt;

			cap *= 2;
			nt = realloc(b->types, cap * sizeof(*b->types));
			if (!nt)
				break;
			b->types = nt;
		}
		b->types[b->n++] = t;
		p += sizeof(*t) + kf_extra(t);
	}
	if (!b->types || p != end)
		return kf_err("cannot parse the BTF of", path);
	return 0;
}

static const struct btf_type *kf_type(uint32_t id)
{
	if (id >= kf_base.first && id - kf_base.first < kf_base.n)
		return kf_base.types[id - kf_base.first];
	if (kf_mod.types && id >= kf_mod.first && id - kf_mod.first < kf_mod.n)
		return kf_mod.types[id - kf_mod.first];
	return NULL;
}

/* A module's strings follow the base's in one space of offsets. */
static const char *kf_str(uint32_t off)
{
	if (off < kf_base.str_len)
		return kf_base.str + off;
	off -= kf_base.str_len;
	if (kf_mod.data && off < kf_mod.str_len)
		return kf_mod.str + off;
	return "";
}

/* The type behind typedefs and qualifiers. */
static const struct btf_type *kf_resolve(uint32_t id)
{
	const struct btf_type *t = kf_type(id);
	int k;

	while (t) {
		k = BTF_INFO_KIND(t->info);
		if (k != BTF_KIND_TYPEDEF && k != BTF_KIND_CONST &&
		    k != BTF_KIND_VOLATILE && k != BTF_KIND_RESTRICT &&
		    k != BTF_KIND_TYPE_TAG)
			break;
		t = kf_type(t->type);
	}
	return t;
}

static int kf_is_record(const struct btf_type *t)
{
	return t && (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ||
		     BTF_INFO_KIND(t->info) == BTF_KIND_UNION);
}

/*
 * The member called name of record t, looked for in its anonymous
 * members too: its byte offset (added to *off) and its type; NULL when
 * there is none, or it is a bit field.
 */
static const struct btf_type *kf_member(const struct btf_type *t,
					const char *name, long *off)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t i, vlen = BTF_INFO_VLEN(t->info);

	for (i = 0; i < vlen; i++) {
		uint32_t bits = BTF_INFO_KFLAG(t->info)
					? BTF_MEMBER_BIT_OFFSET(m[i].offset)
					: m[i].offset;
		const struct btf_type *mt = kf_resolve(m[i].type);
		long sub = 0;

		if (BTF_INFO_KFLAG(t->info) &&
		    BTF_MEMBER_BITFIELD_SIZE(m[i].offset))
			continue;
		if (!strcmp(kf_str(m[i].name_off), name) && !(bits % 8)) {
			*off += bits / 8;
			return mt;
		}
		if (!m[i].name_off && kf_is_record(mt)) {
			mt = kf_member(mt, name, &sub);
			if (mt) {
				*off += bits / 8 + sub;
				return mt;
			}
		}
	}
	return NULL;
}

/* The last struct found, by name (forgotten with its module). */
static const char *kf_last_name;
static const struct btf_type *kf_last;

/* The struct called name, the module's own first. */
static const struct btf_type *kf_struct(const char *name)
{
	const struct kf_blob *bs[2] = { &kf_mod, &kf_base };
	int i;
	uint32_t j;

	if (kf_last_name && !strcmp(kf_last_name, name))
		return kf_last;
	kf_last_name = name;
	for (i = 0; i < 2; i++)
		for (j = 0; bs[i]->types && j < bs[i]->n; j++) {
			const struct btf_type *t = bs[i]->types[j];

			if (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT &&
			    BTF_INFO_VLEN(t->info) &&
			    !strcmp(kf_str(t->name_off), name))
				return kf_last = t;
		}
	return kf_last = NULL;
}

/*
 * The offset of path (members joined by dots) in struct sname, and the
 * kprobe type that reads it whole (x8 .. x64, or s32 for an int that may
 * be negative when sign is set); -1 when the kernel has no such field.
 */
static long kf_off(const char *sname, const char *path, const char **type)
{
	const struct btf_type *t = kf_struct(sname);
	char buf[128], *part, *save = NULL;
	long off = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); t && part;
	     part = strtok_r(NULL, ".", &save))
		t = kf_is_record(t) ? kf_member(t, part, &off) : NULL;
	if (!t)
		return -1;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR:
		*type = "x64";
		return off;
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_UNION:
	case BTF_KIND_ARRAY:
		break;
	default:
		return -1;
	}
	switch (t->size) {
	case 1:
		*type = "x8";
		break;
	case 2:
		*type = "x16";
		break;
	case 4:
		*type = "x32";
		break;
	default:
		*type = "x64";
	}
	return off;
}

/* One field: " NAME=+OFF(FROM):TYPE" appended to buf. */
static int kf_field(char *buf, size_t size, const char *name, const char *from,
		    const char *sname, const char *path)
{
	const char *type = "x64";
	long off = kf_off(sname, path, &type);
	size_t n = strlen(buf);
	char what[192];

	if (off < 0) {
		snprintf(what, sizeof(what), "%s.%s", sname, path);
		return kf_err("no field in the kernel's BTF:", what);
	}
	if (snprintf(buf + n, size - n, " %s=+%ld(%s):%s", name, off, from,
		     type) >= (int)(size - n))
		return kf_err("too long:", name);
	return 0;
}

struct kf_spec {
	const char *name, *from, *sname, *path;
};

static int kf_fields(char *buf, size_t size, const struct kf_spec *s, size_t n)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++)
		bad |= kf_field(buf, size, s[i].name, s[i].from, s[i].sname,
				s[i].path);
	return bad;
}

static int kf_module(const char *name)
{
	char path[256];

	kf_last_name = NULL;
	free(kf_mod.data);
	free(kf_mod.types);
	memset(&kf_mod, 0, sizeof(kf_mod));
	snprintf(path, sizeof(path), BTF_DIR "%s", name);
	return kf_load(&kf_mod, path, kf_base.first + kf_base.n);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

int kfacts_print(void)
{
	static const struct kf_spec cq[] = {
		{ "cqe", "$arg2", "ib_cq_init_attr", "cqe" },
		{ "ch", "$arg1", "ib_cq", "cq_context" },
	};
	static const struct kf_spec mr[] = {
		{ "lkey", "$retval", "ib_mr", "lkey" },
		{ "rkey", "$retval", "ib_mr", "rkey" },
	};
	static const struct kf_spec qp[] = {
		{ "type", "$arg3", "ib_qp_init_attr", "qp_type" },
		{ "send_cq", "$arg3", "ib_qp_init_attr", "send_cq" },
		{ "recv_cq", "$arg3", "ib_qp_init_attr", "recv_cq" },
		{ "srq", "$arg3", "ib_qp_init_attr", "srq" },
		{ "max_send_wr", "$arg3", "ib_qp_init_attr",
		  "cap.max_send_wr" },
		{ "max_recv_wr", "$arg3", "ib_qp_init_attr",
		  "cap.max_recv_wr" },
		{ "max_send_sge", "$arg3", "ib_qp_init_attr",
		  "cap.max_send_sge" },
		{ "max_recv_sge", "$arg3", "ib_qp_init_attr",
		  "cap.max_recv_sge" },
		{ "max_inline", "$arg3", "ib_qp_init_attr",
		  "cap.max_inline_data" },
		{ "sig_type", "$arg3", "ib_qp_init_attr", "sq_sig_type" },
	};
	static const struct kf_spec qp_ret[] = {
		{ "qpn", "$retval", "ib_qp", "qp_num" },
	};
	static const struct kf_spec mod[] = {
		{ "qpn", "$arg1", "ib_qp", "qp_num" },
		{ "state", "$arg2", "ib_qp_attr", "qp_state" },
		{ "access", "$arg2", "ib_qp_attr", "qp_access_flags" },
		{ "port", "$arg2", "ib_qp_attr", "port_num" },
		{ "path_mtu", "$arg2", "ib_qp_attr", "path_mtu" },
		{ "dest_qpn", "$arg2", "ib_qp_attr", "dest_qp_num" },
		{ "rq_psn", "$arg2", "ib_qp_attr", "rq_psn" },
		{ "sq_psn", "$arg2", "ib_qp_attr", "sq_psn" },
		{ "ah_flags", "$arg2", "ib_qp_attr", "ah_attr.ah_flags" },
		{ "sgid_idx", "$arg2", "ib_qp_attr", "ah_attr.grh.sgid_index" },
		{ "hop_limit", "$arg2", "ib_qp_attr", "ah_attr.grh.hop_limit" },
		{ "timeout", "$arg2", "ib_qp_attr", "timeout" },
		{ "retry_cnt", "$arg2", "ib_qp_attr", "retry_cnt" },
		{ "rnr_retry", "$arg2", "ib_qp_attr", "rnr_retry" },
		{ "min_rnr_timer", "$arg2", "ib_qp_attr", "min_rnr_timer" },
		{ "max_rd_atomic", "$arg2", "ib_qp_attr", "max_rd_atomic" },
		{ "max_dest_rd_atomic", "$arg2", "ib_qp_attr",
		  "max_dest_rd_atomic" },
		{ "pkey_index", "$arg2", "ib_qp_attr", "pkey_index" },
	};
	static const struct kf_spec uobj[] = {
		{ "obj", "$arg1", "ib_uobject", "object" },
	};
	char buf[2048], from[64];
	const char *type;
	long dgid;
	int bad = 0;

	if (kf_load(&kf_base, BTF_DIR "vmlinux", 1))
		return 1;
	/* ib_core holds the structures of <rdma/ib_verbs.h>. */
	if (kf_module("ib_core"))
		return 1;

	printf("p:lab/k_pd rxe_alloc_pd pd=$arg1:x64\n");
	printf("r:lab/k_pd_ret rxe_alloc_pd ret=$retval:s32\n");
	printf("p:lab/k_pd_free rxe_dealloc_pd pd=$arg1:x64\n");
	printf("r:lab/k_pd_free_ret rxe_dealloc_pd ret=$retval:s32\n");

	snprintf(buf, sizeof(buf), "p:lab/k_cq rxe_create_cq cq=$arg1:x64");
	bad |= kf_fields(buf, sizeof(buf), cq, N(cq));
	printf("%s\n", buf);
	printf("r:lab/k_cq_ret rxe_create_cq ret=$retval:s32\n");
	printf("p:lab/k_cq_free rxe_destroy_cq cq=$arg1:x64\n");
	printf("r:lab/k_cq_free_ret rxe_destroy_cq ret=$retval:s32\n");

	printf("p:lab/k_mr rxe_reg_user_mr pd=$arg1:x64 start=$arg2:x64 "
	       "len=$arg3:u64 iova=$arg4:x64 access=$arg5:x32\n");
	snprintf(buf, sizeof(buf),
		 "r:lab/k_mr_ret rxe_reg_user_mr "
		 "ret=$retval:x64");
	bad |= kf_fields(buf, sizeof(buf), mr, N(mr));
	printf("%s\n", buf);
	printf("p:lab/k_mr_free rxe_dereg_mr mr=$arg1:x64\n");
	printf("r:lab/k_mr_free_ret rxe_dereg_mr ret=$retval:s32\n");

	snprintf(buf, sizeof(buf), "p:lab/k_qp ib_create_qp_user pd=$arg2:x64");
	bad |= kf_fields(buf, sizeof(buf), qp, N(qp));
	printf("%s\n", buf);
	snprintf(buf, sizeof(buf),
		 "r:lab/k_qp_ret ib_create_qp_user "
		 "ret=$retval:x64");
	bad |= kf_fields(buf, sizeof(buf), qp_ret, N(qp_ret));
	printf("%s\n", buf);

	snprintf(buf, sizeof(buf),
		 "p:lab/k_modify ib_modify_qp_with_udata "
		 "qp=$arg1:x64 mask=$arg3:x32");
	bad |= kf_fields(buf, sizeof(buf), mod, N(mod));
	/* The 16 bytes of the destination GID, as two numbers. */
	dgid = kf_off("ib_qp_attr", "ah_attr.grh.dgid", &type);
	if (dgid < 0)
		bad |= kf_err("no field in the kernel's BTF:", "dgid");
	snprintf(from, sizeof(from),
		 " dgid_a=+%ld($arg2):x64 "
		 "dgid_b=+%ld($arg2):x64",
		 dgid, dgid + 8);
	strncat(buf, from, sizeof(buf) - strlen(buf) - 1);
	printf("%s\n", buf);
	printf("r:lab/k_modify_ret ib_modify_qp_with_udata ret=$retval:s32\n");
	printf("p:lab/k_qp_free rxe_destroy_qp qp=$arg1:x64\n");
	printf("r:lab/k_qp_free_ret rxe_destroy_qp ret=$retval:s32\n");

	/* ib_uverbs holds struct ib_uobject whole. */
	if (kf_module("ib_uverbs"))
		return 1;
	snprintf(buf, sizeof(buf),
		 "p:lab/k_uobj_free uverbs_destroy_uobject "
		 "why=$arg2:s32");
	bad |= kf_fields(buf, sizeof(buf), uobj, N(uobj));
	printf("%s\n", buf);
	printf("r:lab/k_uobj_free_ret uverbs_destroy_uobject "
	       "ret=$retval:s32\n");
	return bad;
}

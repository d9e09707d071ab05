// SPDX-License-Identifier: MIT
/*
 * rdma-core's libibverbs, loaded when a verbs transport first asks for a
 * device rather than when a program starts (verbs_dl.h).
 *
 * The agents' probes go over UDP unless a lab has RNICs to give them, and a
 * library linked in costs every agent its pages whether it is used or not:
 * libibverbs brings libnl-3 and libnl-route-3, 0.67 MB of an agent's 3.5 MB
 * RSS (issue 59). So the verbs calls rocelab makes resolve here, to
 * functions that find the real ones in libibverbs.so.1 the first time they
 * run (dlopen, then dlvsym at the symbol version the linker would have
 * bound), as NCCL's ibvwrap and Implib.so's stubs do. The verbs are
 * rdma-core's own; only when they load changes. The providers libibverbs
 * opens bind to it, never to these: an executable does not export them.
 */
#define _GNU_SOURCE
#include "probe/verbs_dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdio.h>

/* verbs.h names a few of these as macros over inline wrappers; here they are the functions. */
#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

#define VERBS_SONAME "libibverbs.so.1"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *lib;
static char why[256];

static void verbs_open(void)
{
	if (!(lib = dlopen(VERBS_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();

		snprintf(why, sizeof(why), "%s (install rdma-core's libibverbs1)",
			 e ? e : "cannot load " VERBS_SONAME);
	}
}

const char *verbs_dl_error(void)
{
	pthread_once(&once, verbs_open);
	return lib ? NULL : why;
}

/*
 * The real function name@version, found once and kept in *slot; NULL (errno ENOSYS) when the
 * library or it is missing.
 */
static void *verbs_fn(void **slot, const char *name, const char *version)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (f)
		return f;
	pthread_once(&once, verbs_open);
	if (!lib || !(f = dlvsym(lib, name, version))) {
		errno = ENOSYS;
		return NULL;
	}
	__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	return f;
}

/* One stub: RET NAME PARAMS calls the real NAME@VER with ARGS, or returns FAIL without it. */
#define VERBS_STUB(ret, name, ver, fail, params, args)                                             \
	ret name params                                                                            \
	{                                                                                          \
		static void *fn;                                                                   \
		ret(*f) params = (ret(*) params)verbs_fn(&fn, #name, ver);                         \
                                                                                                   \
		return f ? f args : fail;                                                          \
	}
#define VERBS_VOID_STUB(name, ver, params, args)                                                   \
	void name params                                                                           \
	{                                                                                          \
		static void *fn;                                                                   \
		void(*f) params = (void(*) params)verbs_fn(&fn, #name, ver);                       \
                                                                                                   \
		if (f)                                                                             \
			f args;                                                                    \
	}

/* The versions are those rocelab's objects were bound to when linked against libibverbs. */
#define V10 "IBVERBS_1.0"
#define V11 "IBVERBS_1.1"

VERBS_STUB(struct ibv_device **, ibv_get_device_list, V11, NULL, (int *n), (n))
VERBS_VOID_STUB(ibv_free_device_list, V11, (struct ibv_device * *l), (l))
VERBS_STUB(const char *, ibv_get_device_name, V11, NULL, (struct ibv_device * d), (d))
VERBS_STUB(struct ibv_context *, ibv_open_device, V11, NULL, (struct ibv_device * d), (d))
VERBS_STUB(int, ibv_close_device, V11, ENOSYS, (struct ibv_context * c), (c))
VERBS_STUB(int, ibv_query_device, V11, ENOSYS, (struct ibv_context * c, struct ibv_device_attr *a),
	   (c, a))
VERBS_STUB(int, ibv_query_port, V11, ENOSYS,
	   (struct ibv_context * c, uint8_t port, struct _compat_ibv_port_attr *a), (c, port, a))
VERBS_STUB(ssize_t, _ibv_query_gid_table, "IBVERBS_1.11", -ENOSYS,
	   (struct ibv_context * c, struct ibv_gid_entry *e, size_t max, uint32_t flags,
	    size_t size),
	   (c, e, max, flags, size))
VERBS_STUB(struct ibv_pd *, ibv_alloc_pd, V11, NULL, (struct ibv_context * c), (c))
VERBS_STUB(int, ibv_dealloc_pd, V11, ENOSYS, (struct ibv_pd * pd), (pd))
VERBS_STUB(struct ibv_mr *, ibv_reg_mr, V11, NULL,
	   (struct ibv_pd * pd, void *addr, size_t len, int access), (pd, addr, len, access))
VERBS_STUB(struct ibv_mr *, ibv_reg_mr_iova2, "IBVERBS_1.8", NULL,
	   (struct ibv_pd * pd, void *addr, size_t len, uint64_t iova, unsigned int access),
	   (pd, addr, len, iova, access))
VERBS_STUB(int, ibv_dereg_mr, V11, ENOSYS, (struct ibv_mr * mr), (mr))
VERBS_STUB(struct ibv_comp_channel *, ibv_create_comp_channel, V10, NULL, (struct ibv_context * c),
	   (c))
VERBS_STUB(int, ibv_destroy_comp_channel, V10, ENOSYS, (struct ibv_comp_channel * ch), (ch))
VERBS_STUB(struct ibv_cq *, ibv_create_cq, V11, NULL,
	   (struct ibv_context * c, int cqe, void *ctx, struct ibv_comp_channel *ch, int vec),
	   (c, cqe, ctx, ch, vec))
VERBS_STUB(int, ibv_destroy_cq, V11, ENOSYS, (struct ibv_cq * cq), (cq))
VERBS_STUB(int, ibv_get_cq_event, V11, -1,
	   (struct ibv_comp_channel * ch, struct ibv_cq **cq, void **ctx), (ch, cq, ctx))
VERBS_VOID_STUB(ibv_ack_cq_events, V11, (struct ibv_cq * cq, unsigned int n), (cq, n))
VERBS_STUB(struct ibv_srq *, ibv_create_srq, V11, NULL,
	   (struct ibv_pd * pd, struct ibv_srq_init_attr *a), (pd, a))
VERBS_STUB(int, ibv_destroy_srq, V11, ENOSYS, (struct ibv_srq * srq), (srq))
VERBS_STUB(struct ibv_qp *, ibv_create_qp, V11, NULL,
	   (struct ibv_pd * pd, struct ibv_qp_init_attr *a), (pd, a))
VERBS_STUB(int, ibv_modify_qp, V11, ENOSYS, (struct ibv_qp * qp, struct ibv_qp_attr *a, int mask),
	   (qp, a, mask))
VERBS_STUB(int, ibv_destroy_qp, V11, ENOSYS, (struct ibv_qp * qp), (qp))
VERBS_STUB(struct ibv_ah *, ibv_create_ah, V11, NULL, (struct ibv_pd * pd, struct ibv_ah_attr *a),
	   (pd, a))
VERBS_STUB(int, ibv_destroy_ah, V11, ENOSYS, (struct ibv_ah * ah), (ah))
VERBS_STUB(const char *, ibv_port_state_str, V11, "unknown", (enum ibv_port_state s), (s))
VERBS_STUB(const char *, ibv_wc_status_str, V11, "unknown", (enum ibv_wc_status s), (s))

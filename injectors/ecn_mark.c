// SPDX-License-Identifier: MIT
/*
 * Loads the ECN marker (injectors/bpf/ecn_mark.bpf.c, compiled by clang and
 * linked in below) with libbpf and attaches it to a port's clsact egress.
 */
#define _GNU_SOURCE
#include "injectors/ecn_mark.h"

#include "harness/lib/common.h"
#include "injectors/bpf/ecn_vq.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The BPF object, built by the Makefile into ECN_MARK_OBJ before this file. */
__asm__(".section .rodata\n"
	".balign 8\n"
	".global rl_ecn_mark_obj\n"
	"rl_ecn_mark_obj:\n"
	".incbin \"" ECN_MARK_OBJ "\"\n"
	".global rl_ecn_mark_obj_end\n"
	"rl_ecn_mark_obj_end:\n"
	".previous\n");
extern const char rl_ecn_mark_obj[], rl_ecn_mark_obj_end[];

#define ECN_MARK_PRIO	1
#define ECN_MARK_HANDLE 0xec

/* libbpf's last complaint, for the error a caller prints. */
static __thread char last_msg[200];

static int keep_msg(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	last_msg[strcspn(last_msg, "\n")] = '\0';
	return 0;
}

static void hook_of(const char *dev, struct bpf_tc_hook *h, enum bpf_tc_attach_point where)
{
	memset(h, 0, sizeof(*h));
	h->sz = sizeof(*h);
	h->ifindex = (int)if_nametoindex(dev);
	h->attach_point = where;
}

int ecn_mark_attach(const char *dev, unsigned long long rate_kbit, unsigned long long k,
		    unsigned long long cap, char *err, size_t errlen)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts = {
	    .sz = sizeof(opts), .handle = ECN_MARK_HANDLE, .priority = ECN_MARK_PRIO};
	struct bpf_object *obj;
	struct bpf_map *map;
	struct ecn_vq vq = {.rate_bps = rate_kbit * 1000 / 8, .k = k, .cap = cap};
	uint32_t key = 0;
	int r;

	hook_of(dev, &hook, BPF_TC_EGRESS);
	if (!hook.ifindex) {
		snprintf(err, errlen, "ecn-mark: no netdev %s here", dev);
		return -ENODEV;
	}
	libbpf_set_print(keep_msg);
	last_msg[0] = '\0';
	obj = bpf_object__open_mem(rl_ecn_mark_obj, (size_t)(rl_ecn_mark_obj_end - rl_ecn_mark_obj),
				   NULL);
	if (!obj) {
		r = -errno;
		snprintf(err, errlen, "ecn-mark: opening the BPF object: %s %s", strerror(-r),
			 last_msg);
		return r;
	}
	if ((r = bpf_object__load(obj))) {
		snprintf(err, errlen, "ecn-mark: loading the BPF program: %s %s", strerror(-r),
			 last_msg);
		goto out;
	}
	map = bpf_object__find_map_by_name(obj, "ecn_vq");
	if (!map || (r = bpf_map_update_elem(bpf_map__fd(map), &key, &vq, BPF_ANY))) {
		r = map ? r : -ENOENT;
		snprintf(err, errlen, "ecn-mark: configuring the queue: %s", strerror(-r));
		goto out;
	}
	r = bpf_tc_hook_create(&hook);
	if (r == -EEXIST) {
		snprintf(err, errlen,
			 "ecn-mark: %s has a clsact qdisc already, not rocelab's: remove it or "
			 "mark on another port",
			 dev);
		goto out;
	}
	if (r) {
		snprintf(err, errlen, "ecn-mark: clsact on %s: %s %s", dev, strerror(-r), last_msg);
		goto out;
	}
	opts.prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "ecn_mark"));
	if ((r = bpf_tc_attach(&hook, &opts))) {
		snprintf(err, errlen, "ecn-mark: attaching on %s egress: %s %s", dev, strerror(-r),
			 last_msg);
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
out:
	/* The filter holds the program, and the program its map. */
	bpf_object__close(obj);
	return r;
}

int ecn_mark_detach(const char *dev, char *err, size_t errlen)
{
	struct bpf_tc_hook hook;
	int r;

	hook_of(dev, &hook, BPF_TC_INGRESS | BPF_TC_EGRESS);
	if (!hook.ifindex)
		return 0; /* the port is gone, and its qdiscs with it */
	libbpf_set_print(keep_msg);
	r = bpf_tc_hook_destroy(&hook);
	if (r == -ENOENT || r == -EINVAL)
		return 0;
	if (r)
		snprintf(err, errlen, "ecn-mark: removing clsact from %s: %s", dev, strerror(-r));
	return r;
}

int ecn_mark_present(const char *dev)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts = {
	    .sz = sizeof(opts), .handle = ECN_MARK_HANDLE, .priority = ECN_MARK_PRIO};
	struct bpf_prog_info info = {0};
	uint32_t len = sizeof(info), map_id = 0, key = 0;
	struct ecn_vq vq;
	int pfd, mfd, r;

	hook_of(dev, &hook, BPF_TC_EGRESS);
	if (!hook.ifindex)
		return -ENODEV;
	libbpf_set_print(keep_msg);
	if ((r = bpf_tc_query(&hook, &opts)))
		return r;
	if ((pfd = bpf_prog_get_fd_by_id(opts.prog_id)) < 0)
		return -errno;
	info.nr_map_ids = 1;
	info.map_ids = (uint64_t)(uintptr_t)&map_id;
	r = bpf_obj_get_info_by_fd(pfd, &info, &len);
	close(pfd);
	if (r)
		return -errno;
	if ((mfd = bpf_map_get_fd_by_id(map_id)) < 0)
		return -errno;
	r = bpf_map_lookup_elem(mfd, &key, &vq) ? -errno : 0;
	close(mfd);
	return r;
}

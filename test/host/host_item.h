/*
 * host_item.h: the runtime's side of the native kernel ABI (kernels/include/krt_host_abi.h),
 * as small as a test needs it: struct krt_host_item from krt_host_abi.h, a kernel library opened with dlopen, and a
 * loop that runs the work-items of a range group by group, as the host device does for a kernel without
 * barriers. Used by test/host/test_host_kernels.c and test/host/host_offbyone.c, which need no libkrt.
 */
#ifndef KRT_TEST_HOST_ITEM_H
#define KRT_TEST_HOST_ITEM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../kernels/include/krt_host_abi.h" /* the ABI's one definition */

typedef krt_host_abi_version_fn ht_version_fn;
typedef krt_host_item_slot_fn ht_slot_fn;

/* Counts barrier() calls: the kernels these tests run have none, so any call is a failure. */
static unsigned ht_barriers;
static void ht_barrier(const struct krt_host_item *item)
{
    (void)item;
    __atomic_fetch_add(&ht_barriers, 1u, __ATOMIC_RELAXED);
}

/* Runs the groups g with g % stride == first of a dims-D range of size[] items in groups of group[] (the range
 * rounded up to whole groups, as krt launches it), every work-item in turn, through the calling thread's slot.
 * call(ctx) calls the kernel with its arguments. */
static void ht_run(ht_slot_fn slot_fn, uint32_t dims, const size_t size[3], const size_t group[3],
                   void (*call)(void *ctx), void *ctx, size_t first, size_t stride)
{
    const struct krt_host_item **slot = slot_fn();
    struct krt_host_item item = { .work_dim = dims, .barrier = ht_barrier };
    for (int d = 0; d < 3; d++) {
        size_t s = d < (int)dims ? size[d] : 1, l = d < (int)dims ? group[d] : 1;
        item.local_size[d] = l;
        item.num_groups[d] = (s + l - 1) / l;
        item.global_size[d] = item.num_groups[d] * l;
    }
    size_t groups = item.num_groups[0] * item.num_groups[1] * item.num_groups[2];
    for (size_t g = first; g < groups; g += stride) {
        item.group_id[0] = g % item.num_groups[0];
        item.group_id[1] = g / item.num_groups[0] % item.num_groups[1];
        item.group_id[2] = g / item.num_groups[0] / item.num_groups[1];
        for (size_t lz = 0; lz < item.local_size[2]; lz++)
            for (size_t ly = 0; ly < item.local_size[1]; ly++)
                for (size_t lx = 0; lx < item.local_size[0]; lx++) {
                    size_t l[3] = { lx, ly, lz };
                    for (int d = 0; d < 3; d++) {
                        item.local_id[d] = l[d];
                        item.global_id[d] = item.group_id[d] * item.local_size[d] + l[d];
                    }
                    *slot = &item;
                    call(ctx);
                }
    }
    *slot = NULL;
}

/* dlopen as the host device does: RTLD_LOCAL, so the library must resolve everything on its own. */
static void *ht_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    return h;
}

#endif

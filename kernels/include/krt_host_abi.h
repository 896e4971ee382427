/*
 * krt_host_abi.h: the native kernel ABI, the contract between a kernel library built by `krt-cc --host` and the
 * host device that calls it (driver/host/). Its one definition: krt_kernel_host.h (the kernel's side), the host
 * device and the tests that drive a kernel library without libkrt (test/host/host_item.h) all include it.
 *
 * Version 4 (version 1 had no enqueued_local_size, version 2 no group runners, version 3 runners that took the
 * kernel's parameters themselves, called through libffi; the host device still loads all three: it calls the
 * kernels of 1 and 2 once per work-item and the runners of 3 through libffi, for pointer and scalar arguments
 * only):
 *  - every __kernel function is exported under its own name with the C calling convention, its parameters as
 *    C declares them (debuggers and sanitizers call it; the host device does not);
 *  - beside each kernel K, its group runner krt_host_group_K, of type krt_host_group_fn: args[i] points at the
 *    bytes of K's argument i (the pointer value of a pointer argument, the __local pointer of a __local one,
 *    the bytes of a scalar, a vector or a struct, as OpenCL C lays them out), aligned for its C type. The
 *    runner reads each with the parameter's own C type and passes it on by value, so the C compiler, not the
 *    runtime, applies the calling convention: any parameter type a kernel can have is passed exactly (half,
 *    vectors, structs), and the runtime calls every runner through one plain function pointer. One call runs
 *    every work-item of a run of work-groups (a loop compiled with the kernel inlined), or hands one group's
 *    work-items to the runtime's run_items when the runtime gives one (kernels with barriers);
 *  - beside the runner of a kernel K with barriers that can run the group's work-items itself (krt-cc's
 *    work-item loops, tools/krt_loops.py), the data symbol krt_host_loops_K: the runtime then passes no
 *    run_items and may pass groups > 1, as for a kernel without barriers. Optional: without it, run_items;
 *  - krt_host_abi_version() returns KRT_HOST_ABI_VERSION (5: a checked library may test its accesses against the
 *    shadow map, krt_host_checks_shadow below; a runtime of ABI 4 would run it without the map);
 *  - krt_host_item_slot() returns the address of the library's thread-local "current work-item" pointer for
 *    the calling thread; the runtime stores a work-item's state there before it runs or resumes it, and the
 *    work-item functions read it;
 *  - the library never references a libkrt symbol.
 * Plain C: it includes only <stddef.h> and <stdint.h>.
 */
#ifndef KRT_HOST_ABI_H
#define KRT_HOST_ABI_H

#include <stddef.h>
#include <stdint.h>

#define KRT_HOST_ABI_VERSION 5u

/* One work-item's state. The runtime owns it; a kernel only reads it, through the work-item functions. In the
 * dimensions at and past work_dim the runtime stores OpenCL's defaults (ids, group ids and offsets 0, sizes
 * and counts 1), so that get_global_id(d) and its siblings need not compare d with work_dim. */
struct krt_host_item {
    uint32_t work_dim;
    uint32_t reserved;
    size_t global_id[3], local_id[3], group_id[3];
    size_t global_size[3], local_size[3], num_groups[3], global_offset[3];
    void (*barrier)(const struct krt_host_item *item); /* switch to the next work-item of the group */
    void *runtime;                                    /* the runtime's, opaque to the kernel */
    size_t enqueued_local_size[3];                    /* ABI 2: the uniform group size (OpenCL 2.0) */
};
_Static_assert(sizeof(struct krt_host_item) == 27 * sizeof(size_t),
               "the native kernel ABI's work-item state is 27 words (216 bytes on a 64-bit machine)");

/* ABI 3 and 4: what a group runner is called with. item is the group's state as its first work-item sees it: local
 * ids 0, global ids those of the first work-item, local_size the group's real size (a partial last group is
 * smaller than enqueued_local_size); the runner sets the ids of each work-item in turn. When run_items is not
 * NULL (the runtime passes it for a kernel with a barrier), the runner does not loop: it calls run_items once
 * with a function that runs the kernel for the current work-item with the runner's arguments (frame), and the
 * runtime runs every work-item of the group through it, each on its own stack. */
struct krt_host_group {
    struct krt_host_item item;
    void (*run_items)(const struct krt_host_group *group, void (*item_fn)(void *frame), void *frame);
    /* How many groups this call runs: item's group and the groups - 1 after it in dimension 0 (same group ids in
     * the other dimensions), each with its own local_size[0] (the last of a row may be partial); 1 with
     * run_items. */
    size_t groups;
};

/* The name prefix of a kernel's group runner. */
#define KRT_HOST_GROUP_PREFIX "krt_host_group_"

/* ABI 4: a group runner. args[i] points at argument i's bytes, aligned for its type; the runner only reads them,
 * during the call. The host device aligns each argument to the largest power of two that divides its size
 * (a C type's size is a multiple of its alignment), so any type qualifies. */
typedef void (*krt_host_group_fn)(void *const *args, const struct krt_host_group *group);

/* Checked libraries (krt-cc --host --checks; docs/api.md, "Checked launches"). Built with -DKRT_HOST_CHECKED and the C
 * compiler's kernel-address instrumentation, which calls a function before every load and store through a pointer
 * (atomics included), or (ABI 5) only for those that the shadow map below does not let through; the library defines
 * those functions itself (krt_kernel_host.h, hidden, so that a real
 * sanitizer's are never replaced), and they let an access through only when it lies inside one of the allocations
 * of the bounds table (ZE_krt_bounds_check's: word 0 points at [count, unused, base0, end0, ...], sorted by base)
 * or inside one of the slot's ranges. Otherwise they call outside(), the runtime's, which either returns 1 with a
 * range that holds the access (memory of the work-item's own: its stack, the group's __local memory, the
 * library's data) for the slot to keep, or records the refusal and does not return. A checked library
 * exports krt_host_checks_slot(): the address of its thread-local slot, which the runtime points at a launch's
 * checks before it runs a group on that thread. */
struct krt_host_checks {
    const volatile uint64_t *table;
    int (*outside)(uintptr_t address, size_t size, uint32_t kind, uintptr_t range[2]);
};
/* outside()'s kind: ZE_KRT_BOUNDS_LOAD, _STORE, _ATOMIC */
enum { KRT_HOST_CHECK_LOAD = 1, KRT_HOST_CHECK_STORE = 2, KRT_HOST_CHECK_ATOMIC = 3 };
#define KRT_HOST_CHECK_RANGES 4
#define KRT_HOST_CHECK_HEAP 16
struct krt_host_check_slot {
    const struct krt_host_checks *checks; /* NULL: the library runs unchecked */
    uintptr_t ok[2 * KRT_HOST_CHECK_RANGES]; /* [lo, hi) ranges outside() gave; the runtime clears them */
    uint32_t next;                           /* the entry the next range replaces */
    uintptr_t heap[2 * KRT_HOST_CHECK_HEAP]; /* the library's own: heap blocks of barrier kernels' private arrays */
};
typedef struct krt_host_check_slot *(*krt_host_checks_slot_fn)(void);

/* ABI 5: the shadow map. A checked library built for it (krt-cc's default; KRT_HOST_CHECK_CALLS=1 builds the other
 * kind) tests each access inline first: the byte at KRT_HOST_CHECK_SHADOW + address / 8, one for every 8 bytes of the
 * address space below 2^47, is 0 where all 8 may be reached, k in 1..7 where the first k may, and anything else sends
 * the access to the functions above. The runtime keeps the map (0 only for allocations of a checked context's bounds
 * table; everything else reads as refused) and runs such a library only where it could reserve it. The library
 * exports krt_host_checks_shadow(), which returns KRT_HOST_CHECK_SHADOW as it was built. */
#define KRT_HOST_CHECK_SHADOW 0x200000000000ull
typedef uint64_t (*krt_host_checks_shadow_fn)(void);

/* The two functions every kernel library exports, as the runtime finds them with dlsym. */
typedef uint32_t (*krt_host_abi_version_fn)(void);
typedef const struct krt_host_item **(*krt_host_item_slot_fn)(void);

#endif /* KRT_HOST_ABI_H */

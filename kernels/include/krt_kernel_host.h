/*
 * krt_kernel_host.h: the C side of single-source kernels. krt_kernel.h includes it when the kernel is compiled
 * as C11 with -DKRT_HOST (`krt-cc --host`, docs/single-source.md) instead of as OpenCL C, so that the same .cl
 * file becomes an ordinary shared library that krt's host device calls natively: under gdb, a sanitizer or
 * printf like any C code.
 *
 * It gives the OpenCL C address-space and kernel qualifiers, the scalar and vector type names, the work-item
 * functions and barrier() over the native kernel ABI below, and a documented subset of the built-in functions
 * (docs/single-source.md lists it, and what a kernel cannot use on the host). It needs GCC or Clang: vectors
 * are GCC vector extensions and several built-ins are statement expressions.
 *
 * The native kernel ABI, the contract with the runtime, is krt_host_abi.h; this header gives the kernel's side
 * of it (the thread-local current work-item and the two exported functions).
 */
#ifndef KRT_KERNEL_HOST_H
#define KRT_KERNEL_HOST_H

#if !defined(__GNUC__)
#error "krt_kernel_host.h needs GCC or Clang (vector extensions, statement expressions, __atomic built-ins)"
#endif

/* GCC notes that vectors wider than the enabled SIMD registers (float8 without AVX, ulong16, ...) are passed
 * differently from what a wider instruction set would do. Both sides of every call are compiled here (the host
 * device passes a kernel's arguments to its group runner by address, ABI 4), so the note says nothing a kernel
 * author can act on. */
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#elif __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif

/* The system headers come first, before the qualifier macros below (local, global, constant, kernel) could
 * change their meaning. Including them again later is harmless: their guards stop them. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
/* tgmath.h makes sqrt, exp, fabs, fma, fmin, ... pick the float or the double function from the argument, as
 * OpenCL C's overloads do (plain math.h would compute sqrt(float) in double). */
#include <tgmath.h>

/* ---- The native kernel ABI ------------------------------------------------------------------------------ */

#include "krt_host_abi.h"

/* The current work-item of this thread. Weak, so that several translation units of one library share one
 * variable; hidden, so that each library reads its own even when another kernel library is loaded. */
__attribute__((weak, visibility("hidden"))) _Thread_local const struct krt_host_item *krt__host_item;

uint32_t krt_host_abi_version(void);
const struct krt_host_item **krt_host_item_slot(void);

__attribute__((weak, visibility("default"))) uint32_t krt_host_abi_version(void)
{
    return KRT_HOST_ABI_VERSION;
}

__attribute__((weak, visibility("default"))) const struct krt_host_item **krt_host_item_slot(void)
{
    return &krt__host_item;
}

/* ---- Checked libraries (krt-cc --host --checks, krt_host_abi.h) ----------------------------------------- */

#ifdef KRT_HOST_CHECKED
__attribute__((weak, visibility("hidden"))) _Thread_local struct krt_host_check_slot krt__check_slot;

struct krt_host_check_slot *krt_host_checks_slot(void);
__attribute__((weak, visibility("default"))) struct krt_host_check_slot *krt_host_checks_slot(void)
{
    return &krt__check_slot;
}

/* Lets an access of size bytes at a through, or calls the runtime's outside(), which does not return for an access
 * it refuses. Inline in each instrumentation function: the ranges this thread let through last (the slot's ring of
 * four, which the runtime clears for each group, as the table may change between launches). Then, out of line: the
 * bounds table's allocations (a binary search of their sorted bases), the heap blocks of the library's barrier loops,
 * and the runtime's outside() for the rest; each range found goes into the ring. Never instrumented itself. */
static __attribute__((no_sanitize_address, unused)) void krt__check_keep(struct krt_host_check_slot *s, uintptr_t lo,
                                                                          uintptr_t hi)
{
    uint32_t k = s->next++ % KRT_HOST_CHECK_RANGES;
    s->ok[2 * k] = lo;
    s->ok[2 * k + 1] = hi;
}
/* Whether [lo, hi) holds the n bytes at a. */
static inline __attribute__((no_sanitize_address, always_inline, unused)) int krt__within(uintptr_t lo, uintptr_t hi,
                                                                                         uintptr_t a, size_t n)
{
    return a >= lo && a <= hi && hi - a >= n;
}
static __attribute__((no_sanitize_address, noinline, unused)) void krt__check_slow(struct krt_host_check_slot *s,
                                                                                  uintptr_t a, size_t n,
                                                                                  uint32_t kind)
{
    const struct krt_host_checks *c = s->checks;
    if (!c)
        return;
    const volatile uint64_t *r = (const volatile uint64_t *)(uintptr_t)c->table[0];
    size_t lo = 0, hi = (size_t)r[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r[2 + 2 * mid] <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* lo: the allocations whose base is at most a; the last of them is the only one that can hold it. */
    if (lo && krt__within((uintptr_t)r[2 * lo], (uintptr_t)r[2 * lo + 1], a, n)) {
        krt__check_keep(s, (uintptr_t)r[2 * lo], (uintptr_t)r[2 * lo + 1]);
        return;
    }
    for (int i = 0; i < KRT_HOST_CHECK_HEAP; i++)
        if (krt__within(s->heap[2 * i], s->heap[2 * i + 1], a, n))
            return;
    uintptr_t range[2];
    if (c->outside(a, n, kind, range))
        krt__check_keep(s, range[0], range[1]);
}
/* Where the instrumentation finds the thread's slot. GCC on x86-64: in r15, a global register variable that the
 * library's entry points (its group runners and work-item functions, KRT__SLOT_ENTER) load with the slot's address
 * and give back as they found it (r15 is callee-saved: the code the library calls keeps it), so that an access costs
 * no call into the dynamic linker for the thread-local slot. Elsewhere, the thread-local slot's address, once per
 * access: GCC otherwise recomputes it for each range of the ring it compares. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(KRT_HOST_CHECK_TLS)
register struct krt_host_check_slot *krt__slot_reg __asm__("r15");
#define KRT__SLOT_ENTER                                                                                        \
    struct krt_host_check_slot *const krt__slot_saved = krt__slot_reg;                                         \
    krt__slot_reg = &krt__check_slot;
#define KRT__SLOT_LEAVE krt__slot_reg = krt__slot_saved;
#define KRT__SLOT(s) struct krt_host_check_slot *s = krt__slot_reg
#else
#define KRT__SLOT_ENTER
#define KRT__SLOT_LEAVE
#define KRT__SLOT(s)                                                                                           \
    struct krt_host_check_slot *s = &krt__check_slot;                                                          \
    __asm__("" : "+r"(s))
#endif
static inline __attribute__((no_sanitize_address, always_inline, unused)) void krt__check(uintptr_t a, size_t n,
                                                                                         uint32_t kind)
{
    KRT__SLOT(s);
    for (int i = 0; i < KRT_HOST_CHECK_RANGES; i++)
        if (a - s->ok[2 * i] < s->ok[2 * i + 1] - s->ok[2 * i] && s->ok[2 * i + 1] - a >= n)
            return;
    krt__check_slow(s, a, n, kind);
}
/* The calls GCC's and Clang's kernel-address instrumentation makes (with a call threshold of 0, every access calls
 * one). Hidden: each library has its own, and a program built with -fsanitize=address keeps its runtime's. Each is
 * krt__check of its access: KRT__CHECK_FN for a size the name says, KRT__CHECK_FN_N for one passed as n. */
#define KRT__CHECK_HIDDEN __attribute__((no_sanitize_address, visibility("hidden")))
#define KRT__CHECK_FN(attrs, name, size, kind)                                                                \
    void name(uintptr_t a);                                                                                   \
    attrs void name(uintptr_t a)                                                                              \
    {                                                                                                         \
        krt__check(a, size, kind);                                                                            \
    }
#define KRT__CHECK_FN_N(attrs, name, kind)                                                                    \
    void name(uintptr_t a, size_t n);                                                                         \
    attrs void name(uintptr_t a, size_t n)                                                                    \
    {                                                                                                         \
        krt__check(a, n, kind);                                                                               \
    }
#define KRT__CHECK_ACCESS(size)                                                                               \
    KRT__CHECK_FN(KRT__CHECK_HIDDEN, __asan_load##size##_noabort, size, KRT_HOST_CHECK_LOAD)                  \
    KRT__CHECK_FN(KRT__CHECK_HIDDEN, __asan_store##size##_noabort, size, KRT_HOST_CHECK_STORE)
KRT__CHECK_ACCESS(1)
KRT__CHECK_ACCESS(2)
KRT__CHECK_ACCESS(4)
KRT__CHECK_ACCESS(8)
KRT__CHECK_ACCESS(16)
KRT__CHECK_FN_N(KRT__CHECK_HIDDEN, __asan_loadN_noabort, KRT_HOST_CHECK_LOAD)
KRT__CHECK_FN_N(KRT__CHECK_HIDDEN, __asan_storeN_noabort, KRT_HOST_CHECK_STORE)
void __asan_handle_no_return(void);
KRT__CHECK_HIDDEN void __asan_handle_no_return(void)
{
}
/* With the shadow map (krt-cc's default, KRT_HOST_CHECK_SHADOW_MAP; krt_host_abi.h): the instrumentation tests the
 * map's byte inline and calls these, cold, only where it does not let the access through. */
#ifdef KRT_HOST_CHECK_SHADOW_MAP
#define KRT__CHECK_COLD __attribute__((no_sanitize_address, visibility("hidden"), cold))
#define KRT__CHECK_REPORT(size)                                                                               \
    KRT__CHECK_FN(KRT__CHECK_COLD, __asan_report_load##size##_noabort, size, KRT_HOST_CHECK_LOAD)             \
    KRT__CHECK_FN(KRT__CHECK_COLD, __asan_report_store##size##_noabort, size, KRT_HOST_CHECK_STORE)
KRT__CHECK_REPORT(1)
KRT__CHECK_REPORT(2)
KRT__CHECK_REPORT(4)
KRT__CHECK_REPORT(8)
KRT__CHECK_REPORT(16)
KRT__CHECK_FN_N(KRT__CHECK_COLD, __asan_report_load_n_noabort, KRT_HOST_CHECK_LOAD)
KRT__CHECK_FN_N(KRT__CHECK_COLD, __asan_report_store_n_noabort, KRT_HOST_CHECK_STORE)
uint64_t krt_host_checks_shadow(void);
__attribute__((weak, visibility("default"))) uint64_t krt_host_checks_shadow(void)
{
    return KRT_HOST_CHECK_SHADOW;
}
#endif
/* The group's state is stored for every work-item, so that a refusal names its work-item: through a volatile
 * lvalue, as the instrumentation comes after the optimizer, which would otherwise keep the ids in registers (and
 * vectorize the work-item loop, where a refused vector access would be several work-items' at once); and in
 * krt-cc's barrier loops also for a kernel that reads no id through a function. */
#define KRT__ID(lvalue) (*(volatile size_t *)&(lvalue))
#define KRT__PUBLISH(p) 1
#else
#define KRT__ID(lvalue) (lvalue)
#define KRT__PUBLISH(p) (p)
#define KRT__SLOT_ENTER
#define KRT__SLOT_LEAVE
#endif

/* ---- Qualifiers ------------------------------------------------------------------------------------------ */

/* A kernel is an exported function; `krt-cc --host` builds with -fvisibility=hidden, so kernels and their group
 * runners are all a library exports besides the two functions above. (KRT__SIGNATURES: krt-cc's preprocessing
 * pass, which reads each kernel's parameters from the marker to generate its group runner; never compiled.)
 * Pointers of every address space are plain pointers; __constant data is const. __local is `register`: legal
 * and meaningless on a pointer parameter. A kernel-scope `__local float tile[16];` is rewritten by krt-cc --host
 * to KRT__LOCAL_VAR below, one copy per work-group; a __local array krt-cc did not rewrite (one declared after
 * other code on its line) fails to compile with "address of register variable 'tile' requested" at its first
 * use rather than silently becoming one private copy per work-item. */
#ifdef KRT__SIGNATURES
#define __kernel krt__kernel_marker__
#else
#define __kernel __attribute__((visibility("default")))
#endif
#define kernel __kernel
#define __global
#define global
#define __local register
#define local register
#define __private
#define private
#define __constant const
#define constant const
/* A kernel-scope __local variable (krt-cc --host writes it for `__local`): static thread-local storage. The host
 * device runs all work-items of a group on one thread, one group at a time per thread, so the thread's copy is
 * the group's. */
#define KRT__LOCAL_VAR static _Thread_local
/* OpenCL's kernel attributes mean nothing to the C compiler: the runtime reads them from the SPIR-V. */
#define reqd_work_group_size(x, y, z)
#define work_group_size_hint(x, y, z)
#define vec_type_hint(t)

/* ---- Types ----------------------------------------------------------------------------------------------- */

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong; /* 64 bits, as in OpenCL C: krt's host device is x86-64 or AArch64 Linux */
_Static_assert(sizeof(long) == 8, "OpenCL C's long is 64 bits; this C compiler's is not");

/* Vectors are GCC vector extensions: element-wise arithmetic, comparisons giving 0 / -1 as in OpenCL C, and
 * v[i] for a component. OpenCL C's .x / .s0 / .lo swizzles are not C: write v[0] (which OpenCL C also
 * accepts). A 3-component vector takes the room of 4, as in OpenCL C. */
#define KRT__VECTORS(name, ctype)                                                                             \
    typedef ctype name##2 __attribute__((vector_size(2 * sizeof(ctype))));                                    \
    typedef ctype name##3 __attribute__((vector_size(4 * sizeof(ctype))));                                    \
    typedef ctype name##4 __attribute__((vector_size(4 * sizeof(ctype))));                                    \
    typedef ctype name##8 __attribute__((vector_size(8 * sizeof(ctype))));                                    \
    typedef ctype name##16 __attribute__((vector_size(16 * sizeof(ctype))));
KRT__VECTORS(char, signed char)
KRT__VECTORS(uchar, unsigned char)
KRT__VECTORS(short, short)
KRT__VECTORS(ushort, unsigned short)
KRT__VECTORS(int, int)
KRT__VECTORS(uint, unsigned int)
KRT__VECTORS(long, long)
KRT__VECTORS(ulong, unsigned long)
KRT__VECTORS(float, float)
KRT__VECTORS(double, double)

/* half: C's _Float16 where the compiler has it (GCC 12 on x86-64 and AArch64), with OpenCL C's arithmetic: a half
 * operation computes in float and rounds to half, as GCC does for _Float16 on a machine without half arithmetic,
 * and the conversions to and from the other types are C's. Without _Float16 a kernel that names half does not
 * compile, and krt-cc says that it is this type. vload_half / vstore_half read and write half storage as float. */
#if defined(__FLT16_MANT_DIG__)
typedef _Float16 half;
KRT__VECTORS(half, _Float16)
#define KRT_HOST_HALF 1
static inline __attribute__((always_inline, unused)) float vload_half(size_t i, const half *p) { return (float)p[i]; }
static inline __attribute__((always_inline, unused)) void vstore_half(float v, size_t i, half *p) { p[i] = (half)v; }
#endif
/* The pragma that enables half in OpenCL C means nothing to C. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

/* ---- Work-item functions --------------------------------------------------------------------------------- */

/* A dimension at or past work_dim gives OpenCL C's defaults: ids and offsets 0, sizes and counts 1. The runtime
 * stores those defaults in the dimensions past work_dim (krt_host_abi.h), so only an index past 2 needs a test:
 * a comparison with work_dim in every get_global_id(1) kept GCC from vectorizing a 2-D kernel's loop. */
#define KRT__ITEM_FN static inline __attribute__((always_inline, unused))

KRT__ITEM_FN uint get_work_dim(void)
{
    return krt__host_item->work_dim;
}

#define KRT__ITEM_QUERY(fn, field, otherwise)                                                                 \
    KRT__ITEM_FN size_t fn(uint dimindx)                                                                      \
    {                                                                                                         \
        const struct krt_host_item *krt__it = krt__host_item;                                                 \
        return dimindx < 3 ? krt__it->field[dimindx] : (otherwise);                                           \
    }
KRT__ITEM_QUERY(get_global_id, global_id, 0)
KRT__ITEM_QUERY(get_local_id, local_id, 0)
KRT__ITEM_QUERY(get_group_id, group_id, 0)
KRT__ITEM_QUERY(get_global_size, global_size, 1)
KRT__ITEM_QUERY(get_local_size, local_size, 1)
KRT__ITEM_QUERY(get_num_groups, num_groups, 1)
KRT__ITEM_QUERY(get_global_offset, global_offset, 0)
KRT__ITEM_QUERY(get_enqueued_local_size, enqueued_local_size, 1)

KRT__ITEM_FN size_t get_global_linear_id(void)
{
    const struct krt_host_item *it = krt__host_item;
    size_t id = 0;
    for (uint d = it->work_dim; d-- > 0;)
        id = id * it->global_size[d] + (it->global_id[d] - it->global_offset[d]);
    return id;
}

KRT__ITEM_FN size_t get_local_linear_id(void)
{
    const struct krt_host_item *it = krt__host_item;
    size_t id = 0;
    for (uint d = it->work_dim; d-- > 0;)
        id = id * it->local_size[d] + it->local_id[d];
    return id;
}

/* ---- Barriers and fences --------------------------------------------------------------------------------- */

typedef uint cl_mem_fence_flags;
#define CLK_LOCAL_MEM_FENCE 1u
#define CLK_GLOBAL_MEM_FENCE 2u
#define CLK_IMAGE_MEM_FENCE 4u

/* All work-items of a group run on one thread, so a barrier is a switch to the next work-item (the runtime's
 * item->barrier) and needs no memory fence: the call is opaque to the compiler, which therefore keeps every
 * store before it and reloads memory after it. */
KRT__ITEM_FN void barrier(cl_mem_fence_flags flags)
{
    (void)flags;
    const struct krt_host_item *it = krt__host_item;
    it->barrier(it);
}
#define work_group_barrier(...) barrier(0)

/* Work-items of other groups run on other threads: a fence is a real one. */
#define mem_fence(flags) __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define read_mem_fence(flags) __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define write_mem_fence(flags) __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* ---- Group runners (ABI 4) ------------------------------------------------------------------------------- */

/* krt-cc --host generates, for each kernel K, the exported runner krt_host_group_K (ABI 4: the arguments'
 * addresses, then the group), which reads each argument with its parameter's C type and passes them to
 * krt__group_K, the loop over the groups with K's own parameters, beside K's argument frame and a per-work-item
 * function for the runtime's fibers, with the macros below. The loop is compiled with the kernel inlined
 * (flatten, with -fno-semantic-interposition so that the exported kernel may be inlined at all): the ids are
 * plain induction variables stored into a copy of the group's state that krt__host_item points at for the whole
 * group, so a get_global_id() in the body needs no thread-local load per work-item where the compiler can see
 * that the body's stores leave it alone, and a simple loop vectorizes. Without optimization (-O0, for gdb) the
 * kernel stays a call of its own.
 * The loop is a function of its own, never inlined into the runner, because the compiler knows that a
 * function's parameters cannot point at its own locals, while it lets a pointer loaded from memory point at any
 * local whose address escaped, as the group's state does into krt__host_item: with the arguments read in the
 * same function, GCC 12 kept every work-item's ids in memory beside the kernel's stores and left the loop scalar
 * (bench_launch.cl's k4, a saxpy: one float per iteration instead of 16, and the replay of 1,000 of them over
 * 4,096 floats took 4 us per kernel instead of 1). The call costs a few instructions per run of groups. */
#ifdef KRT_HOST_CHECKED
/* A checked runner reads its arguments from the runtime's memory unchecked; the kernel's loop is checked. */
#define KRT__RUNNER __attribute__((visibility("default"), no_sanitize_address))
#else
#define KRT__RUNNER __attribute__((visibility("default")))
#endif
#if defined(__OPTIMIZE__)
#define KRT__GROUP_FN static __attribute__((noinline, flatten, unused))
#else
#define KRT__GROUP_FN static __attribute__((noinline, unused))
#endif

/* The work-items of one group, x innermost: the loop the compiler vectorizes, with the y and z ids invariant in
 * it (GCC unswitches the x loop on the kernel's tests of them: krt-cc raises GCC's size limit for that). */
#define KRT__GROUP_ITEMS(call)                                                                                \
    for (size_t krt__z = 0; krt__z < krt__lz; krt__z++) {                                                     \
        KRT__ID(krt__it.local_id[2]) = krt__z;                                                                \
        KRT__ID(krt__it.global_id[2]) = krt__bz + krt__z;                                                     \
        for (size_t krt__y = 0; krt__y < krt__ly; krt__y++) {                                                 \
            KRT__ID(krt__it.local_id[1]) = krt__y;                                                            \
            KRT__ID(krt__it.global_id[1]) = krt__by + krt__y;                                                 \
            for (size_t krt__x = 0; krt__x < krt__lx; krt__x++) {                                             \
                KRT__ID(krt__it.local_id[0]) = krt__x;                                                        \
                KRT__ID(krt__it.global_id[0]) = krt__bx + krt__x;                                             \
                call;                                                                                         \
            }                                                                                                 \
        }                                                                                                     \
    }
/* Optimized, the group's work-items are compiled twice: once for a group whose first global id in dimension 0
 * is 0 (or implausibly large), and once for every other group, where the compiler then knows that
 * get_global_id(0) is at least 1 and does not wrap (its first id in 1 .. 2^62, fewer than 2^62 work-items), so
 * that a kernel's `get_global_id(0) == 0` test (one work-item records something) or `x == 0` border test folds
 * away there instead of staying a branch per work-item: GCC kept knobs.cl's scale family's loops, which
 * record their launch's shape from work-item 0, as a scalar loop of that test beside the vector loop, 3x
 * slower (docs/performance.md section 7). */
#if defined(__OPTIMIZE__)
#define KRT__ID_MAX ((size_t)1 << (sizeof(size_t) * 8 - 2))
#define KRT__GROUP_ITEMS_VERSIONED(call)                                                                      \
    if (krt__bx == 0 || krt__bx > KRT__ID_MAX || krt__lx > KRT__ID_MAX) {                                     \
        KRT__GROUP_ITEMS(call);                                                                               \
    } else {                                                                                                  \
        KRT__GROUP_ITEMS(call);                                                                               \
    }
#else
#define KRT__GROUP_ITEMS_VERSIONED(call) KRT__GROUP_ITEMS(call)
#endif

#define KRT__GROUP_RUN(g, item_fn, frame, call)                                                               \
    do {                                                                                                      \
        if ((g)->run_items) {                                                                                 \
            __typeof__(frame) krt__frame = (frame);                                                           \
            (g)->run_items((g), (item_fn), &krt__frame);                                                      \
            break;                                                                                            \
        }                                                                                                     \
        struct krt_host_item krt__it = (g)->item;                                                             \
        const struct krt_host_item *krt__outer = krt__host_item;                                              \
        const size_t krt__groups = (g)->groups, krt__g0 = krt__it.group_id[0];                                \
        const size_t krt__ly = krt__it.local_size[1], krt__lz = krt__it.local_size[2];                        \
        const size_t krt__by = krt__it.global_id[1], krt__bz = krt__it.global_id[2];                          \
        const size_t krt__enq = krt__it.enqueued_local_size[0], krt__size = krt__it.global_size[0];           \
        krt__host_item = &krt__it;                                                                            \
        for (size_t krt__gi = 0; krt__gi < krt__groups; krt__gi++) {                                          \
            /* The group's real size in dimension 0 (exact ranges: the last of a row may be partial). */    \
            const size_t krt__gx = krt__g0 + krt__gi, krt__left = krt__size - krt__gx * krt__enq;             \
            const size_t krt__lx = krt__left < krt__enq ? krt__left : krt__enq;                               \
            const size_t krt__bx = krt__gx * krt__enq + krt__it.global_offset[0];                             \
            krt__it.group_id[0] = krt__gx;                                                                    \
            krt__it.local_size[0] = krt__lx;                                                                  \
            KRT__GROUP_ITEMS_VERSIONED(call)                                                                  \
        }                                                                                                     \
        krt__host_item = krt__outer;                                                                          \
    } while (0)

/* ---- Barrier kernels as work-item loops ------------------------------------------------------------------ */

/* krt-cc --host runs tools/krt_loops.py on a kernel with barriers: the body split at each barrier into regions,
 * each region a loop over the group's work-items (KRT__ITEMS_BEGIN ... KRT__ITEMS_END), the statements around
 * a barrier run once for the group with their conditions evaluated as work-item 0 sees them
 * (KRT__UNIFORM_BEGIN), in a function krt__loops_K that the group runner calls when the runtime gives no
 * run_items (docs/design.md, "Barriers on the host device"). The runner exports krt_host_loops_K to tell the
 * runtime so. Inside, the work-item functions read the loop's own copy of the state (KRT__L_...), not the
 * thread-local pointer; that still points at the copy, for the functions the kernel calls. */
#define KRT__LOOPS_SETUP(g)                                                                                   \
    struct krt_host_item krt__it = (g)->item;                                                                 \
    krt__it.barrier = krt__loops_barrier;                                                                     \
    const struct krt_host_item *const krt__outer = krt__host_item;                                            \
    const size_t krt__groups = (g)->groups, krt__g0 = krt__it.group_id[0];                                    \
    const size_t krt__ly = krt__it.local_size[1], krt__lz = krt__it.local_size[2];                            \
    const size_t krt__by = krt__it.global_id[1], krt__bz = krt__it.global_id[2];                              \
    const size_t krt__enq = krt__it.enqueued_local_size[0], krt__size = krt__it.global_size[0];               \
    const size_t krt__nmax = krt__enq * krt__ly * krt__lz;                                                    \
    size_t krt__lx = 0, krt__bx = 0;                                                                          \
    (void)krt__nmax
#define KRT__GROUPS_BEGIN                                                                                     \
    if (krt__publish)                                                                                         \
        krt__host_item = &krt__it;                                                                            \
    for (size_t krt__gi = 0; krt__gi < krt__groups; krt__gi++) {                                              \
        const size_t krt__gx = krt__g0 + krt__gi, krt__left = krt__size - krt__gx * krt__enq;                 \
        krt__lx = krt__left < krt__enq ? krt__left : krt__enq;                                                \
        krt__bx = krt__gx * krt__enq + krt__it.global_offset[0];                                              \
        krt__it.group_id[0] = krt__gx;                                                                        \
        krt__it.local_size[0] = krt__lx;
#define KRT__GROUPS_END                                                                                       \
    }                                                                                                         \
    if (krt__publish)                                                                                         \
        krt__host_item = krt__outer;
/* A private variable live across a barrier: one element per work-item of the group, on the pool thread's
 * stack up to KRT__PRIVATE_STACK bytes, beyond on the heap (a private array of a group of 1024 could overflow
 * the stack), freed at the runner's end (the loops never return early). */
#define KRT__PRIVATE_STACK 65536u
#define KRT__PRIVATE(T, name)                                                                                 \
    T *const name = (T *)(sizeof(T) * krt__nmax <= KRT__PRIVATE_STACK ? __builtin_alloca(sizeof(T) * krt__nmax) \
                                                                     : krt__loops_alloc(sizeof(T) * krt__nmax))
#define KRT__PRIVATE_FREE(T, name)                                                                            \
    if (sizeof(T) * krt__nmax > KRT__PRIVATE_STACK)                                                           \
    krt__loops_free(name)
static __attribute__((unused)) void *krt__loops_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fputs("krt: out of memory for a barrier kernel's private variables\n", stderr);
        abort();
    }
#ifdef KRT_HOST_CHECKED
    /* A checked library lets the work-items reach the block (krt__check). */
    for (int i = 0; i < KRT_HOST_CHECK_HEAP; i++)
        if (krt__check_slot.heap[2 * i + 1] == 0) {
            krt__check_slot.heap[2 * i] = (uintptr_t)p;
            krt__check_slot.heap[2 * i + 1] = (uintptr_t)p + bytes;
            break;
        }
#endif
    return p;
}
#ifdef KRT_HOST_CHECKED
static __attribute__((unused)) void krt__loops_free(void *p)
{
    for (int i = 0; i < KRT_HOST_CHECK_HEAP; i++)
        if (krt__check_slot.heap[2 * i] == (uintptr_t)p)
            krt__check_slot.heap[2 * i] = krt__check_slot.heap[2 * i + 1] = 0;
    free(p);
}
#else
#define krt__loops_free free
#endif
/* The current work-item's ids (krt__x, krt__y, krt__z in its group) stored in the loops' state, for a kernel whose
 * functions read them through krt__host_item (krt__publish). */
#define KRT__PUBLISH_IDS                                                                                      \
    do {                                                                                                      \
        if (krt__publish) {                                                                                   \
            KRT__ID(krt__it.local_id[0]) = krt__x;                                                            \
            KRT__ID(krt__it.local_id[1]) = krt__y;                                                            \
            KRT__ID(krt__it.local_id[2]) = krt__z;                                                            \
            KRT__ID(krt__it.global_id[0]) = krt__bx + krt__x;                                                 \
            KRT__ID(krt__it.global_id[1]) = krt__by + krt__y;                                                 \
            KRT__ID(krt__it.global_id[2]) = krt__bz + krt__z;                                                 \
        }                                                                                                     \
    } while (0)
/* krt__l: the work-item's place in the group, the index of its element in the arrays of the variables that
 * live across a barrier. */
#define KRT__ITEMS_BEGIN                                                                                      \
    for (size_t krt__z = 0; krt__z < krt__lz; krt__z++)                                                       \
        for (size_t krt__y = 0; krt__y < krt__ly; krt__y++)                                                   \
            for (size_t krt__x = 0; krt__x < krt__lx; krt__x++) {                                             \
                const size_t krt__l = (krt__z * krt__ly + krt__y) * krt__lx + krt__x;                         \
                (void)krt__l;                                                                                 \
                KRT__PUBLISH_IDS;
#define KRT__ITEMS_END }
#define KRT__UNIFORM_BEGIN                                                                                    \
    __extension__({                                                                                           \
        const size_t krt__l = 0, krt__x = 0, krt__y = 0, krt__z = 0;                                          \
        (void)krt__l;                                                                                         \
        (void)krt__x;                                                                                         \
        (void)krt__y;                                                                                         \
        (void)krt__z;                                                                                         \
        KRT__PUBLISH_IDS;
/* The same for a kernel with a return before a barrier: as the first work-item that has not returned sees it;
 * when all have, the group is done (a jump out of the statement expression, which GCC and Clang allow). */
#define KRT__UNIFORM_GONE_BEGIN                                                                               \
    __extension__({                                                                                           \
        size_t krt__f = 0;                                                                                    \
        const size_t krt__n = krt__lx * krt__ly * krt__lz;                                                    \
        while (krt__f < krt__n && krt__gone[krt__f])                                                          \
            krt__f++;                                                                                         \
        if (krt__f == krt__n)                                                                                 \
            goto krt__group_end;                                                                              \
        const size_t krt__l = krt__f, krt__x = krt__f % krt__lx, krt__y = krt__f / krt__lx % krt__ly,        \
                     krt__z = krt__f / krt__lx / krt__ly;                                                     \
        (void)krt__l;                                                                                         \
        (void)krt__x;                                                                                         \
        (void)krt__y;                                                                                         \
        (void)krt__z;                                                                                         \
        KRT__PUBLISH_IDS;
#define KRT__LQ(field, d, otherwise)                                                                          \
    __extension__({                                                                                           \
        const uint krt__d = (d);                                                                              \
        krt__d < 3 ? krt__it.field[krt__d] : (size_t)(otherwise);                                             \
    })
/* The ids from the loops' counters, never from memory. */
#define KRT__LID(d, x, y, z, otherwise)                                                                       \
    __extension__({                                                                                           \
        const uint krt__d = (d);                                                                              \
        krt__d == 0                ? (size_t)(x)                                                              \
        : krt__d == 1              ? (size_t)(y)                                                              \
        : krt__d == 2              ? (size_t)(z)                                                              \
                                   : (size_t)(otherwise);                                                     \
    })
#define KRT__L_get_global_id(d) KRT__LID(d, krt__bx + krt__x, krt__by + krt__y, krt__bz + krt__z, 0)
#define KRT__L_get_local_id(d) KRT__LID(d, krt__x, krt__y, krt__z, 0)
#define KRT__L_get_group_id(d) KRT__LQ(group_id, d, 0)
#define KRT__L_get_global_size(d) KRT__LQ(global_size, d, 1)
#define KRT__L_get_local_size(d) KRT__LQ(local_size, d, 1)
#define KRT__L_get_num_groups(d) KRT__LQ(num_groups, d, 1)
#define KRT__L_get_global_offset(d) KRT__LQ(global_offset, d, 0)
#define KRT__L_get_enqueued_local_size(d) KRT__LQ(enqueued_local_size, d, 1)
#define KRT__L_get_work_dim() ((uint)krt__it.work_dim)
#define KRT__L_get_global_linear_id get_global_linear_id
#define KRT__L_get_local_linear_id get_local_linear_id

/* A barrier() that krt_loops.py did not see (it refuses kernels whose helpers call one, so this is a bug). */
static __attribute__((unused, noreturn)) void krt__loops_barrier(const struct krt_host_item *it)
{
    (void)it;
    fputs("krt: barrier() reached inside a work-item loop of krt-cc --host; rebuild with KRT_HOST_LOOPS=0\n",
          stderr);
    abort();
}

/* The group runner of a kernel done as loops: the runtime's fibers when it asks for them (KRT_HOST_FIBERS=1),
 * the loops otherwise; and the symbol that tells the runtime the runner can take a group itself. */
#define KRT__LOOPS_RUN(g, item_fn, frame, call)                                                               \
    do {                                                                                                      \
        if ((g)->run_items) {                                                                                 \
            __typeof__(frame) krt__frame = (frame);                                                           \
            (g)->run_items((g), (item_fn), &krt__frame);                                                      \
        } else {                                                                                              \
            call;                                                                                             \
        }                                                                                                     \
    } while (0)
#define KRT__LOOPS_MARK(name) __attribute__((visibility("default"))) const unsigned char krt_host_loops_##name = 1

/* ---- Atomics ----------------------------------------------------------------------------------------------- */

/* OpenCL 1.x atomics (atomic_* on 32-bit, atom_* on 32- and 64-bit integers), on __global and __local memory
 * alike, as GCC's __atomic built-ins: correct between the threads that run different groups, and harmless
 * between the work-items of one group, which run in turn on one thread. Each returns the old value. */
#define KRT__SEQ __ATOMIC_SEQ_CST
/* A checked library checks an atomic's address as an atomic first (the instrumentation would call it a store). */
#ifdef KRT_HOST_CHECKED
#define KRT__AP(p)                                                                                            \
    __extension__({                                                                                           \
        __typeof__(p) krt__ap = (p);                                                                          \
        krt__check((uintptr_t)krt__ap, sizeof *krt__ap, KRT_HOST_CHECK_ATOMIC);                               \
        krt__ap;                                                                                              \
    })
#else
#define KRT__AP(p) (p)
#endif
#define atomic_add(p, v) __atomic_fetch_add(KRT__AP(p), (v), KRT__SEQ)
#define atomic_sub(p, v) __atomic_fetch_sub(KRT__AP(p), (v), KRT__SEQ)
#define atomic_inc(p) __atomic_fetch_add(KRT__AP(p), 1, KRT__SEQ)
#define atomic_dec(p) __atomic_fetch_sub(KRT__AP(p), 1, KRT__SEQ)
#define atomic_and(p, v) __atomic_fetch_and(KRT__AP(p), (v), KRT__SEQ)
#define atomic_or(p, v) __atomic_fetch_or(KRT__AP(p), (v), KRT__SEQ)
#define atomic_xor(p, v) __atomic_fetch_xor(KRT__AP(p), (v), KRT__SEQ)
/* +*(p) is the pointee's type without its qualifiers (volatile, const). xchg works on float too. */
#define atomic_xchg(p, v)                                                                                     \
    __extension__({                                                                                           \
        __typeof__(+*(p)) krt__new = (v), krt__old;                                                           \
        __atomic_exchange(KRT__AP(p), &krt__new, &krt__old, KRT__SEQ);                                        \
        krt__old;                                                                                             \
    })
#define atomic_cmpxchg(p, cmp, v)                                                                             \
    __extension__({                                                                                           \
        __typeof__(+*(p)) krt__expected = (cmp);                                                              \
        __atomic_compare_exchange_n(KRT__AP(p), &krt__expected, (v), 0, KRT__SEQ, KRT__SEQ);                  \
        krt__expected;                                                                                        \
    })
/* No __atomic_fetch_min in GCC 12: a compare-and-swap loop that stops once the stored value is already
 * smaller (larger). */
#define KRT__ATOMIC_MINMAX(p, v, op)                                                                          \
    __extension__({                                                                                           \
        __typeof__(p) krt__p = KRT__AP(p);                                                                    \
        __typeof__(+*(p)) krt__v = (v), krt__o = __atomic_load_n(krt__p, __ATOMIC_RELAXED);                   \
        while (krt__v op krt__o &&                                                                            \
               !__atomic_compare_exchange_n(krt__p, &krt__o, krt__v, 1, KRT__SEQ, __ATOMIC_RELAXED)) {        \
        }                                                                                                     \
        krt__o;                                                                                               \
    })
#define atomic_min(p, v) KRT__ATOMIC_MINMAX(p, v, <)
#define atomic_max(p, v) KRT__ATOMIC_MINMAX(p, v, >)
#define atom_add atomic_add
#define atom_sub atomic_sub
#define atom_inc atomic_inc
#define atom_dec atomic_dec
#define atom_and atomic_and
#define atom_or atomic_or
#define atom_xor atomic_xor
#define atom_xchg atomic_xchg
#define atom_cmpxchg atomic_cmpxchg
#define atom_min atomic_min
#define atom_max atomic_max

/* ---- Built-in functions (the subset of docs/single-source.md) --------------------------------------------- */

#define KRT__FN static inline __attribute__((always_inline, unused))

/* min, max, clamp for the scalar types OpenCL overloads them on, picked with _Generic after C's usual
 * arithmetic conversions (char and short arguments compute in int). A vector argument does not compile. */
#define KRT__SCALAR_FNS(t, s)                                                                                 \
    KRT__FN t krt__min_##s(t a, t b) { return b < a ? b : a; }                                                \
    KRT__FN t krt__max_##s(t a, t b) { return a < b ? b : a; }                                                \
    KRT__FN t krt__clamp_##s(t x, t lo, t hi) { return krt__min_##s(krt__max_##s(x, lo), hi); }
KRT__SCALAR_FNS(int, int)
KRT__SCALAR_FNS(unsigned int, uint)
KRT__SCALAR_FNS(long, long)
KRT__SCALAR_FNS(unsigned long, ulong)
KRT__SCALAR_FNS(long long, llong)
KRT__SCALAR_FNS(unsigned long long, ullong)
KRT__SCALAR_FNS(float, float)
KRT__SCALAR_FNS(double, double)
#define KRT__GENERIC(name, e)                                                                                 \
    _Generic((e), int: krt__##name##_int, unsigned int: krt__##name##_uint, long: krt__##name##_long,         \
             unsigned long: krt__##name##_ulong, long long: krt__##name##_llong,                              \
             unsigned long long: krt__##name##_ullong, float: krt__##name##_float,                            \
             double: krt__##name##_double)
#define min(a, b) KRT__GENERIC(min, (a) + (b))((a), (b))
#define max(a, b) KRT__GENERIC(max, (a) + (b))((a), (b))
#define clamp(x, lo, hi) KRT__GENERIC(clamp, (x) + (lo) + (hi))((x), (lo), (hi))

/* Integer functions. */
KRT__FN uint krt__abs_int(int x) { return x < 0 ? 0u - (uint)x : (uint)x; }
KRT__FN ulong krt__abs_long(long x) { return x < 0 ? 0ul - (ulong)x : (ulong)x; }
KRT__FN uint krt__abs_uint(uint x) { return x; }
KRT__FN ulong krt__abs_ulong(ulong x) { return x; }
#define abs(x)                                                                                                \
    _Generic(+(x), int: krt__abs_int, unsigned int: krt__abs_uint, long: krt__abs_long,                       \
             unsigned long: krt__abs_ulong)(x)
#define mul24(a, b) ((a) * (b))
#define mad24(a, b, c) ((a) * (b) + (c))
KRT__FN uint krt__popcount_uint(uint x) { return (uint)__builtin_popcount(x); }
KRT__FN ulong krt__popcount_ulong(ulong x) { return (ulong)__builtin_popcountl(x); }
#define popcount(x) _Generic(+(x), int: krt__popcount_uint, unsigned int: krt__popcount_uint,                 \
                             long: krt__popcount_ulong, unsigned long: krt__popcount_ulong)(x)

/* Floating-point functions beyond C's (which tgmath.h provides: sqrt, exp, log, pow, sin, cos, fabs, floor,
 * fmin, fmax, fma, ...). */
#define mad(a, b, c) ((a) * (b) + (c))
#define rsqrt(x) (1 / sqrt(x))
#define mix(x, y, a) ((x) + ((y) - (x)) * (a))
#define native_sqrt(x) sqrt(x)
#define native_rsqrt(x) rsqrt(x)
#define native_recip(x) (1 / (x))
#define native_divide(x, y) ((x) / (y))
#define native_exp(x) exp(x)
#define native_exp2(x) exp2(x)
#define native_log(x) log(x)
#define native_log2(x) log2(x)
#define native_sin(x) sin(x)
#define native_cos(x) cos(x)
#define native_tan(x) tan(x)
#define native_powr(x, y) pow((x), (y))
#define half_sqrt native_sqrt
#define half_rsqrt native_rsqrt
#define half_recip native_recip
#define half_divide native_divide
#define half_exp native_exp
#define half_log native_log
#define half_sin native_sin
#define half_cos native_cos

/* convert_T: C's conversion, which rounds floats to integers toward zero and integers to floats to nearest
 * as OpenCL C's default modes do; the _sat and _rt* variants are not covered. */
#define convert_char(x) ((signed char)(x))
#define convert_uchar(x) ((uchar)(x))
#define convert_short(x) ((short)(x))
#define convert_ushort(x) ((ushort)(x))
#define convert_int(x) ((int)(x))
#define convert_uint(x) ((uint)(x))
#define convert_long(x) ((long)(x))
#define convert_ulong(x) ((ulong)(x))
#define convert_float(x) ((float)(x))
#define convert_double(x) ((double)(x))
#define convert_char2(v) __builtin_convertvector((v), char2)
#define convert_char3(v) __builtin_convertvector((v), char3)
#define convert_char4(v) __builtin_convertvector((v), char4)
#define convert_char8(v) __builtin_convertvector((v), char8)
#define convert_char16(v) __builtin_convertvector((v), char16)
#define convert_uchar2(v) __builtin_convertvector((v), uchar2)
#define convert_uchar3(v) __builtin_convertvector((v), uchar3)
#define convert_uchar4(v) __builtin_convertvector((v), uchar4)
#define convert_uchar8(v) __builtin_convertvector((v), uchar8)
#define convert_uchar16(v) __builtin_convertvector((v), uchar16)
#define convert_short2(v) __builtin_convertvector((v), short2)
#define convert_short3(v) __builtin_convertvector((v), short3)
#define convert_short4(v) __builtin_convertvector((v), short4)
#define convert_short8(v) __builtin_convertvector((v), short8)
#define convert_short16(v) __builtin_convertvector((v), short16)
#define convert_ushort2(v) __builtin_convertvector((v), ushort2)
#define convert_ushort3(v) __builtin_convertvector((v), ushort3)
#define convert_ushort4(v) __builtin_convertvector((v), ushort4)
#define convert_ushort8(v) __builtin_convertvector((v), ushort8)
#define convert_ushort16(v) __builtin_convertvector((v), ushort16)
#define convert_int2(v) __builtin_convertvector((v), int2)
#define convert_int3(v) __builtin_convertvector((v), int3)
#define convert_int4(v) __builtin_convertvector((v), int4)
#define convert_int8(v) __builtin_convertvector((v), int8)
#define convert_int16(v) __builtin_convertvector((v), int16)
#define convert_uint2(v) __builtin_convertvector((v), uint2)
#define convert_uint3(v) __builtin_convertvector((v), uint3)
#define convert_uint4(v) __builtin_convertvector((v), uint4)
#define convert_uint8(v) __builtin_convertvector((v), uint8)
#define convert_uint16(v) __builtin_convertvector((v), uint16)
#define convert_long2(v) __builtin_convertvector((v), long2)
#define convert_long3(v) __builtin_convertvector((v), long3)
#define convert_long4(v) __builtin_convertvector((v), long4)
#define convert_long8(v) __builtin_convertvector((v), long8)
#define convert_long16(v) __builtin_convertvector((v), long16)
#define convert_ulong2(v) __builtin_convertvector((v), ulong2)
#define convert_ulong3(v) __builtin_convertvector((v), ulong3)
#define convert_ulong4(v) __builtin_convertvector((v), ulong4)
#define convert_ulong8(v) __builtin_convertvector((v), ulong8)
#define convert_ulong16(v) __builtin_convertvector((v), ulong16)
#define convert_float2(v) __builtin_convertvector((v), float2)
#define convert_float3(v) __builtin_convertvector((v), float3)
#define convert_float4(v) __builtin_convertvector((v), float4)
#define convert_float8(v) __builtin_convertvector((v), float8)
#define convert_float16(v) __builtin_convertvector((v), float16)
#define convert_double2(v) __builtin_convertvector((v), double2)
#define convert_double3(v) __builtin_convertvector((v), double3)
#define convert_double4(v) __builtin_convertvector((v), double4)
#define convert_double8(v) __builtin_convertvector((v), double8)
#define convert_double16(v) __builtin_convertvector((v), double16)

/* as_T: the same bits as another type of the same size (a compile error otherwise). */
#define KRT__AS(t, x)                                                                                         \
    __extension__({                                                                                           \
        __typeof__(x) krt__from = (x);                                                                        \
        t krt__to;                                                                                            \
        _Static_assert(sizeof krt__from == sizeof krt__to, "as_" #t ": the sizes differ");                    \
        __builtin_memcpy(&krt__to, &krt__from, sizeof krt__to);                                               \
        krt__to;                                                                                              \
    })
#define as_char(x) KRT__AS(signed char, x)
#define as_uchar(x) KRT__AS(uchar, x)
#define as_short(x) KRT__AS(short, x)
#define as_ushort(x) KRT__AS(ushort, x)
#define as_int(x) KRT__AS(int, x)
#define as_uint(x) KRT__AS(uint, x)
#define as_long(x) KRT__AS(long, x)
#define as_ulong(x) KRT__AS(ulong, x)
#define as_float(x) KRT__AS(float, x)
#define as_double(x) KRT__AS(double, x)
#define as_int2(x) KRT__AS(int2, x)
#define as_uint2(x) KRT__AS(uint2, x)
#define as_float2(x) KRT__AS(float2, x)
#define as_int4(x) KRT__AS(int4, x)
#define as_uint4(x) KRT__AS(uint4, x)
#define as_float4(x) KRT__AS(float4, x)

/* vloadN(offset, p) reads N elements at p + offset * N; vstoreN(v, offset, p) writes them. The element type
 * picks the function (vload) or the vector type does (vstore). */
#define KRT__VLOADSTORE(name, ctype, n)                                                                       \
    KRT__FN name##n krt__vload##n##_##name(size_t offset, const void *p)                                      \
    {                                                                                                         \
        name##n v = {0};                                                                                      \
        __builtin_memcpy(&v, (const ctype *)p + offset * n, n * sizeof(ctype));                               \
        return v;                                                                                             \
    }                                                                                                         \
    KRT__FN void krt__vstore##n##_##name(name##n v, size_t offset, void *p)                                   \
    {                                                                                                         \
        __builtin_memcpy((ctype *)p + offset * n, &v, n * sizeof(ctype));                                     \
    }
#define KRT__VLOADSTORE_ALL(name, ctype)                                                                      \
    KRT__VLOADSTORE(name, ctype, 2)                                                                           \
    KRT__VLOADSTORE(name, ctype, 3)                                                                           \
    KRT__VLOADSTORE(name, ctype, 4)                                                                           \
    KRT__VLOADSTORE(name, ctype, 8)                                                                           \
    KRT__VLOADSTORE(name, ctype, 16)
KRT__VLOADSTORE_ALL(char, signed char)
KRT__VLOADSTORE_ALL(uchar, unsigned char)
KRT__VLOADSTORE_ALL(short, short)
KRT__VLOADSTORE_ALL(ushort, unsigned short)
KRT__VLOADSTORE_ALL(int, int)
KRT__VLOADSTORE_ALL(uint, unsigned int)
KRT__VLOADSTORE_ALL(long, long)
KRT__VLOADSTORE_ALL(ulong, unsigned long)
KRT__VLOADSTORE_ALL(float, float)
KRT__VLOADSTORE_ALL(double, double)
/* _Generic on the pointee's value ((void)0, *(p)): its type without const or volatile. */
#define KRT__VLOAD(n, offset, p)                                                                              \
    _Generic(((void)0, *(p)), char: krt__vload##n##_char,                                                     \
             signed char: krt__vload##n##_char, unsigned char: krt__vload##n##_uchar,                         \
             short: krt__vload##n##_short, unsigned short: krt__vload##n##_ushort,                            \
             int: krt__vload##n##_int, unsigned int: krt__vload##n##_uint, long: krt__vload##n##_long,        \
             unsigned long: krt__vload##n##_ulong, float: krt__vload##n##_float,                              \
             double: krt__vload##n##_double)((offset), (p))
#define KRT__VSTORE(n, v, offset, p)                                                                          \
    _Generic((v), char##n: krt__vstore##n##_char, uchar##n: krt__vstore##n##_uchar,                           \
             short##n: krt__vstore##n##_short, ushort##n: krt__vstore##n##_ushort,                            \
             int##n: krt__vstore##n##_int, uint##n: krt__vstore##n##_uint, long##n: krt__vstore##n##_long,    \
             ulong##n: krt__vstore##n##_ulong, float##n: krt__vstore##n##_float,                              \
             double##n: krt__vstore##n##_double)((v), (offset), (p))
#define vload2(offset, p) KRT__VLOAD(2, offset, p)
#define vload3(offset, p) KRT__VLOAD(3, offset, p)
#define vload4(offset, p) KRT__VLOAD(4, offset, p)
#define vload8(offset, p) KRT__VLOAD(8, offset, p)
#define vload16(offset, p) KRT__VLOAD(16, offset, p)
#define vstore2(v, offset, p) KRT__VSTORE(2, v, offset, p)
#define vstore3(v, offset, p) KRT__VSTORE(3, v, offset, p)
#define vstore4(v, offset, p) KRT__VSTORE(4, v, offset, p)
#define vstore8(v, offset, p) KRT__VSTORE(8, v, offset, p)
#define vstore16(v, offset, p) KRT__VSTORE(16, v, offset, p)

/* Specialization constants: a host kernel library is compiled once, so a constant always has its default
 * value; the host device does not take other values (docs/single-source.md). knobs.cl declares this function
 * again; that later declaration keeps this one's internal linkage. */
KRT__FN int __spirv_SpecConstant(int id, int default_value)
{
    (void)id;
    return default_value;
}

#endif /* KRT_KERNEL_HOST_H */

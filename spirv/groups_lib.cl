/* The group functions of the SPIR-V front end (groups.cpp lowers every sub-group and work-group instruction to calls
 * of these), in OpenCL C 2.0, compiled at build time to SPIR bitcode twice and embedded (groups_lib.S):
 *   ZP_SG_WARP=0  sub-groups of one work-item (ze_pocl): a sub-group is a work-item, so its collectives are the
 *                 value itself and its queries follow from the work-group's; work-group collectives are one pass
 *                 by the first work-item over a __local slot per work-item;
 *   ZP_SG_WARP=1  sub-groups of 32 work-items, the NVIDIA warp (ze_cuda): collectives over warp shuffles and votes
 *                 (NVVM intrinsics, named below), work-group collectives over the warps' results in __local memory.
 * The lowering links the functions a module calls into it before every helper is inlined, so the work-item
 * queries here are answered like the kernel's own (exactly, in a partial group: spirv/exact_range.cpp). Values and
 * operation codes are as groups_ops.h says; the codes are constants at every call, so each function folds to one
 * operation. Work-group collectives hold their barriers at the top level of the function, never under a
 * condition, as PoCL's work-group compiler and CUDA's bar.sync need, and end with one, so that the next collective
 * may reuse the scratch. */
#include "groups_ops.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;

/* clang's OpenCL base header (included by default) gives CLK_LOCAL_MEM_FENCE; the functions come from the
 * module's kernel library, declared here as the module's calls name them. */

u64 __attribute__((overloadable)) get_local_size(u32 d);
u64 __attribute__((overloadable)) get_enqueued_local_size(u32 d);
u64 __attribute__((overloadable)) get_local_linear_id(void);
void __attribute__((overloadable)) barrier(u32 flags);

static u32 local_count(void) { return (u32)(get_local_size(0) * get_local_size(1) * get_local_size(2)); }
static u32 enqueued_count(void) {
    return (u32)(get_enqueued_local_size(0) * get_enqueued_local_size(1) * get_enqueued_local_size(2));
}
static u32 local_index(void) { return (u32)get_local_linear_id(); }

/* OpenCL's fmin and fmax: the other argument when one is a NaN. */
#define FMIN(a, b) ((b) < (a) ? (b) : (a) != (a) ? (b) : (a))
#define FMAX(a, b) ((a) < (b) ? (b) : (a) != (a) ? (b) : (a))

static u64 fbits16(half v) { return (u64)__builtin_astype(v, u16); }
static half as16(u64 v) { return __builtin_astype((u16)v, half); }
static u64 fbits32(float v) { return (u64)__builtin_astype(v, u32); }
static float as32(u64 v) { return __builtin_astype((u32)v, float); }
static u64 fbits64(double v) { return __builtin_astype(v, u64); }
static double as64(u64 v) { return __builtin_astype(v, double); }

/* A slot's value of the given width, sign- or zero-extended: slots arrive extended as groups_ops.h says, but a
 * 32-bit warp shuffle moves only the low word and gives it back zero-extended, so the signed minimum and maximum
 * must not trust the high bits. */
static long sext(u64 v, u32 bits) { return bits - 1 >= 63 ? (long)v : (long)(v << (64 - bits)) >> (64 - bits); }
static u64 zext(u64 v, u32 bits) { return bits - 1 >= 63 ? v : v & ((1ul << bits) - 1); }

/* a op b, for op a constant groups_ops.h code. */
static u64 combine(u32 code, u64 a, u64 b) {
    u32 bits = ZP_GOP_BITS(code);
    switch (ZP_GOP_OP(code)) {
    case ZP_GOP_IADD: return a + b;
    case ZP_GOP_IMUL: return a * b;
    case ZP_GOP_AND: return a & b;
    case ZP_GOP_OR: return a | b;
    case ZP_GOP_XOR: return a ^ b;
    case ZP_GOP_SMIN: return sext(a, bits) < sext(b, bits) ? a : b;
    case ZP_GOP_SMAX: return sext(a, bits) > sext(b, bits) ? a : b;
    case ZP_GOP_UMIN: return zext(a, bits) < zext(b, bits) ? a : b;
    case ZP_GOP_UMAX: return zext(a, bits) > zext(b, bits) ? a : b;
    case ZP_GOP_FADD:
        return bits == 16 ? fbits16(as16(a) + as16(b)) : bits == 32 ? fbits32(as32(a) + as32(b)) : fbits64(as64(a) + as64(b));
    case ZP_GOP_FMUL:
        return bits == 16 ? fbits16(as16(a) * as16(b)) : bits == 32 ? fbits32(as32(a) * as32(b)) : fbits64(as64(a) * as64(b));
    case ZP_GOP_FMIN:
        return bits == 16 ? fbits16(FMIN(as16(a), as16(b))) : bits == 32 ? fbits32(FMIN(as32(a), as32(b)))
                                                                         : fbits64(FMIN(as64(a), as64(b)));
    case ZP_GOP_FMAX:
        return bits == 16 ? fbits16(FMAX(as16(a), as16(b))) : bits == 32 ? fbits32(FMAX(as32(a), as32(b)))
                                                                         : fbits64(FMAX(as64(a), as64(b)));
    default: return a;
    }
}

/* A work-group broadcast: the work-item whose linear local id is `from` publishes its value. Both libraries. */
u64 __zp_wg_broadcast(u64 x, u64 from, local u64 *s) {
    if (local_index() == from) s[0] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    u64 r = s[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

#if !ZP_SG_WARP

/* ---- Sub-groups of one work-item ---- */

u32 __zp_sg_size(void) { return 1; }
u32 __zp_sg_max_size(void) { return 1; }
u32 __zp_sg_count(void) { return local_count(); }
u32 __zp_sg_enqueued_count(void) { return enqueued_count(); }
u32 __zp_sg_id(void) { return local_index(); }
u32 __zp_sg_local_id(void) { return 0; }
/* A work-item alone needs no execution barrier, and its own accesses are ordered already. */
void __zp_sg_barrier(void) {}

u64 __zp_sg_collective(u64 x, u32 code, u64 identity, u32 kind, u32 cluster) {
    (void)code;
    (void)cluster;
    return (kind & 15) == ZP_GKIND_EXCLUSIVE ? identity : x;
}
/* Every lane index but 0 is past the sub-group, where SPIR-V leaves the result undefined: the value itself. */
u64 __zp_sg_shuffle(u64 x, u32 lane, u32 mode) { (void)lane; (void)mode; return x; }
u64 __zp_sg_shuffle_xor(u64 x, u32 mask, u32 mode) { (void)mask; (void)mode; return x; }
u64 __zp_sg_shuffle_up(u64 x, u32 delta, u32 mode) { (void)delta; (void)mode; return x; }
u64 __zp_sg_shuffle_down(u64 x, u32 delta, u32 mode) { (void)delta; (void)mode; return x; }
u64 __zp_sg_broadcast_first(u64 x, u32 mode) { (void)mode; return x; }
u32 __zp_sg_ballot(u32 p, u32 mode) { (void)mode; return p ? 1u : 0u; }
u32 __zp_sg_all(u32 p, u32 mode) { (void)mode; return p ? 1u : 0u; }
u32 __zp_sg_any(u32 p, u32 mode) { (void)mode; return p ? 1u : 0u; }
u32 __zp_sg_elect(void) { return 1; }

/* One pass by the first work-item over every work-item's value, in the order of their linear ids: s holds a slot
 * per work-item of the largest group and one more, for the total. Starting from the first value rather than the
 * identity keeps a reduction of one value that value (-0.0 + 0.0 is +0.0, fmin(+inf, NaN) is +inf). */
u64 __zp_wg_collective(u64 x, u32 code, u64 identity, u32 kind, local u64 *s) {
    u32 n = local_count(), i = local_index();
    s[i] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == 0) {
        u64 acc = s[0];
        if (kind == ZP_GKIND_EXCLUSIVE) s[0] = identity;
        for (u32 k = 1; k < n; k++) {
            u64 v = s[k];
            if (kind == ZP_GKIND_EXCLUSIVE) s[k] = acc;
            acc = combine(code, acc, v);
            if (kind == ZP_GKIND_INCLUSIVE) s[k] = acc;
        }
        s[n] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    u64 r = kind == ZP_GKIND_REDUCE ? s[n] : s[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

#else

/* ---- Sub-groups of 32 work-items: the warp ---- */

/* NVVM's intrinsics, named for the NVPTX back end (the module is SPIR until ze_cuda retargets it). */
u32 nv_shfl_idx(u32 mask, u32 v, u32 lane, u32 c) __asm("llvm.nvvm.shfl.sync.idx.i32");
u32 nv_shfl_bfly(u32 mask, u32 v, u32 lane_mask, u32 c) __asm("llvm.nvvm.shfl.sync.bfly.i32");
u32 nv_shfl_up(u32 mask, u32 v, u32 delta, u32 c) __asm("llvm.nvvm.shfl.sync.up.i32");
u32 nv_shfl_down(u32 mask, u32 v, u32 delta, u32 c) __asm("llvm.nvvm.shfl.sync.down.i32");
u32 nv_ballot(u32 mask, bool p) __asm("llvm.nvvm.vote.ballot.sync");
void nv_warp_sync(u32 mask) __asm("llvm.nvvm.bar.warp.sync");
bool nv_isspacep_shared(private char *p) __asm("llvm.nvvm.isspacep.shared");
bool nv_isspacep_global(private char *p) __asm("llvm.nvvm.isspacep.global");
bool nv_isspacep_local(private char *p) __asm("llvm.nvvm.isspacep.local");
bool nv_isspacep_const(private char *p) __asm("llvm.nvvm.isspacep.const");
global char *nv_gen_to_global(private char *p) __asm("llvm.nvvm.ptr.gen.to.global.p1i8.p0i8");
local char *nv_gen_to_shared(private char *p) __asm("llvm.nvvm.ptr.gen.to.shared.p3i8.p0i8");

/* The lanes that reached this point together (LLVM 15 has no intrinsic for it). */
static u32 active_mask(void) {
    u32 m;
    __asm__ volatile("activemask.b32 %0;" : "=r"(m));
    return m;
}

/* A warp is 32 consecutive linear local ids, as CUDA numbers a block's threads (x fastest), which is OpenCL's
 * linear local id; the last warp of a group may hold fewer. */
static u32 lane_id(void) { return local_index() & 31; }
static u32 warp_size_of(u32 warp) {
    u32 left = local_count() - warp * 32;
    return left < 32 ? left : 32;
}
static u32 lanes_mask(u32 n) { return n >= 32 ? 0xffffffffu : (1u << n) - 1; }

u32 __zp_sg_size(void) { return warp_size_of(local_index() >> 5); }
/* The largest sub-group of the dispatch: a group of fewer than 32 work-items has no larger one. */
u32 __zp_sg_max_size(void) {
    u32 e = enqueued_count();
    return e < 32 ? e : 32;
}
u32 __zp_sg_count(void) { return (local_count() + 31) >> 5; }
u32 __zp_sg_enqueued_count(void) { return (enqueued_count() + 31) >> 5; }
u32 __zp_sg_id(void) { return local_index() >> 5; }
u32 __zp_sg_local_id(void) { return lane_id(); }
void __zp_sg_barrier(void) { nv_warp_sync(lanes_mask(__zp_sg_size())); }

/* The lanes of a uniform instruction are the whole sub-group; of a non-uniform one, those active. */
static u32 mask_for(u32 nonuniform) { return nonuniform ? active_mask() : lanes_mask(__zp_sg_size()); }

static u64 shfl_idx(u32 mask, u64 x, u32 lane, u32 wide) {
    u64 lo = nv_shfl_idx(mask, (u32)x, lane, 31);
    return wide ? lo | (u64)nv_shfl_idx(mask, (u32)(x >> 32), lane, 31) << 32 : lo;
}
static u64 shfl_up(u32 mask, u64 x, u32 delta, u32 wide) {
    u64 lo = nv_shfl_up(mask, (u32)x, delta, 0);
    return wide ? lo | (u64)nv_shfl_up(mask, (u32)(x >> 32), delta, 0) << 32 : lo;
}
static u64 shfl_down(u32 mask, u64 x, u32 delta, u32 wide) {
    u64 lo = nv_shfl_down(mask, (u32)x, delta, 31);
    return wide ? lo | (u64)nv_shfl_down(mask, (u32)(x >> 32), delta, 31) << 32 : lo;
}
static u64 shfl_xor(u32 mask, u64 x, u32 lane_mask, u32 wide) {
    u64 lo = nv_shfl_bfly(mask, (u32)x, lane_mask, 31);
    return wide ? lo | (u64)nv_shfl_bfly(mask, (u32)(x >> 32), lane_mask, 31) << 32 : lo;
}

u64 __zp_sg_shuffle(u64 x, u32 lane, u32 mode) {
    return shfl_idx(mask_for(mode & ZP_GMODE_NONUNIFORM), x, lane, mode & ZP_GMODE_WIDE);
}
u64 __zp_sg_shuffle_xor(u64 x, u32 m, u32 mode) {
    return shfl_xor(mask_for(mode & ZP_GMODE_NONUNIFORM), x, m, mode & ZP_GMODE_WIDE);
}
u64 __zp_sg_shuffle_up(u64 x, u32 delta, u32 mode) {
    return shfl_up(mask_for(mode & ZP_GMODE_NONUNIFORM), x, delta, mode & ZP_GMODE_WIDE);
}
u64 __zp_sg_shuffle_down(u64 x, u32 delta, u32 mode) {
    return shfl_down(mask_for(mode & ZP_GMODE_NONUNIFORM), x, delta, mode & ZP_GMODE_WIDE);
}
u64 __zp_sg_broadcast_first(u64 x, u32 mode) {
    u32 m = mask_for(mode & ZP_GMODE_NONUNIFORM);
    return shfl_idx(m, x, (u32)__builtin_ctz(m), mode & ZP_GMODE_WIDE);
}
u32 __zp_sg_ballot(u32 p, u32 mode) { return nv_ballot(mask_for(mode & ZP_GMODE_NONUNIFORM), p != 0); }
u32 __zp_sg_all(u32 p, u32 mode) {
    u32 m = mask_for(mode & ZP_GMODE_NONUNIFORM);
    return nv_ballot(m, p != 0) == m;
}
u32 __zp_sg_any(u32 p, u32 mode) { return nv_ballot(mask_for(mode & ZP_GMODE_NONUNIFORM), p != 0) != 0; }
u32 __zp_sg_elect(void) { return lane_id() == (u32)__builtin_ctz(active_mask()); }

/* A reduction over the first n lanes of a warp (all in mask): down a tree to lane 0, whose result every lane
 * then reads, so that all get the same bits whatever the operation's rounding. */
static u64 warp_reduce(u64 x, u32 code, u32 n, u32 mask) {
    u32 lane = lane_id(), wide = ZP_GOP_BITS(code) > 32;
    for (u32 o = 16; o > 0; o >>= 1) {
        u64 y = shfl_down(mask, x, o, wide);
        if (lane + o < n) x = combine(code, x, y);
    }
    return shfl_idx(mask, x, 0, wide);
}
/* An inclusive scan over the first n lanes of a warp, lane order. */
static u64 warp_scan(u64 x, u32 code, u32 mask) {
    u32 lane = lane_id(), wide = ZP_GOP_BITS(code) > 32;
    for (u32 o = 1; o < 32; o <<= 1) {
        u64 y = shfl_up(mask, x, o, wide);
        if (lane >= o) x = combine(code, y, x);
    }
    return x;
}

/* Non-uniform collectives: the active lanes may be any set, so every lane reads every active lane's value in lane
 * order and keeps those its operation takes. All active lanes run the same iterations (the mask is theirs). */
static u64 active_collective(u64 x, u32 code, u64 identity, u32 kind, u32 cluster) {
    u32 m = active_mask(), lane = lane_id(), wide = ZP_GOP_BITS(code) > 32;
    u64 acc = identity;
    bool any = false;
    for (u32 l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        u64 v = shfl_idx(m, x, l, wide);
        bool take = kind == ZP_GKIND_REDUCE ? true
                    : kind == ZP_GKIND_INCLUSIVE ? l <= lane
                    : kind == ZP_GKIND_EXCLUSIVE ? l < lane
                                                 : (l & ~(cluster - 1)) == (lane & ~(cluster - 1));
        if (take) {
            acc = any ? combine(code, acc, v) : v;
            any = true;
        }
    }
    return acc;
}

u64 __zp_sg_collective(u64 x, u32 code, u64 identity, u32 kind, u32 cluster) {
    if (kind & ZP_GKIND_NONUNIFORM) return active_collective(x, code, identity, kind & 15, cluster);
    u32 n = __zp_sg_size(), mask = lanes_mask(n), wide = ZP_GOP_BITS(code) > 32;
    if (kind == ZP_GKIND_REDUCE) return warp_reduce(x, code, n, mask);
    u64 in = warp_scan(x, code, mask);
    if (kind == ZP_GKIND_INCLUSIVE) return in;
    u64 ex = shfl_up(mask, in, 1, wide);
    return lane_id() == 0 ? identity : ex;
}

/* Work-group collectives: each warp reduces or scans its own lanes, its last lane leaves the warp's total in s
 * (a slot per warp, and one for the result: ZP_GWARP_SCRATCH), the first warp combines the totals, and each
 * work-item adds what the warps before its own hold. */
u64 __zp_wg_collective(u64 x, u32 code, u64 identity, u32 kind, local u64 *s) {
    u32 i = local_index(), lane = i & 31, w = i >> 5, n = warp_size_of(w), mask = lanes_mask(n);
    u32 warps = (local_count() + 31) >> 5, wide = ZP_GOP_BITS(code) > 32;
    if (kind == ZP_GKIND_REDUCE) {
        u64 r = warp_reduce(x, code, n, mask);
        if (lane == 0) s[w] = r;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (w == 0) {
            u64 t = warp_reduce(lane < warps ? s[lane] : identity, code, warps, mask);
            if (lane == 0) s[32] = t;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        r = s[32];
        barrier(CLK_LOCAL_MEM_FENCE);
        return r;
    }
    u64 in = warp_scan(x, code, mask);
    if (lane == n - 1) s[w] = in;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (w == 0) {
        u64 t = warp_scan(lane < warps ? s[lane] : identity, code, mask);
        if (lane < warps) s[lane] = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    u64 before = w > 0 ? s[w - 1] : identity;
    u64 ex = shfl_up(mask, in, 1, wide);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (kind == ZP_GKIND_INCLUSIVE) return w > 0 ? combine(code, before, in) : in;
    if (lane == 0) return before;
    return w > 0 ? combine(code, before, ex) : ex;
}

/* The generic pointer as a pointer of a named space, or null when it points elsewhere. The conversion is NVVM's,
 * not an addrspacecast: LLVM folds a cast to global of a select between generic casts of a local and a global
 * pointer into a cast from local to global, which NVPTX cannot select (it ends the process). Private is NVPTX's
 * generic space in ze_cuda's mapping, so to_private only checks. */
global char *__zp_to_global(generic char *p) {
    private char *q = (private char *)p;
    return p && nv_isspacep_global(q) ? nv_gen_to_global(q) : 0;
}
local char *__zp_to_local(generic char *p) {
    private char *q = (private char *)p;
    return p && nv_isspacep_shared(q) ? nv_gen_to_shared(q) : 0;
}
private char *__zp_to_private(generic char *p) {
    private char *q = (private char *)p;
    return p && nv_isspacep_local(q) ? q : 0;
}

/* Which space a generic pointer points into, as the hardware knows it. */
u32 __zp_space_of(generic char *p, u32 op) {
    (void)op;
    private char *q = (private char *)p;
    if (!p) return ZP_GSPACE_NULL;
    if (nv_isspacep_global(q)) return ZP_GSPACE_GLOBAL;
    if (nv_isspacep_shared(q)) return ZP_GSPACE_LOCAL;
    if (nv_isspacep_local(q)) return ZP_GSPACE_PRIVATE;
    if (nv_isspacep_const(q)) return ZP_GSPACE_CONSTANT;
    return ZP_GSPACE_NULL;
}

#endif

/* ---- Ballots, for both: a sub-group has at most 32 work-items, so only a ballot's first word has bits ---- */

static u32 sg_lanes(void) {
    u32 n = __zp_sg_size();
    return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}
/* The bits of lanes up to and including the caller's (le) or below it (lt). */
static u32 lanes_le(void) { return __zp_sg_local_id() >= 31 ? 0xffffffffu : (2u << __zp_sg_local_id()) - 1; }
static u32 lanes_lt(void) { return (1u << __zp_sg_local_id()) - 1; }

u32 __zp_sg_lane_mask(u32 kind) {
    u32 eq = 1u << __zp_sg_local_id();
    switch (kind) {
    case ZP_GMASK_EQ: return eq;
    case ZP_GMASK_GE: return ~lanes_lt() & sg_lanes();
    case ZP_GMASK_GT: return ~lanes_le() & sg_lanes();
    case ZP_GMASK_LE: return lanes_le();
    default: return lanes_lt();
    }
}
u32 __zp_sg_inverse_ballot(u32 bits) { return bits >> __zp_sg_local_id() & 1; }
u32 __zp_sg_bit_count(u32 bits, u32 kind) {
    u32 m = kind == ZP_GKIND_INCLUSIVE ? lanes_le() : kind == ZP_GKIND_EXCLUSIVE ? lanes_lt() : sg_lanes();
    return (u32)__builtin_popcount(bits & m);
}
/* Without a bit set SPIR-V leaves the result undefined; these give 0 and ~0 (ctz and 31 - clz of 0). */
u32 __zp_sg_find_lsb(u32 bits) {
    bits &= sg_lanes();
    return bits ? (u32)__builtin_ctz(bits) : 0;
}
u32 __zp_sg_find_msb(u32 bits) {
    bits &= sg_lanes();
    return bits ? 31 - (u32)__builtin_clz(bits) : 0xffffffffu;
}

/* Checked launches (spirv/bounds.cpp): whether the access of size bytes at addr lies inside one allocation of the
 * bounds table at table (its layout is ZE_krt_bounds_check's, driver/include/ze_krt_bounds.h: word 0 the current
 * ranges array, [count, unused, base0, end0, base1, end1, ...] sorted by base; word 1 the fault flag; words 2 to 7
 * the first fault: address, size, kind and kernel, global id; word 8 the count of accesses refused). 1: make it;
 * 0: it was refused, and the first refusal of a launch is recorded for the runtime. The table and the ranges are
 * never written while a launch runs, so they are read plainly. */
u64 __attribute__((overloadable)) get_global_id(u32 d);
u32 __attribute__((overloadable)) atomic_cmpxchg(volatile __global u32 *p, u32 cmp, u32 val);
u32 __attribute__((overloadable)) atomic_add(volatile __global u32 *p, u32 v);

/* The bounds table's current ranges array. */
static __global const u64 *ranges_of(u64 table) { return (__global const u64 *)((__global u64 *)table)[0]; }

/* How many allocations of the ranges r start at or below addr (a binary search over the bases): the last of them,
 * number n - 1, starts at r[2 * n] and ends at r[1 + 2 * n]; 0 when none does. */
static u64 ranges_at_or_below(__global const u64 *r, u64 addr) {
    u64 lo = 0, hi = r[0];
    while (lo < hi) {
        u64 mid = (lo + hi) >> 1;
        if (r[2 + 2 * mid] <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The allocation holding addr, as (base, end); (0, 0) when none does: a kernel's pointer argument, looked up once
 * at its entry on the GPU (bounds.cpp; the CPU unrolls its own lookup there). */
ulong2 __zp_bounds_arg(u64 table, u64 addr) {
    __global const u64 *r = ranges_of(table);
    u64 n = ranges_at_or_below(r, addr);
    if (n && addr < r[1 + 2 * n]) return (ulong2)(r[2 * n], r[1 + 2 * n]);
    return (ulong2)(0, 0);
}

int __zp_bounds_refuse(u64 table, u64 addr, u64 size, u32 kind, u32 kern);

int __zp_bounds_check(u64 table, u64 addr, u64 size, u32 kind, u32 kern) {
    __global const u64 *r = ranges_of(table);
    u64 n = ranges_at_or_below(r, addr);
    if (n && addr + size >= addr && addr + size <= r[1 + 2 * n]) return 1;
    return __zp_bounds_refuse(table, addr, size, kind, kern);
}

/* count refused accesses of a work-item recorded, the first of them, described by addr, size and kind, in full
 * when it is the first of the launch, all of them counted. Called at a kernel's exit by the GPU's deferred record
 * (bounds.cpp), and by __zp_bounds_refuse for one access. */
void __zp_bounds_record(u64 table, u64 addr, u64 size, u32 kind, u32 kern, u32 count) {
    __global u64 *t = (__global u64 *)table;
    if (atomic_cmpxchg((volatile __global u32 *)(t + 1), 0u, 1u) == 0u) {
        t[2] = addr;
        t[3] = size;
        t[4] = (u64)kind | (u64)kern << 32;
        t[5] = get_global_id(0);
        t[6] = get_global_id(1);
        t[7] = get_global_id(2);
    }
    atomic_add((volatile __global u32 *)(t + 8), count);
    /* ZE_KRT_BOUNDS_NOTIFY: the host's word, set after the record. */
    if (t[9]) *(volatile __global u32 *)t[9] = 1u;
}

/* A refused access recorded (the first of a launch in full, the others counted); 0, or 1 for an access of no
 * bytes. Called directly for an access through a kernel argument that leaves the argument's own allocation. */
int __zp_bounds_refuse(u64 table, u64 addr, u64 size, u32 kind, u32 kern) {
    if (size == 0) return 1;
    __zp_bounds_record(table, addr, size, kind, kern, 1);
    return 0;
}

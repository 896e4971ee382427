/* What the front end's group lowering (groups.cpp) and its library of group functions (groups_lib.cl, OpenCL C)
 * agree on: the operation codes and kinds that the lowering passes to the library as constants, so that each
 * library function folds to the one operation asked for once inlined. Included by both languages: plain macros.
 *
 * Values cross as 64-bit "slots": an integer sign-extended for the signed minimum and maximum, zero-extended for
 * everything else (the low bits of a sum, product or bitwise result do not depend on the high ones), a boolean as
 * 0 or 1, a floating-point value as its bits, zero-extended. The lowering truncates the result back. */
#ifndef ZP_SPIRV_GROUPS_OPS_H
#define ZP_SPIRV_GROUPS_OPS_H

/* The operation, in the low byte of an op code. */
#define ZP_GOP_IADD 1
#define ZP_GOP_IMUL 2
#define ZP_GOP_AND 3
#define ZP_GOP_OR 4
#define ZP_GOP_XOR 5
#define ZP_GOP_SMIN 6
#define ZP_GOP_SMAX 7
#define ZP_GOP_UMIN 8
#define ZP_GOP_UMAX 9
#define ZP_GOP_FADD 10
#define ZP_GOP_FMUL 11
#define ZP_GOP_FMIN 12
#define ZP_GOP_FMAX 13
/* The width of the values in bits, in the second byte: 1, 8, 16, 32 or 64 (floating point: 16, 32 or 64). */
#define ZP_GOP(op, bits) ((op) | (bits) << 8)
#define ZP_GOP_OP(code) ((code) & 0xff)
#define ZP_GOP_BITS(code) ((code) >> 8 & 0xff)

/* What a collective computes (SPIR-V's GroupOperation, and ClusteredReduce), and whether it is one of the
 * non-uniform instructions (OpGroupNonUniform*), which the active work-items of a sub-group run, rather than all. */
#define ZP_GKIND_REDUCE 0
#define ZP_GKIND_INCLUSIVE 1
#define ZP_GKIND_EXCLUSIVE 2
#define ZP_GKIND_CLUSTERED 3
#define ZP_GKIND_NONUNIFORM 16

/* Shuffles: the value's width (a slot of 32 bits moves as one word, of 64 as two) and uniformity. */
#define ZP_GMODE_WIDE 1
#define ZP_GMODE_NONUNIFORM 2

/* Sub-group lane masks (SubgroupEqMask ... SubgroupLtMask): which lanes relative to the caller's. */
#define ZP_GMASK_EQ 0
#define ZP_GMASK_GE 1
#define ZP_GMASK_GT 2
#define ZP_GMASK_LE 3
#define ZP_GMASK_LT 4

/* Address spaces a generic pointer may point into, as SPIR numbers them (the answer of __zp_space_of). */
#define ZP_GSPACE_PRIVATE 0
#define ZP_GSPACE_GLOBAL 1
#define ZP_GSPACE_CONSTANT 2
#define ZP_GSPACE_LOCAL 3
#define ZP_GSPACE_NULL 5

/* Slots of work-group scratch (__local ulong) the warp library needs: one per warp of the largest group (1024
 * work-items: 32 warps) and one for the result. The size-1 library needs one per work-item of the device's largest
 * group and one more (zp_module_src.max_group_size + 1). */
#define ZP_GWARP_SCRATCH 33

#endif

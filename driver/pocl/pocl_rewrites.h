/* ze_pocl's translation: the SPIR-V front end's (spirv/spirv.h) with PoCL's own rewrites of the translated
 * module (pocl_rewrites.cpp), as the self-check chose them for the installed PoCL (selfcheck.c, zp_pocl_caps). */
#ifndef ZP_POCL_REWRITES_H
#define ZP_POCL_REWRITES_H

#include <stddef.h>

#include "../../spirv/spirv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PoCL's rewrites, in the bits the front end leaves to backends: one word carries these and zp_spirv_flags (the
 * self-check caches it per PoCL, and ze_pocl_selfcheck takes it as FLAGS). */
enum zp_pocl_rewrite_flags {
    ZP_POCL_LOWER_VLOADSTORE = 1u << 5, /* vloadN / vstoreN -> element loads and stores (PoCL 5.0's SPIR
                                         * wrappers turn a vstore16 into a kernel that does nothing) */
    ZP_POCL_REGIONS = 1u << 6,          /* tell LLVM that group sizes and counts are never zero, and refuse
                                         * kernels with a barrier and a loop that LLVM's optimizer makes
                                         * endless: PoCL's work-group builder aborts on them (issue 8) */
    ZP_POCL_REWRITES = ZP_POCL_LOWER_VLOADSTORE | ZP_POCL_REGIONS,
};

/* zp_spirv_translate (spirv/spirv.h) with PoCL's rewrites: flags are zp_spirv_flags and zp_pocl_rewrite_flags
 * together. Returns a zp_spirv_status. Thread-safe. */
__attribute__((visibility("hidden"))) int zp_pocl_translate(const zp_module_src *src, unsigned flags, void **out,
                                                             size_t *out_size, zp_module_meta *meta, char **log);

/* Raises LLVM's unswitch-threshold (SimpleLoopUnswitch's size limit, 50 by default) to 2048 in the libLLVM this
 * process shares with PoCL, unless it was set already: PoCL wraps a kernel in loops over its work-items, and a
 * checked kernel's test of its whole group (spirv/bounds.cpp, version_groups) is a branch on a value invariant in
 * those loops whose two arms are the kernel twice, over the limit, so the branch stayed inside the 2-D and 3-D loops
 * and kept them scalar (docs/performance.md, "Checked launches"). Called once, before PoCL compiles a kernel; a
 * PoCL linked to another libLLVM is left as it is. */
__attribute__((visibility("hidden"))) void zp_pocl_tune_llvm(void);

#ifdef __cplusplus
}
#endif

#endif

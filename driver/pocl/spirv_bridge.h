/* SPIR-V -> LLVM bitcode with OpenCL 1.2 builtin names, in process, plus the per-kernel facts the
 * driver reports (argument kinds and sizes, required group size, local, private and spill memory).
 * The only C++ of ze_pocl sits behind this C interface (spirv_bridge.cpp). */
#ifndef ZP_SPIRV_BRIDGE_H
#define ZP_SPIRV_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "../backend.h"

#ifdef __cplusplus
extern "C" {
#endif

enum zp_bridge_status {
    ZP_BRIDGE_OK = 0,
    ZP_BRIDGE_INVALID_BINARY, /* not SPIR-V at all: bad size, magic or instruction stream */
    ZP_BRIDGE_BUILD_FAILURE,  /* SPIR-V the translator refuses (unsupported capability, bad module) */
    ZP_BRIDGE_OUT_OF_MEMORY,
};

/* Translates one SPIR-V module. On success *bitcode (malloc'd, *bitcode_size bytes) and *meta are
 * filled; on failure *log (malloc'd) says why. *log may also be set on success. Thread-safe. */
__attribute__((visibility("hidden"))) int zp_spirv_to_bitcode(const zp_module_src *src, void **bitcode,
                                                               size_t *bitcode_size, zp_module_meta *meta,
                                                               char **log);

/* What zp_spirv_translate does beyond the translation itself, chosen per PoCL by what it reports
 * (driver/pocl/program.c, zp_pocl_caps). */
enum zp_bridge_flags {
    ZP_BRIDGE_FENCES_TO_LLVM = 1u << 0, /* mem_fence, read_mem_fence, write_mem_fence -> LLVM fence seq_cst */
    ZP_BRIDGE_WAIT_PRIVATE = 1u << 1,   /* wait_group_events on a generic pointer -> the private-pointer form */
    ZP_BRIDGE_OCL20 = 1u << 3,          /* OpenCL 2.0 builtin names (generic pointers, C11 atomics), as PoCL's own
                                         * SPIR-V path asks its translator for on devices with generic address
                                         * space support; OpenCL 1.2 names otherwise */
    ZP_BRIDGE_EMIT_SPIRV = 1u << 4,     /* write SPIR-V 1.2 of the processed (inlined, specialized) module
                                         * instead of bitcode, for clCreateProgramWithIL */
    ZP_BRIDGE_LOWER_VLOADSTORE = 1u << 5, /* vloadN / vstoreN -> element loads and stores (PoCL 5.0's SPIR
                                           * wrappers turn a vstore16 into a kernel that does nothing) */
    ZP_BRIDGE_POCL_REGIONS = 1u << 6,   /* tell LLVM that group sizes and counts are never zero, and refuse
                                         * kernels with a barrier and a loop that LLVM's optimizer makes
                                         * endless: PoCL's work-group builder aborts on them (issue 8) */
    ZP_BRIDGE_EXACT_RANGE = 1u << 7,    /* the hidden exact-range argument and the builtins answered from it
                                         * (driver/spirv/exact_range.cpp, ZE_krt_exact_range) */
};

/* zp_spirv_to_bitcode with the rewrites and output chosen by flags (zp_spirv_to_bitcode is this with the
 * two rewrites PoCL 3.1 needs). With ZP_BRIDGE_EMIT_SPIRV, *bitcode holds SPIR-V words. Thread-safe. */
__attribute__((visibility("hidden"))) int zp_spirv_translate(const zp_module_src *src, unsigned flags,
                                                              void **bitcode, size_t *bitcode_size,
                                                              zp_module_meta *meta, char **log);

/* Translates a minimal module once, so the translator's and LLVM's one-time set-up happens at start-up
 * rather than in the first module build. */
__attribute__((visibility("hidden"))) void zp_spirv_warm_up(void);

/* Frees what zp_spirv_to_bitcode put in meta. */
__attribute__((visibility("hidden"))) void zp_spirv_meta_free(zp_module_meta *meta);

#ifdef __cplusplus
}
#endif

#endif

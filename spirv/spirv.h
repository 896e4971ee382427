/* The SPIR-V front end of krt's drivers (ze_pocl, ze_cuda): one SPIR-V module in, one LLVM module out (SPIR 1.2
 * bitcode with OpenCL builtin names, or SPIR-V 1.2 written back from it), plus the per-kernel facts the drivers
 * report (argument kinds and sizes, required group size, local, private and spill memory). On the way: the
 * structural checks that keep the SPIR-V translator from ending the process (precheck.cpp), SPIRV-Tools'
 * validator on a normalized copy (validate.cpp), the translation with the specialization constants applied
 * (translate.cpp, spec_consts.cpp), the builtin forms asked for (builtins.cpp), every helper inlined into its
 * kernels (inline.cpp), the facts (meta.cpp) and the exact-range variants (exact_range.cpp).
 *
 * The C++ behind this C interface depends on LLVM 15, libLLVMSPIRVLib and SPIRV-Tools, never on a driver or on
 * libkrt. A backend that adds LLVM passes of its own to the translation uses spirv/passes.h (C++). */
#ifndef ZP_SPIRV_H
#define ZP_SPIRV_H

#include <stddef.h>
#include <stdint.h>

#include "module.h"

#ifdef __cplusplus
extern "C" {
#endif

enum zp_spirv_status {
    ZP_SPIRV_OK = 0,
    ZP_SPIRV_INVALID_BINARY, /* not SPIR-V at all: bad size, magic or instruction stream */
    ZP_SPIRV_BUILD_FAILURE,  /* SPIR-V the translator refuses (unsupported capability, bad module) */
    ZP_SPIRV_OUT_OF_MEMORY,
};

/* What the translation does beyond translating, chosen by each backend for the kernel library it links. The
 * bits not named here are left to a backend's own passes (driver/pocl/pocl_rewrites.h takes bits 5 and 6), so
 * that one word can carry both. */
enum zp_spirv_flags {
    ZP_SPIRV_FENCES_TO_LLVM = 1u << 0, /* mem_fence, read_mem_fence, write_mem_fence -> LLVM fence seq_cst */
    ZP_SPIRV_WAIT_PRIVATE = 1u << 1,   /* wait_group_events on a generic pointer -> the private-pointer form */
    ZP_SPIRV_OCL20 = 1u << 3,          /* OpenCL 2.0 builtin names (generic pointers, C11 atomics), as PoCL's own
                                        * SPIR-V path asks its translator for on devices with generic address
                                        * space support; OpenCL 1.2 names otherwise */
    ZP_SPIRV_EMIT_SPIRV = 1u << 4,     /* write SPIR-V 1.2 of the processed (inlined, specialized) module
                                        * instead of bitcode, for clCreateProgramWithIL */
    ZP_SPIRV_EXACT_RANGE = 1u << 7,    /* the hidden exact-range argument and the builtins answered from it
                                        * (spirv/exact_range.cpp, ZE_krt_exact_range) */
    ZP_SPIRV_GLOBALS_KERNEL = 1u << 8, /* the kernel that reports where the program-scope variables are
                                        * (ZP_GLOBALS_KERNEL, spirv/globals.cpp) */
    ZP_SPIRV_WARP_SUBGROUPS = 1u << 9, /* sub-groups are NVPTX warps of 32 work-items (ze_cuda); without it a
                                        * sub-group is one work-item (spirv/groups.cpp) */
    ZP_SPIRV_SHORT_NAMES = 1u << 10,   /* a kernel whose name is not a plain identifier of at most
                                        * ZP_SHORT_NAME_MAX bytes gets a short internal one, kept in
                                        * zp_kernel_meta.backend_name (spirv/names.cpp), for a compiler that makes
                                        * a file name of it (PoCL) */
    ZP_SPIRV_GENERIC_BUILTINS = 1u << 11, /* builtins with a pointer parameter (frexp, modf, fract, sincos,
                                           * remquo, lgamma_r, vloadN, vstoreN, vload_half, vstore_half, ...)
                                           * called on a generic pointer call the overload of the pointer's
                                           * space, or the private one through a private copy (spirv/spaces.cpp),
                                           * for a kernel library without generic overloads (PoCL 3.1) */
    ZP_SPIRV_BOUNDS_AT_EXIT = 1u << 12,   /* checked modules: a work-item keeps its refusals and records them at
                                           * its kernel's exit (spirv/bounds.cpp, Deferred): ze_cuda's way, and
                                           * ze_pocl's under the test knob KRT_ZE_POCL_BOUNDS_AT_EXIT=1 */
    ZP_SPIRV_PTX_NAMES = 1u << 13,        /* a kernel whose name is not a PTX identifier (letters, digits, '_' and
                                           * '$'; a SPIR-V name may hold any character) gets an internal one, kept
                                           * in zp_kernel_meta.backend_name (spirv/names.cpp): NVPTX stops the
                                           * process on any other ("Symbol name with unsupported characters") */
};

/* Translates one SPIR-V module with what flags ask for (zp_spirv_flags; other bits are ignored). On success
 * *out (malloc'd, *out_size bytes: bitcode, or SPIR-V words with ZP_SPIRV_EMIT_SPIRV) and *meta are filled; on
 * failure *log (malloc'd) says why. *log may also be set on success. Returns a zp_spirv_status. Thread-safe. */
__attribute__((visibility("hidden"))) int zp_spirv_translate(const zp_module_src *src, unsigned flags, void **out,
                                                              size_t *out_size, zp_module_meta *meta, char **log);

/* Translates a minimal module once, so the translator's and LLVM's one-time set-up happens at start-up
 * rather than in the first module build. */
__attribute__((visibility("hidden"))) void zp_spirv_warm_up(void);

/* Frees what zp_spirv_translate put in meta. */
__attribute__((visibility("hidden"))) void zp_spirv_meta_free(zp_module_meta *meta);

#ifdef __cplusplus
}
#endif

#endif

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

/* Translates a minimal module once, so the translator's and LLVM's one-time set-up happens at start-up
 * rather than in the first module build. */
__attribute__((visibility("hidden"))) void zp_spirv_warm_up(void);

/* Frees what zp_spirv_to_bitcode put in meta. */
__attribute__((visibility("hidden"))) void zp_spirv_meta_free(zp_module_meta *meta);

#ifdef __cplusplus
}
#endif

#endif

/* ze_cuda's translation: SPIR-V -> LLVM (the SPIR-V front end, spirv/spirv.h, which ze_pocl uses too)
 * -> NVPTX LLVM linked with libclc -> PTX. The only C++ of ze_cuda sits behind this C interface (ptx.cpp).
 * Nothing here needs a GPU or the CUDA driver, so make test runs it on every machine. */
#ifndef ZC_PTX_H
#define ZC_PTX_H

#include <stddef.h>
#include <stdint.h>

#include "../backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Results, as zp_spirv_translate's (enum zp_spirv_status, spirv/spirv.h). */
enum { ZC_OK = 0, ZC_INVALID_BINARY = 1, ZC_BUILD_FAILURE = 2, ZC_OUT_OF_MEMORY = 3 };

/* The PTX target: LLVM 15 knows no sm_90; the CUDA driver JIT-compiles sm_80 PTX for Hopper. */
#define ZC_PTX_ARCH "sm_80"
#define ZC_PTX_FEATURES "+ptx75"

/* The front half: SPIR-V -> LLVM bitcode (malloc'd) and per-kernel facts, then the checks for what CUDA
 * cannot express (image, sampler and pipe arguments). On failure *log (malloc'd) names what was wrong. */
__attribute__((visibility("hidden"))) int zc_front(const zp_module_src *src, void **bitcode, size_t *size,
                                                    zp_module_meta *meta, char **log);

/* The most local (private) memory CUDA gives one thread: 512 KiB, the Programming Guide's limit for every compute
 * capability CUDA 12 and 13 support, which ptxas enforces (a kernel past it fails the whole module's build). */
#define ZC_LOCAL_MAX (512u * 1024u)

/* The back half: that bitcode -> PTX text (malloc'd, NUL-terminated). libclc's NVPTX library is read from
 * $ZE_CUDA_LIBCLC, else /usr/lib/clc/nvptx64--nvidiacl.bc. meta (zc_front's, or NULL): a kernel whose private memory
 * there is past ZC_LOCAL_MAX (issue 39: a module may ask for 2^64 bytes of private array per work-item) keeps its
 * entry but loses its body, which becomes a trap, so that the module's other kernels build and run; ze_cuda refuses
 * every launch of it (zc_kernel_create reports that private size, driver/kernel.c refuses it). Thread-safe. */
__attribute__((visibility("hidden"))) int zc_back(const void *bitcode, size_t size, const zp_module_meta *meta,
                                                   char **ptx, char **log);

/* The libclc file zc_back reads. */
__attribute__((visibility("hidden"))) const char *zc_libclc_path(void);

#ifdef __cplusplus
}
#endif

#endif

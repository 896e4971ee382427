/* The reflection of a SPIR-V module (reflect.c): its kernels' signatures and what the launch configuration and
 * the device checks need, read with SPIRV-Tools' binary parser. Shared by libkrt's runtime (module creation,
 * argument checks, krt_kernel_info) and krt's host driver (its call interfaces), so that neither reaches into
 * the other. Plain C; the argument descriptions are krt.h's public krt_arg_info. */
#ifndef KRT_SPIRV_REFLECT_H
#define KRT_SPIRV_REFLECT_H

#include <stddef.h>
#include <stdint.h>

#include "krt.h"

typedef struct krt_spv_kernel {
    char *name;
    uint32_t num_args;
    krt_arg_info *args;
    uint32_t required_group[3]; /* reqd_work_group_size, or 0,0,0 */
    uint32_t group_hint[3];     /* work_group_size_hint, or 0,0,0 */
    /* For the launch configuration, over the kernel's call tree: a work-group barrier or collective, a use of
     * static __local memory (a module-scope Workgroup variable), and the number of __local arguments. */
    int uses_barrier;
    int uses_static_local;
    uint32_t local_args;
    /* The static __local variables of the call tree, for messages: "tile (1296 bytes), ..." ("" for none). */
    const char *local_vars;
    /* The module marks the kernel KRT_ANY_GROUP(name): its result does not depend on its group size. */
    int any_group;
} krt_spv_kernel;

/* A specialization constant the module declares: its SpecId and the bytes its type takes (0: unsized). */
typedef struct krt_spv_spec {
    uint32_t spec_id;
    uint32_t size;
} krt_spv_spec;

typedef struct krt_spv_reflection {
    uint32_t num_kernels;
    krt_spv_kernel *kernels;
    const char **kernel_names;
    krt_arg_info *all_args; /* one array; kernels[k].args point into it */
    uint32_t pointer_size;
    int uses_fp16, uses_fp64, uses_int64_atomics;
    char *strings; /* one block holding every name above */
    uint32_t num_spec_constants; /* those with a SpecId, in module order */
    krt_spv_spec *spec_constants;
} krt_spv_reflection;

/* Parses num_words words of SPIR-V into *out. KRT_SUCCESS; KRT_ERROR_INVALID_MODULE with the parser's
 * diagnostic and word offset in err (err_size bytes) when the module does not parse or cannot be reflected;
 * KRT_ERROR_OUT_OF_HOST_MEMORY. *out holds nothing to free unless it succeeded. Thread-safe. */
krt_result krt_spv_reflect(const uint32_t *words, size_t num_words, krt_spv_reflection *out, char *err,
                           size_t err_size);
void krt_spv_reflection_free(krt_spv_reflection *refl);
/* The kernel of that name and its index, or NULL. */
const krt_spv_kernel *krt_spv_reflection_find(const krt_spv_reflection *refl, const char *name, uint32_t *index);

#endif

/* What a module is built from and what the SPIR-V front end learns of its kernels: the plain data that the front
 * end (spirv/) and the drivers' object model (driver/backend.h, which includes this file) pass between them.
 * C, and nothing here names Level Zero, OpenCL or CUDA. */
#ifndef ZP_SPIRV_MODULE_H
#define ZP_SPIRV_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Argument kinds of a kernel, read from the module itself. */
enum zp_arg_kind {
    ZP_ARG_SCALAR = 0,   /* a value of a scalar or vector type */
    ZP_ARG_GLOBAL,       /* __global pointer */
    ZP_ARG_CONSTANT,     /* __constant pointer */
    ZP_ARG_LOCAL,        /* __local pointer: set as (size, NULL) */
    ZP_ARG_BYVAL,        /* struct passed by value */
    ZP_ARG_UNSUPPORTED   /* images, samplers, pipes: rejected at set-argument time */
};

typedef struct zp_arg_meta {
    uint32_t kind; /* enum zp_arg_kind */
    uint32_t size; /* bytes the caller must pass (pointer size for pointers) */
} zp_arg_meta;

/* Per-kernel facts computed from the module (never from per-program backend queries, which are wrong
 * when a program holds several kernels). */
typedef struct zp_kernel_meta {
    char *name;              /* the module's name of the kernel, which every Level Zero call uses */
    char *backend_name;      /* with ZP_SPIRV_SHORT_NAMES, the name the backend's program knows the kernel (and,
                              * followed by ZP_EXACT_SUFFIX, its exact-range variant) by, where that is not name
                              * (spirv/names.cpp); NULL where it is name. zp_kernel_backend_name gives either */
    uint32_t num_args;
    zp_arg_meta *args;
    uint32_t reqd[3];        /* required work-group size, zeros when none */
    uint32_t reqd_subgroup;  /* required sub-group size (intel_reqd_sub_group_size), 0 when none */
    char *attrs;             /* the source attributes zeKernelGetSourceAttributes gives (space-separated, as
                              * OpenCL C writes them: "work_group_size_hint(1,1,1)"); NULL for none */
    uint64_t local_static;   /* bytes of __local variables the kernel and its callees use */
    uint64_t private_size;   /* bytes of private memory per work-item (all stack objects, callees included) */
    uint64_t spill_size;     /* bytes of that held in arrays and aggregates, which cannot live in registers */
    bool whole_groups;       /* calls a barrier, a work-group or a sub-group function: every work-item of a group
                              * must take part, so a partial group runs as a launch of its own (exec.c) */
} zp_kernel_meta;

/* The name the backend's program knows kernel k by: its short internal name where the front end gave one
 * (ZP_SPIRV_SHORT_NAMES), else its own. */
static inline const char *zp_kernel_backend_name(const zp_kernel_meta *k) {
    return k->backend_name ? k->backend_name : k->name;
}

/* A program-scope variable the module exports (a `global` or `constant` variable of OpenCL C 2.0 at program
 * scope): what zeModuleGetGlobalPointer answers for. */
typedef struct zp_global_meta {
    char *name;
    uint64_t size;   /* bytes */
    bool constant;   /* in the constant address space (`constant` in OpenCL C): never written */
    uint64_t offset; /* with ZP_SPIRV_GLOBALS_KERNEL: where it lies in the module's storage (below), or UINT64_MAX
                      * when it is not there */
    uint8_t *init;   /* a constant's value, size bytes (malloc'd), when the front end could write it out; else NULL */
} zp_global_meta;

typedef struct zp_module_meta {
    uint32_t count;
    zp_kernel_meta *kernels;
    uint32_t num_globals;
    zp_global_meta *globals;
    /* With ZP_SPIRV_GLOBALS_KERNEL: bytes of the module's storage for its program-scope variables, 0 for none. When
     * not 0, every kernel (and its exact-range variant) takes one more argument after its own, a global pointer to
     * that storage, which the backend allocates and sets (ZP_GLOBALS_KERNEL fills it first). */
    uint64_t globals_size;
} zp_module_meta;

/* What a module is built from. */
typedef struct zp_module_src {
    const uint8_t *spirv;
    size_t size;
    const char *flags;             /* build flags as the caller gave them, may be NULL */
    uint32_t num_spec;
    const uint32_t *spec_ids;
    const void *const *spec_values;
    /* What the device supports: modules declaring other capabilities are refused. */
    bool fp16;
    bool fp64;
    bool int64_atomics;
    /* The device's largest work-group (work-items): work-group collectives on sub-groups of one work-item keep a
     * slot per work-item in __local memory (spirv/groups.cpp). 0 when unknown: such a module is refused. */
    uint32_t max_group_size;
    /* The host device (driver/host/): the native library holding the module's kernels, from a
     * ze_krt_host_library_desc_t (driver/include/ze_krt_host.h) in the module descriptor's pNext chain; NULL
     * elsewhere. */
    const char *host_library;
    /* Checked launches: the device address of the bounds table (ze_krt_bounds_check_desc_t, driver/include/
     * ze_krt_bounds.h), whose allocations every global memory access of the module is checked against
     * (spirv/bounds.cpp); 0 for an unchecked module. */
    uint64_t bounds_table;
} zp_module_src;

/* The name of a kernel's exact-range variant: the kernel's own followed by this suffix. The front end adds one
 * per kernel where asked (spirv/exact_range.cpp, ZP_SPIRV_EXACT_RANGE); driver/backend.h says how a backend
 * launches it (zp_exact_desc). */
#define ZP_EXACT_SUFFIX "$exact"

/* The longest kernel name the front end leaves as it is with ZP_SPIRV_SHORT_NAMES (spirv/names.cpp): the name, its
 * exact-range variant's suffix and PoCL's ".so" then fit a file name (NAME_MAX, 255 bytes; 253 aborted PoCL). */
#define ZP_SHORT_NAME_MAX 240

/* The kernel the front end adds, where asked (ZP_SPIRV_GLOBALS_KERNEL), to a module with program-scope variables,
 * for a backend whose compiler gives each kernel its own copy of them (PoCL 3.1): the module's kernels then reach
 * the variables in one storage of globals_size bytes, passed as their hidden last argument, and this kernel, given
 * the storage as its one argument, writes the variables' initial values into it. Run once before any other. */
#define ZP_GLOBALS_KERNEL "zp_globals_addresses_"

#endif

/* The reflection of a SPIR-V module (reflect.c): its kernels' signatures and what the launch configuration and
 * the device checks need, read with SPIRV-Tools' binary parser. Shared by libkrt's runtime (module creation,
 * argument checks, krt_kernel_info) and krt's host driver (its call interfaces), so that neither reaches into
 * the other. Plain C, in the front end's own types: the front end sits below the runtime and grows with what
 * producers' SPIR-V holds without touching krt's public header; libkrt's runtime translates these types into
 * krt.h's (runtime/src/module.c), the host driver into the object model's. */
#ifndef KRT_SPIRV_REFLECT_H
#define KRT_SPIRV_REFLECT_H

#include <stddef.h>
#include <stdint.h>

/* What krt_spv_reflect answers. */
typedef enum krt_spv_status {
    KRT_SPV_OK = 0,
    KRT_SPV_INVALID_MODULE, /* the module does not parse or cannot be reflected; the message says where */
    KRT_SPV_OUT_OF_MEMORY,
} krt_spv_status;

/* An argument's kind, by its SPIR-V type: a pointer's storage class (CrossWorkgroup or Generic: global,
 * UniformConstant: constant, Workgroup: local), a Function pointer with FuncParamAttr ByVal (a struct by value),
 * a scalar or vector; anything else (images, samplers, types without a layout) is OTHER. */
typedef enum krt_spv_arg_kind {
    KRT_SPV_ARG_GLOBAL_POINTER,
    KRT_SPV_ARG_CONSTANT_POINTER,
    KRT_SPV_ARG_LOCAL_POINTER,
    KRT_SPV_ARG_SCALAR,
    KRT_SPV_ARG_STRUCT,
    KRT_SPV_ARG_OTHER,
} krt_spv_arg_kind;

/* A scalar's (or a vector's component's) SPIR-V type: integers by width, as SPIR-V gives them no sign. */
typedef enum krt_spv_scalar {
    KRT_SPV_TYPE_NONE, /* pointers to non-scalars, structs, other types */
    KRT_SPV_TYPE_INT8,
    KRT_SPV_TYPE_INT16,
    KRT_SPV_TYPE_INT32,
    KRT_SPV_TYPE_INT64,
    KRT_SPV_TYPE_FLOAT16,
    KRT_SPV_TYPE_FLOAT32,
    KRT_SPV_TYPE_FLOAT64,
    KRT_SPV_TYPE_BOOL,
} krt_spv_scalar;

/* One kernel argument. */
typedef struct krt_spv_arg {
    krt_spv_arg_kind kind;
    krt_spv_scalar type;   /* scalars: the element type; pointers: the pointee's element type if scalar */
    uint32_t vector_width; /* 1 for plain scalars */
    uint32_t size;         /* bytes a launch passes: the pointer size for pointers, 0 for local pointers and for
                            * types without a layout (OpenCL C rules; over 4 GiB has none) */
    const char *name;      /* from OpName; "" when the module carries none */
    const char *type_name; /* the OpenCL C type as declared (llvm-spirv's kernel_arg_type strings); "" if none */
} krt_spv_arg;

typedef struct krt_spv_kernel {
    char *name;
    uint32_t num_args;
    krt_spv_arg *args;
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
    /* Bytes of private memory one work-item takes: the Function-storage variables of the kernel plus those of its
     * deepest call path, saturating at UINT64_MAX (a module may declare an array of 2^64 - 2^32 + 16 ulongs). The
     * host driver refuses a launch a work-item's stack cannot hold by it. */
    uint64_t private_bytes;
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
    krt_spv_arg *all_args; /* one array; kernels[k].args point into it */
    uint32_t pointer_size;
    int uses_fp16, uses_fp64, uses_int64_atomics;
    char *strings; /* one block holding every name above */
    uint32_t num_spec_constants; /* those with a SpecId, in module order */
    krt_spv_spec *spec_constants;
} krt_spv_reflection;

/* Parses num_words words of SPIR-V into *out. KRT_SPV_OK; KRT_SPV_INVALID_MODULE with the parser's diagnostic
 * and word offset in err (err_size bytes) when the module does not parse or cannot be reflected;
 * KRT_SPV_OUT_OF_MEMORY, said in err too. *out holds nothing to free unless it succeeded. Thread-safe. */
krt_spv_status krt_spv_reflect(const uint32_t *words, size_t num_words, krt_spv_reflection *out, char *err,
                               size_t err_size);
void krt_spv_reflection_free(krt_spv_reflection *refl);
/* The kernel of that name and its index, or NULL. */
const krt_spv_kernel *krt_spv_reflection_find(const krt_spv_reflection *refl, const char *name, uint32_t *index);

#endif

/* dlpack_abi.h: the DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html) as the Python package needs it:
 * the tensor, its managed forms (legacy, and versioned since DLPack 1.0) and the codes krt exports or accepts.
 * Written from the specification; the layouts are fixed by it. */
#ifndef KRT_PY_DLPACK_ABI_H
#define KRT_PY_DLPACK_ABI_H

#include <stdint.h>

enum {
    KRT_DL_CPU = 1,
    KRT_DL_CUDA = 2,
    KRT_DL_CUDA_HOST = 3,
    KRT_DL_CUDA_MANAGED = 13,
    KRT_DL_ONEAPI = 14,
};

enum { KRT_DL_INT = 0, KRT_DL_UINT = 1, KRT_DL_FLOAT = 2, KRT_DL_BFLOAT = 4, KRT_DL_COMPLEX = 5, KRT_DL_BOOL = 6 };

#define KRT_DL_FLAG_READ_ONLY (1ull << 0)
#define KRT_DL_FLAG_IS_COPIED (1ull << 1)

typedef struct {
    int32_t device_type;
    int32_t device_id;
} krt_dl_device;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} krt_dl_dtype;

typedef struct {
    void *data;
    krt_dl_device device;
    int32_t ndim;
    krt_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: compact row-major */
    uint64_t byte_offset;
} krt_dl_tensor;

typedef struct krt_dl_managed {
    krt_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct krt_dl_managed *self);
} krt_dl_managed;

typedef struct {
    uint32_t major;
    uint32_t minor;
} krt_dl_version;

typedef struct krt_dl_managed_v {
    krt_dl_version version;
    void *manager_ctx;
    void (*deleter)(struct krt_dl_managed_v *self);
    uint64_t flags;
    krt_dl_tensor dl_tensor;
} krt_dl_managed_v;

#endif

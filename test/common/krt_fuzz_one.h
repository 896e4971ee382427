/* One input of the module fuzzer and of the regression corpus (test/test_repro.c, test/fuzz/fuzz_module.c):
 * SPIR-V bytes through krt_module_create, then, when the module loads, one launch of each kernel with
 * arguments built from its reflection. Public API only; no Criterion, so the fuzzer can link it too. */
#ifndef KRT_TEST_KRT_FUZZ_ONE_H
#define KRT_TEST_KRT_FUZZ_ONE_H

#include <stddef.h>
#include <stdint.h>

#include "krt.h"

typedef enum kf_outcome {
    KF_REFUSED = 0,      /* krt_module_create returned an error with a message */
    KF_LOADED = 1,       /* the module loaded; every launchable kernel ran to completion */
    KF_BAD_ERROR = 2,    /* an error without a message, or success without a module */
    KF_LAUNCH_ERROR = 3, /* a kernel of a loaded module could not be launched (see kf_report.detail) */
    KF_KERNEL_HANG = 4,  /* a launched kernel did not finish within the timeout: kernel code (see krt.h) */
} kf_outcome;

typedef struct kf_report {
    kf_outcome outcome;
    krt_result module_result; /* what krt_module_create returned */
    uint32_t kernels;         /* kernels of a loaded module */
    uint32_t launched;        /* of those, launched and completed */
    uint32_t skipped;         /* of those, not launchable by design: an image or sampler argument, a by-value
                                 argument over 4096 bytes, more than 64 arguments, or refused with a reason */
    char detail[512];         /* the error message, or what went wrong */
} kf_report;

/* Scratch buffers that pointer arguments get; made once per context (kf_pool_create) and zeroed before each
 * launch, so a launch reads zeros and writes where the last one wrote. */
#define KF_POOL_BUFFERS 8
#define KF_POOL_BYTES (256u * 1024u)
/* The launch range: small, so that mutated index arithmetic rarely leaves the buffers. */
#define KF_RANGE 64
/* Value of integer scalar arguments: a count within KF_RANGE, so kernels that guard on a size do run. */
#define KF_INT_VALUE 16

typedef struct kf_pool {
    krt_context *ctx;
    void *buf[KF_POOL_BUFFERS];
} kf_pool;

krt_result kf_pool_create(krt_context *ctx, kf_pool *pool);
void kf_pool_destroy(kf_pool *pool);

/* Runs one input; launch 0 stops after krt_module_create. timeout_ns bounds each kernel's wait. */
void kf_run_one(kf_pool *pool, const void *code, size_t size, int launch, uint64_t timeout_ns, kf_report *out);

const char *kf_outcome_name(kf_outcome o);

#endif

/* Shared helpers for the libkrt tests. They use the public API only (krt.h) and fail the calling Criterion
 * test on any unexpected result, printing the result's name and krt's message to help the reader. */
#ifndef KRT_TEST_KRT_TEST_H
#define KRT_TEST_KRT_TEST_H

#include <stddef.h>
#include <stdint.h>

#include <criterion/criterion.h>

#include "krt.h"

/* Per-test timeout in seconds for Criterion's .timeout: generous for a loaded two-core machine; only a hang
 * reaches it. */
#define KT_TEST_TIMEOUT 240

/* Fails the test unless the call returns KRT_SUCCESS; the call is evaluated once. */
#define KT_OK(call)                                                                                       \
    do {                                                                                                  \
        krt_result kt_r_ = (call);                                                                        \
        cr_assert_eq(kt_r_, KRT_SUCCESS, "%s returned %s: %s", #call, krt_result_name(kt_r_),           \
                     krt_last_error_message());                                                           \
    } while (0)

/* Fails the test unless the call returns exactly the given code. For an error code, the thread's last error
 * message must also be non-empty (its text is never compared). */
#define KT_EXPECT(call, code)                                                                             \
    do {                                                                                                  \
        krt_result kt_r_ = (call);                                                                        \
        cr_assert_eq(kt_r_, (code), "%s returned %s, expected %s (message: %s)", #call,                  \
                     krt_result_name(kt_r_), krt_result_name(code), krt_last_error_message());            \
        if ((int)(code) < 0) {                                                                            \
            const char *kt_m_ = krt_last_error_message();                                                 \
            cr_assert(kt_m_ != NULL && kt_m_[0] != '\0', "%s failed with an empty message", #call);       \
        }                                                                                                 \
    } while (0)

/* A context on the default device; desc may be NULL. */
krt_context *kt_context(const krt_context_desc *desc);
/* Skips the test when it runs on the host device (KRT_DEVICE=host, the second pass of make test), saying why:
 * what the test needs that the host device does not do (docs/api.md, "The host device"). */
void kt_skip_on_host(const char *why);
/* Skips the test when the OpenCL C compiler krt-cc runs is not installed (KRT_CLANG, else clang-15, and
 * KRT_LLVM_SPIRV, else llvm-spirv-15, looked up as krt-cc does): a test of OpenCL C source modules then says so
 * instead of failing, as on the GPU machine, which has no clang. make deps installs both here. */
void kt_skip_without_clang(void);

/* $KRT_TEST_KERNELS/<name>.spv; name may contain a subfolder ("o2/krt_o2_loopmerge"). Static storage. */
const char *kt_kernel_path(const char *name);
/* Reads a whole file; the caller frees the buffer. Fails the test when the file cannot be read. */
void *kt_read_file(const char *path, size_t *size);
/* Loads $KRT_TEST_KERNELS/<name>.spv from its path with every default. */
krt_module *kt_module(krt_context *ctx, const char *name);
krt_kernel *kt_kernel(krt_module *module, const char *name);

/* krt_alloc of the given kind with the default alignment; fails the test on error. */
void *kt_alloc(krt_context *ctx, size_t size, krt_memory_kind kind);

/* Copies between host memory and krt memory on the default queue and waits for it. */
void kt_copy_sync(krt_context *ctx, void *dst, const void *src, size_t size);

/* A 1-D launch description with krt choosing the group size. */
krt_launch_desc kt_desc1(uint64_t n, const krt_arg *args, uint32_t num_args);

/* Proves the context still works: loads the basic module afresh, runs krt_iota over 1000 items with a
 * dynamic group size into device memory, and checks every value. */
void kt_assert_usable(krt_context *ctx);

/* get_local_size of the item with index id in a dimension of `size` items in groups of `group`: the group
 * size, or the real size of a partial last group (exact ranges, OpenCL 2.0's non-uniform groups). */
uint32_t kt_local_size_at(uint64_t size, uint32_t group, uint64_t id);

/* Greatest power of two <= x, for x >= 1. */
uint64_t kt_prevpow2(uint64_t x);
/* Least power of two >= x. */
uint64_t kt_nextpow2(uint64_t x);

#endif

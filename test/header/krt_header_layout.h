/* The public structs' layout as one translation unit sees it: sizes, field offsets and enum values that C
 * and C++ must agree on. Used by the header compile checks and by test/test_header.c. */
#ifndef KRT_TEST_HEADER_LAYOUT_H
#define KRT_TEST_HEADER_LAYOUT_H

#include <stddef.h>

#define KT_LAYOUT_LIST(X)                                                                                  \
    X(sizeof(krt_result)) X(KRT_ERROR_DRIVER) X(KRT_LIMIT_MIN_GROUPS) X(KRT_TYPE_BOOL)                     \
    X(sizeof(krt_logger)) X(offsetof(krt_logger, user_data)) X(offsetof(krt_logger, max_level))            \
    X(sizeof(krt_context_desc)) X(offsetof(krt_context_desc, spill_budget))                                \
    X(offsetof(krt_context_desc, min_groups)) X(offsetof(krt_context_desc, flags))                         \
    X(offsetof(krt_context_desc, logger))                                                                  \
    X(sizeof(krt_device_info)) X(offsetof(krt_device_info, driver_name)) X(offsetof(krt_device_info, type)) \
    X(offsetof(krt_device_info, max_group)) X(offsetof(krt_device_info, sub_group_sizes))                  \
    X(offsetof(krt_device_info, memory_bytes)) X(offsetof(krt_device_info, int64_atomics))                 \
    X(offsetof(krt_device_info, device_memory_host_accessible))                                            \
    X(sizeof(krt_driver_info)) X(offsetof(krt_driver_info, path)) X(offsetof(krt_driver_info, status))      \
    X(offsetof(krt_driver_info, num_devices)) X(offsetof(krt_driver_info, reason))                          \
    X(sizeof(krt_alloc_desc)) X(offsetof(krt_alloc_desc, alignment))                                       \
    X(sizeof(krt_queue_desc)) X(sizeof(krt_event_desc))                                                    \
    X(sizeof(krt_spec_constant)) X(offsetof(krt_spec_constant, size))                                      \
    X(sizeof(krt_module_desc)) X(offsetof(krt_module_desc, path)) X(offsetof(krt_module_desc, validation)) \
    X(sizeof(krt_arg_info)) X(offsetof(krt_arg_info, name))                                                \
    X(sizeof(krt_kernel_info)) X(offsetof(krt_kernel_info, group_hint))                                    \
    X(offsetof(krt_kernel_info, uses_barrier)) X(offsetof(krt_kernel_info, local_args)) X(KRT_LIMIT_TUNED)  \
    X(sizeof(krt_tune_desc)) X(sizeof(krt_tune_result)) X(offsetof(krt_tune_result, candidates))           \
    X(sizeof(krt_kernel_properties)) X(offsetof(krt_kernel_properties, spill_mem_size))                    \
    X(sizeof(krt_arg)) X(offsetof(krt_arg, size))                                                          \
    X(sizeof(krt_ndrange)) X(offsetof(krt_ndrange, size))                                                  \
    X(sizeof(krt_launch_config)) X(offsetof(krt_launch_config, limit)) X(offsetof(krt_launch_config, masked)) \
    X(sizeof(krt_launch_desc)) X(offsetof(krt_launch_desc, args)) X(offsetof(krt_launch_desc, wait))       \
    X(offsetof(krt_launch_desc, num_wait))                                                                 \
    X(offsetof(krt_module_desc, source)) X(offsetof(krt_module_desc, compile_options))                     \
    X(offsetof(krt_arg, type)) X(KRT_ARG_TYPE_POINTER) X(sizeof(krt_module_info))                          \
    X(offsetof(krt_module_info, warnings))                                                                 \
    X(sizeof(krt_host_task_desc)) X(offsetof(krt_host_task_desc, signal)) X(offsetof(krt_host_task_desc, num_wait))

#define KT_LAYOUT_COUNT_(e) +1
enum { KT_LAYOUT_COUNT = 0 KT_LAYOUT_LIST(KT_LAYOUT_COUNT_) };

#ifdef __cplusplus
extern "C" {
#endif
/* Each compile check defines one of these; each fills out[0 .. KT_LAYOUT_COUNT). */
void kt_layout_c11(size_t *out);
void kt_layout_c17(size_t *out);
void kt_layout_cxx11(size_t *out);
void kt_layout_cxx17(size_t *out);
/* KRT_ARG's type tags for variables of these types, in order (C11 and later through _Generic, C++ through
 * overloads): signed char, unsigned char, short, unsigned short, int, unsigned, long, unsigned long, long long,
 * unsigned long long, float, double, float *, const void *, const double *, a struct, int8_t, uint64_t. */
#define KT_TAG_COUNT 18
void kt_tags_c11(int *out);
void kt_tags_c17(int *out);
void kt_tags_cxx11(int *out);
void kt_tags_cxx17(int *out);
/* The C compilations also fill the rvalue helpers' tags and check their values: KRT_I8 .. KRT_F64, KRT_PTR. */
#define KT_HELPER_COUNT 11
int kt_helpers_c11(int *out);
int kt_helpers_c17(int *out);
/* The C++ checks also call krt_result_name through krt.h's declarations. */
const char *kt_name_cxx11(int code);
const char *kt_name_cxx17(int code);
#ifdef __cplusplus
}
#endif

#endif

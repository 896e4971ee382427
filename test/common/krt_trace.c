/* Counting Level Zero calls with the tracing layer; see krt_trace.h. */
#include "krt_trace.h"

#include <stdatomic.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <level_zero/ze_api.h>
#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/layers/zel_tracing_register_cb.h>

static atomic_ulong counts[KT_ZE_COUNT];

#define KT_TRACE_CB(fn, params_t, slot)                                                                    \
    static void fn(params_t *p, ze_result_t r, void *user, void **inst)                                    \
    {                                                                                                      \
        (void)p;                                                                                           \
        (void)r;                                                                                           \
        (void)user;                                                                                        \
        (void)inst;                                                                                        \
        atomic_fetch_add(&counts[slot], 1);                                                                \
    }
KT_TRACE_CB(on_module_create, ze_module_create_params_t, KT_ZE_MODULE_CREATE)
KT_TRACE_CB(on_device_props, ze_device_get_properties_params_t, KT_ZE_DEVICE_GET_PROPERTIES)
KT_TRACE_CB(on_compute_props, ze_device_get_compute_properties_params_t, KT_ZE_DEVICE_GET_COMPUTE_PROPERTIES)
KT_TRACE_CB(on_module_props, ze_device_get_module_properties_params_t, KT_ZE_DEVICE_GET_MODULE_PROPERTIES)
KT_TRACE_CB(on_memory_props, ze_device_get_memory_properties_params_t, KT_ZE_DEVICE_GET_MEMORY_PROPERTIES)

void kt_trace_start(void)
{
    setenv("ZE_ENABLE_TRACING_LAYER", "1", 1);
    cr_assert_eq(zeInit(0), ZE_RESULT_SUCCESS);
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, NULL};
    zel_tracer_handle_t t = NULL;
    cr_assert_eq(zelTracerCreate(&desc, &t), ZE_RESULT_SUCCESS, "the tracing layer is not loaded");
    cr_assert_eq(zelTracerModuleCreateRegisterCallback(t, ZEL_REGISTER_PROLOGUE, on_module_create), ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerDeviceGetPropertiesRegisterCallback(t, ZEL_REGISTER_PROLOGUE, on_device_props),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerDeviceGetComputePropertiesRegisterCallback(t, ZEL_REGISTER_PROLOGUE, on_compute_props),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerDeviceGetModulePropertiesRegisterCallback(t, ZEL_REGISTER_PROLOGUE, on_module_props),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerDeviceGetMemoryPropertiesRegisterCallback(t, ZEL_REGISTER_PROLOGUE, on_memory_props),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerSetEnabled(t, 1), ZE_RESULT_SUCCESS);
}

unsigned long kt_trace_count(kt_ze_function fn)
{
    return atomic_load(&counts[fn]);
}

unsigned long kt_trace_device_queries(void)
{
    return kt_trace_count(KT_ZE_DEVICE_GET_PROPERTIES) + kt_trace_count(KT_ZE_DEVICE_GET_COMPUTE_PROPERTIES) +
           kt_trace_count(KT_ZE_DEVICE_GET_MODULE_PROPERTIES) + kt_trace_count(KT_ZE_DEVICE_GET_MEMORY_PROPERTIES);
}

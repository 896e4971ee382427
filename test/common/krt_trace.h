/* Counting Level Zero calls from outside krt with the loader's tracing layer (ZE_ENABLE_TRACING_LAYER=1).
 * kt_trace_start() must run before the process's first krt call: it turns the layer on, runs zeInit itself
 * (krt's own zeInit is then a repeat) and enables a tracer that counts the functions below. */
#ifndef KRT_TEST_KRT_TRACE_H
#define KRT_TEST_KRT_TRACE_H

typedef enum {
    KT_ZE_MODULE_CREATE,
    KT_ZE_DEVICE_GET_PROPERTIES,
    KT_ZE_DEVICE_GET_COMPUTE_PROPERTIES,
    KT_ZE_DEVICE_GET_MODULE_PROPERTIES,
    KT_ZE_DEVICE_GET_MEMORY_PROPERTIES,
    KT_ZE_COUNT
} kt_ze_function;

void kt_trace_start(void);
/* Calls of the function since kt_trace_start(). */
unsigned long kt_trace_count(kt_ze_function fn);
/* The sum of the four device property queries. */
unsigned long kt_trace_device_queries(void);

#endif

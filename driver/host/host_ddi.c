/* The host driver's tables for libkrt: the getters of driver/ddi.c, renamed by driver/host/rename.h, fill one
 * ze_dditable_t that libkrt calls through for contexts on the host device. */
#include "../zp.h"
#include "host.h"

ze_result_t krt__host_ddi(ze_dditable_t *t) {
    ze_api_version_t v = ZE_API_VERSION_CURRENT;
    ze_result_t r = ZE_RESULT_SUCCESS;
#define GET(fn, field)                                  \
    if (r == ZE_RESULT_SUCCESS) r = fn(v, &t->field);
    GET(zeGetGlobalProcAddrTable, Global)
    GET(zeGetDriverProcAddrTable, Driver)
    GET(zeGetDeviceProcAddrTable, Device)
    GET(zeGetContextProcAddrTable, Context)
    GET(zeGetCommandQueueProcAddrTable, CommandQueue)
    GET(zeGetCommandListProcAddrTable, CommandList)
    GET(zeGetFenceProcAddrTable, Fence)
    GET(zeGetEventPoolProcAddrTable, EventPool)
    GET(zeGetEventProcAddrTable, Event)
    GET(zeGetModuleProcAddrTable, Module)
    GET(zeGetModuleBuildLogProcAddrTable, ModuleBuildLog)
    GET(zeGetKernelProcAddrTable, Kernel)
    GET(zeGetKernelExpProcAddrTable, KernelExp)
    GET(zeGetMemProcAddrTable, Mem)
#undef GET
    return r;
}

int krt__host_is_driver(const void *handle) { return handle != NULL && handle == (const void *)&zp_driver; }

int krt__host_is_device(const void *handle) {
    const struct _ze_device_handle_t *d = handle;
    return d != NULL && zp_driver.devices != NULL && d >= zp_driver.devices &&
           d < zp_driver.devices + zp_driver.num_devices;
}

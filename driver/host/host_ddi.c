/* The host driver's one entry point (driver/include/ze_krt_host.h): the getters of driver/ddi.c, under the
 * object model's own names (driver/ddi.h; this copy of driver/ has no ddi_export.c), fill one ze_dditable_t that
 * libkrt calls through for contexts on the host device. */
#include "../zp.h"
#include "../ddi.h"

ze_result_t krt__host_ddi(ze_dditable_t *t, ze_krt_driver_status_t *status) {
    ze_api_version_t v = ZE_API_VERSION_CURRENT;
    ze_result_t r = ZE_RESULT_SUCCESS;
#define GET(fn, field)                                  \
    if (r == ZE_RESULT_SUCCESS) r = fn(v, &t->field);
    GET(zp_zeGetGlobalProcAddrTable, Global)
    GET(zp_zeGetDriverProcAddrTable, Driver)
    GET(zp_zeGetDeviceProcAddrTable, Device)
    GET(zp_zeGetContextProcAddrTable, Context)
    GET(zp_zeGetCommandQueueProcAddrTable, CommandQueue)
    GET(zp_zeGetCommandListProcAddrTable, CommandList)
    GET(zp_zeGetFenceProcAddrTable, Fence)
    GET(zp_zeGetEventPoolProcAddrTable, EventPool)
    GET(zp_zeGetEventProcAddrTable, Event)
    GET(zp_zeGetModuleProcAddrTable, Module)
    GET(zp_zeGetModuleBuildLogProcAddrTable, ModuleBuildLog)
    GET(zp_zeGetKernelProcAddrTable, Kernel)
    GET(zp_zeGetKernelExpProcAddrTable, KernelExp)
    GET(zp_zeGetMemProcAddrTable, Mem)
#undef GET
    if (status) zp_driver_status(status);
    return r;
}

/* The only symbols a Level Zero driver built from driver/ exports (exports.map): the table getters the loader
 * looks up by name, each the object model's getter (driver/ddi.c) under its Level Zero name. libkrt's
 * in-process host driver is built without this file, so it never clashes with the loader's exports. */
#include "ddi.h"
#include "zp.h"

/* Not a Level Zero entry point: libkrt finds it with dlsym to learn why a driver has no device
 * (include/ze_krt_driver_status.h). */
ZE_DLLEXPORT ze_result_t ZE_APICALL zeKrtDriverStatus(ze_krt_driver_status_t *status) {
    return zp_driver_status(status);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(ze_api_version_t version, ze_global_dditable_t *t) {
    return zp_zeGetGlobalProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDriverProcAddrTable(ze_api_version_t version, ze_driver_dditable_t *t) {
    return zp_zeGetDriverProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(ze_api_version_t version, ze_device_dditable_t *t) {
    return zp_zeGetDeviceProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDeviceExpProcAddrTable(ze_api_version_t version, ze_device_exp_dditable_t *t) {
    return zp_zeGetDeviceExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t) {
    return zp_zeGetContextProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetCommandQueueProcAddrTable(ze_api_version_t version, ze_command_queue_dditable_t *t) {
    return zp_zeGetCommandQueueProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetCommandListProcAddrTable(ze_api_version_t version, ze_command_list_dditable_t *t) {
    return zp_zeGetCommandListProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetImageProcAddrTable(ze_api_version_t version, ze_image_dditable_t *t) {
    return zp_zeGetImageProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetImageExpProcAddrTable(ze_api_version_t version, ze_image_exp_dditable_t *t) {
    return zp_zeGetImageExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetFenceProcAddrTable(ze_api_version_t version, ze_fence_dditable_t *t) {
    return zp_zeGetFenceProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventPoolProcAddrTable(ze_api_version_t version, ze_event_pool_dditable_t *t) {
    return zp_zeGetEventPoolProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *t) {
    return zp_zeGetEventProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventExpProcAddrTable(ze_api_version_t version, ze_event_exp_dditable_t *t) {
    return zp_zeGetEventExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t version, ze_module_dditable_t *t) {
    return zp_zeGetModuleProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetModuleBuildLogProcAddrTable(ze_api_version_t version, ze_module_build_log_dditable_t *t) {
    return zp_zeGetModuleBuildLogProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetKernelProcAddrTable(ze_api_version_t version, ze_kernel_dditable_t *t) {
    return zp_zeGetKernelProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetKernelExpProcAddrTable(ze_api_version_t version, ze_kernel_exp_dditable_t *t) {
    return zp_zeGetKernelExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetSamplerProcAddrTable(ze_api_version_t version, ze_sampler_dditable_t *t) {
    return zp_zeGetSamplerProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetPhysicalMemProcAddrTable(ze_api_version_t version, ze_physical_mem_dditable_t *t) {
    return zp_zeGetPhysicalMemProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *t) {
    return zp_zeGetMemProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetVirtualMemProcAddrTable(ze_api_version_t version, ze_virtual_mem_dditable_t *t) {
    return zp_zeGetVirtualMemProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetFabricVertexExpProcAddrTable(ze_api_version_t version, ze_fabric_vertex_exp_dditable_t *t) {
    return zp_zeGetFabricVertexExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetFabricEdgeExpProcAddrTable(ze_api_version_t version, ze_fabric_edge_exp_dditable_t *t) {
    return zp_zeGetFabricEdgeExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetDeviceProcAddrTable(ze_api_version_t version, zet_device_dditable_t *t) {
    return zp_zetGetDeviceProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetContextProcAddrTable(ze_api_version_t version, zet_context_dditable_t *t) {
    return zp_zetGetContextProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetCommandListProcAddrTable(ze_api_version_t version, zet_command_list_dditable_t *t) {
    return zp_zetGetCommandListProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetModuleProcAddrTable(ze_api_version_t version, zet_module_dditable_t *t) {
    return zp_zetGetModuleProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetKernelProcAddrTable(ze_api_version_t version, zet_kernel_dditable_t *t) {
    return zp_zetGetKernelProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricGroupProcAddrTable(ze_api_version_t version, zet_metric_group_dditable_t *t) {
    return zp_zetGetMetricGroupProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricGroupExpProcAddrTable(ze_api_version_t version, zet_metric_group_exp_dditable_t *t) {
    return zp_zetGetMetricGroupExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricProcAddrTable(ze_api_version_t version, zet_metric_dditable_t *t) {
    return zp_zetGetMetricProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricStreamerProcAddrTable(ze_api_version_t version, zet_metric_streamer_dditable_t *t) {
    return zp_zetGetMetricStreamerProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricQueryPoolProcAddrTable(ze_api_version_t version, zet_metric_query_pool_dditable_t *t) {
    return zp_zetGetMetricQueryPoolProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetMetricQueryProcAddrTable(ze_api_version_t version, zet_metric_query_dditable_t *t) {
    return zp_zetGetMetricQueryProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetTracerExpProcAddrTable(ze_api_version_t version, zet_tracer_exp_dditable_t *t) {
    return zp_zetGetTracerExpProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zetGetDebugProcAddrTable(ze_api_version_t version, zet_debug_dditable_t *t) {
    return zp_zetGetDebugProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetDriverProcAddrTable(ze_api_version_t version, zes_driver_dditable_t *t) {
    return zp_zesGetDriverProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetDeviceProcAddrTable(ze_api_version_t version, zes_device_dditable_t *t) {
    return zp_zesGetDeviceProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetSchedulerProcAddrTable(ze_api_version_t version, zes_scheduler_dditable_t *t) {
    return zp_zesGetSchedulerProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetPerformanceFactorProcAddrTable(ze_api_version_t version, zes_performance_factor_dditable_t *t) {
    return zp_zesGetPerformanceFactorProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetPowerProcAddrTable(ze_api_version_t version, zes_power_dditable_t *t) {
    return zp_zesGetPowerProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetFrequencyProcAddrTable(ze_api_version_t version, zes_frequency_dditable_t *t) {
    return zp_zesGetFrequencyProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetEngineProcAddrTable(ze_api_version_t version, zes_engine_dditable_t *t) {
    return zp_zesGetEngineProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetStandbyProcAddrTable(ze_api_version_t version, zes_standby_dditable_t *t) {
    return zp_zesGetStandbyProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetFirmwareProcAddrTable(ze_api_version_t version, zes_firmware_dditable_t *t) {
    return zp_zesGetFirmwareProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetMemoryProcAddrTable(ze_api_version_t version, zes_memory_dditable_t *t) {
    return zp_zesGetMemoryProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetFabricPortProcAddrTable(ze_api_version_t version, zes_fabric_port_dditable_t *t) {
    return zp_zesGetFabricPortProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetTemperatureProcAddrTable(ze_api_version_t version, zes_temperature_dditable_t *t) {
    return zp_zesGetTemperatureProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetPsuProcAddrTable(ze_api_version_t version, zes_psu_dditable_t *t) {
    return zp_zesGetPsuProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetFanProcAddrTable(ze_api_version_t version, zes_fan_dditable_t *t) {
    return zp_zesGetFanProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetLedProcAddrTable(ze_api_version_t version, zes_led_dditable_t *t) {
    return zp_zesGetLedProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetRasProcAddrTable(ze_api_version_t version, zes_ras_dditable_t *t) {
    return zp_zesGetRasProcAddrTable(version, t);
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zesGetDiagnosticsProcAddrTable(ze_api_version_t version, zes_diagnostics_dditable_t *t) {
    return zp_zesGetDiagnosticsProcAddrTable(version, t);
}

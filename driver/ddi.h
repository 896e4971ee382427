/* The table getters of driver/ddi.c under the object model's own names: ddi_export.c exports them under the
 * Level Zero names for the loader (libze_pocl.so, libze_cuda.so); libkrt's in-process host driver, which is
 * linked beside the loader's own exports of those names, calls these (driver/host/host_ddi.c). */
#ifndef ZP_DDI_H
#define ZP_DDI_H

#include <level_zero/ze_ddi.h>
#include <level_zero/zet_ddi.h>
#include <level_zero/zes_ddi.h>

#include "zp.h"

ZP_HIDDEN ze_result_t zp_zeGetGlobalProcAddrTable(ze_api_version_t version, ze_global_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetDriverProcAddrTable(ze_api_version_t version, ze_driver_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetDeviceProcAddrTable(ze_api_version_t version, ze_device_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetDeviceExpProcAddrTable(ze_api_version_t version, ze_device_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetCommandQueueProcAddrTable(ze_api_version_t version, ze_command_queue_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetCommandListProcAddrTable(ze_api_version_t version, ze_command_list_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetImageProcAddrTable(ze_api_version_t version, ze_image_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetImageExpProcAddrTable(ze_api_version_t version, ze_image_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetFenceProcAddrTable(ze_api_version_t version, ze_fence_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetEventPoolProcAddrTable(ze_api_version_t version, ze_event_pool_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetEventExpProcAddrTable(ze_api_version_t version, ze_event_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetModuleProcAddrTable(ze_api_version_t version, ze_module_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetModuleBuildLogProcAddrTable(ze_api_version_t version, ze_module_build_log_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetKernelProcAddrTable(ze_api_version_t version, ze_kernel_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetKernelExpProcAddrTable(ze_api_version_t version, ze_kernel_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetSamplerProcAddrTable(ze_api_version_t version, ze_sampler_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetPhysicalMemProcAddrTable(ze_api_version_t version, ze_physical_mem_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetVirtualMemProcAddrTable(ze_api_version_t version, ze_virtual_mem_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetFabricVertexExpProcAddrTable(ze_api_version_t version, ze_fabric_vertex_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zeGetFabricEdgeExpProcAddrTable(ze_api_version_t version, ze_fabric_edge_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetDeviceProcAddrTable(ze_api_version_t version, zet_device_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetContextProcAddrTable(ze_api_version_t version, zet_context_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetCommandListProcAddrTable(ze_api_version_t version, zet_command_list_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetModuleProcAddrTable(ze_api_version_t version, zet_module_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetKernelProcAddrTable(ze_api_version_t version, zet_kernel_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetMetricGroupProcAddrTable(ze_api_version_t version, zet_metric_group_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetMetricGroupExpProcAddrTable(ze_api_version_t version, zet_metric_group_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetMetricProcAddrTable(ze_api_version_t version, zet_metric_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetMetricStreamerProcAddrTable(ze_api_version_t version, zet_metric_streamer_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetMetricQueryPoolProcAddrTable(ze_api_version_t version, zet_metric_query_pool_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetMetricQueryProcAddrTable(ze_api_version_t version, zet_metric_query_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetTracerExpProcAddrTable(ze_api_version_t version, zet_tracer_exp_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zetGetDebugProcAddrTable(ze_api_version_t version, zet_debug_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetDriverProcAddrTable(ze_api_version_t version, zes_driver_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetDeviceProcAddrTable(ze_api_version_t version, zes_device_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetSchedulerProcAddrTable(ze_api_version_t version, zes_scheduler_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetPerformanceFactorProcAddrTable(ze_api_version_t version, zes_performance_factor_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetPowerProcAddrTable(ze_api_version_t version, zes_power_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetFrequencyProcAddrTable(ze_api_version_t version, zes_frequency_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetEngineProcAddrTable(ze_api_version_t version, zes_engine_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetStandbyProcAddrTable(ze_api_version_t version, zes_standby_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetFirmwareProcAddrTable(ze_api_version_t version, zes_firmware_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetMemoryProcAddrTable(ze_api_version_t version, zes_memory_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetFabricPortProcAddrTable(ze_api_version_t version, zes_fabric_port_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetTemperatureProcAddrTable(ze_api_version_t version, zes_temperature_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetPsuProcAddrTable(ze_api_version_t version, zes_psu_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetFanProcAddrTable(ze_api_version_t version, zes_fan_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetLedProcAddrTable(ze_api_version_t version, zes_led_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetRasProcAddrTable(ze_api_version_t version, zes_ras_dditable_t *t);
ZP_HIDDEN ze_result_t zp_zesGetDiagnosticsProcAddrTable(ze_api_version_t version, zes_diagnostics_dditable_t *t);

#endif

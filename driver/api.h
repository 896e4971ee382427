/* Prototypes of the Level Zero entry points ze_pocl implements, one per definition in the driver/ C files.
 * All hidden: the loader reaches them only through the tables that ddi.c fills. */
#ifndef ZP_API_H
#define ZP_API_H

#include "zp.h"

ZP_HIDDEN ze_result_t zp_zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_command_list_desc_t *desc, ze_command_list_handle_t *phList);
ZP_HIDDEN ze_result_t zp_zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_command_queue_desc_t *desc, ze_command_list_handle_t *phList);
ZP_HIDDEN ze_result_t zp_zeCommandListDestroy(ze_command_list_handle_t hList);
ZP_HIDDEN ze_result_t zp_zeCommandListClose(ze_command_list_handle_t hList);
ZP_HIDDEN ze_result_t zp_zeCommandListReset(ze_command_list_handle_t hList);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendLaunchKernel(ze_command_list_handle_t hList, ze_kernel_handle_t hKernel, const ze_group_count_t *gc, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hList, void *dst, const void *src, size_t size, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendMemoryFill(ze_command_list_handle_t hList, void *ptr, const void *pattern, size_t pattern_size, size_t size, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendBarrier(ze_command_list_handle_t hList, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t hList, uint32_t numRanges, const size_t *pRangeSizes, const void **pRanges, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendSignalEvent(ze_command_list_handle_t hList, ze_event_handle_t hEvent);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hList, uint32_t numEvents, ze_event_handle_t *phEvents);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendEventReset(ze_command_list_handle_t hList, ze_event_handle_t hEvent);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hList, const void *ptr, size_t size);
ZP_HIDDEN ze_result_t zp_zeCommandListAppendMemAdvise(ze_command_list_handle_t hList, ze_device_handle_t hDevice, const void *ptr, size_t size, ze_memory_advice_t advice);
ZP_HIDDEN ze_result_t zp_zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_command_queue_desc_t *desc, ze_command_queue_handle_t *phQueue);
ZP_HIDDEN ze_result_t zp_zeCommandQueueDestroy(ze_command_queue_handle_t hQueue);
ZP_HIDDEN ze_result_t zp_zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hQueue, uint32_t numLists, ze_command_list_handle_t *phLists, ze_fence_handle_t hFence);
ZP_HIDDEN ze_result_t zp_zeCommandQueueSynchronize(ze_command_queue_handle_t hQueue, uint64_t timeout);
ZP_HIDDEN ze_result_t zp_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, ze_context_handle_t *phContext);
ZP_HIDDEN ze_result_t zp_zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, uint32_t numDevices, ze_device_handle_t *phDevices, ze_context_handle_t *phContext);
ZP_HIDDEN ze_result_t zp_zeContextDestroy(ze_context_handle_t hContext);
ZP_HIDDEN ze_result_t zp_zeContextGetStatus(ze_context_handle_t hContext);
ZP_HIDDEN ze_result_t zp_zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice, void *ptr, size_t size);
ZP_HIDDEN ze_result_t zp_zeContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice, void *ptr, size_t size);
ZP_HIDDEN ze_result_t zp_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices);
ZP_HIDDEN ze_result_t zp_zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount, ze_device_handle_t *phSubdevices);
ZP_HIDDEN ze_result_t zp_zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetComputeProperties(ze_device_handle_t hDevice, ze_device_compute_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetModuleProperties(ze_device_handle_t hDevice, ze_device_module_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t *pCount, ze_command_queue_group_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount, ze_device_memory_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetMemoryAccessProperties(ze_device_handle_t hDevice, ze_device_memory_access_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount, ze_device_cache_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetImageProperties(ze_device_handle_t hDevice, ze_device_image_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetExternalMemoryProperties(ze_device_handle_t hDevice, ze_device_external_memory_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeer, ze_device_p2p_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeer, ze_bool_t *value);
ZP_HIDDEN ze_result_t zp_zeDeviceGetStatus(ze_device_handle_t hDevice);
ZP_HIDDEN ze_result_t zp_zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t *hostTimestamp, uint64_t *deviceTimestamp);
ZP_HIDDEN ze_result_t zp_zeInit(ze_init_flags_t flags);
ZP_HIDDEN ze_result_t zp_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers);
ZP_HIDDEN ze_result_t zp_zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version);
ZP_HIDDEN ze_result_t zp_zeDriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t *props);
ZP_HIDDEN ze_result_t zp_zeDriverGetIpcProperties(ze_driver_handle_t hDriver, ze_driver_ipc_properties_t *props);
ZP_HIDDEN ze_result_t zp_zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount, ze_driver_extension_properties_t *props);
ZP_HIDDEN ze_result_t zp_zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name, void **ppFunction);
ZP_HIDDEN ze_result_t zp_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc, uint32_t numDevices, ze_device_handle_t *phDevices, ze_event_pool_handle_t *phEventPool);
ZP_HIDDEN ze_result_t zp_zeEventPoolDestroy(ze_event_pool_handle_t hEventPool);
ZP_HIDDEN ze_result_t zp_zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc, ze_event_handle_t *phEvent);
ZP_HIDDEN ze_result_t zp_zeEventDestroy(ze_event_handle_t hEvent);
ZP_HIDDEN ze_result_t zp_zeEventHostSignal(ze_event_handle_t hEvent);
ZP_HIDDEN ze_result_t zp_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout);
ZP_HIDDEN ze_result_t zp_zeEventQueryStatus(ze_event_handle_t hEvent);
ZP_HIDDEN ze_result_t zp_zeEventHostReset(ze_event_handle_t hEvent);
ZP_HIDDEN ze_result_t zp_zeEventQueryKernelTimestamp(ze_event_handle_t hEvent, ze_kernel_timestamp_result_t *dst);
ZP_HIDDEN ze_result_t zp_zeFenceCreate(ze_command_queue_handle_t hQueue, const ze_fence_desc_t *desc, ze_fence_handle_t *phFence);
ZP_HIDDEN ze_result_t zp_zeFenceDestroy(ze_fence_handle_t hFence);
ZP_HIDDEN ze_result_t zp_zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout);
ZP_HIDDEN ze_result_t zp_zeFenceQueryStatus(ze_fence_handle_t hFence);
ZP_HIDDEN ze_result_t zp_zeFenceReset(ze_fence_handle_t hFence);
ZP_HIDDEN ze_result_t zp_zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc, ze_kernel_handle_t *phKernel);
ZP_HIDDEN ze_result_t zp_zeKernelDestroy(ze_kernel_handle_t hKernel);
ZP_HIDDEN ze_result_t zp_zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize, const void *pArgValue);
ZP_HIDDEN ze_result_t zp_zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z);
ZP_HIDDEN ze_result_t zp_zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t *x, uint32_t *y, uint32_t *z);
ZP_HIDDEN ze_result_t zp_zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel, uint32_t *totalGroupCount);
ZP_HIDDEN ze_result_t zp_zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t flags);
ZP_HIDDEN ze_result_t zp_zeKernelGetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t *pFlags);
ZP_HIDDEN ze_result_t zp_zeKernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags);
ZP_HIDDEN ze_result_t zp_zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t *p);
ZP_HIDDEN ze_result_t zp_zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName);
ZP_HIDDEN ze_result_t zp_zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize, char **pString);
ZP_HIDDEN ze_result_t zp_zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z);
ZP_HIDDEN ze_result_t zp_zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *desc, size_t size, size_t alignment, ze_device_handle_t hDevice, void **pptr);
ZP_HIDDEN ze_result_t zp_zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *desc, size_t size, size_t alignment, void **pptr);
ZP_HIDDEN ze_result_t zp_zeMemAllocShared(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc, const ze_host_mem_alloc_desc_t *host_desc, size_t size, size_t alignment, ze_device_handle_t hDevice, void **pptr);
ZP_HIDDEN ze_result_t zp_zeMemFree(ze_context_handle_t hContext, void *ptr);
ZP_HIDDEN ze_result_t zp_zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr, ze_memory_allocation_properties_t *props, ze_device_handle_t *phDevice);
ZP_HIDDEN ze_result_t zp_zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase, size_t *pSize);
ZP_HIDDEN ze_result_t zp_zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_module_desc_t *desc, ze_module_handle_t *phModule, ze_module_build_log_handle_t *phBuildLog);
ZP_HIDDEN ze_result_t zp_zeModuleDestroy(ze_module_handle_t hModule);
ZP_HIDDEN ze_result_t zp_zeModuleBuildLogDestroy(ze_module_build_log_handle_t hLog);
ZP_HIDDEN ze_result_t zp_zeModuleBuildLogGetString(ze_module_build_log_handle_t hLog, size_t *pSize, char *pBuildLog);
ZP_HIDDEN ze_result_t zp_zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount, const char **pNames);
ZP_HIDDEN ze_result_t zp_zeModuleGetProperties(ze_module_handle_t hModule, ze_module_properties_t *props);
ZP_HIDDEN ze_result_t zp_zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize, uint8_t *pModuleNativeBinary);
ZP_HIDDEN ze_result_t zp_zeModuleGetGlobalPointer(ze_module_handle_t hModule, const char *pGlobalName, size_t *pSize, void **pptr);
ZP_HIDDEN ze_result_t zp_zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName, void **pfnFunction);

#endif

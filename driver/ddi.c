/* The table getters, as zp_<getter> (driver/ddi.h): the loader reaches them through the exported names of
 * ddi_export.c, libkrt's in-process host driver directly (driver/host/host_ddi.c). The loader calls them before zeInit, with
 * its own API version, and passes a table of that version's layout (tables only grow, new entries at the
 * end). The drivers implement API 1.13 (ZP_API_VERSION):
 *   - a request for 1.x gets every entry its table has up to 1.x and up to 1.13, the rest of the caller's table
 *     untouched: a request for 1.14 or later gets the 1.13 entries (loaders zero their tables, so a newer entry
 *     stays NULL and the loader answers for it), which is what lets a newer loader load the driver at all, since
 *     a loader skips a driver whose getter fails; a request for an older version gets only the entries that
 *     version's table has, since writing a newer entry into an older, shorter table would write past its end;
 *   - a table that did not exist yet in the requested version, or a major version other than 1, gets
 *     ZE_RESULT_ERROR_UNSUPPORTED_VERSION.
 * The version each entry was added in is the one the Level Zero specification gives for its function.
 *
 * The installed headers (Debian 12's, API 1.4) declare neither the functions of 1.5 and later nor the members they
 * add to the tables. A table's members are all function pointers, appended version after version, so entry n of
 * the specification's table lies n pointers from its start whatever headers the caller was built with: put()
 * writes those entries at the places the specification gives (the ZP_SLOT_* constants below).
 *
 * Entries the drivers do not implement point to one function that returns
 * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. It is called through pointer types with other parameter
 * lists; on every ABI ze_pocl targets (System V x86-64, AArch64) a callee that ignores its arguments
 * may be called that way, and it lets one function answer every unsupported entry. */
#include "zp.h"
#include "api.h"
#include "ddi.h"

#include <level_zero/zet_ddi.h>
#include <level_zero/zes_ddi.h>

static ze_result_t zp_unsupported(void) { return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; }

#define ZP_UNSUPPORTED(type) ((type)(void (*)(void))zp_unsupported)

/* Entries after 1.4: their index in the specification's table (the version that added each in parentheses).
 * Image and ImageExp entries are images (unsupported); PutIpcHandle is IPC (unsupported, as GetIpcHandle); the
 * Ext and Exp entries belong to extensions the drivers do not list (kernel timestamps of several sub-devices,
 * external semaphores, ray tracing, vector widths, kernel binaries): unsupported. */
enum {
    ZP_SLOT_GLOBAL_INIT_DRIVERS = 1,                         /* (1.10) after the 1 entry of 1.4 */
    ZP_SLOT_DRIVER_GET_LAST_ERROR_DESCRIPTION = 6,           /* (1.6) after the 6 of 1.4 */
    ZP_SLOT_DRIVER_RTAS_FORMAT_COMPATIBILITY_CHECK_EXT = 7,  /* (1.13) */
    ZP_SLOT_DEVICE_GET_ROOT_DEVICE = 18,                     /* (1.7) after the 18 of 1.4 */
    ZP_SLOT_DEVICE_IMPORT_EXTERNAL_SEMAPHORE_EXT = 19,       /* (1.12) */
    ZP_SLOT_DEVICE_RELEASE_EXTERNAL_SEMAPHORE_EXT = 20,      /* (1.12) */
    ZP_SLOT_DEVICE_GET_VECTOR_WIDTH_PROPERTIES_EXT = 21,     /* (1.13) */
    ZP_SLOT_QUEUE_GET_ORDINAL = 4,                           /* (1.9) after the 4 of 1.4 */
    ZP_SLOT_QUEUE_GET_INDEX = 5,                             /* (1.9) */
    ZP_SLOT_LIST_HOST_SYNCHRONIZE = 28,                      /* (1.6) after the 28 of 1.4 */
    ZP_SLOT_LIST_GET_DEVICE_HANDLE = 29,                     /* (1.9) */
    ZP_SLOT_LIST_GET_CONTEXT_HANDLE = 30,                    /* (1.9) */
    ZP_SLOT_LIST_GET_ORDINAL = 31,                           /* (1.9) */
    ZP_SLOT_LIST_IMMEDIATE_GET_INDEX = 32,                   /* (1.9) */
    ZP_SLOT_LIST_IS_IMMEDIATE = 33,                          /* (1.9) */
    ZP_SLOT_LIST_APPEND_SIGNAL_EXTERNAL_SEMAPHORE_EXT = 34,  /* (1.12) */
    ZP_SLOT_LIST_APPEND_WAIT_EXTERNAL_SEMAPHORE_EXT = 35,    /* (1.12) */
    ZP_SLOT_IMAGE_VIEW_CREATE_EXT = 4,                       /* (1.5) after the 4 of 1.4 */
    ZP_SLOT_IMAGE_EXP_GET_DEVICE_OFFSET_EXP = 2,             /* (1.9) after the 2 of 1.4 */
    ZP_SLOT_POOL_PUT_IPC_HANDLE = 5,                         /* (1.6) after the 5 of 1.4 */
    ZP_SLOT_POOL_GET_CONTEXT_HANDLE = 6,                     /* (1.9) */
    ZP_SLOT_POOL_GET_FLAGS = 7,                              /* (1.9) */
    ZP_SLOT_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT = 7,           /* (1.6) after the 7 of 1.4 */
    ZP_SLOT_EVENT_GET_EVENT_POOL = 8,                        /* (1.9) */
    ZP_SLOT_EVENT_GET_SIGNAL_SCOPE = 9,                      /* (1.9) */
    ZP_SLOT_EVENT_GET_WAIT_SCOPE = 10,                       /* (1.9) */
    ZP_SLOT_MEM_PUT_IPC_HANDLE = 10,                         /* (1.6) after the 10 of 1.4 */
    ZP_SLOT_MEM_GET_PITCH_FOR_2D_IMAGE = 11,                 /* (1.9) */
    ZP_SLOT_KERNEL_EXP_GET_BINARY_EXP = 2,                   /* (1.11; written from 1.12, see the getter) */
};

typedef void (*zp_fn)(void);

/* Writes entry `slot` of a table; memcpy, because the headers' struct may end before it. */
static void put(void *table, size_t slot, zp_fn fn) {
    memcpy((char *)table + slot * sizeof fn, &fn, sizeof fn);
}

#define ZP_PUT(t, slot, f) put((t), (slot), (zp_fn)(f))
#define ZP_PUT_UNSUPPORTED(t, slot) put((t), (slot), (zp_fn)zp_unsupported)

static ze_result_t check_version(ze_api_version_t version, const void *table) {
    if (table == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (ZE_MAJOR_VERSION(version) != 1) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    return ZE_RESULT_SUCCESS;
}

/* True when the requested table version has entries added in 1.minor (none is newer than ZP_API_VERSION). */
#define ZP_HAS(minor) (version >= ZE_MAKE_VERSION(1, minor))
_Static_assert(ZP_API_VERSION == ZE_MAKE_VERSION(1, 13), "ddi.c fills the entries up to 1.13: add the newer ones");

/* check_version for a table first defined in API 1.minor. */
static ze_result_t check_version_since(ze_api_version_t version, const void *table, int minor) {
    ze_result_t r = check_version(version, table);
    if (r == ZE_RESULT_SUCCESS && !ZP_HAS(minor)) r = ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    return r;
}

ze_result_t zp_zeGetGlobalProcAddrTable(ze_api_version_t version, ze_global_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnInit = zp_zeInit;
    if (ZP_HAS(10)) ZP_PUT(t, ZP_SLOT_GLOBAL_INIT_DRIVERS, zp_zeInitDrivers);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetDriverProcAddrTable(ze_api_version_t version, ze_driver_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGet = zp_zeDriverGet;
    t->pfnGetApiVersion = zp_zeDriverGetApiVersion;
    t->pfnGetProperties = zp_zeDriverGetProperties;
    t->pfnGetIpcProperties = zp_zeDriverGetIpcProperties;
    t->pfnGetExtensionProperties = zp_zeDriverGetExtensionProperties;
    if (ZP_HAS(1)) t->pfnGetExtensionFunctionAddress = zp_zeDriverGetExtensionFunctionAddress;
    if (ZP_HAS(6)) ZP_PUT(t, ZP_SLOT_DRIVER_GET_LAST_ERROR_DESCRIPTION, zp_zeDriverGetLastErrorDescription);
    if (ZP_HAS(13)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_DRIVER_RTAS_FORMAT_COMPATIBILITY_CHECK_EXT);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetDeviceProcAddrTable(ze_api_version_t version, ze_device_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGet = zp_zeDeviceGet;
    t->pfnGetSubDevices = zp_zeDeviceGetSubDevices;
    t->pfnGetProperties = zp_zeDeviceGetProperties;
    t->pfnGetComputeProperties = zp_zeDeviceGetComputeProperties;
    t->pfnGetModuleProperties = zp_zeDeviceGetModuleProperties;
    t->pfnGetCommandQueueGroupProperties = zp_zeDeviceGetCommandQueueGroupProperties;
    t->pfnGetMemoryProperties = zp_zeDeviceGetMemoryProperties;
    t->pfnGetMemoryAccessProperties = zp_zeDeviceGetMemoryAccessProperties;
    t->pfnGetCacheProperties = zp_zeDeviceGetCacheProperties;
    t->pfnGetImageProperties = zp_zeDeviceGetImageProperties;
    t->pfnGetExternalMemoryProperties = zp_zeDeviceGetExternalMemoryProperties;
    t->pfnGetP2PProperties = zp_zeDeviceGetP2PProperties;
    t->pfnCanAccessPeer = zp_zeDeviceCanAccessPeer;
    t->pfnGetStatus = zp_zeDeviceGetStatus;
    if (ZP_HAS(1)) t->pfnGetGlobalTimestamps = zp_zeDeviceGetGlobalTimestamps;
    if (ZP_HAS(2)) t->pfnReserveCacheExt = ZP_UNSUPPORTED(ze_pfnDeviceReserveCacheExt_t);
    if (ZP_HAS(2)) t->pfnSetCacheAdviceExt = ZP_UNSUPPORTED(ze_pfnDeviceSetCacheAdviceExt_t);
    if (ZP_HAS(3)) t->pfnPciGetPropertiesExt = ZP_UNSUPPORTED(ze_pfnDevicePciGetPropertiesExt_t);
    if (ZP_HAS(7)) ZP_PUT(t, ZP_SLOT_DEVICE_GET_ROOT_DEVICE, zp_zeDeviceGetRootDevice);
    if (ZP_HAS(12)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_DEVICE_IMPORT_EXTERNAL_SEMAPHORE_EXT);
    if (ZP_HAS(12)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_DEVICE_RELEASE_EXTERNAL_SEMAPHORE_EXT);
    if (ZP_HAS(13)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_DEVICE_GET_VECTOR_WIDTH_PROPERTIES_EXT);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetDeviceExpProcAddrTable(ze_api_version_t version, ze_device_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 4);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetFabricVertexExp = ZP_UNSUPPORTED(ze_pfnDeviceGetFabricVertexExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetContextProcAddrTable(ze_api_version_t version, ze_context_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeContextCreate;
    t->pfnDestroy = zp_zeContextDestroy;
    t->pfnGetStatus = zp_zeContextGetStatus;
    t->pfnSystemBarrier = zp_zeContextSystemBarrier;
    t->pfnMakeMemoryResident = zp_zeContextMakeMemoryResident;
    t->pfnEvictMemory = zp_zeContextEvictMemory;
    t->pfnMakeImageResident = ZP_UNSUPPORTED(ze_pfnContextMakeImageResident_t);
    t->pfnEvictImage = ZP_UNSUPPORTED(ze_pfnContextEvictImage_t);
    if (ZP_HAS(1)) t->pfnCreateEx = zp_zeContextCreateEx;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetCommandQueueProcAddrTable(ze_api_version_t version, ze_command_queue_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeCommandQueueCreate;
    t->pfnDestroy = zp_zeCommandQueueDestroy;
    t->pfnExecuteCommandLists = zp_zeCommandQueueExecuteCommandLists;
    t->pfnSynchronize = zp_zeCommandQueueSynchronize;
    if (ZP_HAS(9)) ZP_PUT(t, ZP_SLOT_QUEUE_GET_ORDINAL, zp_zeCommandQueueGetOrdinal);
    if (ZP_HAS(9)) ZP_PUT(t, ZP_SLOT_QUEUE_GET_INDEX, zp_zeCommandQueueGetIndex);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetCommandListProcAddrTable(ze_api_version_t version, ze_command_list_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeCommandListCreate;
    t->pfnCreateImmediate = zp_zeCommandListCreateImmediate;
    t->pfnDestroy = zp_zeCommandListDestroy;
    t->pfnClose = zp_zeCommandListClose;
    t->pfnReset = zp_zeCommandListReset;
    t->pfnAppendWriteGlobalTimestamp = zp_zeCommandListAppendWriteGlobalTimestamp;
    t->pfnAppendBarrier = zp_zeCommandListAppendBarrier;
    t->pfnAppendMemoryRangesBarrier = zp_zeCommandListAppendMemoryRangesBarrier;
    t->pfnAppendMemoryCopy = zp_zeCommandListAppendMemoryCopy;
    t->pfnAppendMemoryFill = zp_zeCommandListAppendMemoryFill;
    t->pfnAppendMemoryCopyRegion = zp_zeCommandListAppendMemoryCopyRegion;
    t->pfnAppendMemoryCopyFromContext = zp_zeCommandListAppendMemoryCopyFromContext;
    t->pfnAppendImageCopy = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopy_t);
    t->pfnAppendImageCopyRegion = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyRegion_t);
    t->pfnAppendImageCopyToMemory = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyToMemory_t);
    t->pfnAppendImageCopyFromMemory = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyFromMemory_t);
    t->pfnAppendMemoryPrefetch = zp_zeCommandListAppendMemoryPrefetch;
    t->pfnAppendMemAdvise = zp_zeCommandListAppendMemAdvise;
    t->pfnAppendSignalEvent = zp_zeCommandListAppendSignalEvent;
    t->pfnAppendWaitOnEvents = zp_zeCommandListAppendWaitOnEvents;
    t->pfnAppendEventReset = zp_zeCommandListAppendEventReset;
    t->pfnAppendQueryKernelTimestamps = zp_zeCommandListAppendQueryKernelTimestamps;
    t->pfnAppendLaunchKernel = zp_zeCommandListAppendLaunchKernel;
    t->pfnAppendLaunchCooperativeKernel = ZP_UNSUPPORTED(ze_pfnCommandListAppendLaunchCooperativeKernel_t);
    t->pfnAppendLaunchKernelIndirect = zp_zeCommandListAppendLaunchKernelIndirect;
    t->pfnAppendLaunchMultipleKernelsIndirect = zp_zeCommandListAppendLaunchMultipleKernelsIndirect;
    if (ZP_HAS(3)) t->pfnAppendImageCopyToMemoryExt = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyToMemoryExt_t);
    if (ZP_HAS(3)) t->pfnAppendImageCopyFromMemoryExt = ZP_UNSUPPORTED(ze_pfnCommandListAppendImageCopyFromMemoryExt_t);
    if (ZP_HAS(6)) ZP_PUT(t, ZP_SLOT_LIST_HOST_SYNCHRONIZE, zp_zeCommandListHostSynchronize);
    if (ZP_HAS(9)) {
        ZP_PUT(t, ZP_SLOT_LIST_GET_DEVICE_HANDLE, zp_zeCommandListGetDeviceHandle);
        ZP_PUT(t, ZP_SLOT_LIST_GET_CONTEXT_HANDLE, zp_zeCommandListGetContextHandle);
        ZP_PUT(t, ZP_SLOT_LIST_GET_ORDINAL, zp_zeCommandListGetOrdinal);
        ZP_PUT(t, ZP_SLOT_LIST_IMMEDIATE_GET_INDEX, zp_zeCommandListImmediateGetIndex);
        ZP_PUT(t, ZP_SLOT_LIST_IS_IMMEDIATE, zp_zeCommandListIsImmediate);
    }
    if (ZP_HAS(12)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_LIST_APPEND_SIGNAL_EXTERNAL_SEMAPHORE_EXT);
    if (ZP_HAS(12)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_LIST_APPEND_WAIT_EXTERNAL_SEMAPHORE_EXT);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetImageProcAddrTable(ze_api_version_t version, ze_image_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetProperties = ZP_UNSUPPORTED(ze_pfnImageGetProperties_t);
    t->pfnCreate = ZP_UNSUPPORTED(ze_pfnImageCreate_t);
    t->pfnDestroy = ZP_UNSUPPORTED(ze_pfnImageDestroy_t);
    if (ZP_HAS(3)) t->pfnGetAllocPropertiesExt = ZP_UNSUPPORTED(ze_pfnImageGetAllocPropertiesExt_t);
    if (ZP_HAS(5)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_IMAGE_VIEW_CREATE_EXT);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetImageExpProcAddrTable(ze_api_version_t version, ze_image_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 2);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetMemoryPropertiesExp = ZP_UNSUPPORTED(ze_pfnImageGetMemoryPropertiesExp_t);
    t->pfnViewCreateExp = ZP_UNSUPPORTED(ze_pfnImageViewCreateExp_t);
    if (ZP_HAS(9)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_IMAGE_EXP_GET_DEVICE_OFFSET_EXP);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetFenceProcAddrTable(ze_api_version_t version, ze_fence_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeFenceCreate;
    t->pfnDestroy = zp_zeFenceDestroy;
    t->pfnHostSynchronize = zp_zeFenceHostSynchronize;
    t->pfnQueryStatus = zp_zeFenceQueryStatus;
    t->pfnReset = zp_zeFenceReset;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetEventPoolProcAddrTable(ze_api_version_t version, ze_event_pool_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeEventPoolCreate;
    t->pfnDestroy = zp_zeEventPoolDestroy;
    t->pfnGetIpcHandle = ZP_UNSUPPORTED(ze_pfnEventPoolGetIpcHandle_t);
    t->pfnOpenIpcHandle = ZP_UNSUPPORTED(ze_pfnEventPoolOpenIpcHandle_t);
    t->pfnCloseIpcHandle = ZP_UNSUPPORTED(ze_pfnEventPoolCloseIpcHandle_t);
    if (ZP_HAS(6)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_POOL_PUT_IPC_HANDLE);
    if (ZP_HAS(9)) ZP_PUT(t, ZP_SLOT_POOL_GET_CONTEXT_HANDLE, zp_zeEventPoolGetContextHandle);
    if (ZP_HAS(9)) ZP_PUT(t, ZP_SLOT_POOL_GET_FLAGS, zp_zeEventPoolGetFlags);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeEventCreate;
    t->pfnDestroy = zp_zeEventDestroy;
    t->pfnHostSignal = zp_zeEventHostSignal;
    t->pfnHostSynchronize = zp_zeEventHostSynchronize;
    t->pfnQueryStatus = zp_zeEventQueryStatus;
    t->pfnHostReset = zp_zeEventHostReset;
    t->pfnQueryKernelTimestamp = zp_zeEventQueryKernelTimestamp;
    if (ZP_HAS(6)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT);
    if (ZP_HAS(9)) {
        ZP_PUT(t, ZP_SLOT_EVENT_GET_EVENT_POOL, zp_zeEventGetEventPool);
        ZP_PUT(t, ZP_SLOT_EVENT_GET_SIGNAL_SCOPE, zp_zeEventGetSignalScope);
        ZP_PUT(t, ZP_SLOT_EVENT_GET_WAIT_SCOPE, zp_zeEventGetWaitScope);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetEventExpProcAddrTable(ze_api_version_t version, ze_event_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 2);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnQueryTimestampsExp = ZP_UNSUPPORTED(ze_pfnEventQueryTimestampsExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetModuleProcAddrTable(ze_api_version_t version, ze_module_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeModuleCreate;
    t->pfnDestroy = zp_zeModuleDestroy;
    t->pfnDynamicLink = ZP_UNSUPPORTED(ze_pfnModuleDynamicLink_t);
    t->pfnGetNativeBinary = zp_zeModuleGetNativeBinary;
    t->pfnGetGlobalPointer = zp_zeModuleGetGlobalPointer;
    t->pfnGetKernelNames = zp_zeModuleGetKernelNames;
    t->pfnGetProperties = zp_zeModuleGetProperties;
    t->pfnGetFunctionPointer = zp_zeModuleGetFunctionPointer;
    if (ZP_HAS(3)) t->pfnInspectLinkageExt = ZP_UNSUPPORTED(ze_pfnModuleInspectLinkageExt_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetModuleBuildLogProcAddrTable(ze_api_version_t version, ze_module_build_log_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnDestroy = zp_zeModuleBuildLogDestroy;
    t->pfnGetString = zp_zeModuleBuildLogGetString;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetKernelProcAddrTable(ze_api_version_t version, ze_kernel_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zeKernelCreate;
    t->pfnDestroy = zp_zeKernelDestroy;
    t->pfnSetCacheConfig = zp_zeKernelSetCacheConfig;
    t->pfnSetGroupSize = zp_zeKernelSetGroupSize;
    t->pfnSuggestGroupSize = zp_zeKernelSuggestGroupSize;
    t->pfnSuggestMaxCooperativeGroupCount = zp_zeKernelSuggestMaxCooperativeGroupCount;
    t->pfnSetArgumentValue = zp_zeKernelSetArgumentValue;
    t->pfnSetIndirectAccess = zp_zeKernelSetIndirectAccess;
    t->pfnGetIndirectAccess = zp_zeKernelGetIndirectAccess;
    t->pfnGetSourceAttributes = zp_zeKernelGetSourceAttributes;
    t->pfnGetProperties = zp_zeKernelGetProperties;
    t->pfnGetName = zp_zeKernelGetName;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetKernelExpProcAddrTable(ze_api_version_t version, ze_kernel_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 1);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnSetGlobalOffsetExp = zp_zeKernelSetGlobalOffsetExp;
    if (ZP_HAS(2)) t->pfnSchedulingHintExp = ZP_UNSUPPORTED(ze_pfnKernelSchedulingHintExp_t);
    /* zeKernelGetBinaryExp came during 1.11: the 1.11 tables of the first loaders of that version (1.18.x) end
     * before it, so only a 1.12 table is sure to have its place. */
    if (ZP_HAS(12)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_KERNEL_EXP_GET_BINARY_EXP);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetSamplerProcAddrTable(ze_api_version_t version, ze_sampler_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = ZP_UNSUPPORTED(ze_pfnSamplerCreate_t);
    t->pfnDestroy = ZP_UNSUPPORTED(ze_pfnSamplerDestroy_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetPhysicalMemProcAddrTable(ze_api_version_t version, ze_physical_mem_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnCreate = zp_zePhysicalMemCreate;
    t->pfnDestroy = zp_zePhysicalMemDestroy;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnAllocShared = zp_zeMemAllocShared;
    t->pfnAllocDevice = zp_zeMemAllocDevice;
    t->pfnAllocHost = zp_zeMemAllocHost;
    t->pfnFree = zp_zeMemFree;
    t->pfnGetAllocProperties = zp_zeMemGetAllocProperties;
    t->pfnGetAddressRange = zp_zeMemGetAddressRange;
    t->pfnGetIpcHandle = ZP_UNSUPPORTED(ze_pfnMemGetIpcHandle_t);
    t->pfnOpenIpcHandle = ZP_UNSUPPORTED(ze_pfnMemOpenIpcHandle_t);
    t->pfnCloseIpcHandle = ZP_UNSUPPORTED(ze_pfnMemCloseIpcHandle_t);
    if (ZP_HAS(3)) t->pfnFreeExt = zp_zeMemFreeExt;
    if (ZP_HAS(6)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_MEM_PUT_IPC_HANDLE);
    if (ZP_HAS(9)) ZP_PUT_UNSUPPORTED(t, ZP_SLOT_MEM_GET_PITCH_FOR_2D_IMAGE);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetVirtualMemProcAddrTable(ze_api_version_t version, ze_virtual_mem_dditable_t *t) {
    ze_result_t r = check_version(version, t);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnReserve = zp_zeVirtualMemReserve;
    t->pfnFree = zp_zeVirtualMemFree;
    t->pfnQueryPageSize = zp_zeVirtualMemQueryPageSize;
    t->pfnMap = zp_zeVirtualMemMap;
    t->pfnUnmap = zp_zeVirtualMemUnmap;
    t->pfnSetAccessAttribute = zp_zeVirtualMemSetAccessAttribute;
    t->pfnGetAccessAttribute = zp_zeVirtualMemGetAccessAttribute;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetFabricVertexExpProcAddrTable(ze_api_version_t version, ze_fabric_vertex_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 4);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetExp_t);
    t->pfnGetSubVerticesExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetSubVerticesExp_t);
    t->pfnGetPropertiesExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetPropertiesExp_t);
    t->pfnGetDeviceExp = ZP_UNSUPPORTED(ze_pfnFabricVertexGetDeviceExp_t);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeGetFabricEdgeExpProcAddrTable(ze_api_version_t version, ze_fabric_edge_exp_dditable_t *t) {
    ze_result_t r = check_version_since(version, t, 4);
    if (r != ZE_RESULT_SUCCESS) return r;
    t->pfnGetExp = ZP_UNSUPPORTED(ze_pfnFabricEdgeGetExp_t);
    t->pfnGetVerticesExp = ZP_UNSUPPORTED(ze_pfnFabricEdgeGetVerticesExp_t);
    t->pfnGetPropertiesExp = ZP_UNSUPPORTED(ze_pfnFabricEdgeGetPropertiesExp_t);
    return ZE_RESULT_SUCCESS;
}

/* Tools and sysman: nothing is implemented; the loader requires the getters (except the
 * experimental one) and leaves the entries NULL. */
ze_result_t zp_zetGetDeviceProcAddrTable(ze_api_version_t version, zet_device_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetContextProcAddrTable(ze_api_version_t version, zet_context_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetCommandListProcAddrTable(ze_api_version_t version, zet_command_list_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetModuleProcAddrTable(ze_api_version_t version, zet_module_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetKernelProcAddrTable(ze_api_version_t version, zet_kernel_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricGroupProcAddrTable(ze_api_version_t version, zet_metric_group_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricGroupExpProcAddrTable(ze_api_version_t version, zet_metric_group_exp_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricProcAddrTable(ze_api_version_t version, zet_metric_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricStreamerProcAddrTable(ze_api_version_t version, zet_metric_streamer_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricQueryPoolProcAddrTable(ze_api_version_t version, zet_metric_query_pool_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetMetricQueryProcAddrTable(ze_api_version_t version, zet_metric_query_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetTracerExpProcAddrTable(ze_api_version_t version, zet_tracer_exp_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zetGetDebugProcAddrTable(ze_api_version_t version, zet_debug_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetDriverProcAddrTable(ze_api_version_t version, zes_driver_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetDeviceProcAddrTable(ze_api_version_t version, zes_device_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetSchedulerProcAddrTable(ze_api_version_t version, zes_scheduler_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetPerformanceFactorProcAddrTable(ze_api_version_t version, zes_performance_factor_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetPowerProcAddrTable(ze_api_version_t version, zes_power_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFrequencyProcAddrTable(ze_api_version_t version, zes_frequency_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetEngineProcAddrTable(ze_api_version_t version, zes_engine_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetStandbyProcAddrTable(ze_api_version_t version, zes_standby_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFirmwareProcAddrTable(ze_api_version_t version, zes_firmware_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetMemoryProcAddrTable(ze_api_version_t version, zes_memory_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFabricPortProcAddrTable(ze_api_version_t version, zes_fabric_port_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetTemperatureProcAddrTable(ze_api_version_t version, zes_temperature_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetPsuProcAddrTable(ze_api_version_t version, zes_psu_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetFanProcAddrTable(ze_api_version_t version, zes_fan_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetLedProcAddrTable(ze_api_version_t version, zes_led_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetRasProcAddrTable(ze_api_version_t version, zes_ras_dditable_t *t) {
    return check_version(version, t);
}

ze_result_t zp_zesGetDiagnosticsProcAddrTable(ze_api_version_t version, zes_diagnostics_dditable_t *t) {
    return check_version(version, t);
}


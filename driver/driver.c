/* Global and driver entry points: zeInit, zeDriverGet and the driver queries. */
#include <stdio.h>
#include <string.h>

#include "zp.h"
#include "api.h"

struct _ze_driver_handle_t zp_driver;
atomic_bool zp_initialized;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static ze_result_t init_result = ZE_RESULT_ERROR_UNINITIALIZED;
static bool init_done;

/* The extensions ze_pocl really implements; the list the two-call query returns. */
static const ze_driver_extension_properties_t extensions[] = {
    {ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_NAME, ZE_MAKE_VERSION(1, 0)},
    {ZE_GLOBAL_OFFSET_EXP_NAME, ZE_MAKE_VERSION(1, 0)},
    {ZE_KRT_EXACT_RANGE_NAME, ZE_MAKE_VERSION(1, 0)},
    {ZE_KRT_BUILD_LOG_NAME, ZE_MAKE_VERSION(1, 0)},
    {ZE_KRT_PRIVATE_MEMORY_NAME, ZE_MAKE_VERSION(1, 0)},
    {ZE_FLOAT_ATOMICS_EXT_NAME, ZE_MAKE_VERSION(1, 0)}, /* only with devices that have them */
    {ZE_KRT_NATIVE_QUEUE_NAME, ZE_MAKE_VERSION(1, 0)},  /* only with a backend that has native queues */
    {ZE_KRT_BOUNDS_CHECK_NAME, ZE_MAKE_VERSION(1, 0)},  /* the host's: with checked libraries (krt-cc --host --checks) */
    {ZP_EVENT_POOL_COUNTER_BASED_EXP_NAME, ZE_MAKE_VERSION(1, 0)},
};

/* Whether the driver lists extensions[i]: the optional ones by what the backend and its devices have. */
static bool listed(size_t i) {
    if (strcmp(extensions[i].name, ZE_KRT_NATIVE_QUEUE_NAME) == 0) return zp_be->queue_native != NULL;
    if (strcmp(extensions[i].name, ZE_FLOAT_ATOMICS_EXT_NAME) == 0) {
        for (uint32_t d = 0; d < zp_driver.num_devices; d++)
            if (zp_driver.devices[d].info.float_atomics) return true;
        return false;
    }
    return true;
}

static uint32_t extension_count(void) {
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++) n += listed(i);
    return n;
}


/* Builds the device list once; the loader calls zeInit twice on the application's first zeInit. */
static ze_result_t init_devices(void) {
    ze_result_t r = zp_be->init();
    if (r != ZE_RESULT_SUCCESS) return r;
    uint32_t n = zp_be->device_count();
    struct _ze_device_handle_t *devs = calloc(n ? n : 1, sizeof *devs);
    if (!devs) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        devs[i].magic = ZP_MAGIC_DEVICE;
        devs[i].index = i;
        devs[i].bdev = zp_be->device(i);
        zp_be->device_info(devs[i].bdev, &devs[i].info);
        zp_cpu_device_info(&devs[i].info);
    }
    zp_driver.devices = devs;
    zp_driver.num_devices = n;
    zp_driver.magic = ZP_MAGIC_DRIVER;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeInit(ze_init_flags_t flags) {
    if (flags & ~(ze_init_flags_t)(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    /* A CPU device is neither a GPU nor a VPU, but many programs pass GPU_ONLY out of habit; ze_pocl
     * answers it so those programs can run on the CPU. VPU_ONLY asks for something else entirely. */
    if (flags == ZE_INIT_FLAG_VPU_ONLY) return ZE_RESULT_ERROR_UNINITIALIZED;
    pthread_mutex_lock(&init_lock);
    if (!init_done) {
        init_result = init_devices();
        init_done = true;
        if (init_result == ZE_RESULT_SUCCESS) atomic_store(&zp_initialized, true);
    }
    ze_result_t r = init_result;
    pthread_mutex_unlock(&init_lock);
    return r;
}

/* API 1.10: zeInit and zeDriverGet in one call, for the driver types desc->flags names (any bits; the loader asks
 * with all of them set). The drivers' devices are answered for the GPU type, as zeInit answers GPU_ONLY: ze_pocl's
 * are CPUs, which have no type of their own here, and programs that ask for GPUs can then run on the CPU. A call
 * for other types only (NPU) finds no driver: ZE_RESULT_SUCCESS with a count of 0, so that the loader does not
 * mark the driver as failed for later calls. */
ze_result_t zp_zeInitDrivers(uint32_t *pCount, ze_driver_handle_t *phDrivers, zp_init_driver_type_desc_t *desc) {
    ZP_CHECK_PTR(pCount);
    ZP_CHECK_PTR(desc);
    if (desc->flags == 0) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    ze_result_t r = zp_zeInit(0);
    if (r != ZE_RESULT_SUCCESS) return r;
    if (!(desc->flags & ZP_INIT_DRIVER_TYPE_FLAG_GPU)) {
        *pCount = 0;
        return ZE_RESULT_SUCCESS;
    }
    return zp_zeDriverGet(pCount, phDrivers);
}

ze_result_t zp_driver_status(ze_krt_driver_status_t *out) {
    if (!out) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "ze_%s", zp_be->name);
    ze_result_t r = zp_zeInit(0);
    out->numDevices = r == ZE_RESULT_SUCCESS ? zp_driver.num_devices : 0;
    if (out->numDevices > 0) {
        /* A device whose recovery from a loss failed says why (fault.c). */
        for (uint32_t i = 0; i < zp_driver.num_devices; i++) {
            const char *why = zp_recover_failure(&zp_driver.devices[i]);
            if (why && why[0]) {
                snprintf(out->reason, sizeof out->reason, "device %u stays lost: %s", i, why);
                break;
            }
        }
        return ZE_RESULT_SUCCESS;
    }
    const char *why = zp_be->no_device_reason ? zp_be->no_device_reason() : "";
    if (why && why[0])
        snprintf(out->reason, sizeof out->reason, "%s", why);
    else if (r != ZE_RESULT_SUCCESS)
        snprintf(out->reason, sizeof out->reason, "its zeInit failed (0x%x)", (unsigned)r);
    else
        snprintf(out->reason, sizeof out->reason, "it found no device");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers) {
    ZP_CHECK_INIT();
    ZP_CHECK_PTR(pCount);
    if (*pCount == 0 || phDrivers == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    phDrivers[0] = &zp_driver;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(version);
    *version = ZP_API_VERSION;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t *props) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(props);
    /* A fixed UUID: the same driver build reports the same identity in every process. */
    static const uint8_t uuid[ZE_MAX_DRIVER_UUID_SIZE] = {'z', 'e', '_', 'p', 'o', 'c', 'l', 0,
                                                         0x4b, 0x52, 0x54, 0x01, 0, 0, 0, 1};
    memcpy(props->uuid.id, uuid, sizeof uuid);
    /* Each backend's library is a driver of its own: "ze_" and the backend's name tell them apart. */
    size_t nl = strlen(zp_be->name);
    memset(props->uuid.id + 3, 0, 5);
    memcpy(props->uuid.id + 3, zp_be->name, nl < 4 ? nl : 4);
    props->driverVersion = ZP_DRIVER_VERSION;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDriverGetIpcProperties(ze_driver_handle_t hDriver, ze_driver_ipc_properties_t *props) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(props);
    props->flags = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                                              ze_driver_extension_properties_t *props) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(pCount);
    uint32_t n = extension_count();
    if (*pCount == 0 || props == NULL) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n) *pCount = n;
    for (size_t i = 0, k = 0; i < sizeof extensions / sizeof extensions[0] && k < *pCount; i++)
        if (listed(i)) props[k++] = extensions[i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name, void **ppFunction) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(name);
    ZP_CHECK_PTR(ppFunction);
    if (strcmp(name, "zeKernelSetGlobalOffsetExp") == 0) {
        *ppFunction = (void *)zp_zeKernelSetGlobalOffsetExp;
        return ZE_RESULT_SUCCESS;
    }
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* API 1.6. The specification allows the empty string "if driver considers error code is already explicit enough
 * to describe cause"; these drivers keep no text beside their result codes (a failed build's log is the build
 * log), so the string is always empty. It is a constant, so it is the same for every thread. */
ze_result_t zp_zeDriverGetLastErrorDescription(ze_driver_handle_t hDriver, const char **ppString) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(ppString);
    *ppString = "";
    return ZE_RESULT_SUCCESS;
}

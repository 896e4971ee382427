/* zeKrtDriverStatus: what a driver library of krt's (libze_pocl.so, libze_cuda.so) says of itself outside the
 * Level Zero loader: its name, how many devices it has, and, when it has none, why.
 *
 * Why: a driver with no device is invisible through the loader. ze_cuda without libcuda.so.1, or with
 * ZE_CUDA_DISABLE=1, starts and lists no device, and the loader (1.8.12) does not say why; a driver whose zeInit
 * fails is dropped. So the reason cannot travel as an extension of a driver handle. It travels as one exported
 * function instead, which libkrt finds with dlsym in each driver library it named to the loader (the same loaded
 * copy: dlopen of a loaded library returns it), once per process (docs/design.md, "Which drivers krt tried"):
 *
 *   ze_pfnKrtDriverStatus_t f = (ze_pfnKrtDriverStatus_t)dlsym(lib, ZE_KRT_DRIVER_STATUS_SYMBOL);
 *   ze_krt_driver_status_t s;
 *   if (f && f(&s) == ZE_RESULT_SUCCESS) ... s.name, s.numDevices, s.reason ...
 *
 * The call starts the driver as zeInit would (once; later calls and zeInit share the result) and always
 * succeeds for a non-NULL argument. name is "ze_pocl" or "ze_cuda"; when numDevices is 0, reason is one line saying
 * why there is no device ("libcuda.so.1 not found: no NVIDIA driver is installed", "ZE_CUDA_DISABLE=1 is set",
 * "cuInit failed: CUDA_ERROR_NO_DEVICE", ...). When there are devices, reason is empty unless a lost device could
 * not be recovered when its last context went ("device 0 stays lost: ..." with what CUDA answered); libkrt adds it
 * to the message of a context creation refused with KRT_ERROR_DEVICE_LOST. */
#ifndef ZE_KRT_DRIVER_STATUS_H
#define ZE_KRT_DRIVER_STATUS_H

#include <level_zero/ze_api.h>

#define ZE_KRT_DRIVER_STATUS_SYMBOL "zeKrtDriverStatus"

typedef struct ze_krt_driver_status {
    char name[32];       /* the driver's name: "ze_pocl", "ze_cuda" */
    uint32_t numDevices; /* devices the driver lists through the loader */
    char reason[256];    /* why there is none, or why a device stays lost; NUL-terminated */
} ze_krt_driver_status_t;

typedef ze_result_t (*ze_pfnKrtDriverStatus_t)(ze_krt_driver_status_t *status);

#endif

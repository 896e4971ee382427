/* What libkrt's runtime sees of its in-process host driver (driver/host/host_ddi.c). */
#ifndef ZP_HOST_H
#define ZP_HOST_H

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>

/* Fills *out with the host driver's entry points, the same tables the loader gets from libze_pocl.so. */
ze_result_t krt__host_ddi(ze_dditable_t *out);
/* Whether a handle is the host driver or its device (they are the in-process driver's own objects). */
int krt__host_is_driver(const void *handle);
int krt__host_is_device(const void *handle);

#endif

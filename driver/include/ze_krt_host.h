/* krt's in-process host driver (driver/host/), which libkrt links in rather than the loader listing it. What a
 * client of it (libkrt's runtime) sees: its entry point, which fills the same Level Zero tables the loader
 * gets from a driver library, and its one extension struct. */
#ifndef ZE_KRT_HOST_H
#define ZE_KRT_HOST_H

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>

/* A pNext entry of ze_module_desc_t naming the native library (NAME.so, built from the kernel's .cl with
 * -DKRT_HOST, docs/driver.md "The host device") whose functions run the module's kernels on the host driver.
 * The host driver needs one for every module; other drivers never see it. */
#define ZE_STRUCTURE_TYPE_KRT_HOST_LIBRARY_DESC ((ze_structure_type_t)0x7a704801)
typedef struct ze_krt_host_library_desc {
    ze_structure_type_t stype; /* ZE_STRUCTURE_TYPE_KRT_HOST_LIBRARY_DESC */
    const void *pNext;
    const char *path;
} ze_krt_host_library_desc_t;

/* Fills *out with the host driver's entry points (every table a driver library exports to the loader), and, when
 * status is not NULL, *status with what zeKrtDriverStatus tells of a loader's driver (ze_krt_driver_status.h): its
 * device count, or why it has none. The driver starts at the table's zeInit, as any driver does. */
struct ze_krt_driver_status;
ze_result_t krt__host_ddi(ze_dditable_t *out, struct ze_krt_driver_status *status);

#endif

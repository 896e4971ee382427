/* ZE_krt_private_memory: a Level Zero extension of krt's drivers (ze_pocl, ze_cuda, the host driver) that says how
 * much private memory a kernel's work-item needs and how much the device can give one, so that a caller can refuse a
 * launch that could never run, naming both, before the driver's own refusal (issue 39: a fuzzed module asked for
 * 0xFFFFFFFF00000010 ulongs of private array per work-item; ze_pocl ran it on a stack far too small and the process
 * died). zeKernelGetProperties' privateMemSize has 32 bits and no limit beside it. The answer rides on the kernel's
 * properties, in their pNext chain:
 *
 *   ze_krt_kernel_private_memory_properties_t pm = { ZE_STRUCTURE_TYPE_KRT_KERNEL_PRIVATE_MEMORY_PROPERTIES };
 *   ze_kernel_properties_t kp = { ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES, &pm };
 *   zeKernelGetProperties(kernel, &kp);
 *
 * privateMemSize: bytes of private memory one work-item of the kernel needs (its stack objects, its callees' included),
 * not clamped to 32 bits; UINT64_MAX when it is more than 64 bits can count. maxPrivateMemSize: the most one work-item
 * of this kernel can have on the device (0: the driver sets no limit). perGroup: the limit is shared by the work-items
 * of a group (their private memory lives together on one stack, as a CPU driver keeps the variables that live across a
 * barrier), so privateMemSize times the group's work-items must fit in it. A launch past the limit is refused by
 * zeCommandListAppendLaunchKernel with ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY. Only a driver that advertises the
 * extension reads the struct; give it to no other. */
#ifndef ZE_KRT_PRIVATE_MEMORY_H
#define ZE_KRT_PRIVATE_MEMORY_H

#include <level_zero/ze_api.h>

#define ZE_KRT_PRIVATE_MEMORY_NAME "ZE_krt_private_memory"
#define ZE_STRUCTURE_TYPE_KRT_KERNEL_PRIVATE_MEMORY_PROPERTIES ((ze_structure_type_t)0x7a705056)

typedef struct ze_krt_kernel_private_memory_properties {
    ze_structure_type_t stype; /* ZE_STRUCTURE_TYPE_KRT_KERNEL_PRIVATE_MEMORY_PROPERTIES */
    void *pNext;
    uint64_t privateMemSize;    /* [out] bytes per work-item */
    uint64_t maxPrivateMemSize; /* [out] the device's limit for one work-item of this kernel; 0 for none */
    ze_bool_t perGroup;         /* [out] the limit is shared by a group's work-items */
} ze_krt_kernel_private_memory_properties_t;

#endif

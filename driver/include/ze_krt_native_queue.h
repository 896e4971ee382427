/* ZE_krt_native_queue: a Level Zero extension of ze_cuda that hands out the backend queue under an immediate
 * command list, so that a program can order work of the backend's own API (CUDA) against the list: the
 * stream protocol of DLPack and of __cuda_array_interface__, where a producer makes a consumer's stream wait
 * for its work.
 *
 *   ze_pfnKrtCommandListGetNativeQueue_t get;
 *   zeDriverGetExtensionFunctionAddress(driver, ZE_KRT_NATIVE_QUEUE_FUNCTION, (void **)&get);
 *   get(list, &native);   ze_cuda: native is the list's CUstream
 *
 * The list must be an immediate command list (ZE_RESULT_ERROR_INVALID_ARGUMENT otherwise). Commands appended
 * to the list reach the native queue in append order; a command the driver holds back (it waits on an event
 * not yet signalled) reaches it when it is released, after whatever the caller has put on the native queue
 * meanwhile. Work the caller puts on the native queue therefore runs after every command the list has already
 * submitted and before every command appended after it. The handle belongs to the list: never destroy it, and
 * do not use it after the list is destroyed. A driver that advertises the extension and whose backend has no
 * native queue for this list returns ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. */
#ifndef ZE_KRT_NATIVE_QUEUE_H
#define ZE_KRT_NATIVE_QUEUE_H

#include <level_zero/ze_api.h>

#define ZE_KRT_NATIVE_QUEUE_NAME "ZE_krt_native_queue"
#define ZE_KRT_NATIVE_QUEUE_FUNCTION "zeKrtCommandListGetNativeQueue"

typedef ze_result_t (*ze_pfnKrtCommandListGetNativeQueue_t)(ze_command_list_handle_t hCommandList, void **phNative);

#endif

/* ZE_krt_native_queue: a Level Zero extension of ze_cuda that hands out the backend queue under an immediate
 * command list, so that a program can order work of the backend's own API (CUDA) against the list: the
 * stream protocol of DLPack and of __cuda_array_interface__, where a producer makes a consumer's stream wait
 * for its work.
 *
 * The request rides on the list's creation, in the pNext chain of zeCommandListCreateImmediate's descriptor
 * (a chained struct passes through the loader as it is, where a handle given to an extension function would
 * reach the driver still wrapped by the loader when several drivers are loaded):
 *
 *   void *native = NULL;
 *   ze_krt_native_queue_desc_t nq = { ZE_STRUCTURE_TYPE_KRT_NATIVE_QUEUE_DESC, NULL, &native };
 *   ze_command_queue_desc_t qd = { ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, &nq, ... };
 *   zeCommandListCreateImmediate(ctx, dev, &qd, &list);    ze_cuda: native is the list's CUstream
 *
 * On success *phNative is the native queue, or NULL when the backend has none for this list. Commands
 * appended to the list reach the native queue in append order; a command the driver holds back (it waits on
 * an event not yet signalled) reaches it when it is released, after whatever the caller has put on the native
 * queue meanwhile. Work the caller puts on the native queue therefore runs after every command the list has
 * already submitted and before every command appended after it. The handle belongs to the list: never destroy
 * it, and do not use it after the list is destroyed. Only a driver that advertises the extension reads the
 * struct; give it to no other. */
#ifndef ZE_KRT_NATIVE_QUEUE_H
#define ZE_KRT_NATIVE_QUEUE_H

#include <level_zero/ze_api.h>

#define ZE_KRT_NATIVE_QUEUE_NAME "ZE_krt_native_queue"
#define ZE_STRUCTURE_TYPE_KRT_NATIVE_QUEUE_DESC ((ze_structure_type_t)0x7a704e51)

typedef struct ze_krt_native_queue_desc {
    ze_structure_type_t stype; /* ZE_STRUCTURE_TYPE_KRT_NATIVE_QUEUE_DESC */
    const void *pNext;
    void **phNative;           /* receives the native queue, or NULL */
} ze_krt_native_queue_desc_t;

#endif

/*
 * result.c: result names and strings from krt.h's X-macro list, the thread-local error message, the one
 * place where a Level Zero result becomes a krt_result, and the names of krt.h's argument kinds and types.
 */
#include "krt_internal.h"

#include <stdio.h>

/* The detail of the last failure on this thread. Thread-local so that concurrent callers never see each
 * other's messages and no lock is needed on error paths. */
static _Thread_local char last_message[2048];

const char *krt_result_name(krt_result result)
{
    switch (result) {
#define KRT_RESULT_NAME_(name, value, text) \
    case KRT_##name:                        \
        return "KRT_" #name;
        KRT_RESULT_LIST(KRT_RESULT_NAME_)
#undef KRT_RESULT_NAME_
    }
    return "KRT_UNKNOWN_RESULT";
}

const char *krt_result_string(krt_result result)
{
    switch (result) {
#define KRT_RESULT_STRING_(name, value, text) \
    case KRT_##name:                          \
        return text;
        KRT_RESULT_LIST(KRT_RESULT_STRING_)
#undef KRT_RESULT_STRING_
    }
    return "unknown result code";
}

const char *krt_last_error_message(void)
{
    return last_message;
}

krt_result krt__fail(krt_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return code;
}

const char *krt__ze_name(ze_result_t zr)
{
    switch (zr) {
#define ZE_NAME_(x) \
    case x:         \
        return #x;
        ZE_NAME_(ZE_RESULT_SUCCESS)
        ZE_NAME_(ZE_RESULT_NOT_READY)
        ZE_NAME_(ZE_RESULT_ERROR_DEVICE_LOST)
        ZE_NAME_(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
        ZE_NAME_(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
        ZE_NAME_(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
        ZE_NAME_(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
        ZE_NAME_(ZE_RESULT_ERROR_UNINITIALIZED)
        ZE_NAME_(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
        ZE_NAME_(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_ARGUMENT)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)
        ZE_NAME_(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_SIZE)
        ZE_NAME_(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
        ZE_NAME_(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_ENUMERATION)
        ZE_NAME_(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
        ZE_NAME_(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
        ZE_NAME_(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)
        ZE_NAME_(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)
        ZE_NAME_(ZE_RESULT_ERROR_UNKNOWN)
#undef ZE_NAME_
    default:
        return "ZE_RESULT_(unlisted)";
    }
}

krt_result krt__from_ze(ze_result_t zr)
{
    switch (zr) {
    case ZE_RESULT_SUCCESS:
        return KRT_SUCCESS;
    case ZE_RESULT_NOT_READY:
        return KRT_NOT_READY;
    case ZE_RESULT_ERROR_DEVICE_LOST:
        return KRT_ERROR_DEVICE_LOST;
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
        return KRT_ERROR_OUT_OF_HOST_MEMORY;
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
        return KRT_ERROR_OUT_OF_DEVICE_MEMORY;
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
    case ZE_RESULT_ERROR_MODULE_LINK_FAILURE:
        return KRT_ERROR_MODULE_BUILD_FAILURE;
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY:
        return KRT_ERROR_INVALID_MODULE;
    case ZE_RESULT_ERROR_UNINITIALIZED:
        return KRT_ERROR_NO_DRIVER;
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
    case ZE_RESULT_ERROR_UNSUPPORTED_VERSION:
    case ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT:
        return KRT_ERROR_UNSUPPORTED_FEATURE;
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
        return KRT_ERROR_KERNEL_NOT_FOUND;
    case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
        return KRT_ERROR_INVALID_GROUP_SIZE;
    case ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION:
        return KRT_ERROR_INVALID_NDRANGE;
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX:
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE:
        return KRT_ERROR_INVALID_KERNEL_ARGUMENT;
    case ZE_RESULT_ERROR_INVALID_SIZE:
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE:
    case ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT:
    case ZE_RESULT_ERROR_INVALID_ARGUMENT:
    case ZE_RESULT_ERROR_INVALID_ENUMERATION:
    case ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION:
        return KRT_ERROR_INVALID_ARGUMENT;
    default:
        return KRT_ERROR_DRIVER;
    }
}

krt_result krt__ze(ze_result_t zr, const char *what)
{
    if (zr == ZE_RESULT_SUCCESS)
        return KRT_SUCCESS;
    krt_result r = krt__from_ze(zr);
    if (r != KRT_NOT_READY)
        krt__fail(r, "%s failed: %s (0x%x)", what, krt__ze_name(zr), (unsigned)zr);
    return r;
}

/* The one table of argument-kind and scalar-type names, for krt_arg_kind_name / krt_scalar_type_name: launch
 * errors, krt-info and the Python binding print these. */
static const char *const arg_kind_names[] = { "global pointer", "constant pointer", "local pointer",
                                              "scalar",         "struct",           "other" };
_Static_assert(sizeof arg_kind_names / sizeof arg_kind_names[0] == KRT_ARG_OTHER + 1, "one name per krt_arg_kind");
static const char *const scalar_type_names[] = { "none",    "int8",    "int16",   "int32", "int64",
                                                 "float16", "float32", "float64", "bool" };
_Static_assert(sizeof scalar_type_names / sizeof scalar_type_names[0] == KRT_TYPE_BOOL + 1,
               "one name per krt_scalar_type");

const char *krt_arg_kind_name(krt_arg_kind kind)
{
    return (unsigned)kind < sizeof arg_kind_names / sizeof arg_kind_names[0] ? arg_kind_names[kind] : "unknown";
}

const char *krt_scalar_type_name(krt_scalar_type type)
{
    return (unsigned)type < sizeof scalar_type_names / sizeof scalar_type_names[0] ? scalar_type_names[type]
                                                                                   : "unknown";
}

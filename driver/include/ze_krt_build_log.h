/* ZE_krt_build_log: a Level Zero extension of krt's drivers (ze_pocl, ze_cuda, the host driver) that copies a
 * module's build log into the caller's memory during zeModuleCreate, successful or not.
 *
 * Why: with several drivers loaded, the Level Zero loader (1.8.12) hands back the build log handle of a failed
 * zeModuleCreate unwrapped, and any call with it crashes, so the log of a failed build cannot be read through
 * the handle. A struct chained on the module descriptor passes through the loader as it is:
 *
 *   char text[4096];
 *   size_t length = 0;
 *   ze_krt_build_log_desc_t bl = { ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC, NULL, text, sizeof text, &length };
 *   ze_module_desc_t md = { ZE_STRUCTURE_TYPE_MODULE_DESC, &bl, ... };
 *   zeModuleCreate(ctx, dev, &md, &module, NULL);
 *
 * After a build, successful or failed, pText holds the log, cut to capacity - 1 bytes and NUL-terminated (an empty string
 * when the build wrote none), and *pLength, when not NULL, the whole log's length plus one (what
 * zeModuleBuildLogGetString's size query returns), so a caller can tell a cut log. A call refused before any build
 * (a null or invalid argument) leaves the struct untouched. pText may be NULL with
 * capacity 0 to ask the length alone. Only a driver that advertises the extension reads the struct; give it to
 * no other. */
#ifndef ZE_KRT_BUILD_LOG_H
#define ZE_KRT_BUILD_LOG_H

#include <level_zero/ze_api.h>

#define ZE_KRT_BUILD_LOG_NAME "ZE_krt_build_log"
#define ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC ((ze_structure_type_t)0x7a704c47)

typedef struct ze_krt_build_log_desc {
    ze_structure_type_t stype; /* ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC */
    const void *pNext;
    char *pText;               /* receives the log, NUL-terminated; may be NULL when capacity is 0 */
    size_t capacity;           /* bytes at pText */
    size_t *pLength;           /* receives the whole log's length plus one; may be NULL */
} ze_krt_build_log_desc_t;

#endif

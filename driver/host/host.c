/* The host device's backend table (host_be.h says how the backend works and which file holds what): the one
 * device, its properties and its memory. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host_be.h"

static struct zp_bdev host_dev;

static ze_result_t host_init(void) {
    host_dev.threads = host_pool_threads();
    return host_dev.threads ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static const char *host_no_device_reason(void) {
    return host_pool_threads() ? "" : "KRT_HOST_THREADS is set but not a number of threads from 1 to 1024";
}

static uint32_t host_device_count(void) { return 1; }

static zp_bdev *host_device(uint32_t index) { return index == 0 ? &host_dev : NULL; }

/* The first core's clock as /proc/cpuinfo gives it ("cpu MHz"), 0 where it does not. */
static uint32_t clock_mhz(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[256];
    double mhz = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0) {
            const char *colon = strchr(line, ':');
            if (colon) mhz = strtod(colon + 1, NULL);
            break;
        }
    fclose(f);
    return mhz > 0 && mhz < 1e6 ? (uint32_t)mhz : 0;
}

static void host_device_info(zp_bdev *dev, zp_device_info *info) {
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "krt host (%u thread%s)", dev->threads, dev->threads == 1 ? "" : "s");
    info->compute_units = dev->threads;
    info->clock_mhz = clock_mhz();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    info->global_mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : (uint64_t)1 << 32;
    info->max_alloc = info->global_mem / 2;
    info->local_mem = HOST_LOCAL_MEM;
    info->max_group_total = HOST_MAX_GROUP;
    for (int i = 0; i < 3; i++) info->max_group[i] = HOST_MAX_GROUP;
    info->max_args_size = 4096;
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    info->cache_size = l3 > 0 ? (uint64_t)l3 : 0;
    info->cacheline = 64;
    /* half is C's _Float16 in the kernel libraries (krt_kernel_host.h), where the compiler has it: the same one. */
#if defined(__FLT16_MANT_DIG__)
    info->fp16 = true;
#else
    info->fp16 = false;
#endif
    info->fp64 = true;
    info->int64_atomics = true;
    info->profiling = true;
}

static void host_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns) {
    (void)dev;
    *host_ns = *device_ns = host_now_ns();
}

/* An allocation of HOST_HUGE_PAGE bytes or more is aligned to it and asks Linux for transparent huge pages
 * (MADV_HUGEPAGE: Debian's default THP mode, "madvise", gives them only to memory that asks): a kernel streaming
 * through 48 MiB then takes a TLB miss per 2 MiB instead of per 4 KiB. vadd over 4 M floats on one core took
 * 1.1 ms instead of 1.7 ms (docs/performance.md section 7). Where the system refuses, the memory stays in small
 * pages, as before. */
#define HOST_HUGE_PAGE ((size_t)2 << 20)

static void *host_mem_alloc(size_t size, size_t alignment, void **raw) {
    if (alignment < 64) alignment = 64;
    if (size >= HOST_HUGE_PAGE && alignment < HOST_HUGE_PAGE) alignment = HOST_HUGE_PAGE;
    void *p = NULL;
    if (posix_memalign(&p, alignment, size ? size : 1) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= HOST_HUGE_PAGE) (void)madvise(p, size, MADV_HUGEPAGE);
#endif
    *raw = p;
    return p;
}

/* Memory a checked kernel was let through (shadow.c) is refused again before anything else can have it. */
static void host_mem_free(void *raw) {
    if (raw) host_shadow_poison((uintptr_t)raw, malloc_usable_size(raw));
    free(raw);
}

const zp_backend_ops zp_host_backend = {
    .name = "host",
    .init = host_init,
    .device_count = host_device_count,
    .device = host_device,
    .device_info = host_device_info,
    .no_device_reason = host_no_device_reason,
    .timestamps = host_timestamps,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .module_build = host_module_build,
    .module_destroy = host_module_destroy,
    .module_meta_free = host_module_meta_free,
    .kernel_create = host_kernel_create,
    .kernel_destroy = host_kernel_destroy,
    .kernel_set_arg = host_kernel_set_arg,
    .queue_create = host_queue_create,
    .queue_destroy = host_queue_destroy,
    .queue_finish = host_queue_finish,
    .launch = host_launch,
    .copy = host_copy,
    .fill = host_fill,
    .barrier = host_barrier,
    .host_task = host_host_task,
    .token_retain = host_token_retain,
    .token_release = host_token_release,
    .token_on_complete = host_token_on_complete,
    .token_times = host_token_times,
    .capture_begin = host_capture_begin,
    .capture_end = host_capture_end,
    .graph_launch = host_graph_launch,
    .graph_destroy = host_graph_destroy,
};

/* Debugging knobs (docs/driver.md, "Faults", "Debugging knobs"): KRT_ZE_SYNC and KRT_ZE_TRACE. A leaf beside the
 * object model: reads the allocation table (memory.c) to say where a pointer argument points; nothing calls back. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "zp.h"

/* As CUDA_LAUNCH_BLOCKING is for CUDA: what a client that is not krt (a SYCL runtime, a Level Zero test suite) needs
 * to find the kernel that faults or computes wrong.
 * KRT_ZE_SYNC=1: every immediate list and every queue is synchronous (an append or an execute returns once its work
 * is done), so that a fault is reported by the call that gave the faulting kernel. Read when a list or queue is made.
 * KRT_ZE_TRACE=FILE: one line per kernel append (name, device, group count and size, list kind, result, the
 * microseconds the call took: with KRT_ZE_SYNC, the kernel's run and the wait for it; and the arguments) appended to
 * FILE, written before the call returns and flushed, so that the last line of a crashed process names what it ran
 * last. Read when a kernel is made (zp_trace_wanted, zp.h); the file is opened at the first line and stays open.
 * Nothing is written otherwise: the drivers never print. */
bool zp_debug_sync(void) {
    const char *v = getenv("KRT_ZE_SYNC");
    return v && v[0] && strcmp(v, "0") != 0;
}

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *trace_file;

/* Each argument as the launch had it: a pointer with the allocation it falls in ("in 0xBASE+OFFSET of SIZE", or "in no
 * allocation": memory the driver did not make, or none), a __local argument's size, other bytes in hex (the first 32).
 * Caller holds trace_lock. */
static void trace_args(ze_kernel_handle_t k) {
    for (uint32_t i = 0; i < k->meta->num_args; i++) {
        const zp_arg_meta *a = &k->meta->args[i];
        const uint8_t *v = k->arg_data + k->arg_off[i];
        if (!k->arg_set[i]) {
            fprintf(trace_file, " [%u] unset", i);
        } else if (a->kind == ZP_ARG_GLOBAL || a->kind == ZP_ARG_CONSTANT) {
            void *p;
            memcpy(&p, v, sizeof p);
            zp_alloc_info info;
            if (!p)
                fprintf(trace_file, " [%u] null", i);
            else if (zp_mem_lookup(NULL, p, &info))
                fprintf(trace_file, " [%u] %p in %p+%zu of %zu", i, p, info.base,
                        (size_t)((uintptr_t)p - (uintptr_t)info.base), info.size);
            else
                fprintf(trace_file, " [%u] %p in no allocation", i, p);
        } else if (a->kind == ZP_ARG_LOCAL) {
            size_t n;
            memcpy(&n, v, sizeof n);
            fprintf(trace_file, " [%u] local %zu bytes", i, n);
        } else {
            fprintf(trace_file, " [%u] 0x", i);
            for (uint32_t b = 0; b < a->size && b < 32; b++) fprintf(trace_file, "%02x", v[b]);
            if (a->size > 32) fputs("...", trace_file);
        }
    }
}

uint64_t zp_trace_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void zp_trace_launch(ze_kernel_handle_t k, const zp_ndrange *r, const uint32_t groups[3], bool immediate,
                     ze_result_t res, uint64_t start_ns) {
    double us = (double)(zp_trace_clock() - start_ns) / 1e3;
    pthread_mutex_lock(&trace_lock);
    if (!trace_file) {
        const char *path = getenv("KRT_ZE_TRACE");
        if (path && path[0]) trace_file = fopen(path, "ae");
    }
    if (trace_file) {
        fprintf(trace_file, "launch %s device %u groups %u,%u,%u of %u,%u,%u range %zu,%zu,%zu %s: 0x%x %.1f us args",
                k->meta->name ? k->meta->name : "?", k->module->dev->index, groups[0], groups[1], groups[2],
                (unsigned)r->local[0], (unsigned)r->local[1], (unsigned)r->local[2], (size_t)r->range[0],
                (size_t)r->range[1], (size_t)r->range[2], immediate ? "immediate" : "recorded", (unsigned)res, us);
        trace_args(k);
        fputc('\n', trace_file);
        fflush(trace_file);
    }
    pthread_mutex_unlock(&trace_lock);
}

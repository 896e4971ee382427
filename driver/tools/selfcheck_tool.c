/* ze_pocl_selfcheck: runs ze_pocl's start-up self-check outside the driver, to see what the installed
 * PoCL needs (tools/device-suite.sh runs it on each PoCL it visits).
 *   ze_pocl_selfcheck                    the automatic choice, as zeInit makes it (cache included)
 *   ze_pocl_selfcheck ROUTE FLAGS WHICH  one candidate: ROUTE 0 = SPIR bitcode, 1 = SPIR-V (IL); FLAGS the
 *                                        zp_spirv_flags and zp_pocl_rewrite_flags (driver/pocl/pocl_rewrites.h);
 *                                        WHICH 1 fill, 2 atomics, 4 async copies, 7 all
 * Exit status 0 when the checks ran exact. Each candidate is best run in its own process: a PoCL that
 * lacks a builtin aborts the process at launch. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../pocl/pocl_be.h"

int main(int argc, char **argv) {
    /* The driver's start without its check; the check itself is timed below. */
    if (zp_pocl_open() != ZE_RESULT_SUCCESS) {
        printf("PoCL did not start\n");
        return 2;
    }
    printf("pocl: %s\ndevice: %s\nversion: %d.%d\nil: %d\ngeneric_as: %d\n", zp_caps.version, zp_caps.device,
           zp_caps.major, zp_caps.minor, zp_caps.il, zp_caps.generic_as);
    if (argc != 4) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        zp_pocl_selfcheck(&zp_caps, (cl_device_id)zp_pocl_device(0));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("self-check: %.3f ms\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        printf("auto: route %u flags %u verdict %s\n%s\n", zp_caps.route, zp_caps.rewrites,
               zp_caps.check == ZE_RESULT_SUCCESS ? "ok" : "FAILED", zp_caps.check_log);
        fflush(stdout);
        return zp_caps.check == ZE_RESULT_SUCCESS ? 0 : 1;
    }
    uint32_t route = (uint32_t)strtoul(argv[1], NULL, 0);
    unsigned flags = (unsigned)strtoul(argv[2], NULL, 0), which = (unsigned)strtoul(argv[3], NULL, 0);
    char why[1024] = "";
    fflush(stdout);
    int rc = zp_pocl_selfcheck_run((cl_device_id)zp_pocl_device(0), route, flags, which, why, sizeof why);
    printf("route %u flags %u which %u: %s %s\n", route, flags, which, rc == 0 ? "ok" : "FAILED", why);
    return rc == 0 ? 0 : 1;
}

/* Cost of zeModuleCreate + zeModuleDestroy on ze_pocl for one SPIR-V file, repeated in one process.
 * Usage: ZE_ENABLE_ALT_DRIVERS=<abs path>/libze_pocl.so ze_pocl_module_cost module.spv [repetitions]
 * Prints the median wall time of a load. For instruction counts run it under valgrind --tool=callgrind with
 * 1 and with 6 repetitions: the difference divided by 5 is the cost of one warm load (start-up, the first
 * load and PoCL's cache fill cancel out). docs/driver.md, "Modules the translator or PoCL would die on", uses
 * it for the cost of the checks before the translator. */
#include <level_zero/ze_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ze_pocl_module_cost module.spv [repetitions]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    if (reps < 1 || reps > 10000) reps = 10;
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *spv = malloc(n > 0 ? (size_t)n : 1);
    if (!spv || n <= 0 || fread(spv, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    uint32_t c = 1;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    if (zeInit(0) || zeDriverGet(&c, &drv) || (c = 1, zeDeviceGet(drv, &c, &dev)) || zeContextCreate(drv, &cd, &ctx)) {
        fprintf(stderr, "Level Zero initialisation failed\n");
        return 1;
    }
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = (size_t)n, .pInputModule = spv, .pBuildFlags = ""};
    uint64_t *t = calloc((size_t)reps, sizeof *t);
    for (int i = 0; i < reps; i++) {
        ze_module_handle_t m;
        uint64_t t0 = now_ns();
        ze_result_t r = zeModuleCreate(ctx, dev, &md, &m, NULL);
        t[i] = now_ns() - t0;
        if (r != ZE_RESULT_SUCCESS) {
            fprintf(stderr, "zeModuleCreate: 0x%x\n", (unsigned)r);
            return 1;
        }
        zeModuleDestroy(m);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_u64);
    printf("%d loads of %s: median %.3f ms, min %.3f ms\n", reps, argv[1], (double)t[reps / 2] / 1e6, (double)t[0] / 1e6);
    free(t);
    free(spv);
    zeContextDestroy(ctx);
    return 0;
}

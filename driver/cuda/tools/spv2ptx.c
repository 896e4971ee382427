/* ze_cuda_ptx: translates one SPIR-V module to PTX with ze_cuda's own code (driver/cuda/ptx.cpp), no GPU
 * needed. make test runs it on every kernel and hands the PTX to ptxas (test/test_cuda_ptx.c).
 *   ze_cuda_ptx [--bounds-table ADDR] IN.spv OUT.ptx
 * --bounds-table builds the module checked against a bounds table at ADDR (ZE_krt_bounds_check, spirv/bounds.cpp).
 * Exit status: 0 translated; 1 usage or I/O error; 2 the module is refused (the log on stderr says why). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ptx.h"
#include "../../../spirv/spirv.h"

static void *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

int main(int argc, char **argv) {
    uint64_t table = 0;
    if (argc == 5 && strcmp(argv[1], "--bounds-table") == 0) {
        table = strtoull(argv[2], NULL, 0);
        argv += 2;
        argc -= 2;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: %s [--bounds-table ADDR] IN.spv OUT.ptx\n", argv[0]);
        return 1;
    }
    size_t size = 0;
    void *spv = read_all(argv[1], &size);
    if (!spv) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
        return 1;
    }
    zp_module_src src = {.spirv = spv, .size = size, .fp16 = true, .fp64 = true, .int64_atomics = true,
                         .bounds_table = table};
    void *bc = NULL;
    size_t bc_size = 0;
    zp_module_meta meta = {0};
    char *log = NULL, *ptx = NULL;
    int rc = zc_front(&src, &bc, &bc_size, &meta, &log);
    if (rc == ZC_OK) {
        free(log);
        log = NULL;
        rc = zc_back(bc, bc_size, &meta, &ptx, &log);
    }
    if (log) fprintf(stderr, "%s\n", log);
    int status = 2;
    if (rc == ZC_OK) {
        FILE *f = fopen(argv[2], "w");
        status = f && fputs(ptx, f) >= 0 && fclose(f) == 0 ? 0 : 1;
        if (status) fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[2]);
    }
    free(ptx);
    free(log);
    free(bc);
    zp_spirv_meta_free(&meta);
    free(spv);
    return status;
}

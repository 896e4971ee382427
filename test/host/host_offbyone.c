/*
 * host_offbyone LIBRARY: runs kernels/offbyone.cl's scale_blocks from a native kernel library (the
 * AddressSanitizer build, build/kernels-asan/host/offbyone.so) over 64 blocks of 16 floats held in malloc'd
 * arrays of exactly 1024 floats, through the native kernel ABI and no runtime. The kernel's off-by-one reads
 * in[1024]; under AddressSanitizer (LD_PRELOAD of the compiler's libasan) the process stops there with a
 * report naming the kernel's file and line, which test_host_kernels.c checks. Exit status 0 if the kernel ran
 * to the end (no sanitizer), 2 on a usage or loading error.
 */
#include "host_item.h"

#include <stdlib.h>

typedef void (*scale_blocks_fn)(const float *in, float *out, float factor, uint32_t per, uint32_t blocks);

struct call {
    scale_blocks_fn fn;
    const float *in;
    float *out;
    uint32_t per, blocks;
};

static void call_scale(void *ctx)
{
    struct call *c = ctx;
    c->fn(c->in, c->out, 2.0f, c->per, c->blocks);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: host_offbyone LIBRARY\n");
        return 2;
    }
    void *lib = ht_open(argv[1]);
    if (!lib)
        return 2;
    ht_slot_fn slot = (ht_slot_fn)dlsym(lib, "krt_host_item_slot");
    struct call c = { .fn = (scale_blocks_fn)dlsym(lib, "scale_blocks"), .per = 16, .blocks = 64 };
    if (!slot || !c.fn) {
        fprintf(stderr, "host_offbyone: %s lacks krt_host_item_slot or scale_blocks\n", argv[1]);
        return 2;
    }
    size_t n = (size_t)c.per * c.blocks;
    float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    if (!in || !out)
        return 2;
    for (size_t i = 0; i < n; i++)
        in[i] = (float)i;
    c.in = in;
    c.out = out;
    size_t size[3] = { c.blocks }, group[3] = { 8 };
    ht_run(slot, 1, size, group, call_scale, &c, 0, 1);
    printf("host_offbyone: the kernel ran to the end\n");
    free(in);
    free(out);
    return 0;
}

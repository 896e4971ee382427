/*
 * host_vadd LIBRARY N: calls kernels/vadd.cl's vadd from a native kernel library over N work-items in groups of
 * 256, through the native kernel ABI (host_item.h) and no runtime; exit status 0 when c = a + b. A measuring
 * tool, not a test: under callgrind it gives the per-work-item cost of the kernel and of its work-item
 * functions (docs/single-source.md, "The cost of a work-item function").
 */
#include "host_item.h"

#include <stdlib.h>

typedef void (*vadd_fn)(const float *, const float *, float *, uint32_t);

struct call {
    vadd_fn fn;
    float *a, *b, *c;
    uint32_t n;
};

static void call_vadd(void *p)
{
    struct call *c = p;
    c->fn(c->a, c->b, c->c, c->n);
}

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[2]) <= 0) {
        fprintf(stderr, "usage: host_vadd LIBRARY N\n");
        return 2;
    }
    void *lib = ht_open(argv[1]);
    if (!lib)
        return 2;
    ht_slot_fn slot = (ht_slot_fn)dlsym(lib, "krt_host_item_slot");
    struct call c = { (vadd_fn)dlsym(lib, "vadd"), NULL, NULL, NULL, (uint32_t)atol(argv[2]) };
    if (!slot || !c.fn) {
        fprintf(stderr, "host_vadd: %s lacks krt_host_item_slot or vadd\n", argv[1]);
        return 2;
    }
    c.a = malloc(c.n * sizeof(float));
    c.b = malloc(c.n * sizeof(float));
    c.c = malloc(c.n * sizeof(float));
    if (!c.a || !c.b || !c.c)
        return 2;
    for (uint32_t i = 0; i < c.n; i++) {
        c.a[i] = (float)i;
        c.b[i] = 0.5f * (float)i;
    }
    size_t size[3] = { c.n }, group[3] = { 256 };
    ht_run(slot, 1, size, group, call_vadd, &c, 0, 1);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < c.n; i++)
        wrong += c.c[i] != c.a[i] + c.b[i];
    printf("host_vadd: %u work-items, %u wrong\n", c.n, wrong);
    return wrong ? 1 : 0;
}

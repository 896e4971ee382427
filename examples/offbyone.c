/*
 * offbyone: a program with a bug in its kernel, for docs/tutorial-debugging.md. kernels/offbyone.cl scales
 * blocks of elements, and its loop runs one element too far: the last work-item reads and writes one element
 * past the end of its arrays. On a device the program still reports every result correct; the write lands in
 * whatever lies behind `out`, here the first element of another array the program keeps in the same
 * allocation, which it prints. Run it on the host device under AddressSanitizer, or under gdb, to find the line
 * (the tutorial shows how).
 *
 * usage: offbyone [blocks] [per]   (default 64 blocks of 16 floats)
 */
#include "example.h"

int main(int argc, char **argv)
{
    uint32_t blocks = (uint32_t)ex_arg_size(argc, argv, 1, 64);
    uint32_t per = (uint32_t)ex_arg_size(argc, argv, 2, 16);
    size_t n = (size_t)blocks * per;

    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "offbyone.spv");
    krt_kernel *scale = ex_kernel(module, "scale_blocks");

    float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    if (!in || !out) {
        fprintf(stderr, "offbyone: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        in[i] = (float)i;

    /* `in` is an allocation of its own, n floats. `out` shares one allocation with a second array, `next`,
     * which starts right behind it (programs that sub-allocate do this): next[0] is set to -1 and never
     * written by the program again. */
    float *din = ex_alloc(ctx, n * sizeof(float));
    float *pool = ex_alloc(ctx, (n + 1) * sizeof(float));
    float *dout = pool, *dnext = pool + n;
    float minus_one = -1.0f, next0 = 0.0f;
    EX_CHECK(krt_memcpy(ctx, NULL, din, in, n * sizeof(float)));
    EX_CHECK(krt_memcpy(ctx, NULL, dnext, &minus_one, sizeof(float)));

    float factor = 2.0f;
    krt_arg args[] = { KRT_ARG(din), KRT_ARG(dout), KRT_ARG(factor), KRT_ARG(per), KRT_ARG(blocks) };
    krt_launch_desc launch = { .range = { .dims = 1, .size = { blocks } }, .args = args, .num_args = 5 };
    EX_CHECK(krt_launch_sync(scale, &launch));
    EX_CHECK(krt_memcpy_sync(ctx, NULL, out, dout, n * sizeof(float)));
    EX_CHECK(krt_memcpy_sync(ctx, NULL, &next0, dnext, sizeof(float)));

    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] != factor * in[i])
            wrong++;
    printf("scale_blocks over %u blocks of %u: %zu of %zu results wrong\n", blocks, per, wrong, n);
    printf("next[0], set to -1 and not written since: %g\n", (double)next0);

    krt_free(ctx, din);
    krt_free(ctx, pool);
    krt_context_destroy(ctx);
    free(in);
    free(out);
    return wrong ? 1 : 0;
}

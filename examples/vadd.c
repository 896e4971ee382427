/*
 * vadd: the first krt program. Load a SPIR-V module, get a kernel by name, allocate device memory, copy
 * inputs in, launch over n work-items without choosing a group size, copy the result out, check it.
 *
 * usage: vadd [n]   (default 1000000)
 */
#include "example.h"

int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 1, 1000000);
    size_t bytes = (size_t)n * sizeof(float);

    /* The default device: an Intel GPU when its Level Zero driver is installed, else the CPU via ze_pocl. */
    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "vadd.spv");
    krt_kernel *vadd = ex_kernel(module, "vadd");

    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "vadd: out of memory\n");
        return 2;
    }
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 2.0f * (float)i;
    }

    /* Device memory, filled and read back with queued copies on the context's default queue. */
    float *da = ex_alloc(ctx, bytes), *db = ex_alloc(ctx, bytes), *dc = ex_alloc(ctx, bytes);
    EX_CHECK(krt_memcpy(ctx, NULL, da, a, bytes));
    EX_CHECK(krt_memcpy(ctx, NULL, db, b, bytes));

    /* The launch: a range and the arguments, nothing else. krt picks the group size; this asks what it
     * will pick, which is what the launch below uses. */
    krt_ndrange range = { .dims = 1, .size = { n } };
    krt_launch_config config;
    EX_CHECK(krt_launch_config_get(vadd, &range, &config));
    ex_print_config("krt chose: ", &config);

    krt_arg args[] = { KRT_ARG(da), KRT_ARG(db), KRT_ARG(dc), KRT_ARG(n) };
    krt_launch_desc launch = { .range = range, .args = args, .num_args = 4 };

    uint64_t t0 = ex_now_ns();
    EX_CHECK(krt_launch_sync(vadd, &launch)); /* the first launch of a kernel builds its state */
    double first_ms = ex_ms_since(t0);
    t0 = ex_now_ns();
    EX_CHECK(krt_launch_sync(vadd, &launch)); /* the second one finds it memoized */
    double second_ms = ex_ms_since(t0);
    printf("vadd of %u floats: first launch %.3f ms, second %.3f ms (launch + wait)\n", n, first_ms, second_ms);

    EX_CHECK(krt_memcpy_sync(ctx, NULL, c, dc, bytes));

    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        if (c[i] != a[i] + b[i])
            wrong++;
    printf("%s: %u of %u elements wrong\n", wrong ? "FAILED" : "ok", wrong, n);

    krt_free(ctx, da);
    krt_free(ctx, db);
    krt_free(ctx, dc);
    krt_context_destroy(ctx);
    free(a);
    free(b);
    free(c);
    return wrong ? 1 : 0;
}

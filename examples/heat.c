/*
 * heat: a 2-D stencil over many steps. A square plate starts cold with a hot spot and one hot edge; each
 * step is one launch of heat_step over the grid, reading one buffer and writing the other, then the two swap.
 * All steps are queued back to back on the in-order default queue and the program waits once at the end, so
 * the host cost per step is one krt_launch call. The final field is checked against the same computation on
 * the host and written as a PNG image.
 *
 * usage: heat [size [steps [out.png]]]   (default 256 500 heat.png)
 */
#include "example.h"
#include "png_write.h"

#include <math.h>

static void initial_field(float *f, uint32_t w, uint32_t h)
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float dx = (float)x - 0.3f * (float)w, dy = (float)y - 0.6f * (float)h;
            int spot = dx * dx + dy * dy < 0.01f * (float)(w * h);
            f[(size_t)y * w + x] = (y == 0 || spot) ? 1.0f : 0.0f;
        }
}

/* The same arithmetic as kernels/heat.cl, in the same order, so the host and the device round alike. */
static void host_step(const float *in, float *out, uint32_t w, uint32_t h, float alpha)
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
                out[i] = in[i];
                continue;
            }
            float c = in[i];
            float lap = in[i - 1] + in[i + 1] + in[i - w] + in[i + w] - 4.0f * c;
            out[i] = c + alpha * lap;
        }
}

int main(int argc, char **argv)
{
    uint32_t size = (uint32_t)ex_arg_size(argc, argv, 1, 256);
    uint32_t steps = (uint32_t)ex_arg_size(argc, argv, 2, 500);
    const char *png = argc > 3 ? argv[3] : "heat.png";
    uint32_t w = size, h = size;
    const float alpha = 0.24f;
    size_t bytes = (size_t)w * h * sizeof(float);

    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "heat.spv");
    krt_kernel *step = ex_kernel(module, "heat_step");

    float *field = malloc(bytes), *ref = malloc(bytes), *tmp = malloc(bytes);
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (!field || !ref || !tmp || !rgb) {
        fprintf(stderr, "heat: out of memory\n");
        return 2;
    }
    initial_field(field, w, h);
    memcpy(ref, field, bytes);

    float *d[2] = { ex_alloc(ctx, bytes), ex_alloc(ctx, bytes) };
    EX_CHECK(krt_memcpy(ctx, NULL, d[0], field, bytes));

    krt_ndrange range = { .dims = 2, .size = { w, h } };
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(step, &range, &c));
    ex_print_config("krt chose: ", &c);

    /* Only the buffers change between steps; krt sets an argument again only when its value changed. */
    uint64_t t0 = ex_now_ns();
    uint64_t host_ns = 0;
    for (uint32_t s = 0; s < steps; s++) {
        krt_arg args[] = { KRT_ARG(d[s % 2]), KRT_ARG(d[(s + 1) % 2]), KRT_ARG(w), KRT_ARG(h), KRT_ARG(alpha) };
        krt_launch_desc launch = { .range = range, .args = args, .num_args = 5 };
        uint64_t l0 = ex_now_ns();
        EX_CHECK(krt_launch(step, &launch));
        host_ns += ex_now_ns() - l0;
    }
    EX_CHECK(krt_memcpy_sync(ctx, NULL, field, d[steps % 2], bytes));
    double ms = ex_ms_since(t0);
    printf("%u steps on %u x %u: %.2f ms (%.1f us per step; krt_launch host cost %.2f us per call)\n", steps, w,
           h, ms, ms * 1e3 / steps, (double)host_ns / 1e3 / steps);

    for (uint32_t s = 0; s < steps; s++) {
        host_step(ref, tmp, w, h, alpha);
        float *swap = ref;
        ref = tmp;
        tmp = swap;
    }
    /* The device may contract a * b + c into one fused operation where the host does not; over many steps
     * that drifts by a few ulps, never by more than 1e-4 on values in [0, 1]. */
    size_t wrong = 0;
    double total = 0.0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        if (!(fabsf(field[i] - ref[i]) <= 1e-4f))
            wrong++;
        total += field[i];
    }
    printf("heat in the plate: %.3f (mean %.4f); %zu of %zu cells differ from the host: %s\n", total,
           total / ((double)w * h), wrong, (size_t)w * h, wrong ? "FAILED" : "ok");

    for (size_t i = 0; i < (size_t)w * h; i++)
        ex_colour_ramp(sqrtf(field[i]), rgb + 3 * i);
    if (ex_write_png(png, w, h, rgb) == 0)
        printf("wrote %s\n", png);
    else
        wrong++;

    krt_context_destroy(ctx);
    free(field);
    free(ref);
    free(tmp);
    free(rgb);
    return wrong ? 1 : 0;
}

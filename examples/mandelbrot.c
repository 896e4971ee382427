/*
 * mandelbrot: a 2-D image where the work per pixel varies wildly. One launch computes the iteration count of
 * every pixel; the host computes the same image, the two are compared, and the result is written as a PNG.
 *
 * usage: mandelbrot [width [height [out.png]]]   (default 1024 768 mandelbrot.png)
 */
#include "example.h"
#include "png_write.h"

#include <math.h>

#define MAX_ITER 256u

/* The same float arithmetic as kernels/mandelbrot.cl. */
static uint32_t host_pixel(float cr, float ci)
{
    float zr = 0.0f, zi = 0.0f;
    uint32_t it = 0;
    while (it < MAX_ITER && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    return it;
}

int main(int argc, char **argv)
{
    uint32_t w = (uint32_t)ex_arg_size(argc, argv, 1, 1024);
    uint32_t h = (uint32_t)ex_arg_size(argc, argv, 2, 768);
    const char *png = argc > 3 ? argv[3] : "mandelbrot.png";
    /* The whole set, [-2.5, 1] x [-1.25, 1.25], scaled to fit the image. */
    float scale = fmaxf(3.5f / (float)w, 2.5f / (float)h);
    float x0 = -0.75f - scale * (float)w / 2.0f, y0 = -scale * (float)h / 2.0f;
    uint32_t max_iter = MAX_ITER;

    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "mandelbrot.spv");
    krt_kernel *kernel = ex_kernel(module, "mandelbrot");

    size_t pixels = (size_t)w * h;
    uint32_t *iters = malloc(pixels * sizeof(uint32_t));
    uint8_t *rgb = malloc(pixels * 3);
    if (!iters || !rgb) {
        fprintf(stderr, "mandelbrot: out of memory\n");
        return 2;
    }
    uint32_t *diters = ex_alloc(ctx, pixels * sizeof(uint32_t));

    krt_ndrange range = { .dims = 2, .size = { w, h } };
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(kernel, &range, &c));
    ex_print_config("krt chose: ", &c);

    krt_arg args[] = { KRT_ARG(diters), KRT_ARG(w), KRT_ARG(h), KRT_ARG(x0), KRT_ARG(y0), KRT_ARG(scale),
                       KRT_ARG(scale), KRT_ARG(max_iter) };
    krt_launch_desc launch = { .range = range, .args = args, .num_args = 8 };
    uint64_t t0 = ex_now_ns();
    EX_CHECK(krt_launch_sync(kernel, &launch));
    double ms = ex_ms_since(t0);
    EX_CHECK(krt_memcpy(ctx, NULL, iters, diters, pixels * sizeof(uint32_t)));
    EX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));

    t0 = ex_now_ns();
    size_t differ = 0, inside = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t it = host_pixel(x0 + (float)x * scale, y0 + (float)y * scale);
            size_t i = (size_t)y * w + x;
            differ += iters[i] != it;
            inside += iters[i] == MAX_ITER;
        }
    double host_ms = ex_ms_since(t0);
    /* Near the set's border a one-ulp difference (a fused multiply-add on the device, say) changes the escape
     * count, so a few pixels may differ; a wrong kernel or launch changes far more than 1% of them. */
    int bad = differ * 100 > pixels;
    printf("%u x %u pixels, at most %u iterations: device %.2f ms, host %.2f ms\n", w, h, MAX_ITER, ms, host_ms);
    printf("%zu pixels inside the set, %zu differ from the host: %s\n", inside, differ, bad ? "FAILED" : "ok");

    for (size_t i = 0; i < pixels; i++) {
        if (iters[i] == MAX_ITER) {
            rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = 0;
        } else {
            ex_colour_ramp(sqrtf((float)iters[i] / (float)MAX_ITER), rgb + 3 * i);
        }
    }
    if (ex_write_png(png, w, h, rgb) == 0)
        printf("wrote %s\n", png);
    else
        bad = 1;

    krt_context_destroy(ctx);
    free(iters);
    free(rgb);
    return bad ? 1 : 0;
}

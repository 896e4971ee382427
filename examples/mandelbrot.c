/*
 * mandelbrot: a 2-D image where the work per pixel varies wildly. One launch computes the iteration count of
 * every pixel; the host computes the same image, the two are compared, and the result is written as a PNG.
 * The image is computed twice, with krt's group size and with small 16 x 16 groups asked for in the launch
 * (krt_launch_desc.group), after a warm-up launch so that neither time includes the driver's first build; both
 * must match the host.
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
    /* Warm-up: the driver builds the kernel for the device on its first launch. */
    EX_CHECK(krt_launch_sync(kernel, &launch));

    uint32_t *host = malloc(pixels * sizeof(uint32_t));
    if (!host) {
        fprintf(stderr, "mandelbrot: out of memory\n");
        return 2;
    }
    uint64_t t0 = ex_now_ns();
    size_t inside = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            host[i] = host_pixel(x0 + (float)x * scale, y0 + (float)y * scale);
            inside += host[i] == MAX_ITER;
        }
    double host_ms = ex_ms_since(t0);
    printf("%u x %u pixels, at most %u iterations, %zu inside the set; host %.2f ms\n", w, h, MAX_ITER, inside,
           host_ms);

    /* krt's choice, then 16 x 16 groups asked for explicitly: a static group size is used as given (checked
     * against the kernel's and the device's limits), the groups are ceil(range / group) as always. A static
     * group may not be larger than the range, so a tiny image gets groups of its own width or height. */
    uint32_t sx = w < 16 ? w : 16, sy = h < 16 ? h : 16;
    int bad = 0;
    for (int pass = 0; pass < 2; pass++) {
        krt_launch_desc l = launch;
        if (pass == 1) {
            l.group[0] = sx;
            l.group[1] = sy;
        }
        EX_CHECK(krt_memfill(ctx, NULL, diters, &(uint32_t){ 0 }, sizeof(uint32_t), pixels * sizeof(uint32_t)));
        EX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
        t0 = ex_now_ns();
        EX_CHECK(krt_launch_sync(kernel, &l));
        double ms = ex_ms_since(t0);
        EX_CHECK(krt_memcpy_sync(ctx, NULL, iters, diters, pixels * sizeof(uint32_t)));
        size_t differ = 0;
        for (size_t i = 0; i < pixels; i++)
            differ += iters[i] != host[i];
        /* Near the set's border a one-ulp difference (a fused multiply-add on the device, say) changes the
         * escape count, so a few pixels may differ; a wrong kernel or launch changes far more than 1% of them. */
        int wrong = differ * 100 > pixels;
        bad |= wrong;
        uint32_t gx = pass ? sx : c.group[0], gy = pass ? sy : c.group[1];
        printf("%-13s group %4u x %-3u %6u groups: device %7.2f ms, %zu pixels differ from the host: %s\n",
               pass ? (sx == 16 && sy == 16 ? "16 x 16:" : "static:") : "krt's choice:", gx, gy, ((w + gx - 1) / gx) * ((h + gy - 1) / gy), ms, differ,
               wrong ? "FAILED" : "ok");
    }
    free(host);

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

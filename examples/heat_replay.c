/*
 * heat_replay: the heat example's time steps recorded once and replayed. A step reads one buffer and writes the
 * other; a replay cannot change a pointer, so the program records two steps, one per direction (d0 -> d1 and
 * d1 -> d0), and replays them in turn: ping-pong time stepping. The same steps are then launched one by one
 * into a second pair of buffers, and the two fields must agree bit for bit (the same kernel on the same device
 * computes the same numbers, however it was launched).
 *
 * usage: heat_replay [size [steps]]   (default 256 1000)
 */
#include "example.h"

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

int main(int argc, char **argv)
{
    uint32_t size = (uint32_t)ex_arg_size(argc, argv, 1, 256);
    uint32_t steps = (uint32_t)ex_arg_size(argc, argv, 2, 1000);
    uint32_t w = size, h = size;
    float alpha = 0.24f;
    size_t bytes = (size_t)w * h * sizeof(float);

    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "heat.spv");
    krt_kernel *step = ex_kernel(module, "heat_step");
    krt_queue *q = krt_context_default_queue(ctx);

    float *start = malloc(bytes), *replayed = malloc(bytes), *launched = malloc(bytes);
    if (!start || !replayed || !launched) {
        fprintf(stderr, "heat_replay: out of memory\n");
        return 2;
    }
    initial_field(start, w, h);
    float *r[2] = { ex_alloc(ctx, bytes), ex_alloc(ctx, bytes) }; /* replayed */
    float *l[2] = { ex_alloc(ctx, bytes), ex_alloc(ctx, bytes) }; /* launched one by one */
    EX_CHECK(krt_memcpy(ctx, NULL, r[0], start, bytes));
    EX_CHECK(krt_memcpy_sync(ctx, NULL, l[0], start, bytes));

    /* Record: one step each way. The arguments (the pointers, w, h, alpha) are captured now, and so is the group
     * size krt chooses for the range. */
    krt_ndrange range = { .dims = 2, .size = { w, h } };
    krt_recording *rec[2];
    for (int s = 0; s < 2; s++) {
        EX_CHECK(krt_recording_begin(q, NULL));
        krt_arg args[] = { KRT_ARG(r[s]), KRT_ARG(r[1 - s]), KRT_ARG(w), KRT_ARG(h), KRT_ARG(alpha) };
        EX_CHECK(krt_launch(step, &(krt_launch_desc){ .range = range, .args = args, .num_args = 5 }));
        EX_CHECK(krt_recording_end(q, &rec[s]));
    }

    /* Replay: step s runs recording s % 2. */
    uint64_t t0 = ex_now_ns(), host_ns = 0;
    for (uint32_t s = 0; s < steps; s++) {
        uint64_t c0 = ex_now_ns();
        EX_CHECK(krt_replay(rec[s % 2], &(krt_replay_desc){ .queue = q }));
        host_ns += ex_now_ns() - c0;
    }
    EX_CHECK(krt_memcpy_sync(ctx, NULL, replayed, r[steps % 2], bytes));
    double replay_ms = ex_ms_since(t0);
    double replay_host = (double)host_ns / 1e3 / steps;

    /* The same steps launched one by one. */
    t0 = ex_now_ns();
    host_ns = 0;
    for (uint32_t s = 0; s < steps; s++) {
        krt_arg args[] = { KRT_ARG(l[s % 2]), KRT_ARG(l[(s + 1) % 2]), KRT_ARG(w), KRT_ARG(h), KRT_ARG(alpha) };
        uint64_t c0 = ex_now_ns();
        EX_CHECK(krt_launch(step, &(krt_launch_desc){ .range = range, .args = args, .num_args = 5 }));
        host_ns += ex_now_ns() - c0;
    }
    EX_CHECK(krt_memcpy_sync(ctx, NULL, launched, l[steps % 2], bytes));
    double launch_ms = ex_ms_since(t0);
    double launch_host = (double)host_ns / 1e3 / steps;

    printf("%u steps on %u x %u\n", steps, w, h);
    printf("  replayed:           %8.2f ms (%.1f us per step; host %.2f us per krt_replay)\n", replay_ms,
           replay_ms * 1e3 / steps, replay_host);
    printf("  launched one by one: %7.2f ms (%.1f us per step; host %.2f us per krt_launch)\n", launch_ms,
           launch_ms * 1e3 / steps, launch_host);

    size_t differ = 0;
    double total = 0.0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        if (memcmp(&replayed[i], &launched[i], sizeof(float)) != 0)
            differ++;
        total += replayed[i];
    }
    printf("heat in the plate: %.3f; %zu of %zu cells differ between replay and launches: %s\n", total, differ,
           (size_t)w * h, differ ? "FAILED" : "ok");

    krt_recording_destroy(rec[0]);
    krt_recording_destroy(rec[1]);
    krt_context_destroy(ctx);
    free(start);
    free(replayed);
    free(launched);
    return differ ? 1 : 0;
}

/*
 * replay: recorded launches against the same launches made one by one, side by side in one process
 * (docs/performance.md, "Recorded launches"). Two kernels: k4_empty (four arguments, no body) and k4, a saxpy
 * over 4,096 floats; each run is K kernels in order on one queue (K = --kernels, default 1,000), then one wait.
 *   - launched: K krt_launch calls (warm: the same arguments every time), then krt_queue_synchronize;
 *   - replayed: one krt_replay of a recording of the same K launches, then krt_queue_synchronize.
 * For each, host us per kernel (the time in the krt_launch or krt_replay calls, over K) and wall us per kernel
 * (first call to the end of the wait, over K): the median of --repeats runs. Instructions per kernel come from
 * callgrind (one child per row, collecting only around the K calls), unless --no-callgrind. The saxpy's result
 * is checked after every run (y grows by a * x per kernel).
 *
 * Usage: replay [--kernels K] [--repeats R] [--no-callgrind] [--out DIR]
 *        replay --child --case empty|saxpy --mode launch|replay --kernels K   (what callgrind runs)
 */
#include "bench_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096u

typedef struct {
    krt_context *ctx;
    krt_queue *q;
    krt_kernel *k[2]; /* k4_empty, k4 */
    float *x, *y;
    float a;
    uint32_t n;
    krt_arg args[4];
} setup_t;

static const char *const case_names[2] = { "empty", "saxpy" };

static void setup(setup_t *s)
{
    KRT_CHECK(krt_context_create(NULL, &s->ctx));
    krt_module *m;
    KRT_CHECK(krt_module_create(s->ctx, &(krt_module_desc){ .path = bench_path(bench_kernel_dir(), "bench_launch.spv") },
                                &m));
    KRT_CHECK(krt_kernel_get(m, "k4_empty", &s->k[0]));
    KRT_CHECK(krt_kernel_get(m, "k4", &s->k[1]));
    KRT_CHECK(krt_alloc(s->ctx, N * sizeof(float), NULL, (void **)&s->x));
    KRT_CHECK(krt_alloc(s->ctx, N * sizeof(float), NULL, (void **)&s->y));
    float *h = malloc(N * sizeof(float));
    for (uint32_t i = 0; i < N; i++)
        h[i] = (float)(i % 3);
    KRT_CHECK(krt_memcpy_sync(s->ctx, NULL, s->x, h, N * sizeof(float))); /* h is overwritten next */
    memset(h, 0, N * sizeof(float));
    KRT_CHECK(krt_memcpy_sync(s->ctx, NULL, s->y, h, N * sizeof(float)));
    free(h);
    s->q = krt_context_default_queue(s->ctx);
    s->a = 1.0f;
    s->n = N;
    krt_arg args[4] = { KRT_ARG(s->y), KRT_ARG(s->x), KRT_ARG(s->a), KRT_ARG(s->n) };
    memcpy(s->args, args, sizeof args);
}

static void launch(setup_t *s, int c, uint32_t count)
{
    krt_launch_desc d = { .range = { 1, { N } }, .args = s->args, .num_args = 4, .queue = s->q };
    for (uint32_t i = 0; i < count; i++)
        if (krt_launch(s->k[c], &d) != KRT_SUCCESS)
            bench_die("krt_launch: %s", krt_last_error_message());
}

static krt_recording *record(setup_t *s, int c, uint32_t count)
{
    krt_recording *rec;
    KRT_CHECK(krt_recording_begin(s->q, NULL));
    launch(s, c, count);
    KRT_CHECK(krt_recording_end(s->q, &rec));
    return rec;
}

/* y[i] = runs * x[i] after `runs` saxpy kernels with a = 1 (small integers: exact in float). */
static void check(setup_t *s, uint64_t runs)
{
    float *h = malloc(N * sizeof(float));
    KRT_CHECK(krt_memcpy_sync(s->ctx, NULL, h, s->y, N * sizeof(float)));
    for (uint32_t i = 0; i < N; i++)
        if (h[i] != (float)runs * (float)(i % 3))
            bench_die("saxpy: y[%u] = %g after %llu kernels, expected %g", i, h[i], (unsigned long long)runs,
                      (double)runs * (i % 3));
    free(h);
}

static int child_main(int argc, char **argv)
{
    setup_t s;
    const char *cn = bench_opt_str(argc, argv, "case", "empty");
    int c = strcmp(cn, "saxpy") == 0;
    int replay = strcmp(bench_opt_str(argc, argv, "mode", "launch"), "replay") == 0;
    uint32_t k = (uint32_t)bench_opt_long(argc, argv, "kernels", 1000);
    setup(&s);
    krt_recording *rec = record(&s, c, k);
    /* Warm-up: one of each, so that every cache is filled before collection starts. */
    launch(&s, c, k);
    KRT_CHECK(krt_replay(rec, &(krt_replay_desc){ .queue = s.q }));
    KRT_CHECK(krt_queue_synchronize(s.q));
    CALLGRIND_TOGGLE_COLLECT;
    if (replay)
        KRT_CHECK(krt_replay(rec, &(krt_replay_desc){ .queue = s.q }));
    else
        launch(&s, c, k);
    CALLGRIND_TOGGLE_COLLECT;
    KRT_CHECK(krt_queue_synchronize(s.q));
    krt_recording_destroy(rec);
    krt_context_destroy(s.ctx);
    return 0;
}

static const char usage[] = "usage: replay [--kernels K] [--repeats R] [--no-callgrind] [--out DIR]\n";
static const char *const known_opts[] = { "kernels", "repeats", "no-callgrind", "out", "child", "case", "mode", NULL };

int main(int argc, char **argv)
{
    bench_usage(argc, argv, usage, known_opts);
    if (bench_opt_flag(argc, argv, "child"))
        return child_main(argc, argv);
    uint32_t k = (uint32_t)bench_opt_long(argc, argv, "kernels", 1000);
    int repeats = (int)bench_opt_long(argc, argv, "repeats", 7);
    int no_cg = bench_opt_flag(argc, argv, "no-callgrind");
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    if (k == 0 || repeats < 1 || repeats > 100)
        bench_die("--kernels must be > 0 and --repeats 1..100");

    setup_t s;
    setup(&s);
    krt_device_info dev;
    KRT_CHECK(krt_context_device_info(s.ctx, &dev));
    printf("device: %s\n", dev.name);
    /* [case][mode][repeat] */
    double host[2][2][100], wall[2][2][100];
    uint64_t saxpy_runs = 0;
    for (int c = 0; c < 2; c++) {
        krt_recording *rec = record(&s, c, k);
        launch(&s, c, k); /* warm-up */
        KRT_CHECK(krt_replay(rec, &(krt_replay_desc){ .queue = s.q }));
        KRT_CHECK(krt_queue_synchronize(s.q));
        if (c == 1)
            saxpy_runs += 2 * (uint64_t)k;
        for (int r = 0; r < repeats; r++)
            for (int mode = 0; mode < 2; mode++) {
                uint64_t t0 = bench_now_ns();
                if (mode == 0)
                    launch(&s, c, k);
                else
                    KRT_CHECK(krt_replay(rec, &(krt_replay_desc){ .queue = s.q }));
                uint64_t t1 = bench_now_ns();
                KRT_CHECK(krt_queue_synchronize(s.q));
                uint64_t t2 = bench_now_ns();
                host[c][mode][r] = (double)(t1 - t0) / 1e3 / k;
                wall[c][mode][r] = (double)(t2 - t0) / 1e3 / k;
                if (c == 1) {
                    saxpy_runs += k;
                    check(&s, saxpy_runs);
                }
            }
        krt_recording_destroy(rec);
    }

    double instr[2][2] = { { NAN, NAN }, { NAN, NAN } };
    if (!no_cg) {
        char ks[32];
        snprintf(ks, sizeof ks, "%u", k);
        for (int c = 0; c < 2; c++)
            for (int mode = 0; mode < 2; mode++) {
                const char *mn = mode ? "replay" : "launch";
                char of[4096], af[4096];
                snprintf(of, sizeof of, "%s/callgrind/replay_%s_%s.out", out, case_names[c], mn);
                snprintf(af, sizeof af, "%s/callgrind/replay_%s_%s.txt", out, case_names[c], mn);
                const char *args[] = { "--child", "--case", case_names[c], "--mode", mn, "--kernels", ks, NULL };
                fprintf(stderr, "replay: callgrind, %s %s ...\n", case_names[c], mn);
                uint64_t ir = bench_callgrind("/proc/self/exe", args, of, af);
                instr[c][mode] = ir ? (double)ir / k : NAN;
            }
    }

    FILE *csv = bench_csv_open(out, "replay.csv");
    fprintf(csv, "kernel,mode,host_us,wall_us,instructions\n");
    enum { COLS = 6, ROWS = 5 };
    static char buf[ROWS * COLS][48];
    const char *cells[ROWS * COLS] = { "kernel (x K)", "how", "host us/kernel", "wall us/kernel",
                                       "instr/kernel", "replay / launched" };
    for (int c = 0; c < 2; c++)
        for (int mode = 0; mode < 2; mode++) {
            int row = 1 + c * 2 + mode;
            double h = bench_median(host[c][mode], (size_t)repeats), w = bench_median(wall[c][mode], (size_t)repeats);
            double h0 = bench_median(host[c][0], (size_t)repeats), w0 = bench_median(wall[c][0], (size_t)repeats);
            fprintf(csv, "%s,%s,%.4f,%.4f,%.0f\n", case_names[c], mode ? "replay" : "launch", h, w, instr[c][mode]);
            snprintf(buf[row * COLS + 0], 48, "%s (%u)", case_names[c], k);
            snprintf(buf[row * COLS + 1], 48, "%s", mode ? "replayed" : "launched");
            snprintf(buf[row * COLS + 2], 48, "%.3f", h);
            snprintf(buf[row * COLS + 3], 48, "%.3f", w);
            snprintf(buf[row * COLS + 4], 48, isnan(instr[c][mode]) ? "-" : "%.0f", instr[c][mode]);
            if (mode)
                snprintf(buf[row * COLS + 5], 48, "host %.3fx, wall %.2fx, instr %.2fx", h / h0, w / w0,
                         instr[c][1] / instr[c][0]);
            else
                snprintf(buf[row * COLS + 5], 48, "-");
            for (int col = 0; col < COLS; col++)
                cells[row * COLS + col] = buf[row * COLS + col];
        }
    fclose(csv);
    char title[512];
    snprintf(title, sizeof title, "Recorded launches on %s: K kernels launched one by one vs one replay of them "
                                  "(median of %d runs)", dev.name, repeats);
    bench_table_emit(out, "replay.md", title, COLS, ROWS, cells);

    /* What an idle context costs: the process's CPU time (every thread's) over a second of doing nothing after a
     * chain of kernels and its wait. Threads that watch for work before they sleep (the host device's pool and
     * queues, docs/design.md) show here as their watch time. */
    launch(&s, 1, k);
    KRT_CHECK(krt_queue_synchronize(s.q));
    double cpu0 = bench_process_cpu_ms();
    struct timespec second = { 1, 0 };
    nanosleep(&second, NULL);
    double idle_ms = bench_process_cpu_ms() - cpu0;
    printf("\nidle: %.3f ms of CPU time (every thread) in the second after a chain of %u kernels and its wait\n",
           idle_ms, k);
    FILE *idle = bench_csv_open(out, "replay_idle.csv");
    fprintf(idle, "idle_cpu_ms_per_s\n%.4f\n", idle_ms);
    fclose(idle);
    krt_context_destroy(s.ctx);
    return 0;
}

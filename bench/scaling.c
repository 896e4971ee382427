/*
 * scaling: the host cost of a warm krt_launch (dynamic group size, memoized) as the number of kernel
 * arguments grows (1, 4, 16) and as the number of distinct ndranges a kernel is launched with grows
 * (1, 10, 1000 cached configurations, launched round robin). The goal is a flat cost: a lookup that does not
 * grow with the number of cached configurations, and an argument path whose cost is per changed argument.
 *
 * Per variant: host ns per launch (time in krt_launch alone, median of interleaved repeats) and wall ns per
 * launch (including a synchronize every --sync-every launches), and instructions per launch from a callgrind
 * child that collects only inside the launch loop.
 *
 * The ndrange variants launch kernel k4 over ranges of 1024 - i work-items (i < count), whose bound argument
 * stays the buffer's capacity, so the arguments are the same in every launch and only the range changes.
 * The ranges are small on purpose: under callgrind the PoCL worker threads that run the kernels are emulated
 * too, and only the launching thread's instructions are counted. krt picks a handful of distinct group
 * sizes for them (each compiled once by PoCL, in the warm-up).
 *
 * Usage: scaling [--launches N] [--repeats R] [--sync-every S] [--callgrind-launches M] [--no-callgrind]
 *                [--out DIR]
 *        scaling --child --variant V --launches M
 */
#include "bench_util.h"

#include <krt.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARG_RANGE 1024u
#define ND_BASE 1024u
#define ND_MAX 1000u
#define CAPACITY (ND_BASE + 8192u) /* the largest range plus more than a whole group of slack */

typedef struct variant {
    const char *id, *label, *kernel;
    int nargs;
    uint32_t nranges; /* 0: the argument variants, range ARG_RANGE */
} variant;

static const variant variants[] = {
    {"args1", "1 argument", "k1", 1, 0},
    {"args4", "4 arguments", "k4", 4, 0},
    {"args16", "16 arguments", "k16", 16, 0},
    {"nd1", "1 ndrange", "k4", 4, 1},
    {"nd10", "10 ndranges", "k4", 4, 10},
    {"nd1000", "1000 ndranges", "k4", 4, 1000},
};
#define NVAR ((int)(sizeof variants / sizeof variants[0]))

typedef struct state {
    krt_context *ctx;
    krt_module *module;
    krt_queue *queue;
    float *y, *x[7];
    float a[7];
    uint32_t n;
    krt_kernel *kernel[NVAR];
    krt_arg args[NVAR][16];
    krt_ndrange *ranges[NVAR];
    uint32_t next[NVAR];
} state;

static void setup(state *s, int only)
{
    /* min_groups 16, as launch_overhead: the dynamic groups of the figures in docs/performance.md. */
    krt_context_desc cd = {.min_groups = 16};
    KRT_CHECK(krt_context_create(&cd, &s->ctx));
    krt_module_desc md = {.path = bench_path(bench_kernel_dir(), "bench_launch.spv")};
    KRT_CHECK(krt_module_create(s->ctx, &md, &s->module));
    s->queue = krt_context_default_queue(s->ctx);
    krt_alloc_desc ad = {.kind = KRT_MEMORY_SHARED};
    KRT_CHECK(krt_alloc(s->ctx, CAPACITY * sizeof(float), &ad, (void **)&s->y));
    memset(s->y, 0, CAPACITY * sizeof(float));
    for (int i = 0; i < 7; i++) {
        KRT_CHECK(krt_alloc(s->ctx, CAPACITY * sizeof(float), &ad, (void **)&s->x[i]));
        memset(s->x[i], 0, CAPACITY * sizeof(float));
        s->a[i] = 0.5f;
    }
    s->n = CAPACITY - 8192u;
    for (int v = 0; v < NVAR; v++) {
        if (only >= 0 && v != only)
            continue;
        const variant *va = &variants[v];
        KRT_CHECK(krt_kernel_get(s->module, va->kernel, &s->kernel[v]));
        krt_arg *a = s->args[v];
        a[0] = KRT_ARG(s->y);
        if (va->nargs == 4) {
            a[1] = KRT_ARG(s->x[0]);
            a[2] = KRT_ARG(s->a[0]);
            a[3] = KRT_ARG(s->n);
        } else if (va->nargs == 16) {
            for (int i = 0; i < 7; i++) {
                a[1 + i] = KRT_ARG(s->x[i]);
                a[8 + i] = KRT_ARG(s->a[i]);
            }
            a[15] = KRT_ARG(s->n);
        }
        uint32_t nr = va->nranges ? va->nranges : 1;
        s->ranges[v] = calloc(nr, sizeof(krt_ndrange));
        if (!s->ranges[v])
            bench_die("out of memory");
        for (uint32_t i = 0; i < nr; i++)
            s->ranges[v][i] = (krt_ndrange){1, {va->nranges ? ND_BASE - i : ARG_RANGE, 1, 1}};
    }
}

static __attribute__((noinline)) int launch_chunk(state *s, int v, uint32_t count)
{
    krt_launch_desc d = {.args = s->args[v], .num_args = (uint32_t)variants[v].nargs, .queue = s->queue};
    uint32_t nr = variants[v].nranges ? variants[v].nranges : 1, next = s->next[v];
    krt_kernel *k = s->kernel[v];
    const krt_ndrange *ranges = s->ranges[v];
    int bad = 0;
    for (uint32_t i = 0; i < count; i++) {
        d.range = ranges[next];
        next = next + 1 == nr ? 0 : next + 1;
        bad |= krt_launch(k, &d);
    }
    s->next[v] = next;
    return bad;
}

static uint64_t run(state *s, int v, uint64_t launches, uint32_t sync_every, int collect, uint64_t *host_ns)
{
    uint64_t t0 = bench_now_ns(), host = 0;
    for (uint64_t done = 0; done < launches; done += sync_every) {
        uint32_t n = (uint32_t)(launches - done < sync_every ? launches - done : sync_every);
        uint64_t c0 = bench_now_ns();
        if (collect)
            CALLGRIND_TOGGLE_COLLECT;
        int bad = launch_chunk(s, v, n);
        if (collect)
            CALLGRIND_TOGGLE_COLLECT;
        host += bench_now_ns() - c0;
        if (bad)
            bench_die("%s: a launch failed: %s", variants[v].label, krt_last_error_message());
        KRT_CHECK(krt_queue_synchronize(s->queue));
    }
    *host_ns = host;
    return bench_now_ns() - t0;
}

/* Fills every memo entry the variant will use (one pass over all its ranges) and, unless `short_warm`, runs
 * one more full chunk so that caches and the PoCL workers are in their steady state. */
static void warm(state *s, int v, uint32_t sync_every, int short_warm)
{
    uint64_t h;
    uint32_t nr = variants[v].nranges ? variants[v].nranges : 1;
    run(s, v, nr, sync_every, 0, &h);
    if (!short_warm)
        run(s, v, sync_every, sync_every, 0, &h);
}

static int variant_index(const char *id)
{
    for (int v = 0; v < NVAR; v++)
        if (!strcmp(variants[v].id, id))
            return v;
    bench_die("unknown variant %s", id);
}

static int child_main(int argc, char **argv)
{
    static state s;
    int v = variant_index(bench_opt_str(argc, argv, "variant", "args4"));
    uint64_t launches = (uint64_t)bench_opt_long(argc, argv, "launches", 2000);
    uint32_t sync_every = (uint32_t)bench_opt_long(argc, argv, "sync-every", 1000);
    setup(&s, v);
    warm(&s, v, sync_every, 1);
    uint64_t h;
    run(&s, v, launches, sync_every, 1, &h);
    return 0;
}

static const char usage[] =
    "usage: scaling [--launches N] [--repeats R] [--sync-every S] [--callgrind-launches M] [--no-callgrind]\n"
    "               [--out DIR]\n"
    "Environment: ZE_ENABLE_ALT_DRIVERS (the ze_pocl driver), KRT_BENCH_KERNELS (build/bench/kernels).\n";
static const char *const known_opts[] = {"launches", "repeats", "sync-every", "callgrind-launches", "no-callgrind",
                                         "out", "child", "variant", NULL};

int main(int argc, char **argv)
{
    bench_usage(argc, argv, usage, known_opts);
    if (bench_opt_flag(argc, argv, "child"))
        return child_main(argc, argv);
    uint64_t launches = (uint64_t)bench_opt_long(argc, argv, "launches", 20000);
    int repeats = (int)bench_opt_long(argc, argv, "repeats", 5);
    uint32_t sync_every = (uint32_t)bench_opt_long(argc, argv, "sync-every", 1000);
    long cg_launches = bench_opt_long(argc, argv, "callgrind-launches", 2000);
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    int no_cg = bench_opt_flag(argc, argv, "no-callgrind");
    if (repeats < 1 || repeats > 100 || launches < 1 || sync_every < 1 || cg_launches < 1)
        bench_die("bad options");

    static state s;
    setup(&s, -1);
    /* How many distinct group sizes krt picks for the ndrange variants: each one is a separate PoCL
     * compilation on first use, which the warm-up pays. */
    uint32_t distinct[64], nd = 0;
    for (uint32_t i = 0; i < ND_MAX; i++) {
        krt_launch_config cfg;
        KRT_CHECK(krt_launch_config_get(s.kernel[5], &s.ranges[5][i], &cfg));
        uint32_t k = 0;
        while (k < nd && distinct[k] != cfg.group[0])
            k++;
        if (k == nd && nd < 64)
            distinct[nd++] = cfg.group[0];
    }
    printf("scaling: %llu launches x %d repeats per variant, synchronize every %u; the 1000 ndranges use %u "
           "distinct group size(s)\n",
           (unsigned long long)launches, repeats, sync_every, nd);
    for (int v = 0; v < NVAR; v++)
        warm(&s, v, sync_every, 0);

    double wall[NVAR][100], host[NVAR][100];
    for (int r = 0; r < repeats; r++)
        for (int j = 0; j < NVAR; j++) {
            int v = (j + r) % NVAR;
            uint64_t h, w = run(&s, v, launches, sync_every, 0, &h);
            wall[v][r] = (double)w / (double)launches;
            host[v][r] = (double)h / (double)launches;
        }

    double instr[NVAR], own[NVAR];
    for (int v = 0; v < NVAR; v++)
        instr[v] = own[v] = NAN;
    if (!no_cg) {
        char cgl[32], se[32];
        snprintf(cgl, sizeof cgl, "%ld", cg_launches);
        snprintf(se, sizeof se, "%u", sync_every);
        for (int v = 0; v < NVAR; v++) {
            char of[4096], af[4096];
            snprintf(of, sizeof of, "%s/callgrind/scaling_%s.out", out, variants[v].id);
            snprintf(af, sizeof af, "%s/callgrind/scaling_%s.txt", out, variants[v].id);
            const char *args[] = {"--child", "--variant", variants[v].id, "--launches", cgl, "--sync-every", se,
                                  NULL};
            fprintf(stderr, "scaling: callgrind, %s ...\n", variants[v].label);
            uint64_t ir = bench_callgrind("/proc/self/exe", args, of, af);
            if (ir)
                instr[v] = (double)ir / (double)cg_launches;
            /* krt's own share: the total less the Level Zero calls (driver and PoCL below them). */
            static const char *const ze_fns[] = {"zeCommandListAppendLaunchKernel", "zeKernelSetArgumentValue",
                                                 "zeKernelSetGroupSize", NULL};
            uint64_t below = 0;
            for (const char *const *f = ze_fns; *f; f++)
                below += bench_callgrind_inclusive(af, *f);
            if (ir && below)
                own[v] = (double)(ir - below) / (double)cg_launches;
        }
    }

    FILE *csv = bench_csv_open(out, "scaling.csv");
    fprintf(csv, "variant,label,axis,x,host_ns,wall_ns,instructions,krt_instructions\n");
    enum { COLS = 5 };
    const char *cells[(NVAR + 1) * COLS];
    static char buf[(NVAR + 1) * COLS][32];
    const char *hdr[COLS] = {"variant", "host ns/launch", "wall ns/launch", "instr/launch", "instr in krt"};
    for (int c = 0; c < COLS; c++)
        cells[c] = hdr[c];
    for (int v = 0; v < NVAR; v++) {
        double h = bench_median(host[v], (size_t)repeats), w = bench_median(wall[v], (size_t)repeats);
        const char **row = cells + (v + 1) * COLS;
        char(*b)[32] = buf + (v + 1) * COLS;
        row[0] = variants[v].label;
        snprintf(b[1], 32, "%.0f", h);
        row[1] = b[1];
        snprintf(b[2], 32, "%.0f", w);
        row[2] = b[2];
        if (isnan(instr[v]))
            snprintf(b[3], 32, "n/a");
        else
            snprintf(b[3], 32, "%.0f", instr[v]);
        row[3] = b[3];
        if (isnan(own[v]))
            snprintf(b[4], 32, "n/a");
        else
            snprintf(b[4], 32, "%.0f", own[v]);
        row[4] = b[4];
        fprintf(csv, "%s,\"%s\",%s,%u,%.1f,%.1f,%.1f,%.1f\n", variants[v].id, variants[v].label,
                variants[v].nranges ? "ndranges" : "arguments",
                variants[v].nranges ? variants[v].nranges : (uint32_t)variants[v].nargs, h, w, instr[v], own[v]);
    }
    fclose(csv);
    bench_table_emit(out, "scaling.md", "scaling: warm krt_launch with krt's group size (median of repeats)", COLS,
                     NVAR + 1, cells);
    if (!isnan(instr[3]) && !isnan(instr[5]))
        printf("\n1000 ndranges / 1 ndrange: %.3f in instructions, %.3f in krt's own instructions\n",
               instr[5] / instr[3], own[5] / own[3]);
    if (!isnan(instr[0]) && !isnan(instr[2]))
        printf("16 arguments / 1 argument: %.3f in instructions, %.3f in krt's own instructions\n",
               instr[2] / instr[0], own[2] / own[0]);
    return 0;
}

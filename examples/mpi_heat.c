/*
 * mpi_heat: the heat example's plate split into blocks of rows over MPI ranks. Each rank has its own krt
 * context, on the device its place among the ranks of its node chooses, and holds its rows plus one halo row
 * from each neighbour in device memory. Every step, the ranks first exchange halo rows with MPI, then run the
 * heat example's unchanged heat_step kernel over their block.
 *
 * The halo rows go to MPI straight from device memory where the host can read that memory
 * (krt_device_info.device_memory_host_accessible: a CPU device, the host device) or where the MPI library is
 * device-aware (a CUDA-aware Open MPI with a ze_cuda device); otherwise they are staged through pinned host
 * memory (KRT_MEMORY_HOST): copied out of the device, exchanged, copied back in. The program says which it
 * chose, and --halo=staged forces staging.
 *
 * At the end rank 0 gathers the field and runs every step on the whole plate alone, on its own device: the
 * two fields must agree bit for bit.
 *
 * usage: mpirun -np P mpi_heat [--halo=auto|direct|staged] [width [height [steps]]]   (default 512 512 500)
 *        P must divide height. Exit status: 0 identical, 1 the fields differ, 2 bad input or a failed call.
 *        Rank 0 alone returns it (the other ranks return 0), so that mpirun, which ends the job when a rank
 *        exits with an error, never cuts rank 0's report short; a failed krt call ends the job through MPI_Abort.
 */
#include "example.h"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

#include <strings.h>

static int g_rank;

/* A failed krt call on any rank ends the whole job, with krt's explanation, rather than leaving the other ranks
 * waiting for it in an MPI call. */
#define MX_CHECK(call)                                                                                       \
    do {                                                                                                     \
        krt_result mx_r_ = (call);                                                                           \
        if (mx_r_ != KRT_SUCCESS) {                                                                          \
            fprintf(stderr, "mpi_heat: rank %d: %s:%d: %s failed: %s (%s)\n  %s\n", g_rank, __FILE__,        \
                    __LINE__, #call, krt_result_name(mx_r_), krt_result_string(mx_r_),                       \
                    krt_last_error_message());                                                               \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                                    \
        }                                                                                                    \
    } while (0)

typedef enum { HALO_AUTO, HALO_DIRECT, HALO_STAGED } halo_mode;

typedef struct {
    halo_mode halo;
    uint32_t w, h, steps;
} options;

/* Every rank reads the same arguments the same way, so all agree on an error without talking; rank 0 says it. */
static int parse(int argc, char **argv, options *o, char *why, size_t why_size)
{
    *o = (options){ .halo = HALO_AUTO, .w = 512, .h = 512, .steps = 500 };
    uint32_t *num[] = { &o->w, &o->h, &o->steps };
    const char *names[] = { "width", "height", "steps" };
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--halo=", 7) == 0) {
            if (strcmp(a + 7, "auto") == 0)
                o->halo = HALO_AUTO;
            else if (strcmp(a + 7, "direct") == 0)
                o->halo = HALO_DIRECT;
            else if (strcmp(a + 7, "staged") == 0)
                o->halo = HALO_STAGED;
            else {
                snprintf(why, why_size, "'%s': --halo takes auto, direct or staged", a);
                return -1;
            }
            continue;
        }
        char *end = NULL;
        unsigned long long v = strtoull(a, &end, 10);
        if (n == 3 || a[0] == '-' || !end || *end != '\0' || v == 0 || v > 1u << 20) {
            snprintf(why, why_size, n == 3 ? "'%s': too many arguments" : "'%s': the %s must be a number from 1 to %u",
                     a, n < 3 ? names[n] : "", 1u << 20);
            return -1;
        }
        *num[n++] = (uint32_t)v;
    }
    return 0;
}

/* The rows a rank owns and holds. It owns global rows [first, first + rows) and holds [lo, lo + held): its own
 * rows plus the row above (from rank - 1) and the row below (from rank + 1) where those ranks exist. The plate's
 * top and bottom rows are border cells, held fixed, so the first and last ranks need no halo there; every row a
 * rank holds but does not own is the first or last row of its buffer, which heat_step copies through as if it
 * were a border. So the heat example's kernel runs unchanged on every block, and every owned cell is computed
 * from the same neighbours, in the same order, as on the whole plate. */
typedef struct {
    uint32_t w, rows, first, lo, held, own; /* own: the buffer row of the first owned row */
    int up, down;                           /* the neighbour ranks, or MPI_PROC_NULL */
} block;

static block block_of(int rank, int ranks, uint32_t w, uint32_t h)
{
    block b = { .w = w, .rows = h / (uint32_t)ranks };
    b.first = (uint32_t)rank * b.rows;
    b.lo = rank > 0 ? b.first - 1 : 0;
    uint32_t end = rank < ranks - 1 ? b.first + b.rows + 1 : h;
    b.held = end - b.lo;
    b.own = b.first - b.lo;
    b.up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    b.down = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL;
    return b;
}

/* The heat example's starting field, cell by cell from global coordinates, so a block is the same as the same
 * rows of the whole plate. */
static float initial_cell(uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
    float dx = (float)x - 0.3f * (float)w, dy = (float)y - 0.6f * (float)h;
    int spot = dx * dx + dy * dy < 0.01f * (float)((uint64_t)w * h);
    return (y == 0 || spot) ? 1.0f : 0.0f;
}

/* The rank's device: its rank among the ranks of its node (MPI_Comm_split_type SHARED), modulo the number of
 * devices of the kind it runs on. The kind is KRT_DEVICE when that names one (gpu, cpu, host, ...), else GPU
 * when there is one; then local rank i takes "gpu:i" (ranks beyond the count share, round robin). Any other
 * KRT_DEVICE (an index, a name) is used by every rank as it is; with no GPU and no KRT_DEVICE, krt's default. */
static krt_context *rank_context(int local_rank)
{
    static const struct {
        const char *kind;
        krt_device_type type;
    } kinds[] = { { "gpu", KRT_DEVICE_TYPE_GPU },     { "cpu", KRT_DEVICE_TYPE_CPU },
                  { "fpga", KRT_DEVICE_TYPE_FPGA },   { "accelerator", KRT_DEVICE_TYPE_ACCELERATOR },
                  { "host", KRT_DEVICE_TYPE_HOST } };
    uint32_t count = 0;
    MX_CHECK(krt_device_list(NULL, &count));
    krt_device_info *infos = calloc(count ? count : 1, sizeof *infos);
    if (!infos) {
        fprintf(stderr, "mpi_heat: rank %d: out of memory\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MX_CHECK(krt_device_list(infos, &count));
    const char *want = getenv("KRT_DEVICE");
    int kind = -1;
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (want && want[0] ? strcasecmp(want, kinds[k].kind) == 0 : kinds[k].type == KRT_DEVICE_TYPE_GPU)
            kind = k;
    uint32_t of_kind = 0;
    for (uint32_t i = 0; kind >= 0 && i < count; i++)
        of_kind += infos[i].type == kinds[kind].type;
    free(infos);
    char device[64];
    krt_context_desc desc = { 0 };
    if (kind >= 0 && of_kind > 0) {
        snprintf(device, sizeof device, "%s:%u", kinds[kind].kind, (uint32_t)local_rank % of_kind);
        desc.device = device;
    }
    krt_context *ctx = NULL;
    MX_CHECK(krt_context_create(&desc, &ctx));
    return ctx;
}

/* Whether the MPI library takes device pointers of this device: Open MPI says so for CUDA at build time
 * (MPIX_CUDA_AWARE_SUPPORT) and at run time (MPIX_Query_cuda_support). Other libraries: assumed not. */
static int mpi_takes_device_memory(const krt_device_info *info)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    if (strcmp(info->driver_name, "ze_cuda") == 0)
        return MPIX_Query_cuda_support() == 1;
#endif
    (void)info;
    return 0;
}

/* One halo exchange on the buffer f that holds the current field, once the queue has run the step that wrote it
 * (the caller waited). Each rank sends its first owned row up and its last owned row down, and receives the row
 * above into the buffer's first row and the row below into its last; MPI_PROC_NULL makes the edges of the plate
 * no special case. stage: 4 rows of KRT_MEMORY_HOST memory. */
static void exchange(krt_context *ctx, const block *b, float *f, int direct, float *stage)
{
    int w = (int)b->w;
    size_t row = b->w * sizeof(float);
    float *first = f + (size_t)b->own * b->w, *last = f + (size_t)(b->own + b->rows - 1) * b->w;
    float *top = f, *bottom = f + (size_t)(b->held - 1) * b->w;
    if (direct) {
        MPI_Sendrecv(first, w, MPI_FLOAT, b->up, 0, bottom, w, MPI_FLOAT, b->down, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(last, w, MPI_FLOAT, b->down, 1, top, w, MPI_FLOAT, b->up, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        return;
    }
    krt_queue *q = krt_context_default_queue(ctx);
    int up = b->up != MPI_PROC_NULL, down = b->down != MPI_PROC_NULL;
    float *send_up = stage, *send_down = stage + w, *from_up = stage + 2 * w, *from_down = stage + 3 * w;
    if (up)
        MX_CHECK(krt_memcpy(ctx, q, send_up, first, row));
    if (down)
        MX_CHECK(krt_memcpy(ctx, q, send_down, last, row));
    if (up || down)
        MX_CHECK(krt_queue_synchronize(q));
    MPI_Sendrecv(send_up, w, MPI_FLOAT, b->up, 0, from_down, w, MPI_FLOAT, b->down, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(send_down, w, MPI_FLOAT, b->down, 1, from_up, w, MPI_FLOAT, b->up, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (up)
        MX_CHECK(krt_memcpy(ctx, q, top, from_up, row));
    if (down)
        MX_CHECK(krt_memcpy(ctx, q, bottom, from_down, row));
    /* The next step's launch would follow these copies on the in-order queue anyway; waiting here keeps the
     * copies in the halo exchange's time rather than the kernel's. */
    if (up || down)
        MX_CHECK(krt_queue_synchronize(q));
}

static void step(krt_kernel *heat, float *in, float *out, uint32_t w, uint32_t h)
{
    const float alpha = 0.24f;
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(w), KRT_ARG(h), KRT_ARG(alpha) };
    krt_launch_desc launch = { .range = { .dims = 2, .size = { w, h } }, .args = args, .num_args = 5 };
    MX_CHECK(krt_launch(heat, &launch));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double median_us(uint64_t *ns, uint32_t n)
{
    qsort(ns, n, sizeof *ns, cmp_u64);
    return (n % 2 ? (double)ns[n / 2] : ((double)ns[n / 2 - 1] + (double)ns[n / 2]) / 2.0) / 1e3;
}

/* What rank 0 prints about each rank. */
typedef struct {
    char device[256], driver[64], halo[96];
    int local_rank, local_ranks;
} rank_line;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
    int local_rank, local_ranks;
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_ranks);
    MPI_Comm_free(&node);

    /* Bad input: every rank finds the same fault before anything is allocated, rank 0 says what it is, and all
     * end normally (rank 0 with status 2). */
    options o;
    char why[256] = "";
    if (parse(argc, argv, &o, why, sizeof why) == 0 && o.h % (uint32_t)ranks != 0) {
        uint32_t below = o.h / (uint32_t)ranks * (uint32_t)ranks, above = below + (uint32_t)ranks;
        snprintf(why, sizeof why,
                 "%d ranks cannot split %u rows into equal blocks: run a rank count that divides %u, or give a "
                 "height that %d divides (%u or %u)",
                 ranks, o.h, o.h, ranks, below ? below : above, below ? above : 2 * above);
    } else if (!why[0] && (uint64_t)o.w * o.h > INT_MAX) {
        snprintf(why, sizeof why, "a %u x %u plate has more than 2^31 - 1 cells, the most one MPI message carries",
                 o.w, o.h);
    }
    if (why[0]) {
        if (g_rank == 0)
            fprintf(stderr, "mpi_heat: %s\nusage: mpirun -np P mpi_heat [--halo=auto|direct|staged] [width "
                            "[height [steps]]]   (default 512 512 500; P must divide height)\n", why);
        MPI_Finalize();
        return g_rank == 0 ? 2 : 0;
    }
    uint32_t w = o.w, h = o.h;
    block b = block_of(g_rank, ranks, w, h);

    krt_context *ctx = rank_context(local_rank);
    krt_device_info info;
    MX_CHECK(krt_context_device_info(ctx, &info));
    krt_kernel *heat = NULL;
    krt_module *module = NULL;
    MX_CHECK(krt_module_create(ctx, &(krt_module_desc){ .path = ex_kernel_path("heat.spv") }, &module));
    MX_CHECK(krt_kernel_get(module, "heat_step", &heat));

    /* How the halo rows reach MPI. */
    rank_line me = { .local_rank = local_rank, .local_ranks = local_ranks };
    snprintf(me.device, sizeof me.device, "%s", info.name);
    snprintf(me.driver, sizeof me.driver, "%s", info.driver_name);
    int can_direct = info.device_memory_host_accessible || mpi_takes_device_memory(&info);
    int direct = o.halo == HALO_STAGED ? 0 : can_direct;
    const char *reason = info.device_memory_host_accessible ? "device memory is host memory"
                         : can_direct ? "MPI is CUDA-aware"
                                      : "device memory is not host memory, MPI is not device-aware";
    snprintf(me.halo, sizeof me.halo, "%s (%s%s)", direct ? "direct" : "staged", reason,
             o.halo == HALO_STAGED ? "; --halo=staged" : "");
    int refused = o.halo == HALO_DIRECT && !can_direct, any_refused = 0;
    MPI_Allreduce(&refused, &any_refused, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_refused) {
        if (refused)
            fprintf(stderr, "mpi_heat: rank %d: --halo=direct: MPI cannot read the device memory of %s (%s); use "
                            "--halo=staged or --halo=auto\n", g_rank, info.name, reason);
        krt_context_destroy(ctx);
        MPI_Finalize();
        return g_rank == 0 ? 2 : 0;
    }
    rank_line *lines = g_rank == 0 ? malloc((size_t)ranks * sizeof *lines) : NULL;
    MPI_Gather(&me, (int)sizeof me, MPI_BYTE, lines, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("mpi_heat: %d rank%s, %u x %u plate, %u rows per rank, %u steps\n", ranks, ranks == 1 ? "" : "s", w, h,
               b.rows, o.steps);
        for (int r = 0; r < ranks; r++)
            printf("rank %d (node rank %d of %d): %s (driver %s), halo %s\n", r, lines[r].local_rank,
                   lines[r].local_ranks, lines[r].device, lines[r].driver, lines[r].halo);
        free(lines);
        fflush(stdout);
    }

    /* The block's starting rows, halos included, and two device buffers for ping-pong steps. */
    size_t held_cells = (size_t)b.held * w, own_cells = (size_t)b.rows * w;
    float *start = malloc(held_cells * sizeof(float));
    uint64_t *kernel_ns = malloc(o.steps * sizeof(uint64_t)), *halo_ns = malloc(o.steps * sizeof(uint64_t));
    uint64_t *wait_ns = malloc(o.steps * sizeof(uint64_t)), *step_ns = malloc(o.steps * sizeof(uint64_t));
    if (!start || !kernel_ns || !halo_ns || !wait_ns || !step_ns) {
        fprintf(stderr, "mpi_heat: rank %d: out of memory\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (uint32_t y = 0; y < b.held; y++)
        for (uint32_t x = 0; x < w; x++)
            start[(size_t)y * w + x] = initial_cell(x, b.lo + y, w, h);
    float *d[2] = { NULL, NULL }, *stage = NULL;
    MX_CHECK(krt_alloc(ctx, held_cells * sizeof(float), NULL, (void **)&d[0]));
    MX_CHECK(krt_alloc(ctx, held_cells * sizeof(float), NULL, (void **)&d[1]));
    MX_CHECK(krt_alloc(ctx, 4 * (size_t)w * sizeof(float), &(krt_alloc_desc){ .kind = KRT_MEMORY_HOST },
                       (void **)&stage));
    MX_CHECK(krt_memcpy_sync(ctx, NULL, d[0], start, held_cells * sizeof(float)));
    /* One untimed launch (its output is overwritten by step 0) so that the first timed step does not carry the
     * driver's first-launch work. */
    step(heat, d[0], d[1], w, b.held);
    MX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));

    /* Each step: wait for every rank (a barrier, there only to time the three parts apart: without it, a rank
     * that finished its kernel first would count its wait for a neighbour's row as exchange time), exchange the
     * halo rows, run the kernel and wait for it. */
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t t0 = ex_now_ns();
    for (uint32_t s = 0; s < o.steps; s++) {
        uint64_t a = ex_now_ns();
        MPI_Barrier(MPI_COMM_WORLD);
        uint64_t m0 = ex_now_ns();
        exchange(ctx, &b, d[s % 2], direct, stage);
        uint64_t m1 = ex_now_ns();
        step(heat, d[s % 2], d[(s + 1) % 2], w, b.held);
        MX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
        uint64_t e = ex_now_ns();
        wait_ns[s] = m0 - a;
        halo_ns[s] = m1 - m0;
        kernel_ns[s] = e - m1;
        step_ns[s] = e - a;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double mean_us = (double)(ex_now_ns() - t0) / 1e3 / o.steps;
    double mine[4] = { median_us(kernel_ns, o.steps), median_us(halo_ns, o.steps), median_us(wait_ns, o.steps),
                       median_us(step_ns, o.steps) };
    double worst[4];
    MPI_Reduce(mine, worst, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* Gather the owned rows on rank 0; there, the same steps on the whole plate, alone, on rank 0's device. */
    float *mine_rows = malloc(own_cells * sizeof(float));
    float *field = g_rank == 0 ? malloc((size_t)w * h * sizeof(float)) : NULL;
    if (!mine_rows || (g_rank == 0 && !field)) {
        fprintf(stderr, "mpi_heat: rank %d: out of memory\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MX_CHECK(krt_memcpy_sync(ctx, NULL, mine_rows, d[o.steps % 2] + (size_t)b.own * w, own_cells * sizeof(float)));
    MPI_Gather(mine_rows, (int)own_cells, MPI_FLOAT, field, (int)own_cells, MPI_FLOAT, 0, MPI_COMM_WORLD);
    int status = 0;
    if (g_rank == 0) {
        printf("per step (median, slowest rank): kernel %.1f us, halo exchange %.1f us (%.0f%% of the kernel), "
               "wait for the other ranks %.1f us; whole step %.1f us (mean %.1f us)\n", worst[0], worst[1],
               100.0 * worst[1] / worst[0], worst[2], worst[3], mean_us);
        size_t cells = (size_t)w * h, bytes = cells * sizeof(float);
        float *whole = malloc(bytes), *r[2] = { NULL, NULL };
        if (!whole) {
            fprintf(stderr, "mpi_heat: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                whole[(size_t)y * w + x] = initial_cell(x, y, w, h);
        MX_CHECK(krt_alloc(ctx, bytes, NULL, (void **)&r[0]));
        MX_CHECK(krt_alloc(ctx, bytes, NULL, (void **)&r[1]));
        MX_CHECK(krt_memcpy(ctx, NULL, r[0], whole, bytes));
        for (uint32_t s = 0; s < o.steps; s++)
            step(heat, r[s % 2], r[(s + 1) % 2], w, h);
        MX_CHECK(krt_memcpy_sync(ctx, NULL, whole, r[o.steps % 2], bytes));
        size_t differ = 0, first = 0;
        double total = 0.0;
        for (size_t i = 0; i < cells; i++) {
            if (memcmp(&field[i], &whole[i], sizeof(float)) != 0 && differ++ == 0)
                first = i;
            total += field[i];
        }
        printf("heat in the plate: %.3f (mean %.4f)\n", total, total / (double)cells);
        if (differ) {
            printf("against one rank on the whole plate: %zu of %zu cells differ, the first at (%zu, %zu): %.9g "
                   "instead of %.9g: FAILED\n", differ, cells, first % w, first / w, field[first], whole[first]);
            status = 1;
        } else {
            printf("against one rank on the whole plate: all %zu cells identical, bit for bit: ok\n", cells);
        }
        free(whole);
    }
    krt_context_destroy(ctx);
    free(start);
    free(kernel_ns);
    free(halo_ns);
    free(wait_ns);
    free(step_ns);
    free(mine_rows);
    free(field);
    MPI_Finalize();
    return status;
}

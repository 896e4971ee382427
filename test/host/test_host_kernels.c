/*
 * The C side of krt_kernel.h on its own (issue 12, docs/single-source.md), with no runtime: every native
 * kernel library under build/kernels/host/ is opened as the host device opens it and checked against the
 * native kernel ABI, barrier-free kernels run through the ABI (test/host/host_item.h) against results computed
 * here, and the AddressSanitizer build of the tutorial's broken kernel is run in a child process that must
 * report the kernel's file and line. Environment: KRT_BUILD (the build directory; make test sets it).
 */
#include "host_item.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* test/host/abi_layout.c: the layout of the header's own struct krt_host_item. */
size_t krt_test_header_layout(size_t offsets[13]);

static const char *build_dir(void)
{
    const char *b = getenv("KRT_BUILD");
    return b && b[0] ? b : "build";
}

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    cr_assert(len > 0);
    void *buf = malloc((size_t)len + 1);
    cr_assert(buf && fread(buf, 1, (size_t)len, f) == (size_t)len);
    ((char *)buf)[len] = '\0';
    fclose(f);
    *size = (size_t)len;
    return buf;
}

/* The kernel names of a SPIR-V module: the names of its OpEntryPoint instructions. */
static int spirv_entry_points(const char *path, char names[][64], int max)
{
    size_t size;
    uint32_t *w = read_file(path, &size);
    size_t words = size / 4;
    cr_assert(words > 5 && w[0] == 0x07230203u, "%s is not SPIR-V", path);
    int count = 0;
    for (size_t i = 5; i < words;) {
        uint32_t len = w[i] >> 16, op = w[i] & 0xffffu;
        cr_assert(len > 0 && i + len <= words, "%s: a malformed instruction", path);
        if (op == 15 && len > 3) { /* OpEntryPoint: model, id, name */
            cr_assert(count < max);
            snprintf(names[count++], 64, "%s", (const char *)&w[i + 3]);
        }
        i += len;
    }
    free(w);
    return count;
}

/* The function symbols a shared object defines and exports (names[]), and whether it needs any krt_ symbol
 * from elsewhere (a libkrt symbol, which a library loaded with RTLD_LOCAL beside libkrt could not resolve). */
static int elf_exports(const char *path, char names[][64], int max, int *imports_krt)
{
    size_t size;
    unsigned char *f = read_file(path, &size);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
    cr_assert(size > sizeof *eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64,
              "%s is not a 64-bit ELF file", path);
    Elf64_Shdr *sh = (Elf64_Shdr *)(f + eh->e_shoff);
    int count = 0;
    *imports_krt = 0;
    for (int s = 0; s < eh->e_shnum; s++) {
        if (sh[s].sh_type != SHT_DYNSYM)
            continue;
        Elf64_Sym *sym = (Elf64_Sym *)(f + sh[s].sh_offset);
        const char *str = (const char *)(f + sh[sh[s].sh_link].sh_offset);
        for (size_t k = 0; k < sh[s].sh_size / sizeof *sym; k++) {
            const char *name = str + sym[k].st_name;
            int bind = ELF64_ST_BIND(sym[k].st_info), vis = ELF64_ST_VISIBILITY(sym[k].st_other);
            if (sym[k].st_shndx == SHN_UNDEF) {
                if (strncmp(name, "krt", 3) == 0)
                    *imports_krt = 1;
                continue;
            }
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || bind == STB_LOCAL || vis != STV_DEFAULT)
                continue;
            cr_assert(count < max);
            snprintf(names[count++], 64, "%s", name);
        }
    }
    free(f);
    return count;
}

static int name_in(const char *name, char names[][64], int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

Test(host_abi, header_struct_matches_the_contract)
{
    size_t off[13];
    size_t size = krt_test_header_layout(off);
    size_t want[13] = {
        offsetof(struct krt_host_item, work_dim),    offsetof(struct krt_host_item, reserved),
        offsetof(struct krt_host_item, global_id),   offsetof(struct krt_host_item, local_id),
        offsetof(struct krt_host_item, group_id),    offsetof(struct krt_host_item, global_size),
        offsetof(struct krt_host_item, local_size),  offsetof(struct krt_host_item, num_groups),
        offsetof(struct krt_host_item, global_offset), offsetof(struct krt_host_item, barrier),
        offsetof(struct krt_host_item, runtime),     offsetof(struct krt_host_item, enqueued_local_size),
        sizeof(struct krt_host_item),
    };
    cr_assert_eq(size, sizeof(struct krt_host_item));
    for (int i = 0; i < 13; i++)
        cr_assert_eq(off[i], want[i], "field %d: offset %zu in the header, %zu in the contract", i, off[i], want[i]);
}

/* The thread-local slot: one address per thread, the same on every call from one thread. */
static void *slot_of_thread(void *fn)
{
    ht_slot_fn slot = (ht_slot_fn)fn;
    return (void *)slot();
}

/* Checks every library dir/host/NAME.so and dir/host/NAME.checked.so (krt-cc --host --checks, which exports its
 * check slot and the shadow map's address too) against dir/NAME.spv; returns how many unchecked ones there are, and the checked ones in *checked. */
static size_t check_libraries(const char *dir, size_t *checked)
{
    *checked = 0;
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s/%s/host/*.so", build_dir(), dir);
    glob_t g;
    cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no native kernel library matches %s", pattern);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *so = g.gl_pathv[i];
        const char *base = strrchr(so, '/') + 1;
        size_t stem = strlen(base) - 3;
        int is_checked = stem > 8 && strcmp(base + stem - 8, ".checked.so") == 0;
        if (is_checked) {
            stem -= 8;
            ++*checked;
        }
        char spv[4096];
        snprintf(spv, sizeof spv, "%s/%s/%.*s.spv", build_dir(), dir, (int)stem, base);

        char kernels[64][64], exports[160][64];
        int nk = spirv_entry_points(spv, kernels, 64);
        int imports_krt = 0;
        int ne = elf_exports(so, exports, 160, &imports_krt);
        cr_assert(nk > 0, "%s has no kernels", spv);
        cr_assert(!imports_krt, "%s needs a krt symbol from outside", so);
        /* Exactly the kernels, their group runners and the two ABI functions are exported (a checked library: and
         * its check slot and shadow map, and no sanitizer function). */
        cr_assert_eq(ne, 2 * nk + 2 + 2 * is_checked, "%s exports %d functions for %d kernels, their runners + %d", so,
                     ne, nk, 2 + 2 * is_checked);
        cr_assert(name_in("krt_host_abi_version", exports, ne) && name_in("krt_host_item_slot", exports, ne), "%s",
                  so);
        cr_assert_eq(name_in("krt_host_checks_slot", exports, ne), is_checked, "%s: krt_host_checks_slot", so);
        cr_assert_eq(name_in("krt_host_checks_shadow", exports, ne), is_checked, "%s: krt_host_checks_shadow", so);
        void *lib = ht_open(so);
        cr_assert(lib, "%s does not load", so);
        for (int k = 0; k < nk; k++) {
            cr_assert(name_in(kernels[k], exports, ne), "%s does not export kernel %s", so, kernels[k]);
            cr_assert(dlsym(lib, kernels[k]), "dlsym(%s, %s)", so, kernels[k]);
            char runner[sizeof kernels[k] + sizeof KRT_HOST_GROUP_PREFIX];
            snprintf(runner, sizeof runner, "%s%.63s", KRT_HOST_GROUP_PREFIX, kernels[k]);
            cr_assert(name_in(runner, exports, ne), "%s does not export the group runner %s", so, runner);
        }
        ht_version_fn version = (ht_version_fn)dlsym(lib, "krt_host_abi_version");
        ht_slot_fn slot = (ht_slot_fn)dlsym(lib, "krt_host_item_slot");
        cr_assert(version && slot);
        cr_assert_eq(version(), KRT_HOST_ABI_VERSION, "%s: ABI version %u", so, version());
        cr_assert_eq(version(), 5u, "%s: ABI version %u", so, version());
        const struct krt_host_item **mine = slot();
        cr_assert(mine && mine == slot());
        pthread_t t;
        void *other = NULL;
        cr_assert_eq(pthread_create(&t, NULL, slot_of_thread, (void *)slot), 0);
        pthread_join(t, &other);
        cr_assert(other && other != (void *)mine, "%s: the slot is not thread-local", so);
        dlclose(lib);
    }
    size_t count = g.gl_pathc - *checked;
    globfree(&g);
    return count;
}

Test(host_abi, every_kernel_library)
{
    size_t checked;
    size_t libs = check_libraries("kernels", &checked);
    /* Every kernel of kernels/ has its library and its checked library: as many of each as SPIR-V modules. */
    char spv_pattern[4096];
    snprintf(spv_pattern, sizeof spv_pattern, "%s/kernels/*.spv", build_dir());
    glob_t gs;
    cr_assert_eq(glob(spv_pattern, 0, NULL, &gs), 0);
    cr_assert_eq(libs, gs.gl_pathc, "%zu libraries for %zu SPIR-V modules", libs, gs.gl_pathc);
    cr_assert_eq(checked, gs.gl_pathc, "%zu checked libraries for %zu SPIR-V modules", checked, gs.gl_pathc);
    globfree(&gs);
}

Test(host_abi, every_test_kernel_library)
{
    size_t checked;
    cr_assert_geq(check_libraries("test-kernels", &checked), 7u);
    cr_assert_geq(checked, 4u);
}

/* A library of build/, opened, with its slot. */
static void *open_lib(const char *rel, ht_slot_fn *slot)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", build_dir(), rel);
    void *lib = ht_open(path);
    cr_assert(lib, "%s does not load", path);
    *slot = (ht_slot_fn)dlsym(lib, "krt_host_item_slot");
    cr_assert(*slot);
    return lib;
}

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    cr_assert(p, "no symbol %s", name);
    return p;
}

static uint32_t rng = 12345u;
static uint32_t next_rand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

struct vadd_call {
    void (*fn)(const float *, const float *, float *, uint32_t);
    const float *a, *b;
    float *c;
    uint32_t n;
};
static void call_vadd(void *p)
{
    struct vadd_call *c = p;
    c->fn(c->a, c->b, c->c, c->n);
}

Test(host_kernels, vadd)
{
    ht_slot_fn slot;
    void *lib = open_lib("kernels/host/vadd.so", &slot);
    uint32_t n = 1009; /* a prime: the last group is masked */
    float a[1009], b[1009], c[1009 + 1];
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)(next_rand() % 1000) * 0.25f;
        b[i] = (float)(next_rand() % 1000) * -0.5f;
    }
    c[n] = 42.0f; /* past the end: the guard must keep it */
    struct vadd_call call = { (void (*)(const float *, const float *, float *, uint32_t))sym(lib, "vadd"), a, b, c, n };
    size_t size[3] = { n }, group[3] = { 64 };
    ht_barriers = 0;
    ht_run(slot, 1, size, group, call_vadd, &call, 0, 1);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(c[i], a[i] + b[i], "c[%u]", i);
    cr_assert_eq(c[n], 42.0f);
    cr_assert_eq(ht_barriers, 0u);
    dlclose(lib);
}

struct saxpy_call {
    void (*fn)(float, const float *, float *, uint32_t);
    float a;
    const float *x;
    float *y;
    uint32_t n;
};
static void call_saxpy(void *p)
{
    struct saxpy_call *c = p;
    c->fn(c->a, c->x, c->y, c->n);
}

Test(host_kernels, saxpy)
{
    ht_slot_fn slot;
    void *lib = open_lib("kernels/host/saxpy.so", &slot);
    enum { N = 4093 };
    static float x[N], y[N], want[N];
    float a = 2.5f;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(next_rand() % 4096) / 64.0f;
        y[i] = (float)(next_rand() % 4096) / -32.0f;
        want[i] = a * x[i] + y[i];
    }
    struct saxpy_call call = { (void (*)(float, const float *, float *, uint32_t))sym(lib, "saxpy"), a, x, y, N };
    size_t size[3] = { N }, group[3] = { 100 };
    ht_run(slot, 1, size, group, call_saxpy, &call, 0, 1);
    for (int i = 0; i < N; i++)
        cr_assert_eq(y[i], want[i], "y[%d] = %g, want %g", i, (double)y[i], (double)want[i]);
    dlclose(lib);
}

/* ABI 4: a group runner takes the addresses of the arguments and a run of groups along dimension 0, given by the
 * state of its first work-item (krt_host_abi.h) as the host device makes it; here for a 1-D range of n work-items
 * in groups of group, from group first, count groups. */
static void run_groups(krt_host_group_fn runner, void *const *args, size_t n, size_t group, size_t first,
                       size_t count)
{
    struct krt_host_group g;
    memset(&g, 0, sizeof g);
    struct krt_host_item *it = &g.item;
    it->work_dim = 1;
    it->barrier = ht_barrier;
    for (int d = 0; d < 3; d++)
        it->global_size[d] = it->local_size[d] = it->num_groups[d] = it->enqueued_local_size[d] = 1;
    it->global_size[0] = n;
    it->enqueued_local_size[0] = group;
    it->num_groups[0] = (n + group - 1) / group;
    it->group_id[0] = first;
    it->global_id[0] = first * group;
    it->local_size[0] = n - first * group < group ? n - first * group : group;
    g.groups = count;
    runner(args, &g);
}

/* saxpy's runner over 4093 work-items in groups of 100, in three calls of several groups each, the last group
 * partial. */
Test(host_kernels, saxpy_through_its_group_runner)
{
    ht_slot_fn slot;
    void *lib = open_lib("kernels/host/saxpy.so", &slot);
    krt_host_group_fn runner = (krt_host_group_fn)sym(lib, KRT_HOST_GROUP_PREFIX "saxpy");
    enum { N = 4093 };
    static float x[N], y[N + 1], want[N];
    float a = -1.5f;
    uint32_t n = N;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(next_rand() % 4096) / 64.0f;
        y[i] = (float)(next_rand() % 4096) / -32.0f;
        want[i] = a * x[i] + y[i];
    }
    y[N] = 42.0f;
    float *xp = x, *yp = y;
    void *args[] = { &a, &xp, &yp, &n }; /* saxpy(float a, const float *x, float *y, uint n) */
    ht_barriers = 0;
    run_groups(runner, args, N, 100, 0, 7);
    run_groups(runner, args, N, 100, 7, 30);
    run_groups(runner, args, N, 100, 37, 4);
    for (int i = 0; i < N; i++)
        cr_assert_eq(y[i], want[i], "y[%d] = %g, want %g", i, (double)y[i], (double)want[i]);
    cr_assert_eq(y[N], 42.0f, "the runner wrote past the range");
    cr_assert_eq(ht_barriers, 0u);
    dlclose(lib);
}

/* A struct and a half by value through the runner of test/kernels/krt_byvalue.cl's byvalue_affine and
 * byvalue_half: the runner reads each from its address with the parameter's C type. */
typedef struct {
    float x;
    int32_t y;
} bv_pair;
typedef struct {
    int16_t s;
    char tag;
    int64_t l;
} bv_inner;
typedef float bv_float4 __attribute__((vector_size(16)));
typedef struct {
    char c;
    float f;
    double d;
    int32_t i;
    bv_inner in;
    float arr[3];
    uint8_t u;
    _Float16 h;
    bv_float4 v;
} bv_params;

Test(host_kernels, structs_and_half_through_the_group_runner)
{
    ht_slot_fn slot;
    void *lib = open_lib("test-kernels/host/krt_byvalue.so", &slot);
    enum { N = 1000 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 17) - 8.0f;
    bv_pair p;
    memset(&p, 0x5a, sizeof p);
    p.x = -0.75f;
    p.y = 3;
    bv_params q;
    memset(&q, 0x5a, sizeof q);
    q.f = 2.0f;
    q.d = 100.0;
    q.in.tag = -9;
    q.arr[0] = 0.5f;
    q.arr[1] = 1.5f;
    q.arr[2] = -4.0f;
    q.h = (_Float16)0.25f;
    q.v = (bv_float4){ 1.0f, 2.0f, 3.0f, 4.0f };
    uint64_t n = N;
    float *xp = x, *yp = y;
    void *args[] = { &xp, &yp, &p, &q, &n };
    run_groups((krt_host_group_fn)sym(lib, KRT_HOST_GROUP_PREFIX "byvalue_affine"), args, N, 64, 0, (N + 63) / 64);
    for (int i = 0; i < N; i++) {
        float want = x[i] * q.f + (float)q.d + p.x + q.arr[i % 3] + q.v[i % 4] + (float)q.h + (float)q.in.tag;
        cr_assert_eq(y[i], want, "y[%d] = %g, want %g", i, (double)y[i], (double)want);
    }
    static _Float16 hs[N], hd[N];
    for (int i = 0; i < N; i++)
        hs[i] = (_Float16)((float)i * 0.5f - 200.0f);
    _Float16 k = (_Float16)-1.25f, *hsp = hs, *hdp = hd;
    void *hargs[] = { &hsp, &hdp, &k, &n };
    run_groups((krt_host_group_fn)sym(lib, KRT_HOST_GROUP_PREFIX "byvalue_half"), hargs, N, 128, 0, (N + 127) / 128);
    for (int i = 0; i < N; i++)
        cr_assert(hd[i] == (_Float16)((float)hs[i] * (float)k), "hd[%d] = %g", i, (double)hd[i]);
    dlclose(lib);
}

typedef void (*mandel_fn)(uint32_t *, uint32_t, uint32_t, float, float, float, float, uint32_t);
struct mandel_call {
    mandel_fn fn;
    uint32_t *iters, w, h, max_iter;
    float x0, y0, dx, dy;
};
static void call_mandel(void *p)
{
    struct mandel_call *c = p;
    c->fn(c->iters, c->w, c->h, c->x0, c->y0, c->dx, c->dy, c->max_iter);
}

Test(host_kernels, mandelbrot_2d)
{
    ht_slot_fn slot;
    void *lib = open_lib("kernels/host/mandelbrot.so", &slot);
    enum { W = 67, H = 45 };
    static uint32_t iters[W * H];
    struct mandel_call call = { (mandel_fn)sym(lib, "mandelbrot"), iters, W, H, 200, -2.0f, -1.2f, 3.0f / W, 2.4f / H };
    size_t size[3] = { W, H }, group[3] = { 8, 4 };
    ht_run(slot, 2, size, group, call_mandel, &call, 0, 1);
    size_t differ = 0, inside = 0;
    for (uint32_t py = 0; py < H; py++)
        for (uint32_t px = 0; px < W; px++) {
            float cr = call.x0 + (float)px * call.dx, ci = call.y0 + (float)py * call.dy;
            float zr = 0.0f, zi = 0.0f;
            uint32_t it = 0;
            while (it < call.max_iter && zr * zr + zi * zi <= 4.0f) {
                float t = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = t;
                it++;
            }
            differ += iters[py * W + px] != it;
            inside += it == call.max_iter;
        }
    cr_assert_eq(differ, 0u, "%zu pixels differ", differ);
    cr_assert(inside > 0 && inside < W * H, "the region shows the set's edge (%zu inside)", inside);
    dlclose(lib);
}

typedef void (*heat_fn)(const float *, float *, uint32_t, uint32_t, float);
struct heat_call {
    heat_fn fn;
    const float *in;
    float *out;
    uint32_t w, h;
    float alpha;
};
static void call_heat(void *p)
{
    struct heat_call *c = p;
    c->fn(c->in, c->out, c->w, c->h, c->alpha);
}

Test(host_kernels, heat_2d)
{
    ht_slot_fn slot;
    void *lib = open_lib("kernels/host/heat.so", &slot);
    enum { W = 37, H = 29 };
    static float in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (float)(next_rand() % 1000) / 10.0f;
    struct heat_call call = { (heat_fn)sym(lib, "heat_step"), in, out, W, H, 0.2f };
    size_t size[3] = { W, H }, group[3] = { 16, 4 };
    ht_run(slot, 2, size, group, call_heat, &call, 0, 1);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            size_t i = y * W + x;
            float want = in[i];
            if (x != 0 && y != 0 && x != W - 1 && y != H - 1) {
                float c = in[i];
                float lap = in[i - 1] + in[i + 1] + in[i - W] + in[i + W] - 4.0f * c;
                want = c + call.alpha * lap;
            }
            cr_assert_eq(out[i], want, "out[%u, %u] = %g, want %g", x, y, (double)out[i], (double)want);
        }
    dlclose(lib);
}

/* Groups spread over threads, as on the host device: each thread runs every other group through its own slot,
 * and the atomics must not lose a count between them. */
struct hist_call {
    void (*fn)(const unsigned char *, uint32_t *, uint32_t);
    const unsigned char *data;
    uint32_t *bins, n;
    ht_slot_fn slot;
    size_t first;
};
static void call_hist(void *p)
{
    struct hist_call *c = p;
    c->fn(c->data, c->bins, c->n);
}
static void *hist_thread(void *p)
{
    struct hist_call *c = p;
    size_t size[3] = { c->n }, group[3] = { 128 };
    ht_run(c->slot, 1, size, group, call_hist, c, c->first, 2);
    return NULL;
}

Test(host_kernels, histogram_global_on_two_threads)
{
    ht_slot_fn slot;
    void *lib = open_lib("kernels/host/histogram.so", &slot);
    enum { N = 200003 };
    static unsigned char data[N];
    uint32_t bins[256] = { 0 }, want[256] = { 0 };
    for (int i = 0; i < N; i++) {
        data[i] = (unsigned char)(next_rand() % 7 == 0 ? 3 : next_rand()); /* one hot bin: contention */
        want[data[i]]++;
    }
    void (*fn)(const unsigned char *, uint32_t *, uint32_t) =
        (void (*)(const unsigned char *, uint32_t *, uint32_t))sym(lib, "histogram_global");
    struct hist_call calls[2] = { { fn, data, bins, N, slot, 0 }, { fn, data, bins, N, slot, 1 } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, hist_thread, &calls[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int b = 0; b < 256; b++)
        cr_assert_eq(bins[b], want[b], "bin %d: %u, want %u", b, bins[b], want[b]);
    dlclose(lib);
}

/* test/kernels/krt_single_source.cl: the header's built-ins against values computed here. */
typedef void (*ss_fn)(int64_t *, const int *, uint32_t *, int *, float *, uint32_t);
struct ss_call {
    ss_fn fn;
    int64_t *out;
    const int *in;
    uint32_t *counters;
    int *minmax;
    float *fout;
    uint32_t n;
};
static void call_ss(void *p)
{
    struct ss_call *c = p;
    c->fn(c->out, c->in, c->counters, c->minmax, c->fout, c->n);
}

Test(host_kernels, single_source_builtins)
{
    ht_slot_fn slot;
    void *lib = open_lib("test-kernels/host/krt_single_source.so", &slot);
    enum { N = 203, G = 16, ROW = 32 };
    static int64_t out[N * ROW];
    static int in[N + 4];
    static float fout[4 * N];
    static int minmax[2 + N];
    uint32_t counters[5] = { 0, 0, 1000, 0, 0 };
    for (int i = 0; i < N + 4; i++)
        in[i] = (int)(next_rand() % 2001) - 1000;
    minmax[0] = 1 << 30;
    minmax[1] = -(1 << 30);
    struct ss_call call = { (ss_fn)sym(lib, "krt_ss_builtins"), out, in, counters, minmax, fout, N };
    size_t size[3] = { N }, group[3] = { G };
    ht_run(slot, 1, size, group, call_ss, &call, 0, 1);

    size_t groups = (N + G - 1) / G;
    int vmin = in[0], vmax = in[0];
    uint32_t sum = 0, bits = 0, x = 0;
    for (int64_t i = 0; i < N; i++) {
        const int64_t *o = out + i * ROW;
        int v = in[i];
        cr_assert_eq(o[0], i);
        cr_assert_eq(o[1], i % G + 1000 * (i / G));
        cr_assert_eq(o[2], (int64_t)(groups * G) + 1000 * G);
        cr_assert_eq(o[3], (int64_t)groups + 1000 * 1);
        cr_assert_eq(o[4], 0, "ids past work_dim are 0");
        cr_assert_eq(o[5], 3, "sizes past work_dim are 1");
        cr_assert_eq(o[6], 0);
        cr_assert_eq(o[7], v < 7 ? v : 7);
        cr_assert_eq(o[8], v > -7 ? v : -7);
        cr_assert_eq(o[9], v < -5 ? -5 : v > 5 ? 5 : v);
        cr_assert_eq(o[10], i < 3 ? i : 3);
        cr_assert_eq(o[11], v < 0 ? -v : v);
        float h = (float)v * 0.5f;
        cr_assert_eq(o[12], (int64_t)((h < -1.5f ? -1.5f : h > 2.5f ? 2.5f : h) * 4.0f));
        cr_assert_eq(o[13], (int64_t)((float)v * 2.0f + 1.0f));
        cr_assert_eq(o[14], i);
        float fv = (float)v;
        uint32_t bitsv;
        memcpy(&bitsv, &fv, 4);
        cr_assert_eq(o[15], (int64_t)bitsv);
        cr_assert_eq(o[16], (int64_t)(int)((float)v * 1.75f));
        cr_assert_eq(o[17], (int64_t)__builtin_popcount((unsigned)i));
        const int *a = in + (i & ~3);
        int b[4] = { a[0] * 2 + 1, a[1] * 2 + 2, a[2] * 2 + 3, a[3] * 2 + 4 };
        cr_assert_eq(o[18], b[0] + 10 * b[3]);
        cr_assert_eq(o[19], (int64_t)((float)b[1] + (float)b[2]));
        for (int k = 0; k < 4; k++)
            cr_assert_eq(fout[4 * i + k], (float)b[k] * 0.5f);
        cr_assert_eq(o[20], 0);
        cr_assert_eq(o[21], v);
        cr_assert_eq(o[22], v);
        cr_assert_eq(o[23], v + 1);
        cr_assert_eq(minmax[2 + i], v + 2);
        vmin = v < vmin ? v : vmin;
        vmax = v > vmax ? v : vmax;
        sum += (uint32_t)i;
        bits |= 1u << (i % 32);
        x ^= (uint32_t)i;
    }
    cr_assert_eq(counters[0], (uint32_t)N);
    cr_assert_eq(counters[1], sum);
    cr_assert_eq(counters[2], 1000u - N);
    cr_assert_eq(counters[3], bits);
    cr_assert_eq(counters[4], x);
    cr_assert_eq(minmax[0], vmin);
    cr_assert_eq(minmax[1], vmax);
    dlclose(lib);
}

/* The line of kernels/offbyone.cl that reads and writes past the end, found by its comment. The source tree is the
 * one this test was built in, or KRT_TEST_SOURCE_DIR where the test runs elsewhere (tools/gpu-pack.sh carries the
 * file and tools/gpu-test.sh points there). */
static int offbyone_line(void)
{
    size_t size;
    const char *dir = getenv("KRT_TEST_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/kernels/offbyone.cl", dir && *dir ? dir : KRT_TEST_SOURCE_DIR);
    char *src = read_file(path, &size);
    int line = 1;
    char *mark = strstr(src, "/* k == per: in[n] and out[n]");
    cr_assert(mark, "kernels/offbyone.cl lost its marker comment");
    for (char *p = src; p < mark; p++)
        line += *p == '\n';
    free(src);
    return line;
}

/* Runs argv in a child, with LD_PRELOAD=preload and ASan's options when preload is not NULL, and returns its
 * standard output and error together. */
static char *run_child(char *const argv[], const char *preload_lib, int *status)
{
    char preload[4200], out_path[] = "/tmp/krt-host-test-XXXXXX";
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", preload_lib ? preload_lib : "");
    int fd = mkstemp(out_path);
    cr_assert(fd >= 0);
    /* The environment of this process, with LD_PRELOAD replaced and leak checking off (the report of
     * interest is the overflow, and ASan's exit status is set to tell it apart). */
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && strncmp(environ[i], "ASAN_OPTIONS=", 13) != 0)
            env[k++] = environ[i];
    if (preload_lib) {
        env[k++] = preload;
        env[k++] = "ASAN_OPTIONS=detect_leaks=0:exitcode=23";
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    pid_t pid;
    cr_assert_eq(posix_spawn(&pid, argv[0], &fa, NULL, argv, env), 0, "cannot run %s", argv[0]);
    cr_assert_eq(waitpid(pid, status, 0), pid);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(fd);
    size_t size;
    char *text = read_file(out_path, &size);
    unlink(out_path);
    return text;
}

Test(host_asan, offbyone_names_the_kernel_line, .timeout = 120)
{
    char prog[4096], lib[4096], where[64];
    snprintf(prog, sizeof prog, "%s/test/host_offbyone", build_dir());
    snprintf(lib, sizeof lib, "%s/kernels-asan/host/offbyone.so", build_dir());
    char *argv[] = { prog, lib, NULL };
    int status;
    struct stat st;
    cr_assert(stat(KRT_TEST_LIBASAN, &st) == 0, "no libasan at %s (the compiler's -print-file-name=libasan.so)",
              KRT_TEST_LIBASAN);
    char *report = run_child(argv, KRT_TEST_LIBASAN, &status);
    snprintf(where, sizeof where, "kernels/offbyone.cl:%d", offbyone_line());
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 23, "exit status %d, not ASan's 23:\n%s", status, report);
    cr_assert(strstr(report, "ERROR: AddressSanitizer: heap-buffer-overflow"), "no overflow report:\n%s", report);
    cr_assert(strstr(report, "READ of size 4"), "not the read of in[n]:\n%s", report);
    const char *frame0 = strstr(report, "#0 ");
    cr_assert(frame0, "no stack:\n%s", report);
    const char *eol = strchr(frame0, '\n');
    cr_assert(strstr(frame0, "in scale_blocks ") && strstr(frame0, where) && strstr(frame0, where) < eol,
              "the first frame is not scale_blocks at %s:\n%s", where, report);
    /* "to the right of" in GCC 12's libasan, "after" in later ones. */
    cr_assert(strstr(report, "0 bytes to the right of 4096-byte region") || strstr(report, "0 bytes after 4096-byte region"),
              "not just past the 1024 floats of in:\n%s", report);
    free(report);
}

/* Without the sanitizer the same library runs to the end: the bug is silent, which is the point. */
Test(host_asan, offbyone_plain_build_runs_silently)
{
    char prog[4096], lib[4096];
    snprintf(prog, sizeof prog, "%s/test/host_offbyone", build_dir());
    snprintf(lib, sizeof lib, "%s/kernels/host/offbyone.so", build_dir());
    /* 1024 floats of malloc'd memory are followed by the allocator's own bytes: a read and a write of 4
     * bytes past them do not crash. */
    char *argv[] = { prog, lib, NULL };
    int status;
    char *output = run_child(argv, NULL, &status);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d:\n%s", status, output);
    cr_assert(strstr(output, "the kernel ran to the end"), "%s", output);
    free(output);
}

/* libFuzzer target over krt_module_create: each input is a SPIR-V module; when it loads, every kernel is
 * launched once with arguments built from its reflection (test/common/krt_fuzz_one.c). `make fuzz` runs it
 * (test/fuzz/fuzz.mk, docs/driver.md "Fuzzing").
 *
 * Built with -DKRT_FUZZ_STANDALONE (no libFuzzer) it is make test's smoke, fuzz_smoke: a fixed sequence of
 * mutants made by the same mutator from the seeds, the same bytes on every machine, so that a smoke that passes
 * here passes in CI and a finding reproduces anywhere (see main() at the end).
 *
 * Findings are sorted by where they happen, since a mutated kernel that writes out of bounds or loops forever
 * can take down any in-process CPU device (krt.h, docs/design.md): a fatal signal prints one line
 *   KRT_FUZZ_FAULT signal=N where=kernel-code|library object=...
 * from the address of the faulting instruction (kernel code is a work-group function PoCL loaded from its
 * kernel cache, or code in no object at all), and a kernel still running after KRT_FUZZ_KERNEL_TIMEOUT_S
 * seconds (default 10) prints KRT_FUZZ_HANG and aborts (where=kernel-code). A krt_module_create that returns
 * an error without a message, or success without a module, aborts with KRT_FUZZ_BAD_RESULT. libFuzzer then
 * saves the input and reports the crash as usual. */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "krt_fuzz_one.h"

static krt_context *ctx;
static kf_pool pool;
static uint64_t kernel_timeout_ns = 10ull * 1000 * 1000 * 1000;
static int do_launch = 1;
static volatile sig_atomic_t hang_reported;
static struct sigaction previous[32];
/* The input being run, saved by the fatal-signal handler into $KRT_FUZZ_ARTIFACTS (when set): libFuzzer saves
 * crashing inputs itself only for the signals it handles. */
static const uint8_t *cur_data;
static size_t cur_size;
static char artifact_path[4096];
static unsigned long long n_inputs, n_refused, n_loaded, n_kernels, n_launched;
static krt_result last_module_result; /* what krt_module_create returned for the last input */

static void print_stats(void)
{
    fprintf(stderr, "fuzz_module stats: inputs %llu, refused %llu, loaded %llu, kernels %llu, launched %llu\n",
            n_inputs, n_refused, n_loaded, n_kernels, n_launched);
}

/* Async-signal-safe output of a string. */
static void say(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void on_fatal(int sig, siginfo_t *info, void *uc_)
{
    (void)info;
    const char *where = "library", *object = "?";
    if (hang_reported) {
        where = "kernel-code";
        object = "(kernel did not finish)";
    } else {
        ucontext_t *uc = uc_;
        void *pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
        Dl_info di;
        /* dladdr is not async-signal-safe in general, but only reads the loader's list here; the process is
         * going down anyway. */
        if (!dladdr(pc, &di) || !di.dli_fname) {
            where = "kernel-code";
            object = "(no object)";
        } else {
            object = di.dli_fname;
            if (strstr(object, "/kcache/") || strstr(object, "pocl-cache")) where = "kernel-code";
        }
    }
    char num[16];
    snprintf(num, sizeof num, "%d", sig);
    say("KRT_FUZZ_FAULT signal=");
    say(num);
    say(" where=");
    say(where);
    say(" object=");
    say(object);
    say("\n");
    if (artifact_path[0] && cur_data) {
        int fd = open(artifact_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            const uint8_t *p = cur_data;
            size_t n = cur_size;
            while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w <= 0) break;
                p += w;
                n -= (size_t)w;
            }
            close(fd);
            say("KRT_FUZZ_INPUT saved as ");
            say(artifact_path);
            say("\n");
        }
    }
    /* Hand over to libFuzzer's handler (it saves the input), or to the default action. */
    struct sigaction *prev = &previous[sig];
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction) {
            prev->sa_sigaction(sig, info, uc_);
            return;
        }
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *t = getenv("KRT_FUZZ_KERNEL_TIMEOUT_S");
    if (t && atoi(t) > 0) kernel_timeout_ns = (uint64_t)atoi(t) * 1000000000ull;
    const char *l = getenv("KRT_FUZZ_LAUNCH");
    if (l && strcmp(l, "0") == 0) do_launch = 0;
    krt_result r = krt_context_create(NULL, &ctx);
    if (r != KRT_SUCCESS) {
        fprintf(stderr, "fuzz_module: krt_context_create: %s: %s\n", krt_result_name(r), krt_last_error_message());
        exit(2);
    }
    r = kf_pool_create(ctx, &pool);
    if (r != KRT_SUCCESS) {
        fprintf(stderr, "fuzz_module: buffers: %s: %s\n", krt_result_name(r), krt_last_error_message());
        exit(2);
    }
    atexit(print_stats);
    const char *dir = getenv("KRT_FUZZ_ARTIFACTS");
    if (dir && dir[0])
        snprintf(artifact_path, sizeof artifact_path, "%s/fatal-%ld.spv", dir, (long)getpid());
    return 0;
}

/* Installed at the first input, after libFuzzer has installed its own handlers (it keeps a handler it finds
 * in place instead of its own, and then would neither report the crash nor save the input). */
static void install_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, &previous[sigs[i]]);
    }
}

/* SPIR-V-aware mutations, half of the time (libFuzzer's byte-level ones the other half): most byte flips give
 * modules the validators reject at once, while the crashes of issue 8 came from word-level changes that keep
 * a module well formed (a header word, one id, one instruction given twice). Deterministic in `seed`. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint32_t next_rand(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint32_t r = seed * 2654435761u + 1;
    size_t nw = size / 4;
    if (next_rand(&r) % 2 == 0 || nw < 6) return LLVMFuzzerMutate(data, size, max_size);
    uint32_t *w = (uint32_t *)data; /* libFuzzer's buffers are aligned */
    /* Instruction starts, for the instruction-level changes. */
    size_t starts[4096], ns = 0;
    for (size_t i = 5; i < nw && ns < 4096;) {
        uint32_t wc = w[i] >> 16;
        if (wc == 0 || i + wc > nw) break;
        starts[ns++] = i;
        i += wc;
    }
    switch (next_rand(&r) % 6) {
    case 0: /* a header word (version, generator, bound, schema): small changes */
        w[1 + next_rand(&r) % 4] += (next_rand(&r) % 2 ? 1u : 0x100u) * (next_rand(&r) % 3);
        break;
    case 1: /* one word +-1 (an id, a count, a literal) */
        w[5 + next_rand(&r) % (nw - 5)] += next_rand(&r) % 2 ? 1u : 0xffffffffu;
        break;
    case 2: /* one word takes the value of another word of the module */
        w[5 + next_rand(&r) % (nw - 5)] = w[next_rand(&r) % nw];
        break;
    case 3: /* one word becomes a small number */
        w[5 + next_rand(&r) % (nw - 5)] = next_rand(&r) % 8;
        break;
    case 4: { /* an instruction given twice */
        if (ns == 0) break;
        size_t at = starts[next_rand(&r) % ns], wc = w[at] >> 16;
        if ((nw + wc) * 4 > max_size) break;
        memmove(w + at + wc, w + at, (nw - at) * 4);
        nw += wc;
        break;
    }
    case 5: { /* an instruction removed */
        if (ns < 2) break;
        size_t at = starts[next_rand(&r) % ns], wc = w[at] >> 16;
        memmove(w + at, w + at + wc, (nw - at - wc) * 4);
        nw -= wc;
        break;
    }
    }
    return nw * 4 + size % 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int installed;
    if (!installed) {
        install_handlers();
        installed = 1;
    }
    kf_report rep;
    cur_data = data;
    cur_size = size;
    kf_run_one(&pool, data, size, do_launch, kernel_timeout_ns, &rep);
    /* A hang or a bad result aborts below, with the input still named for the handler to save. */
    if (rep.outcome == KF_REFUSED || rep.outcome == KF_LOADED) cur_data = NULL;
    last_module_result = rep.module_result;
    n_inputs++;
    n_refused += rep.outcome == KF_REFUSED;
    n_loaded += rep.outcome == KF_LOADED;
    n_kernels += rep.kernels;
    n_launched += rep.launched;
    switch (rep.outcome) {
    case KF_REFUSED:
    case KF_LOADED:
        return 0;
    case KF_KERNEL_HANG:
        hang_reported = 1;
        fprintf(stderr, "KRT_FUZZ_HANG %s\n", rep.detail);
        abort();
    case KF_BAD_ERROR:
    case KF_LAUNCH_ERROR:
        fprintf(stderr, "KRT_FUZZ_BAD_RESULT %s: %s (module: %s)\n", kf_outcome_name(rep.outcome), rep.detail,
                krt_result_name(rep.module_result));
        abort();
    }
    return 0;
}

#ifdef KRT_FUZZ_STANDALONE
/* The smoke: `fuzz_smoke RUNS SEED DIR...` runs RUNS mutants of the .spv files in DIRs, sorted by name, modules
 * only unless KRT_FUZZ_LAUNCH=1. No coverage guides it, so input i is the same bytes on every machine: each is
 * one to four stacked mutations (LLVMFuzzerCustomMutator, whose byte-level half is the stand-in below) of a
 * seed, or, every other time, of one of the last 64 mutants that passed krt's own validation. Which those are
 * depends on nothing but the bytes, so the sequence is fixed. A finding ends the process as under
 * libFuzzer (KRT_FUZZ_* line, the input saved in $KRT_FUZZ_ARTIFACTS); an input that takes over
 * KRT_FUZZ_INPUT_TIMEOUT_S seconds (default 120) is KRT_FUZZ_SLOW. Exit 0: every input refused or loaded.
 * `fuzz_smoke replay FILE...` runs saved inputs as they are. */
#include <dirent.h>

static uint32_t smoke_rand_state = 1;

static uint32_t smoke_rand(void)
{
    return next_rand(&smoke_rand_state);
}

/* libFuzzer's byte-level mutations, in small: a bit flipped, a byte set, a word set to an edge value, bytes
 * erased, inserted or copied from elsewhere in the input. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
    static const uint32_t edge[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000u, 0xffffffffu};
    if (size == 0) return 0;
    size_t at = smoke_rand() % size;
    switch (smoke_rand() % 6) {
    case 0: data[at] ^= (uint8_t)(1u << (smoke_rand() % 8)); break;
    case 1: data[at] = (uint8_t)smoke_rand(); break;
    case 2:
        if (size >= 4) {
            uint32_t v = edge[smoke_rand() % (sizeof edge / sizeof edge[0])];
            size_t w = at & ~(size_t)3;
            memcpy(data + (w + 4 <= size ? w : size - 4), &v, 4);
        }
        break;
    case 3: { /* erase 1-16 bytes */
        size_t n = 1 + smoke_rand() % 16;
        if (n > size - at) n = size - at;
        memmove(data + at, data + at + n, size - at - n);
        return size - n;
    }
    case 4: { /* insert 1-16 random bytes */
        size_t n = 1 + smoke_rand() % 16;
        if (size + n > max_size) break;
        memmove(data + at + n, data + at, size - at);
        for (size_t i = 0; i < n; i++) data[at + i] = (uint8_t)smoke_rand();
        return size + n;
    }
    case 5: { /* copy 1-64 bytes from elsewhere over at */
        size_t from = smoke_rand() % size, n = 1 + smoke_rand() % 64;
        if (n > size - from) n = size - from;
        if (n > size - at) n = size - at;
        memmove(data + at, data + from, n);
        break;
    }
    }
    return size;
}

typedef struct smoke_input {
    uint32_t *words;
    size_t size;
} smoke_input;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the .spv files of dir, sorted by name, to *seeds. */
static void load_seeds(const char *dir, smoke_input **seeds, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz_smoke: cannot open %s\n", dir);
        exit(2);
    }
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".spv") != 0) continue;
        names = realloc(names, (count + 1) * sizeof *names);
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        uint32_t *w = f ? calloc(1, 16384) : NULL;
        size_t got = w ? fread(w, 1, 16384, f) : 0;
        if (f) fclose(f);
        if (got >= 20) {
            *seeds = realloc(*seeds, (*n + 1) * sizeof **seeds);
            (*seeds)[(*n)++] = (smoke_input){w, got};
        } else {
            free(w);
        }
        free(names[i]);
    }
    free(names);
}

static unsigned long long smoke_index;

static void on_slow(int sig)
{
    (void)sig;
    say("KRT_FUZZ_SLOW an input took longer than KRT_FUZZ_INPUT_TIMEOUT_S\n");
    abort(); /* on_fatal saves it */
}

int main(int argc, char **argv)
{
    const char *l = getenv("KRT_FUZZ_LAUNCH");
    if (!l || strcmp(l, "1") != 0) setenv("KRT_FUZZ_LAUNCH", "0", 1);
    if (argc >= 3 && strcmp(argv[1], "replay") == 0) { /* fuzz_smoke replay FILE...: each file once, as it is */
        LLVMFuzzerInitialize(&argc, &argv);
        for (int i = 2; i < argc; i++) {
            FILE *f = fopen(argv[i], "rb");
            static uint32_t in[16384 / 4];
            size_t n = f ? fread(in, 1, sizeof in, f) : 0;
            if (f) fclose(f);
            LLVMFuzzerTestOneInput((const uint8_t *)in, n);
            fprintf(stderr, "fuzz_smoke: %s (%zu bytes): %s\n", argv[i], n, krt_last_error_message());
        }
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: fuzz_smoke RUNS SEED DIR... | fuzz_smoke replay FILE...\n");
        return 2;
    }
    unsigned long long runs = strtoull(argv[1], NULL, 10);
    uint32_t seed = (uint32_t)strtoul(argv[2], NULL, 10);
    smoke_input *seeds = NULL;
    size_t nseeds = 0;
    for (int i = 3; i < argc; i++) load_seeds(argv[i], &seeds, &nseeds);
    if (nseeds == 0) {
        fprintf(stderr, "fuzz_smoke: no .spv seeds\n");
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    const char *t = getenv("KRT_FUZZ_INPUT_TIMEOUT_S");
    unsigned timeout_s = t && atoi(t) > 0 ? (unsigned)atoi(t) : 120;
    signal(SIGALRM, on_slow);
    enum { MAX = 16384, RECENT = 64 };
    static uint32_t buf[MAX / 4];
    static uint32_t recent[RECENT][MAX / 4];
    static size_t recent_size[RECENT];
    size_t nrecent = 0;
    for (smoke_index = 0; smoke_index < runs; smoke_index++) {
        smoke_rand_state = (uint32_t)(smoke_index * 2654435761u) ^ (seed * 40503u) ^ 0x9e3779b9u;
        if (!smoke_rand_state) smoke_rand_state = 1;
        size_t size;
        if (nrecent && smoke_rand() % 2) {
            size_t k = smoke_rand() % (nrecent < RECENT ? nrecent : RECENT);
            size = recent_size[k];
            memcpy(buf, recent[k], size);
        } else {
            const smoke_input *s = &seeds[smoke_rand() % nseeds];
            size = s->size;
            memcpy(buf, s->words, size);
        }
        for (uint32_t m = 1 + smoke_rand() % 4; m > 0; m--)
            size = LLVMFuzzerCustomMutator((uint8_t *)buf, size, MAX, smoke_rand());
        alarm(timeout_s);
        LLVMFuzzerTestOneInput((const uint8_t *)buf, size);
        alarm(0);
        /* Past krt's own validation (SPIRV-Tools linked into libkrt, the same on every machine): loaded, or
         * refused by the driver. What the driver takes can depend on the device (fp16, fp64), so it does not
         * choose the bases. */
        if (last_module_result == KRT_SUCCESS || last_module_result == KRT_ERROR_MODULE_BUILD_FAILURE) {
            memcpy(recent[nrecent % RECENT], buf, size);
            recent_size[nrecent % RECENT] = size;
            nrecent++;
        }
    }
    fprintf(stderr, "fuzz_smoke: %llu inputs from %zu seeds, seed %u: no finding\n", runs, nseeds, seed);
    return 0;
}
#endif

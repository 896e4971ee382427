/*
 * wisdom.c: measured launch configurations (krt_kernel_tune) and their persistence (krt_wisdom_save/load,
 * KRT_WISDOM). An entry says: on this device (name, driver version), for this module (a hash of its SPIR-V,
 * build options and specialization constants), this kernel over ranges of this class (each dimension rounded
 * up to a power of two), the group that measured fastest. The rule in launch_config.c consults the entries on
 * a memo miss only; the warm launch path reads one generation number to notice new wisdom.
 *
 * The file is text, one entry per line, tab-separated, between a header and an end line that counts the
 * entries, so that a truncated file is recognised:
 *     krt-wisdom 1
 *     <device name> TAB <driver version, hex> TAB <module hash, 16 hex digits> TAB <kernel> TAB <dims>
 *         TAB <class x>x<y>x<z> TAB <group x>x<y>x<z> TAB <ns per launch>
 *     end <count>
 */
#include "krt_internal.h"
#include "../../common/fnv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WISDOM_HEADER "krt-wisdom 1"
#define WISDOM_LINE 2048 /* the longest line the reader takes, newline included */

uint64_t krt__module_hash(const void *words, size_t size, const char *build_options,
                          const krt_spec_constant *spec, uint32_t num_spec)
{
    uint64_t h = krt_fnv1a64(KRT_FNV1A64_INIT, words, size);
    if (build_options)
        h = krt_fnv1a64(h, build_options, strlen(build_options) + 1);
    for (uint32_t i = 0; i < num_spec; i++) {
        h = krt_fnv1a64(h, &spec[i].id, sizeof spec[i].id);
        if (spec[i].value)
            h = krt_fnv1a64(h, spec[i].value, spec[i].size);
    }
    return h;
}

static uint32_t range_class(uint64_t size)
{
    uint64_t p = 1;
    while (p < size && p < (1ull << 31))
        p <<= 1;
    return (uint32_t)p;
}

static void entry_free(krt__wisdom_entry *e)
{
    free(e->device);
    free(e->kernel);
}

static int same_key(const krt__wisdom_entry *a, const krt__wisdom_entry *b)
{
    return a->driver_version == b->driver_version && a->module_hash == b->module_hash && a->dims == b->dims &&
           !memcmp(a->cls, b->cls, sizeof a->cls) && !strcmp(a->device, b->device) && !strcmp(a->kernel, b->kernel);
}

/* Adds or replaces e in the set (which takes e's strings). Caller holds wisdom_lock. */
static krt_result set_put(krt__wisdom_set *set, krt__wisdom_entry *e)
{
    for (uint32_t i = 0; i < set->count; i++)
        if (same_key(&set->entries[i], e)) {
            entry_free(&set->entries[i]);
            set->entries[i] = *e;
            return KRT_SUCCESS;
        }
    if (set->count == set->cap) {
        uint32_t cap = set->cap ? set->cap * 2 : 16;
        krt__wisdom_entry *p = realloc(set->entries, cap * sizeof *p);
        if (!p)
            return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for wisdom");
        set->entries = p;
        set->cap = cap;
    }
    set->entries[set->count++] = *e;
    return KRT_SUCCESS;
}

static void set_free(krt__wisdom_set *set)
{
    for (uint32_t i = 0; i < set->count; i++)
        entry_free(&set->entries[i]);
    free(set->entries);
    memset(set, 0, sizeof *set);
}

int krt__wisdom_find(krt_kernel *k, uint32_t dims, const uint64_t size[3], uint32_t group[3])
{
    krt_context *ctx = k->ctx;
    uint32_t cls[3];
    for (uint32_t d = 0; d < 3; d++)
        cls[d] = d < dims ? range_class(size[d]) : 1;
    int found = 0;
    pthread_mutex_lock(&ctx->wisdom_lock);
    for (uint32_t i = 0; i < ctx->wisdom.count && !found; i++) {
        const krt__wisdom_entry *e = &ctx->wisdom.entries[i];
        if (e->dims == dims && !memcmp(e->cls, cls, sizeof cls) && e->module_hash == k->module->spirv_hash &&
            e->driver_version == ctx->info.driver_version && !strcmp(e->kernel, k->refl->name) &&
            !strcmp(e->device, ctx->info.name)) {
            memcpy(group, e->group, sizeof e->group);
            found = 1;
        }
    }
    pthread_mutex_unlock(&ctx->wisdom_lock);
    return found;
}

/* ---- the file ---- */

static int parse_triple(const char *s, uint32_t v[3])
{
    char *end;
    for (int d = 0; d < 3; d++) {
        errno = 0;
        unsigned long x = strtoul(s, &end, 10);
        if (errno || end == s || x == 0 || x > (1ul << 31) || (d < 2 && *end != 'x') || (d == 2 && *end))
            return 0;
        v[d] = (uint32_t)x;
        s = end + 1;
    }
    return 1;
}

/* One entry line (without its newline); 0 when malformed. */
static int parse_entry(char *line, krt__wisdom_entry *e)
{
    char *field[8];
    int n = 0;
    for (char *p = line; n < 8;) {
        field[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    if (n != 8 || !field[0][0] || !field[3][0])
        return 0;
    char *end;
    errno = 0;
    unsigned long ver = strtoul(field[1], &end, 16);
    if (errno || end == field[1] || *end || ver > UINT32_MAX)
        return 0;
    errno = 0;
    unsigned long long hash = strtoull(field[2], &end, 16);
    if (errno || end - field[2] != 16 || *end)
        return 0;
    unsigned long dims = strtoul(field[4], &end, 10);
    if (end == field[4] || *end || dims < 1 || dims > 3)
        return 0;
    memset(e, 0, sizeof *e);
    if (!parse_triple(field[5], e->cls) || !parse_triple(field[6], e->group))
        return 0;
    errno = 0;
    double ns = strtod(field[7], &end);
    if (errno || end == field[7] || *end || !(ns >= 0) || isinf(ns))
        return 0;
    e->driver_version = (uint32_t)ver;
    e->module_hash = hash;
    e->dims = (uint32_t)dims;
    e->ns = ns;
    e->device = strdup(field[0]);
    e->kernel = strdup(field[3]);
    if (!e->device || !e->kernel) {
        entry_free(e);
        return -1;
    }
    return 1;
}

/* Reads the whole file into set; on failure set holds nothing and the message says why. */
static krt_result read_wisdom(const char *path, krt__wisdom_set *set)
{
    memset(set, 0, sizeof *set);
    FILE *f = fopen(path, "r");
    if (!f)
        return krt__fail(KRT_ERROR_IO, "cannot open wisdom file %s: %s", path, strerror(errno));
    char line[WISDOM_LINE];
    unsigned lineno = 0;
    int ended = 0;
    krt_result r = KRT_SUCCESS;
    while (r == KRT_SUCCESS && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            r = krt__fail(KRT_ERROR_IO, "wisdom file %s, line %u: cut off or longer than %zu bytes", path, lineno,
                          sizeof line - 2);
            break;
        }
        line[len - 1] = '\0';
        if (ended) {
            r = krt__fail(KRT_ERROR_IO, "wisdom file %s, line %u: text after the end line", path, lineno);
        } else if (lineno == 1) {
            if (strcmp(line, WISDOM_HEADER) != 0)
                r = krt__fail(KRT_ERROR_IO, "wisdom file %s: the first line is not \"%s\"", path, WISDOM_HEADER);
        } else if (!strncmp(line, "end ", 4)) {
            char *end;
            unsigned long count = strtoul(line + 4, &end, 10);
            if (end == line + 4 || *end || count != set->count)
                r = krt__fail(KRT_ERROR_IO, "wisdom file %s, line %u: the end line counts %s entries, the file has %u",
                              path, lineno, line + 4, set->count);
            ended = 1;
        } else {
            krt__wisdom_entry e;
            int ok = parse_entry(line, &e);
            if (ok < 0)
                r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading wisdom");
            else if (!ok)
                r = krt__fail(KRT_ERROR_IO, "wisdom file %s, line %u: not a wisdom entry", path, lineno);
            else if ((r = set_put(set, &e)) != KRT_SUCCESS)
                entry_free(&e);
        }
    }
    if (r == KRT_SUCCESS && ferror(f))
        r = krt__fail(KRT_ERROR_IO, "cannot read wisdom file %s: %s", path, strerror(errno));
    if (r == KRT_SUCCESS && !ended)
        r = krt__fail(KRT_ERROR_IO, "wisdom file %s is truncated: no end line after %u lines", path, lineno);
    fclose(f);
    if (r != KRT_SUCCESS)
        set_free(set);
    return r;
}

krt_result krt_wisdom_load(krt_context *ctx, const char *path)
{
    if (!ctx || !path)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_wisdom_load: %s is NULL", ctx ? "path" : "ctx");
    krt__wisdom_set set;
    krt_result r = read_wisdom(path, &set);
    if (r != KRT_SUCCESS) {
        if (r == KRT_ERROR_IO && access(path, F_OK) == 0)
            krt__logf(&ctx->log, KRT_LOG_WARNING, "%s; the file is ignored", krt_last_error_message());
        return r;
    }
    pthread_mutex_lock(&ctx->wisdom_lock);
    for (uint32_t i = 0; i < set.count && r == KRT_SUCCESS; i++) {
        r = set_put(&ctx->wisdom, &set.entries[i]);
        if (r == KRT_SUCCESS)
            set.entries[i].device = set.entries[i].kernel = NULL; /* now the context's */
    }
    atomic_fetch_add(&ctx->wisdom_generation, 1);
    pthread_mutex_unlock(&ctx->wisdom_lock);
    uint32_t n = set.count;
    set_free(&set);
    if (r == KRT_SUCCESS)
        krt__logf(&ctx->log, KRT_LOG_INFO, "wisdom: %u entries loaded from %s", n, path);
    return r;
}

krt_result krt_wisdom_save(krt_context *ctx, const char *path)
{
    if (!ctx || !path || !path[0])
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_wisdom_save: %s is %s", !ctx ? "ctx" : "path",
                         !ctx || !path ? "NULL" : "empty");
    /* Beside the target, so that the rename stays within one file system. */
    size_t len = strlen(path);
    char *tmp = malloc(len + 64);
    if (!tmp)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory saving wisdom");
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(tmp, len + 64, "%s.tmp.%ld.%lx", path, (long)getpid(),
             (unsigned long)ts.tv_nsec ^ (unsigned long)(uintptr_t)&ts);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        krt_result r = krt__fail(KRT_ERROR_IO, "cannot write wisdom file %s: %s", tmp, strerror(errno));
        free(tmp);
        return r;
    }
    pthread_mutex_lock(&ctx->wisdom_lock);
    fprintf(f, "%s\n", WISDOM_HEADER);
    uint32_t written = 0;
    for (uint32_t i = 0; i < ctx->wisdom.count; i++) {
        const krt__wisdom_entry *e = &ctx->wisdom.entries[i];
        /* A name with a tab or newline, or a line longer than the reader's buffer, could not be read back: such
         * an entry is not written (it would make the whole file unreadable). */
        if (strpbrk(e->device, "\t\n") || strpbrk(e->kernel, "\t\n") ||
            strlen(e->device) + strlen(e->kernel) > WISDOM_LINE - 160)
            continue;
        fprintf(f, "%s\t%x\t%016llx\t%s\t%u\t%ux%ux%u\t%ux%ux%u\t%.1f\n", e->device, e->driver_version,
                (unsigned long long)e->module_hash, e->kernel, e->dims, e->cls[0], e->cls[1], e->cls[2], e->group[0],
                e->group[1], e->group[2], e->ns);
        written++;
    }
    pthread_mutex_unlock(&ctx->wisdom_lock);
    fprintf(f, "end %u\n", written);
    int bad = ferror(f);
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    krt_result r = KRT_SUCCESS;
    if (bad)
        r = krt__fail(KRT_ERROR_IO, "cannot write wisdom file %s: %s", tmp, strerror(errno));
    else if (rename(tmp, path) != 0)
        r = krt__fail(KRT_ERROR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (r != KRT_SUCCESS)
        unlink(tmp);
    free(tmp);
    return r;
}

void krt__wisdom_init(krt_context *ctx)
{
    pthread_mutex_init(&ctx->wisdom_lock, NULL);
    atomic_init(&ctx->wisdom_generation, 1);
    const char *path = getenv("KRT_WISDOM");
    if (!path || !path[0])
        return;
    ctx->wisdom_path = strdup(path);
    if (access(path, F_OK) == 0)
        krt_wisdom_load(ctx, path); /* a failure is logged; the context works without wisdom */
}

void krt__wisdom_fini(krt_context *ctx)
{
    if (ctx->wisdom_path) {
        if (krt_wisdom_save(ctx, ctx->wisdom_path) != KRT_SUCCESS)
            krt__logf(&ctx->log, KRT_LOG_WARNING, "KRT_WISDOM: %s", krt_last_error_message());
        free(ctx->wisdom_path);
        ctx->wisdom_path = NULL;
    }
    set_free(&ctx->wisdom);
    pthread_mutex_destroy(&ctx->wisdom_lock);
}

krt_result krt__wisdom_record(krt_kernel *kernel, uint32_t dims, const uint64_t size[3], const uint32_t group[3],
                              double ns, uint32_t cls[3])
{
    krt_context *ctx = kernel->ctx;
    krt__wisdom_entry e;
    memset(&e, 0, sizeof e);
    e.device = strdup(ctx->info.name);
    e.kernel = strdup(kernel->refl->name);
    if (!e.device || !e.kernel) {
        entry_free(&e);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for wisdom");
    }
    e.driver_version = ctx->info.driver_version;
    e.module_hash = kernel->module->spirv_hash;
    e.dims = dims;
    for (uint32_t d = 0; d < 3; d++)
        e.cls[d] = d < dims ? range_class(size[d]) : 1;
    memcpy(e.group, group, sizeof e.group);
    e.ns = ns;
    memcpy(cls, e.cls, sizeof e.cls);
    pthread_mutex_lock(&ctx->wisdom_lock);
    krt_result r = set_put(&ctx->wisdom, &e);
    atomic_fetch_add(&ctx->wisdom_generation, 1);
    pthread_mutex_unlock(&ctx->wisdom_lock);
    if (r != KRT_SUCCESS)
        entry_free(&e);
    return r;
}

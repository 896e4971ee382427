/*
 * alloc_count.c: liballoc_count.so, an interposer for bench/module_load. A program linked with it before the C
 * library (or run with LD_PRELOAD) gets its malloc, calloc, realloc and aligned allocators, which forward to
 * glibc's and, between alloc_count_start and alloc_count_stop, count the bytes asked for and the calls, from
 * every library in the process, those opened with dlopen included (they resolve malloc in the global scope).
 * glibc exports its allocator under __libc_* names, so the wrappers need no dlsym. Thread-safe: the counts are
 * atomics.
 */
#include "alloc_count.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);

#define EXPORT __attribute__((visibility("default")))

static atomic_int counting;
static atomic_ullong count_bytes, count_calls;

static inline void note(size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&count_bytes, n, memory_order_relaxed);
        atomic_fetch_add_explicit(&count_calls, 1, memory_order_relaxed);
    }
}

EXPORT void alloc_count_start(void)
{
    atomic_store(&count_bytes, 0);
    atomic_store(&count_calls, 0);
    atomic_store(&counting, 1);
}

EXPORT void alloc_count_stop(uint64_t *bytes, uint64_t *calls)
{
    atomic_store(&counting, 0);
    *bytes = atomic_load(&count_bytes);
    *calls = atomic_load(&count_calls);
}

EXPORT void *malloc(size_t n)
{
    note(n);
    return __libc_malloc(n);
}

EXPORT void *calloc(size_t a, size_t b)
{
    note(a * b);
    return __libc_calloc(a, b);
}

EXPORT void *realloc(void *p, size_t n)
{
    note(n);
    return __libc_realloc(p, n);
}

EXPORT void free(void *p)
{
    __libc_free(p);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    note(n);
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    note(n);
    return __libc_memalign(align, n);
}

EXPORT void *memalign(size_t align, size_t n)
{
    note(n);
    return __libc_memalign(align, n);
}

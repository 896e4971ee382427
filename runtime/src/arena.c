/*
 * arena.c: a scoped arena over a caller's buffer, for the pNext chain of a property query. The structs of a
 * chain are reached by the driver only through pNext, so they must all stay alive and unmoved for the whole
 * call; placing them in one arena declared in the querying function's frame makes that lifetime explicit
 * and costs no heap allocation. Releasing the arena ends the scope.
 */
#include "krt_internal.h"

#include <string.h>

void krt__arena_init(krt__arena *arena, void *buffer, size_t size)
{
    arena->base = buffer;
    arena->cap = size;
    arena->used = 0;
}

void *krt__arena_alloc(krt__arena *arena, size_t size, size_t align)
{
    uintptr_t start = (uintptr_t)arena->base + arena->used;
    uintptr_t aligned = (start + (align - 1)) & ~(uintptr_t)(align - 1);
    size_t offset = (size_t)(aligned - (uintptr_t)arena->base);
    if (offset > arena->cap || size > arena->cap - offset)
        return NULL;
    arena->used = offset + size;
    void *p = arena->base + offset;
    /* Zeroed so that every pNext not set by the caller is NULL. */
    memset(p, 0, size);
    return p;
}

void krt__arena_release(krt__arena *arena)
{
    /* Poison the scope so that a pointer kept past the query reads garbage in a debugger rather than stale
     * but plausible values. */
    memset(arena->base, 0xA5, arena->used);
    arena->used = 0;
}

/* FNV-1a, 64-bit: the one hash of krt's keys and checksums, for the runtime and the drivers alike (the wisdom
 * file's module hash, the driver's native-module checksum and device hash, ze_cuda's PTX cache key, ze_pocl's
 * self-check cache name and launch slots). Not a cryptographic hash: each user checks what it keyed on, or loses
 * only a cache entry, when two inputs collide. Header-only, so that no layer links another for it. */
#ifndef KRT_COMMON_FNV_H
#define KRT_COMMON_FNV_H

#include <stddef.h>
#include <stdint.h>

#define KRT_FNV1A64_INIT 0xCBF29CE484222325ull /* the offset basis: start here */

/* h, continued over n bytes of data. */
static inline uint64_t krt_fnv1a64(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

/* h, continued over one 64-bit word as one step (not byte by byte): for keys of a few words on a hot path,
 * such as ze_pocl's launch slots, where eight steps per word would cost more than the lookup they serve. */
static inline uint64_t krt_fnv1a64_word(uint64_t h, uint64_t word) {
    return (h ^ word) * 0x100000001B3ull;
}

#endif

/* ZE_krt_bounds_check: a Level Zero extension of krt's SPIR-V drivers (ze_pocl, ze_cuda) that builds a module
 * checked: every load, store and atomic its kernels make to global or constant memory through a pointer (a kernel
 * argument, or a pointer read from memory) is made only when it lies inside one of the allocations a table lists.
 * An access outside is not made (a load yields zero) and the table records the first one (spirv/bounds.cpp,
 * docs/driver.md "Checked launches").
 *
 *   ze_krt_bounds_check_desc_t bc = { ZE_STRUCTURE_TYPE_KRT_BOUNDS_CHECK_DESC, NULL, (uint64_t)(uintptr_t)table };
 *   ze_module_desc_t md = { ZE_STRUCTURE_TYPE_MODULE_DESC, &bc, ... };
 *
 * The table is memory the device reads and writes and the host reads (zeMemAllocShared), of
 * ZE_KRT_BOUNDS_TABLE_WORDS 64-bit words, aligned to 64 bytes, zero but for word 0, which points at the current
 * ranges array (also shared memory): [count, unused, base0, end0, base1, end1, ...], the allocations as [base, end)
 * sorted by base, not overlapping, with room for at least one entry (4 words) even when count is 0 (the CPU's
 * lookup reads entry 0 without testing the count first). The caller may point word 0 at another array between launches (never while a checked kernel
 * runs), and frees an array only when no checked kernel that may read it runs. The module keeps the table's address
 * for its life. Only a driver that advertises the extension reads the struct. */
#ifndef ZE_KRT_BOUNDS_H
#define ZE_KRT_BOUNDS_H

#include <stdint.h>

#include <level_zero/ze_api.h>

#define ZE_KRT_BOUNDS_CHECK_NAME "ZE_krt_bounds_check"
#define ZE_STRUCTURE_TYPE_KRT_BOUNDS_CHECK_DESC ((ze_structure_type_t)0x7a704243)

typedef struct ze_krt_bounds_check_desc {
    ze_structure_type_t stype; /* ZE_STRUCTURE_TYPE_KRT_BOUNDS_CHECK_DESC */
    const void *pNext;
    uint64_t table;            /* the table's device address; 0: an unchecked module */
} ze_krt_bounds_check_desc_t;

/* The table's words. After a fault, FLAG is non-zero and the first refused access is described by the words after
 * it; REFUSED counts every refused access (its low 32 bits), and the word NOTIFY points at (when it is not 0) is 1.
 * The host resets FLAG and REFUSED (and may leave the rest) once it has read them, with no checked kernel
 * running. */
enum {
    ZE_KRT_BOUNDS_RANGES = 0,  /* the ranges array's device address */
    ZE_KRT_BOUNDS_FLAG = 1,    /* low 32 bits: 1 once an access was refused */
    ZE_KRT_BOUNDS_ADDRESS = 2, /* the first refused access: its address */
    ZE_KRT_BOUNDS_SIZE = 3,    /* its size in bytes */
    ZE_KRT_BOUNDS_KIND = 4,    /* low 32 bits: ZE_KRT_BOUNDS_LOAD, _STORE or _ATOMIC; high 32 bits: the low 32 bits
                                * of the 64-bit FNV-1a hash of its kernel's name */
    ZE_KRT_BOUNDS_GLOBAL_ID = 5, /* 5, 6, 7: its work-item's global id */
    ZE_KRT_BOUNDS_REFUSED = 8, /* low 32 bits: accesses refused */
    ZE_KRT_BOUNDS_NOTIFY = 9,  /* the address of a 32-bit word of host memory that every refusal sets to 1 after
                                * recording itself, or 0 for none: a host that polls it reads nothing of the table
                                * until a refusal, so that where the table is shared memory that moves to the device
                                * (ze_cuda's managed memory) a wait does not move it back */
    ZE_KRT_BOUNDS_ZERO = 16,   /* 16 to 31: zero, never written; a refused load of at most ZE_KRT_BOUNDS_SLOT_BYTES
                                * reads these words in place of the memory it was refused */
    ZE_KRT_BOUNDS_SINK = 32,   /* 32 to 47: written by refused stores of at most ZE_KRT_BOUNDS_SLOT_BYTES, never
                                * read */
    ZE_KRT_BOUNDS_TABLE_WORDS = 48,
};
#define ZE_KRT_BOUNDS_SLOT_BYTES 128
enum { ZE_KRT_BOUNDS_LOAD = 1, ZE_KRT_BOUNDS_STORE = 2, ZE_KRT_BOUNDS_ATOMIC = 3 };

#endif

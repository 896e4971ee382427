/* alloc_count.h: the interface of liballoc_count.so (bench/alloc_count.c), an interposer that counts the heap
 * calls of every library in a process between alloc_count_start and alloc_count_stop. */
#ifndef KRT_BENCH_ALLOC_COUNT_H
#define KRT_BENCH_ALLOC_COUNT_H

#include <stdint.h>

void alloc_count_start(void);                            /* zero the counts and start counting */
void alloc_count_stop(uint64_t *bytes, uint64_t *calls); /* stop; the bytes asked for and the calls made */

#endif

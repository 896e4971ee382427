/* Global offsets over every kind of range (issue 37), shared by the driver tests that launch
 * test/kernels/ze_offsets.cl's offset_ids: test_ze_conform.c and test_ze_launch.c on ze_pocl (and ze_cuda) through
 * the loader, test_host_driver.c on the host device through its own table. A driver once counted a launch's dimensions from
 * its sizes alone and dropped the offsets of the dimensions above them; each case below has an offset in such a
 * dimension, or is the control with none. */
#ifndef KRT_TEST_OFFSET_CASES_H
#define KRT_TEST_OFFSET_CASES_H

#include <stddef.h>
#include <stdint.h>

#include <criterion/criterion.h>

typedef struct {
    uint32_t offset[3], group[3], count[3];
} offset_case;

static const offset_case offset_cases[] = {
    {{0, 5, 0}, {4, 1, 1}, {2, 1, 1}}, /* an offset in y over a y range of 1 */
    {{0, 0, 7}, {4, 1, 1}, {2, 1, 1}}, /* an offset in z over y and z ranges of 1: the conformance suite's case */
    {{3, 0, 7}, {1, 1, 1}, {1, 1, 1}}, /* a single item, offsets in x and z */
    {{2, 3, 7}, {2, 1, 1}, {3, 1, 1}}, /* offsets in every dimension, y and z ranges of 1 */
    {{2, 3, 7}, {2, 2, 1}, {2, 3, 1}}, /* a 2-D range with an offset in z */
    {{0, 6, 0}, {1, 1, 2}, {3, 1, 2}}, /* a range in x and z, an offset in y only */
    {{1, 2, 3}, {2, 2, 2}, {2, 1, 2}}, /* offsets and ranges in every dimension */
};
#define OFFSET_CASES (sizeof offset_cases / sizeof offset_cases[0])
/* Words past each case's range that must keep the sentinel the test writes everywhere first. */
enum { OFFSET_SLACK = 64, OFFSET_SENTINEL = 0xdeadbeefu };

/* Words the case writes, seven per work-item. */
static inline size_t offset_case_words(const offset_case *c)
{
    return (size_t)c->group[0] * c->count[0] * c->group[1] * c->count[1] * c->group[2] * c->count[2] * 7;
}

/* The most words any case writes, plus the slack: the size of the output buffer, in words. */
static inline size_t offset_cases_buffer_words(void)
{
    size_t most = 0;
    for (size_t i = 0; i < OFFSET_CASES; i++)
        if (offset_case_words(&offset_cases[i]) > most)
            most = offset_case_words(&offset_cases[i]);
    return most + OFFSET_SLACK;
}

/* Checks every word offset_ids wrote for the case, and that the slack past them kept the sentinel. `how` names
 * the way the case was launched, for the messages. */
static inline void expect_offset_ids(const uint32_t *out, const offset_case *c, int index, const char *how)
{
    uint32_t n[3], dims = 1;
    for (int d = 0; d < 3; d++) {
        n[d] = c->group[d] * c->count[d];
        /* The work dimension the drivers launch (docs/driver.md): up to the highest dimension whose size, group
         * size or offset is not the default. */
        if (n[d] > 1 || c->group[d] > 1 || c->offset[d] != 0)
            dims = (uint32_t)d + 1;
    }
    for (uint32_t z = 0; z < n[2]; z++)
        for (uint32_t y = 0; y < n[1]; y++)
            for (uint32_t x = 0; x < n[0]; x++) {
                const uint32_t *o = out + (((size_t)z * n[1] + y) * n[0] + x) * 7;
                const uint32_t want[7] = {x + c->offset[0], y + c->offset[1], z + c->offset[2], c->offset[0],
                                          c->offset[1], c->offset[2], dims};
                static const char *const what[7] = {"global id x", "global id y", "global id z", "offset x",
                                                    "offset y", "offset z", "work dim"};
                for (int w = 0; w < 7; w++)
                    cr_assert_eq(o[w], want[w],
                                 "case %d (%s), offset (%u,%u,%u), item (%u,%u,%u): %s is %u, expected %u", index,
                                 how, c->offset[0], c->offset[1], c->offset[2], x, y, z, what[w], o[w], want[w]);
            }
    for (size_t w = offset_case_words(c); w < offset_case_words(c) + OFFSET_SLACK; w++)
        cr_assert_eq(out[w], OFFSET_SENTINEL, "case %d (%s): word %zu past the range written (0x%x)", index, how, w,
                     out[w]);
}

#endif

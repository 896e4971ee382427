/* ZE_krt_exact_range: a Level Zero extension of krt's drivers (ze_pocl, ze_cuda and krt's in-process host
 * driver) that makes a launch exact, with OpenCL 2.0's non-uniform work-group semantics.
 *
 * Core Level Zero launches groupCount x groupSize work-items, so a range that is not a multiple of the group
 * runs items past its end. With this extension a kernel also holds a true range, set like an argument one
 * past its last: zeKernelSetArgumentValue(kernel, numKernelArgs, sizeof(ze_krt_exact_range_t), &range). Each
 * launch after that must have groupCount[d] == ceil(range.size[d] / groupSize[d]) in every dimension
 * (ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION otherwise), and then:
 *   - the kernel body runs for exactly range.size[0] x [1] x [2] work-items;
 *   - get_global_size(d) is range.size[d]; get_num_groups(d) is groupCount[d];
 *   - the last group of a dimension is partial: get_local_size(d) is its real size there, and
 *     get_enqueued_local_size(d) is groupSize[d];
 *   - barriers and work-group functions work within a partial group.
 * A size of 0 in every dimension (the state of a new kernel) means "no true range": launches are uniform, as
 * the core specification has them. The global offset extension composes: items run from the offset. */
#ifndef ZE_KRT_EXACT_RANGE_H
#define ZE_KRT_EXACT_RANGE_H

#include <stdint.h>

#define ZE_KRT_EXACT_RANGE_NAME "ZE_krt_exact_range"

typedef struct ze_krt_exact_range {
    uint64_t size[3]; /* work-items per dimension; 1 for dimensions the launch does not use */
} ze_krt_exact_range_t;

#endif

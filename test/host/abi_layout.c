/* The layout of krt_kernel.h's struct krt_host_item as a kernel library sees it (compiled with -DKRT_HOST),
 * for test_host_kernels.c to compare with the ABI contract's. */
#include "krt_kernel.h"

size_t krt_test_header_layout(size_t offsets[13]);

size_t krt_test_header_layout(size_t offsets[13])
{
    offsets[0] = offsetof(struct krt_host_item, work_dim);
    offsets[1] = offsetof(struct krt_host_item, reserved);
    offsets[2] = offsetof(struct krt_host_item, global_id);
    offsets[3] = offsetof(struct krt_host_item, local_id);
    offsets[4] = offsetof(struct krt_host_item, group_id);
    offsets[5] = offsetof(struct krt_host_item, global_size);
    offsets[6] = offsetof(struct krt_host_item, local_size);
    offsets[7] = offsetof(struct krt_host_item, num_groups);
    offsets[8] = offsetof(struct krt_host_item, global_offset);
    offsets[9] = offsetof(struct krt_host_item, barrier);
    offsets[10] = offsetof(struct krt_host_item, runtime);
    offsets[11] = offsetof(struct krt_host_item, enqueued_local_size);
    offsets[12] = sizeof(struct krt_host_item);
    return sizeof(struct krt_host_item);
}

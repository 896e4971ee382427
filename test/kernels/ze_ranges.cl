// Multi-dimensional ranges: each work-item records its ids so a test can check every item ran exactly once
// with the right global, local and group coordinates.

// One record per item, at its linear global index: global id, local id, group id, and sizes, packed.
kernel void ids2d(global uint *gid, global uint *lid, global uint *grp, global uint *sizes)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t w = get_global_size(0);
    size_t i = y * w + x;
    gid[i] = (uint)(x | (y << 16));
    lid[i] = (uint)(get_local_id(0) | (get_local_id(1) << 16));
    grp[i] = (uint)(get_group_id(0) | (get_group_id(1) << 16));
    if (i == 0) {
        sizes[0] = (uint)get_global_size(0);
        sizes[1] = (uint)get_global_size(1);
        sizes[2] = (uint)get_local_size(0);
        sizes[3] = (uint)get_local_size(1);
        sizes[4] = (uint)get_num_groups(0);
        sizes[5] = (uint)get_num_groups(1);
        sizes[6] = get_work_dim();
    }
}

// Ids are packed 10 bits per dimension, so each dimension must stay below 1024.
kernel void ids3d(global uint *gid, global uint *lid, global uint *grp, global int *hits)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t w = get_global_size(0), h = get_global_size(1);
    size_t i = (z * h + y) * w + x;
    gid[i] = (uint)(x | (y << 10) | (z << 20));
    lid[i] = (uint)(get_local_id(0) | (get_local_id(1) << 10) | (get_local_id(2) << 20));
    grp[i] = (uint)(get_group_id(0) | (get_group_id(1) << 10) | (get_group_id(2) << 20));
    atomic_inc(&hits[i]);
}

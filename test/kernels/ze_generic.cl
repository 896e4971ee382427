// Generic pointers (OpenCL C 2.0; test_ze_groups.c): to_global, to_local, to_private and get_fence on pointers cast
// from each named space, in a helper that takes a generic pointer and is called with a global, a local and a
// private one, through a select and through a loop. Built with -cl-std=CL2.0 (kernels.mk).

// What p points into, as the casts say: bit 0 to_global, bit 1 to_local, bit 2 to_private, get_fence's flags
// from bit 4.
int space_code(generic int *p) {
    int c = 0;
    if (to_global(p)) c |= 1;
    if (to_local(p)) c |= 2;
    if (to_private(p)) c |= 4;
    return c | (int)get_fence(p) << 4;
}

// Adds one through p and says what p points into.
int bump(generic int *p) {
    *p += 1;
    return space_code(p);
}

// 8 words per work-item; pick sets how often the loop moves its pointer between g and l.
kernel void generic_ptrs(global int *g, global int *out, local int *l, int pick) {
    size_t i = get_global_id(0), lid = get_local_id(0);
    int p = (int)i;
    l[lid] = 100 + (int)i;
    barrier(CLK_LOCAL_MEM_FENCE);
    global int *o = out + i * 8;
    o[0] = bump(&g[i]);
    o[1] = bump(&l[lid]);
    o[2] = bump(&p);
    generic int *q = (i & 1) ? (generic int *)&g[i] : (i % 3 == 0) ? (generic int *)&l[lid] : (generic int *)&p;
    o[3] = space_code(q);
    generic int *r = &p;
    for (int k = 0; k < pick; k++) r = (k & 1) ? (generic int *)&l[lid] : (generic int *)&g[i];
    o[4] = space_code(r);
    o[5] = p;
    o[6] = l[lid];
    global int *qg = to_global(q);
    local int *ql = to_local(q);
    private int *qp = to_private(q);
    o[7] = qg ? *qg : ql ? *ql : qp ? *qp : -1;
}

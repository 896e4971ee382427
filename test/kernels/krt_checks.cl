// Kernels for checked launches (test/test_checks.c, KRT_CHECK_BOUNDS): in-bounds ones whose results must not change
// under checks, and ones that reach past their data. OpenCL C 2.0 (kernels/kernels.mk) for the program-scope
// global variable.

// Writes out[0..n]: one element past an n-element buffer, by the work-item with id n.
kernel void off_by_one(global int *out, uint n)
{
    uint i = get_global_id(0);
    if (i <= n)
        out[i] = (int)i + 1;
}

kernel void scale(global const float *in, global float *out, float s)
{
    size_t i = get_global_id(0);
    out[i] = in[i] * s;
}

// Reads in[i + off]: past the end once i + off reaches it. A refused load gives 0.
kernel void read_past(global const int *in, global int *out, uint off)
{
    size_t i = get_global_id(0);
    out[i] = in[i + off] + 1;
}

// Work-item 0 writes value at base[index]: anywhere, given the index.
kernel void poke(global int *base, long index, int value)
{
    if (get_global_id(0) == 0)
        base[index] = value;
}

// Atomics on c[idx].
kernel void bump(global int *c, uint idx)
{
    atomic_add(&c[idx], 1);
    atomic_inc(&c[idx]);
}

// Program-scope variables and __constant arrays, which are the module's own storage: never refused.
global int calls = 0;
global int seen[4] = {1, 2, 3, 4};
constant int fixed[4] = {10, 20, 30, 40};

kernel void globals(global int *out, constant int *lut)
{
    size_t i = get_global_id(0);
    atomic_inc(&calls);
    seen[i & 3] += 1;
    out[i] = fixed[i & 3] + lut[i & 3] + seen[i & 3] - seen[i & 3];
}

// A 2-D write whose rows run one element too far.
kernel void rows(global float *m, uint w)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    m[y * w + x] = (float)(x + y);
}

// Work-item `who` sums a[n + t] for t < times, every one past an n-element buffer, then writes a[who] = sum + 7;
// every other work-item writes a[i] = i: the refusals of one work-item, in a loop.
kernel void refuse_in_loop(global int *a, uint n, uint times, uint who)
{
    uint i = get_global_id(0);
    if (i != who) {
        a[i] = (int)i;
        return;
    }
    int s = 0;
    for (uint t = 0; t < times; t++)
        s += a[n + t];
    a[i] = s + 7;
}

// Loops whose accesses a checked module tests once at the loop's entry (spirv/bounds.cpp, version_loop): the loop
// runs unchecked where every address it will reach is inside, and checked access by access where one is not.
// Work-item i sums a[i * w + t] for t < len: a row; with len past w the last row runs off the end of a.
kernel void row_sum(global const int *a, global int *out, ulong w, ulong len)
{
    size_t i = get_global_id(0);
    int s = 0;
    for (ulong t = 0; t < len; t++)
        s += a[i * w + t];
    out[i] = s;
}

// Work-item j sums the column a[r * w + j] for r < h: a stride the launch gives.
kernel void col_sum(global const int *a, global int *out, ulong w, ulong h)
{
    size_t j = get_global_id(0);
    int s = 0;
    for (ulong r = 0; r < h; r++)
        s += a[r * w + j];
    out[j] = s;
}

// Work-item i sums a[i], a[i - 1], ..., len of them: downwards, before a's start where i < len - 1.
kernel void down_sum(global const int *a, global int *out, long len)
{
    long i = get_global_id(0);
    int s = 0;
    for (long t = i; t > i - len; t--)
        s += a[t];
    out[i] = s;
}

// Work-item i writes m[i * w + t] = i * 1000 + t for t < len: stores in a loop.
kernel void stamp(global int *m, ulong w, ulong len)
{
    size_t i = get_global_id(0);
    for (ulong t = 0; t < len; t++)
        m[i * w + t] = (int)(i * 1000 + t);
}

// Work-item i sums a[i * w + t] for t < len, at least once: a loop tested at its end, whose first iteration always
// runs.
kernel void row_sum_at_least_once(global const int *a, global int *out, ulong w, ulong len)
{
    size_t i = get_global_id(0);
    int s = 0;
    ulong t = 0;
    do
        s += a[i * w + t];
    while (++t < len);
    out[i] = s;
}

// Work-item i adds a[k] len times: an address the loop does not change.
kernel void same_sum(global const int *a, global int *out, ulong k, ulong len)
{
    size_t i = get_global_id(0);
    int s = 0;
    for (ulong t = 0; t < len; t++)
        s += a[k];
    out[i] = s;
}

// out[(z * h + y) * w + x] = in[((z + dz) * h + y + dy) * w + x + dx]: a stencil's shifted read, whose group a
// checked module tests once at the kernel's entry on the CPU (spirv/bounds.cpp, version_groups): the groups whose
// every read is inside run unchecked, the others checked read by read.
kernel void shift3d(global const int *in, global int *out, uint w, uint h, int dx, int dy, int dz)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    out[(z * h + y) * w + x] = in[((long)(z + dz) * h + (long)y + dy) * w + (long)x + dx];
}

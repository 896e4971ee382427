/* Kernels of the launch benchmarks: the same tiny body behind 1, 4 and 16 arguments, so that what grows
 * from one to the next is the host cost of passing arguments, not the work. Every kernel guards the
 * work-items past the end of its buffer, because krt may launch more work-items than the range. */

kernel void k1(global float *y)
{
    size_t i = get_global_id(0);
    y[i] += 1.0f;
}

kernel void k4(global float *y, global const float *x, float a, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

kernel void k16(global float *y, global const float *x0, global const float *x1, global const float *x2,
                global const float *x3, global const float *x4, global const float *x5,
                global const float *x6, float a0, float a1, float a2, float a3, float a4, float a5,
                float a6, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] += a0 * x0[i] + a1 * x1[i] + a2 * x2[i] + a3 * x3[i] + a4 * x4[i] + a5 * x5[i] + a6 * x6[i];
}

/* k4's signature with no body: what a launch and a replay cost with no work behind them (bench/replay.c). */
kernel void k4_empty(global float *y, global const float *x, float a, uint n)
{
    (void)y; /* the host build (krt-cc --host) warns of unused parameters */
    (void)x;
    (void)a;
    (void)n;
}

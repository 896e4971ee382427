/* Loops that can never exit once entered, in kernels without a barrier: PoCL builds them (they hang only when
 * a work-item enters the loop), so ze_pocl builds them too. */
__kernel void spin_forever(__global int *out)
{
    out[get_global_id(0)] = 1;
    for (;;) {
    }
}

__kernel void spin_while_zero(__global int *flag)
{
    while (flag[0] == 0) {
    }
}

/* Built at -O2. clang's block layout puts the loop's exit block before the loop body that dominates it, so
 * the exit block uses a value defined later in the binary: spirv-val rejects the module ("ID ... has not been
 * defined", a consequence of a block appearing before its dominator), drivers accept it. krt's default
 * validation policy must load it; KRT_VALIDATION_STRICT must reject it. */

/* sums[i] = 0 + 1 + ... + i. */
kernel void krt_o2_triangle(global uint *sums, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    uint s = 0;
    for (uint k = 0; k <= (uint)i; k++)
        s += k;
    sums[i] = s;
}

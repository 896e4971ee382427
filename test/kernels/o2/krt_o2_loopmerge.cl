/* Built at -O2. The loop keeps its loop metadata (nounroll), so the translator emits an OpLoopMerge that
 * clang's -O2 block layout leaves misplaced: spirv-val rejects the module ("OpLoopMerge must immediately
 * precede ..."), drivers accept it. krt's default validation policy must load it; KRT_VALIDATION_STRICT must
 * reject it. */

/* steps[i] = number of Collatz steps from in[i] down to 1. */
kernel void krt_o2_collatz(global const uint *in, global uint *steps, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    uint v = in[i];
    uint c = 0;
#pragma nounroll
    while (v != 1) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        c++;
    }
    steps[i] = c;
}

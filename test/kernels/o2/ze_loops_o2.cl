// Loops built at -O2: the SPIR-V fails spirv-val's block-order rules, yet the translator and drivers accept
// it, as they must, because this is what the standard toolchain produces.

kernel void prefix_rows(global const int *in, global int *out, int width)
{
    size_t row = get_global_id(0);
    int acc = 0;
    for (int x = 0; x < width; x++) {
        acc += in[row * (size_t)width + (size_t)x];
        out[row * (size_t)width + (size_t)x] = acc;
    }
}

kernel void collatz_steps(global const uint *in, global uint *out)
{
    size_t i = get_global_id(0);
    uint n = in[i];
    uint steps = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    out[i] = steps;
}

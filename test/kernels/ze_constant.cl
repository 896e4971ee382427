// Program-scope constant tables and constant-pointer arguments.
constant int squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};
constant float weights[4] = {0.5f, 0.25f, 0.125f, 0.125f};

kernel void use_constants(constant int *table, global int *out)
{
    size_t i = get_global_id(0);
    out[i] = squares[i % 8] * 100 + table[i % 4] + (int)(weights[i % 4] * 8.0f);
}

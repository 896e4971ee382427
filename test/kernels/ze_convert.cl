// Conversions with explicit rounding modes and saturation, which SPIR-V carries as decorations.
kernel void conversions(global const float *in, global int *out)
{
    size_t i = get_global_id(0);
    float x = in[i];
    out[i * 8 + 0] = convert_int_rte(x);
    out[i * 8 + 1] = convert_int_rtz(x);
    out[i * 8 + 2] = convert_int_rtp(x);
    out[i * 8 + 3] = convert_int_rtn(x);
    out[i * 8 + 4] = (int)convert_uchar_sat_rte(x * 10.0f);
    out[i * 8 + 5] = (int)convert_short_sat(x * 10000.0f);
    int4 v = convert_int4_sat_rte((float4)(x, -x, x * 0.5f, 1e10f));
    out[i * 8 + 6] = v.x + v.y + v.z;
    out[i * 8 + 7] = v.w;
}

// Global-memory barrier inside a group: every item sees what the others wrote to global memory.
kernel void global_barrier(global int *scratch, global int *out)
{
    size_t lid = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;
    scratch[base + lid] = (int)(lid * lid);
    barrier(CLK_GLOBAL_MEM_FENCE);
    out[base + lid] = scratch[base + (n - 1 - lid)];
}

// OpenCL C builtins reached through SPIR-V: each one's name or extended instruction has to be mapped back
// to what PoCL's library provides, so a missing or mis-mapped builtin shows up as a build failure or a
// wrong value. Each work-item i evaluates every builtin on inputs derived from i.

#define NI 24
#define NF 24

kernel void int_builtins(global const int *in, global int *out)
{
    size_t i = get_global_id(0);
    int a = in[i], b = in[i + 1];
    uint ua = (uint)a, ub = (uint)b;
    global int *o = out + i * NI;
    o[0] = popcount(ua);
    o[1] = clz(ua);
    o[2] = mad24(a & 0x7fff, b & 0x7fff, 3);
    o[3] = mul_hi(a, b);
    o[4] = (int)rotate(ua, (uint)(i % 32));
    o[5] = (int)abs(a);
    o[6] = (int)abs_diff(a, b);
    o[7] = add_sat(a, b);
    o[8] = sub_sat(a, b);
    o[9] = hadd(a, b);
    o[10] = rhadd(a, b);
    o[11] = min(a, b);
    o[12] = max(a, b);
    o[13] = clamp(a, -1000, 1000);
    o[14] = select(a, b, a > b);
    o[15] = (int)upsample((ushort)(ua & 0xffff), (ushort)(ub & 0xffff));
    o[16] = convert_int_sat((float)a * 1000.0f);
    o[17] = (int)convert_uchar_sat(a);
    o[18] = (int)convert_char_sat(b);
    o[19] = mul24(a & 0x7fff, b & 0x7fff);
    o[20] = (int)(ua / (ub | 1u));
    o[21] = a % ((b & 0xff) | 1);
    uint4 v = (uint4)(ua, ub, ua ^ ub, ua & ub);
    uint4 s = shuffle(v, (uint4)(3, 2, 1, 0));
    o[22] = (int)(s.x + 2u * s.y + 3u * s.z + 4u * s.w);
    o[23] = (int)bitselect(ua, ub, 0x0f0f0f0fu);
}

kernel void float_builtins(global const float *in, global float *out)
{
    size_t i = get_global_id(0);
    float x = in[i], y = in[i + 1];
    global float *o = out + i * NF;
    o[0] = sqrt(fabs(x));
    o[1] = rsqrt(fabs(x) + 1.0f);
    o[2] = exp(x * 0.01f);
    o[3] = log(fabs(x) + 1.0f);
    o[4] = sin(x);
    o[5] = cos(x);
    o[6] = pow(fabs(x) + 1.0f, 1.5f);
    o[7] = fma(x, y, 1.0f);
    o[8] = floor(x);
    o[9] = ceil(x);
    o[10] = round(x);
    o[11] = fmin(x, y);
    o[12] = fmax(x, y);
    o[13] = copysign(2.0f, y);
    o[14] = hypot(x, y);
    o[15] = atan2(y, x);
    float4 v = (float4)(x, y, 1.0f, -2.0f);
    o[16] = dot(v, v);
    o[17] = length(v);
    o[18] = normalize(v).y;
    o[19] = cross(v, (float4)(1.0f, 2.0f, 3.0f, 0.0f)).z;
    o[20] = native_sin(x);
    o[21] = (float)convert_int_rtn(x);
    o[22] = as_float(as_int(x) ^ (int)0x80000000);
    o[23] = tanh(x * 0.1f);
}

kernel void double_builtins(global const double *in, global double *out)
{
    size_t i = get_global_id(0);
    double x = in[i];
    out[i * 4 + 0] = sqrt(fabs(x));
    out[i * 4 + 1] = fma(x, x, 1.0);
    out[i * 4 + 2] = exp(x * 0.001);
    out[i * 4 + 3] = floor(x * 3.5);
}

// Vector loads and stores, including half-precision storage (Float16Buffer only, no half arithmetic).
kernel void vector_memory(global const float *in, global float *out, global half *h)
{
    size_t i = get_global_id(0);
    float4 v = vload4(i, in);
    vstore4(v * 2.0f, i, out);
    vstore_half(v.x, i, h);
    out[4 * get_global_size(0) + i] = vload_half(i, h) + 0.0f * v.y;
}

// Work-item functions with a global offset and with more dimensions than the launch uses.
kernel void item_functions(global uint *out)
{
    size_t i = get_global_id(0) - get_global_offset(0);
    if (i == 0) {
        out[0] = 1;
        out[1] = (uint)get_global_size(1);
        out[2] = (uint)get_local_size(2);
        out[3] = (uint)get_num_groups(2);
        out[4] = (uint)get_global_id(2);
        out[5] = (uint)get_global_offset(0);
    }
}

kernel void printf_kernel(global int *out)
{
    size_t i = get_global_id(0);
    if (i == 0)
        printf("ze_pocl printf test: %d %s %f\n", 42, "text", 1.5f);
    out[i] = (int)i + 1;
}

// Builtins that return a second result through a private pointer.
kernel void pointer_out_builtins(global const float *in, global float *out, global int *iout)
{
    size_t i = get_global_id(0);
    float x = in[i];
    float ip, c;
    int e, q;
    out[i * 6 + 0] = fract(x, &ip);
    out[i * 6 + 1] = ip;
    out[i * 6 + 2] = sincos(x, &c);
    out[i * 6 + 3] = c;
    out[i * 6 + 4] = frexp(x, &e);
    out[i * 6 + 5] = remquo(x, 0.75f, &q);
    iout[i * 2 + 0] = e;
    iout[i * 2 + 1] = q;
}

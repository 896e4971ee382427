// Builtins with a pointer parameter called on generic pointers (OpenCL C 2.0; test_ze_groups.c,
// generic_pointer_builtins): frexp, modf, fract, sincos, remquo, lgamma_r, a vector frexp, vloadN / vstoreN and the
// vload_half / vstore_half family, each in a helper whose pointer parameters are generic, called with pointers into
// global, local and private memory, and with a select of a private and a global pointer, whose space is known only
// at run time. Built with -cl-std=CL2.0 (kernels.mk).

// The results of the out-pointer builtins: r their return values (10 floats), fo their float outputs (3), io their
// int outputs (3), i4o the vector frexp's exponents.
void math_all(float x, float y, float4 x4, float *r, float *fo, int *io, int4 *i4o) {
    r[0] = frexp(x, &io[0]);
    r[1] = modf(x, &fo[0]);
    r[2] = fract(x, &fo[1]);
    r[3] = sincos(x, &fo[2]);
    r[4] = remquo(x, y, &io[1]);
    r[5] = lgamma_r(x, &io[2]);
    float4 m = frexp(x4, i4o);
    r[6] = m.x;
    r[7] = m.y;
    r[8] = m.z;
    r[9] = m.w;
}

float y_of(size_t i) { return 0.75f + (float)(i % 5); }
float4 x4_of(float x) { return (float4)(x, -2.5f * x, x * 1000.0f, x + 0.5f); }

// Per work-item, for each way w (0 global, 1 local, 2 private, 3 a select of private and global by the item's
// parity): rf[(i * 4 + w) * 10 ...], of[(i * 4 + w) * 3 ...], oi[(i * 4 + w) * 3 ...], o4[i * 4 + w].
kernel void generic_math(global const float *xs, global float *rf, global float *of, global int *oi, global int4 *o4,
                         local float *lf, local int *li, local int4 *l4) {
    size_t i = get_global_id(0), lid = get_local_id(0);
    float x = xs[i], y = y_of(i);
    float4 x4 = x4_of(x);
    size_t b0 = i * 4, b1 = i * 4 + 1, b2 = i * 4 + 2, b3 = i * 4 + 3;
    math_all(x, y, x4, rf + b0 * 10, of + b0 * 3, oi + b0 * 3, o4 + b0);

    math_all(x, y, x4, rf + b1 * 10, lf + lid * 3, li + lid * 3, l4 + lid);
    for (int k = 0; k < 3; k++) {
        of[b1 * 3 + k] = lf[lid * 3 + k];
        oi[b1 * 3 + k] = li[lid * 3 + k];
    }
    o4[b1] = l4[lid];

    float pf[3];
    int pi[3];
    int4 p4;
    math_all(x, y, x4, rf + b2 * 10, pf, pi, &p4);
    for (int k = 0; k < 3; k++) {
        of[b2 * 3 + k] = pf[k];
        oi[b2 * 3 + k] = pi[k];
    }
    o4[b2] = p4;

    float qf[3];
    int qi[3];
    int4 q4;
    bool priv = (i & 1) != 0;
    generic float *f = priv ? (generic float *)qf : (generic float *)(of + b3 * 3);
    generic int *n = priv ? (generic int *)qi : (generic int *)(oi + b3 * 3);
    generic int4 *n4 = priv ? (generic int4 *)&q4 : (generic int4 *)(o4 + b3);
    math_all(x, y, x4, rf + b3 * 10, f, n, n4);
    if (priv) {
        for (int k = 0; k < 3; k++) {
            of[b3 * 3 + k] = qf[k];
            oi[b3 * 3 + k] = qi[k];
        }
        o4[b3] = q4;
    }
}

// Stores into p (8 floats) and h (16 halves), then loads back into ld (16 floats): p[2..3] vstore2 at offset 1,
// p[4..7] vstore4 at 1; h[1] vstore_half at 1 (round to nearest even), h[4..7] vstore_half4_rtz at 1, h[8..10]
// vstorea_half3 at 2 (aligned: a stride of 4), h[12..13] vstore_half2_rtp at 6. The other elements are left as
// they were.
void store_load_all(float4 v, float s, float *p, half *h, float *ld) {
    vstore2(v.xy, 1, p);
    vstore4(v, 1, p);
    vstore_half(s, 1, h);
    vstore_half4_rtz(v, 1, h);
    vstorea_half3(v.xyz, 2, h);
    vstore_half2_rtp(v.zw, 6, h);
    float2 a = vload2(1, p);
    float4 b = vload4(1, p);
    float c = vload_half(1, h);
    float4 d = vload_half4(1, h);
    float3 e = vloada_half3(2, h);
    float2 g = vload_half2(6, h);
    float out[16] = {a.x, a.y, b.x, b.y, b.z, b.w, c, d.x, d.y, d.z, d.w, e.x, e.y, e.z, g.x, g.y};
    for (int k = 0; k < 16; k++) ld[k] = out[k];
}

// Per work-item and way w as above: fp[(i * 4 + w) * 8 ...], hp[(i * 4 + w) * 16 ...] (the host fills both with
// sentinels: the kernel copies those of the other ways in first), ld[(i * 4 + w) * 16 ...].
kernel void generic_vectors(global const float *xs, global float *fp, global ushort *hp, global float *ld,
                            local float *lf, local ushort *lh) {
    size_t i = get_global_id(0), lid = get_local_id(0);
    float x = xs[i];
    float4 v = x4_of(x);
    float s = x * 0.333f;
    size_t b[4] = {i * 4, i * 4 + 1, i * 4 + 2, i * 4 + 3};

    store_load_all(v, s, fp + b[0] * 8, (global half *)(hp + b[0] * 16), ld + b[0] * 16);

    for (int k = 0; k < 8; k++) lf[lid * 8 + k] = fp[b[1] * 8 + k];
    for (int k = 0; k < 16; k++) lh[lid * 16 + k] = hp[b[1] * 16 + k];
    store_load_all(v, s, lf + lid * 8, (local half *)(lh + lid * 16), ld + b[1] * 16);
    for (int k = 0; k < 8; k++) fp[b[1] * 8 + k] = lf[lid * 8 + k];
    for (int k = 0; k < 16; k++) hp[b[1] * 16 + k] = lh[lid * 16 + k];

    float pf[8];
    ushort ph[16];
    for (int k = 0; k < 8; k++) pf[k] = fp[b[2] * 8 + k];
    for (int k = 0; k < 16; k++) ph[k] = hp[b[2] * 16 + k];
    store_load_all(v, s, pf, (half *)ph, ld + b[2] * 16);
    for (int k = 0; k < 8; k++) fp[b[2] * 8 + k] = pf[k];
    for (int k = 0; k < 16; k++) hp[b[2] * 16 + k] = ph[k];

    float qf[8];
    ushort qh[16];
    bool priv = (i & 1) != 0;
    for (int k = 0; k < 8; k++) qf[k] = fp[b[3] * 8 + k];
    for (int k = 0; k < 16; k++) qh[k] = hp[b[3] * 16 + k];
    generic float *f = priv ? (generic float *)qf : (generic float *)(fp + b[3] * 8);
    generic half *h = priv ? (generic half *)qh : (generic half *)(hp + b[3] * 16);
    store_load_all(v, s, f, h, ld + b[3] * 16);
    if (priv) {
        for (int k = 0; k < 8; k++) fp[b[3] * 8 + k] = qf[k];
        for (int k = 0; k < 16; k++) hp[b[3] * 16 + k] = qh[k];
    }
}

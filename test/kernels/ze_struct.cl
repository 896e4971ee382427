// A struct passed by value. The layout is the same on the host (x86-64) and on spir64: natural alignment,
// 40 bytes with c at offset 8 and arr at offset 20.
typedef struct {
    int a;
    float b;
    long c;
    char d;
    int arr[4];
} params;

kernel void struct_arg(params p, global long *out)
{
    size_t i = get_global_id(0);
    // Each item reports every field, so a struct copied only partly, or shared wrongly, is seen.
    out[i * 8 + 0] = p.a;
    out[i * 8 + 1] = (long)(p.b * 4.0f);
    out[i * 8 + 2] = p.c;
    out[i * 8 + 3] = p.d;
    out[i * 8 + 4] = p.arr[0];
    out[i * 8 + 5] = p.arr[1];
    out[i * 8 + 6] = p.arr[2];
    out[i * 8 + 7] = p.arr[3] + (long)i;
}

// Scalars of every size next to a pointer, to catch argument offsets computed from the wrong size.
kernel void mixed_scalars(char c, short s, int i, long l, float f, double d, global double *out)
{
    out[0] = c;
    out[1] = s;
    out[2] = i;
    out[3] = l;
    out[4] = f;
    out[5] = d;
}

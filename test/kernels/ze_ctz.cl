// ctz, OpenCL C 2.0's count of trailing zeros, on every integer width, signed and unsigned, and a vector: libclc 15
// has no ctz, so ze_cuda lowers it itself (driver/cuda/ptx.cpp); DPC++'s sort calls ctz(long). ctz(0) is the width.
kernel void ctz_all(global const ulong *x, global uchar *out, uint n) {
    uint i = get_global_id(0);
    if (i >= n) return;
    ulong v = x[i];
    global uchar *o = out + 10 * i;
    o[0] = ctz((char)v);
    o[1] = ctz((uchar)v);
    o[2] = ctz((short)v);
    o[3] = ctz((ushort)v);
    o[4] = ctz((int)v);
    o[5] = ctz((uint)v);
    o[6] = ctz((long)v);
    o[7] = ctz(v);
    uint2 w = ctz((uint2)((uint)v, (uint)(v >> 32)));
    o[8] = w.x;
    o[9] = w.y;
}

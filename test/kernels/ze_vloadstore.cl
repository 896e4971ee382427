// vloadN / vstoreN in every address space and several widths and element types: ze_pocl lowers them to
// element loads and stores where the installed PoCL needs it (test_ze_selfcheck.c runs this both ways).
kernel void vloadstore(global const float *in, global float *out16, global float *out3, global const uchar *cin,
                       global uchar *cout, global const long *lin, global long *lout, local long *tile)
{
    size_t i = get_global_id(0), lid = get_local_id(0), lsize = get_local_size(0);
    float r[16];
    vstore16(vload16(i, in) * 2.0f, 0, r);
    vstore16(vload16(0, r) + 1.0f, i, out16);
    vstore3(vload3(i, in + 5) - 1.0f, i, out3);
    vstore4(vload4(i, cin) ^ (uchar4)(0x5a), i, cout);
    vstore2(vload2(i, cin + 1) + (uchar2)(1, 2), i, cout + 4 * get_global_size(0));
    vstore8(vload8(i, lin), lid, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    vstore8(vload8(lsize - 1 - lid, tile), i, lout);
}

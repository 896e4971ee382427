// vload4 / vstore4 under checked launches (test/test_checks.c), in krt-cc's default OpenCL C: built as OpenCL C 2.0
// (krt_checks.cl) they take generic pointers, which PoCL 3.1's kernel library has no overloads for.
kernel void vec4(global const float *in, global float *out, uint off)
{
    size_t i = get_global_id(0);
    vstore4(vload4(i + off, in) * 2.0f, i, out);
}

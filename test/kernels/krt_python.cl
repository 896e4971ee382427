/* Kernels of the Python package's tests (test/python/test_package.py). They compile as C too, so the tests run on
 * the host device as well as on ze_pocl. Built with parameter names kept, which the binding's messages name. */

/* Each integer argument arrives unchanged: out[k] is argument k + 1 widened to 64 bits. */
kernel void krt_py_ints(global long *out, char c, uchar uc, short s, ushort us, int i, uint ui, long l, ulong ul)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = (long)c;
    out[1] = (long)uc;
    out[2] = (long)s;
    out[3] = (long)us;
    out[4] = (long)i;
    out[5] = (long)ui;
    out[6] = l;
    out[7] = (long)ul;
}

/* float and double arrive unchanged (out[0] is f widened, out[1] is d). */
kernel void krt_py_floats(global double *out, float f, double d)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = (double)f;
    out[1] = d;
}

/* The classic four-argument kernel: y[i] += a * x[i] for i < n. */
kernel void krt_py_axpy(global float *y, global const float *x, float a, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    y[i] += a * x[i];
}

/* No guard: an exact launch runs it for exactly the range. out[i] = v + i over a 1-3-D range, row-major. */
kernel void krt_py_fill(global int *out, int v)
{
    size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
    out[i] = v + (int)i;
}

/* A constant pointer: out[i] = 2 * c[i]. */
kernel void krt_py_const(global int *out, constant int *c)
{
    size_t i = get_global_id(0);
    out[i] = 2 * c[i];
}

/* A __local argument: each work-item reads its right neighbour's id within the group after a barrier. */
kernel void krt_py_local(global int *out, local int *tmp)
{
    int l = (int)get_local_id(0), n = (int)get_local_size(0);
    tmp[l] = (int)get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[(l + 1) % n];
}

/* Pointers of declared types other than float and int, for the dtype checks: each array's element i gets 1
 * added, so a test sees each array used as the type it is declared. */
kernel void krt_py_ptr_types(global uint *u, global ulong *ul, global short *s, global ushort *us, global long *l,
                             global double *d)
{
    size_t i = get_global_id(0);
    u[i] += 1;
    ul[i] += 1;
    s[i] += 1;
    us[i] += 1;
    l[i] += 1;
    d[i] += 1;
}

/* Byte pointers (uchar*, char*, void*), which take an array of any dtype: work-item 0 copies n bytes of src to dst
 * and to also. */
kernel void krt_py_bytes(global uchar *dst, global const char *src, global void *also, uint n)
{
    if (get_global_id(0) != 0)
        return;
    for (uint i = 0; i < n; i++) {
        dst[i] = (uchar)src[i];
        ((global uchar *)also)[i] = (uchar)src[i];
    }
}

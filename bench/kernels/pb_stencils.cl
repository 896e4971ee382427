/* Launch-bound stencils of bench/polybench (docs/performance.md, "Launch-bound benchmarks against OpenMP"): each
 * kernel is one sweep or one time step's part, and the benchmark launches it once per step from the host, as an
 * OpenCL program of these algorithms does. Written from the textbook definitions; bench/polybench/omp.c has the
 * OpenMP C twin of every kernel, with the same arithmetic in the same order, so that the three builds agree to a
 * few roundings. Ranges cover the points a sweep writes (dimension 0 the contiguous one); work-items past them
 * return. */

/* jacobi-1d: the 3-point average of the interior, out[i] for i in 1 .. n-2; launched A into B, then B into A. */
kernel void jacobi1d_sweep(global const float *in, global float *out, uint n)
{
    size_t i = get_global_id(0) + 1;
    if (i >= n - 1)
        return;
    out[i] = (in[i - 1] + in[i] + in[i + 1]) * (1.0f / 3.0f);
}

/* jacobi-2d: the 5-point average of the interior of an n x n grid; launched A into B, then B into A. */
kernel void jacobi2d_sweep(global const float *in, global float *out, uint n)
{
    size_t j = get_global_id(0) + 1, i = get_global_id(1) + 1;
    if (i >= n - 1 || j >= n - 1)
        return;
    size_t c = i * n + j;
    out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - n] + in[c + n]);
}

/* fdtd-2d: Yee's scheme for a 2-D transverse electric field (ex, ey) and magnetic field hz on nx x ny grids, in
 * three kernels per time step: ey (its first row driven by the source value src of the step), ex, then hz from
 * both. ch and ce are the update coefficients (the grid's Courant factors). */
kernel void fdtd_ey(global float *ey, global const float *hz, uint nx, uint ny, float src, float ch)
{
    size_t j = get_global_id(0), i = get_global_id(1);
    if (i >= nx || j >= ny)
        return;
    size_t c = i * ny + j;
    if (i == 0)
        ey[c] = src;
    else
        ey[c] -= ch * (hz[c] - hz[c - ny]);
}

/* Columns 1 .. ny-1 of ex. */
kernel void fdtd_ex(global float *ex, global const float *hz, uint nx, uint ny, float ch)
{
    size_t j = get_global_id(0) + 1, i = get_global_id(1);
    if (i >= nx || j >= ny)
        return;
    size_t c = i * ny + j;
    ex[c] -= ch * (hz[c] - hz[c - 1]);
}

/* Rows 0 .. nx-2 and columns 0 .. ny-2 of hz. */
kernel void fdtd_hz(global float *hz, global const float *ex, global const float *ey, uint nx, uint ny, float ce)
{
    size_t j = get_global_id(0), i = get_global_id(1);
    if (i >= nx - 1 || j >= ny - 1)
        return;
    size_t c = i * ny + j;
    hz[c] -= ce * (ex[c + 1] - ex[c] + ey[c + ny] - ey[c]);
}

/* convolution-3d: a 27-point filter over the interior of an ni x nj x nk volume, one launch per plane i (the
 * range covers the plane's interior, k contiguous). The weights depend only on how far a neighbour is: c0 for
 * the point, c1 for its 6 face neighbours, c2 for the 12 edge neighbours, c3 for the 8 corners. */
kernel void conv3d_plane(global const float *in, global float *out, uint nj, uint nk, uint i, float c0, float c1,
                         float c2, float c3)
{
    size_t k = get_global_id(0) + 1, j = get_global_id(1) + 1;
    if (j >= nj - 1 || k >= nk - 1)
        return;
    size_t sj = nk, si = (size_t)nj * nk, c = i * si + j * sj + k;
    float faces = in[c - 1] + in[c + 1] + in[c - sj] + in[c + sj] + in[c - si] + in[c + si];
    float edges = in[c - sj - 1] + in[c - sj + 1] + in[c + sj - 1] + in[c + sj + 1] + in[c - si - 1] +
                  in[c - si + 1] + in[c + si - 1] + in[c + si + 1] + in[c - si - sj] + in[c - si + sj] +
                  in[c + si - sj] + in[c + si + sj];
    float corners = in[c - si - sj - 1] + in[c - si - sj + 1] + in[c - si + sj - 1] + in[c - si + sj + 1] +
                    in[c + si - sj - 1] + in[c + si - sj + 1] + in[c + si + sj - 1] + in[c + si + sj + 1];
    out[c] = c0 * in[c] + c1 * faces + c2 * edges + c3 * corners;
}

/* adi: Peaceman-Rachford alternating direction implicit steps of the 2-D heat equation on an n x n grid whose
 * border stays fixed. A time step is two half steps, each a tridiagonal system per grid line solved by the
 * Thomas algorithm (forward elimination, then back substitution), implicit along the line and explicit across
 * it, with a = r / 2 (r = dt / h^2):
 *   -a x[l-1] + (1 + 2a) x[l] - a x[l+1] = a w[l-] + (1 - 2a) w[l] + a w[l+]  (w: the field across the line).
 * Elimination keeps p[l] = a / d[l] and q[l] = (rhs[l] + a q[l-1]) / d[l] with d[l] = 1 + 2a - a p[l-1], then
 * x[l] = q[l] + p[l] x[l+1]. The sequential walk along the lines is the host's loop, one launch per grid
 * position, its range every line at once: the column sweep (lines are columns, the walk goes down the rows,
 * items along a row: contiguous) writes v from u, the row sweep (lines are rows, the walk goes along the
 * columns, items down a column: strided) writes u from v. p and q keep p = 0 and q = the border value on row 0
 * and column 0, which start each elimination; the kernels write interior points only. */
kernel void adi_col_forward(global const float *u, global float *p, global float *q, uint n, uint y, float a)
{
    size_t x = get_global_id(0) + 1;
    if (x >= n - 1)
        return;
    size_t c = (size_t)y * n + x;
    float rhs = a * u[c - 1] + (1.0f - 2.0f * a) * u[c] + a * u[c + 1];
    float d = 1.0f + 2.0f * a - a * p[c - n];
    p[c] = a / d;
    q[c] = (rhs + a * q[c - n]) / d;
}

kernel void adi_col_back(global float *v, global const float *p, global const float *q, uint n, uint y)
{
    size_t x = get_global_id(0) + 1;
    if (x >= n - 1)
        return;
    size_t c = (size_t)y * n + x;
    v[c] = q[c] + p[c] * v[c + n];
}

kernel void adi_row_forward(global const float *v, global float *p, global float *q, uint n, uint x, float a)
{
    size_t y = get_global_id(0) + 1;
    if (y >= n - 1)
        return;
    size_t c = y * n + x;
    float rhs = a * v[c - n] + (1.0f - 2.0f * a) * v[c] + a * v[c + n];
    float d = 1.0f + 2.0f * a - a * p[c - 1];
    p[c] = a / d;
    q[c] = (rhs + a * q[c - 1]) / d;
}

kernel void adi_row_back(global float *u, global const float *p, global const float *q, uint n, uint x)
{
    size_t y = get_global_id(0) + 1;
    if (y >= n - 1)
        return;
    size_t c = y * n + x;
    u[c] = q[c] + p[c] * u[c + 1];
}

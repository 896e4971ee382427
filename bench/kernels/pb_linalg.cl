/* Linear algebra of bench/polybench (docs/performance.md, "Launch-bound benchmarks against OpenMP"), written from
 * the textbook definitions, float, row-major. lu and gramschmidt are launch-bound (a launch or two per step of a
 * factorisation whose ranges shrink); gemm, atax, mvt and gemver are a few launches of much work each.
 * bench/polybench/omp.c has the OpenMP C twin of every kernel, with the same arithmetic in the same order. */

/* lu: right-looking LU factorisation without pivoting (the matrix is diagonally dominant), two launches per
 * step k: the multipliers of column k below the diagonal, then the trailing (n-k-1) x (n-k-1) update. Row k and
 * column k are only read by the update, so its work-items do not race. */
kernel void lu_column(global float *a, uint n, uint k)
{
    size_t i = k + 1 + get_global_id(0);
    if (i >= n)
        return;
    a[i * n + k] /= a[(size_t)k * n + k];
}

kernel void lu_trailing(global float *a, uint n, uint k)
{
    size_t j = k + 1 + get_global_id(0), i = k + 1 + get_global_id(1);
    if (i >= n || j >= n)
        return;
    a[i * n + j] -= a[i * n + k] * a[(size_t)k * n + j];
}

/* gramschmidt: QR by modified Gram-Schmidt, column by column, of an m x n matrix a (m >= n): for each column k,
 * r[k][k] = |a[:,k]| and q[:,k] = a[:,k] / r[k][k] (gs_normalize), then every later column j loses its
 * component along q[:,k]: r[k][j] = q[:,k] . a[:,j], a[:,j] -= q[:,k] r[k][j] (gs_update, one work-item per
 * column). gs_normalize is one work-group that sums the squares in __local memory, a tree over GS_GROUP
 * partial sums: it keeps kernel-scope __local memory across barriers, so its group is fixed here
 * (reqd_work_group_size) and krt launches it as it is. */
#define GS_GROUP 256

kernel __attribute__((reqd_work_group_size(GS_GROUP, 1, 1))) void
gs_normalize(global const float *a, global float *q, global float *r, uint m, uint n, uint k)
{
    __local float part[GS_GROUP];
    uint lid = get_local_id(0);
    float acc = 0.0f;
    for (size_t i = lid; i < m; i += GS_GROUP)
        acc += a[i * n + k] * a[i * n + k];
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GS_GROUP / 2; s > 0; s /= 2) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float nrm = sqrt(part[0]);
    for (size_t i = lid; i < m; i += GS_GROUP)
        q[i * n + k] = a[i * n + k] / nrm;
    if (lid == 0)
        r[(size_t)k * n + k] = nrm;
}

kernel void gs_update(global float *a, global const float *q, global float *r, uint m, uint n, uint k)
{
    size_t j = k + 1 + get_global_id(0);
    if (j >= n)
        return;
    float dot = 0.0f;
    for (size_t i = 0; i < m; i++)
        dot += q[i * n + k] * a[i * n + j];
    r[(size_t)k * n + j] = dot;
    for (size_t i = 0; i < m; i++)
        a[i * n + j] -= q[i * n + k] * dot;
}

/* gemm: c = alpha a b + beta c, a ni x nk, b nk x nj; one work-item per element of c. */
kernel void gemm(global float *c, global const float *a, global const float *b, uint ni, uint nj, uint nk,
                 float alpha, float beta)
{
    size_t j = get_global_id(0), i = get_global_id(1);
    if (i >= ni || j >= nj)
        return;
    float acc = 0.0f;
    for (size_t k = 0; k < nk; k++)
        acc += a[i * nk + k] * b[k * nj + j];
    c[i * nj + j] = alpha * acc + beta * c[i * nj + j];
}

/* atax: y = a^T (a x), a m x n, in two launches: tmp = a x (a work-item per row), y = a^T tmp (per column). */
kernel void atax_ax(global const float *a, global const float *x, global float *tmp, uint m, uint n)
{
    size_t i = get_global_id(0);
    if (i >= m)
        return;
    float acc = 0.0f;
    for (size_t j = 0; j < n; j++)
        acc += a[i * n + j] * x[j];
    tmp[i] = acc;
}

kernel void atax_aty(global const float *a, global const float *tmp, global float *y, uint m, uint n)
{
    size_t j = get_global_id(0);
    if (j >= n)
        return;
    float acc = 0.0f;
    for (size_t i = 0; i < m; i++)
        acc += a[i * n + j] * tmp[i];
    y[j] = acc;
}

/* mvt: x1 += a y1 and x2 += a^T y2, a n x n; one launch each. */
kernel void mvt_ax(global float *x1, global const float *a, global const float *y1, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    float acc = x1[i];
    for (size_t j = 0; j < n; j++)
        acc += a[i * n + j] * y1[j];
    x1[i] = acc;
}

kernel void mvt_atx(global float *x2, global const float *a, global const float *y2, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    float acc = x2[i];
    for (size_t j = 0; j < n; j++)
        acc += a[j * n + i] * y2[j];
    x2[i] = acc;
}

/* gemver: a += u1 v1^T + u2 v2^T (2-D), x += beta a^T y, x += z, w += alpha a x; four launches. */
kernel void gemver_rank2(global float *a, global const float *u1, global const float *v1, global const float *u2,
                         global const float *v2, uint n)
{
    size_t j = get_global_id(0), i = get_global_id(1);
    if (i >= n || j >= n)
        return;
    a[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
}

kernel void gemver_atx(global float *x, global const float *a, global const float *y, uint n, float beta)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (size_t j = 0; j < n; j++)
        acc += a[j * n + i] * y[j];
    x[i] += beta * acc;
}

kernel void gemver_add(global float *x, global const float *z, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    x[i] += z[i];
}

kernel void gemver_ax(global float *w, global const float *a, global const float *x, uint n, float alpha)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (size_t j = 0; j < n; j++)
        acc += a[i * n + j] * x[j];
    w[i] += alpha * acc;
}

/* One step k of an LU factorisation without pivoting on an n x n row-major matrix: the trailing update
 * a[i][j] -= a[i][k] * a[k][j] / a[k][k] for i, j in k+1 .. n-1, launched over an (n-k-1) x (n-k-1) range
 * that shrinks by one each step (bench/lu.c). Row k and column k are only read, so the items do not race. */
kernel void lu_update(global float *a, uint n, uint k)
{
    uint m = n - k - 1;
    size_t x = get_global_id(0), y = get_global_id(1);
    if (x >= m || y >= m)
        return;
    size_t i = k + 1 + y, j = k + 1 + x;
    a[i * n + j] -= a[i * n + k] * a[k * n + j] / a[k * n + k];
}

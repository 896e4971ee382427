/*
 * bench/polybench/omp.c: the OpenMP C twin of every bench/polybench kernel sequence (polybench.h). Each twin has
 * the loops of its kernels and launches: a `#pragma omp parallel for` over what a kernel's range covers, one
 * parallel region where the krt sequence makes one launch, the same arithmetic in the same order (so that the
 * three builds agree to a few roundings, main.c's check). Compiled apart with gcc -O3 -fopenmp -march=native
 * (bench/bench.mk), as an OpenMP program of these loops would be; -std=c11 keeps GCC from contracting a * b + c
 * into one rounding, as krt-cc --host's kernels are built.
 */
#include "polybench.h"

#include <math.h>
#include <omp.h>
#include <stddef.h>

int pb_omp_threads(int n)
{
    omp_set_num_threads(n);
    return omp_get_max_threads();
}

long pb_omp_jacobi1d(const long *p, float *const *arr)
{
    const size_t n = (size_t)p[0];
    float *a = arr[0], *b = arr[1];
    for (long t = 0; t < p[1]; t++) {
#pragma omp parallel for
        for (size_t i = 1; i < n - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) * (1.0f / 3.0f);
#pragma omp parallel for
        for (size_t i = 1; i < n - 1; i++)
            a[i] = (b[i - 1] + b[i] + b[i + 1]) * (1.0f / 3.0f);
    }
    return 2 * p[1];
}

/* One sweep of jacobi-2d, in into out. */
static void jacobi2d_sweep(const float *in, float *out, size_t n)
{
#pragma omp parallel for
    for (size_t i = 1; i < n - 1; i++)
        for (size_t j = 1; j < n - 1; j++) {
            size_t c = i * n + j;
            out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - n] + in[c + n]);
        }
}

long pb_omp_jacobi2d(const long *p, float *const *arr)
{
    for (long t = 0; t < p[1]; t++) {
        jacobi2d_sweep(arr[0], arr[1], (size_t)p[0]);
        jacobi2d_sweep(arr[1], arr[0], (size_t)p[0]);
    }
    return 2 * p[1];
}

long pb_omp_lu(const long *p, float *const *arr)
{
    const size_t n = (size_t)p[0];
    float *a = arr[0];
    for (size_t k = 0; k + 1 < n; k++) {
#pragma omp parallel for
        for (size_t i = k + 1; i < n; i++)
            a[i * n + k] /= a[k * n + k];
#pragma omp parallel for
        for (size_t i = k + 1; i < n; i++)
            for (size_t j = k + 1; j < n; j++)
                a[i * n + j] -= a[i * n + k] * a[k * n + j];
    }
    return 2 * (long)(n - 1);
}

long pb_omp_gramschmidt(const long *p, float *const *arr)
{
    const size_t m = (size_t)p[0], n = (size_t)p[1];
    float *a = arr[0], *q = arr[1], *r = arr[2];
    long regions = 0;
    for (size_t k = 0; k < n; k++) {
        /* gs_normalize: the sum of squares, then the column scaled, in one region as in one launch. The
         * reduction's total is in nrm for every thread after the first loop's barrier. */
        float nrm = 0.0f;
#pragma omp parallel
        {
#pragma omp for reduction(+ : nrm)
            for (size_t i = 0; i < m; i++)
                nrm += a[i * n + k] * a[i * n + k];
            float s = sqrtf(nrm);
#pragma omp for
            for (size_t i = 0; i < m; i++)
                q[i * n + k] = a[i * n + k] / s;
        }
        r[k * n + k] = sqrtf(nrm);
        regions++;
        if (k + 1 == n)
            break; /* no column left to update: the krt sequence launches nothing either */
#pragma omp parallel for
        for (size_t j = k + 1; j < n; j++) {
            float dot = 0.0f;
            for (size_t i = 0; i < m; i++)
                dot += q[i * n + k] * a[i * n + j];
            r[k * n + j] = dot;
            for (size_t i = 0; i < m; i++)
                a[i * n + j] -= q[i * n + k] * dot;
        }
        regions++;
    }
    return regions;
}

long pb_omp_adi(const long *p, float *const *arr)
{
    const size_t n = (size_t)p[0];
    float *u = arr[0], *v = arr[1], *pp = arr[2], *qq = arr[3];
    const float a = PB_ADI_A;
    for (long t = 0; t < p[1]; t++) {
        /* Column sweep, v from u: down the rows, every column at once. */
        for (size_t y = 1; y < n - 1; y++) {
#pragma omp parallel for
            for (size_t x = 1; x < n - 1; x++) {
                size_t c = y * n + x;
                float rhs = a * u[c - 1] + (1.0f - 2.0f * a) * u[c] + a * u[c + 1];
                float d = 1.0f + 2.0f * a - a * pp[c - n];
                pp[c] = a / d;
                qq[c] = (rhs + a * qq[c - n]) / d;
            }
        }
        for (size_t y = n - 2; y >= 1; y--) {
#pragma omp parallel for
            for (size_t x = 1; x < n - 1; x++) {
                size_t c = y * n + x;
                v[c] = qq[c] + pp[c] * v[c + n];
            }
        }
        /* Row sweep, u from v: along the columns, every row at once. */
        for (size_t x = 1; x < n - 1; x++) {
#pragma omp parallel for
            for (size_t y = 1; y < n - 1; y++) {
                size_t c = y * n + x;
                float rhs = a * v[c - n] + (1.0f - 2.0f * a) * v[c] + a * v[c + n];
                float d = 1.0f + 2.0f * a - a * pp[c - 1];
                pp[c] = a / d;
                qq[c] = (rhs + a * qq[c - 1]) / d;
            }
        }
        for (size_t x = n - 2; x >= 1; x--) {
#pragma omp parallel for
            for (size_t y = 1; y < n - 1; y++) {
                size_t c = y * n + x;
                u[c] = qq[c] + pp[c] * u[c + 1];
            }
        }
    }
    return 4 * (long)(n - 2) * p[1];
}

long pb_omp_fdtd2d(const long *p, float *const *arr)
{
    const size_t nx = (size_t)p[0], ny = (size_t)p[1];
    float *ex = arr[0], *ey = arr[1], *hz = arr[2];
    for (long t = 0; t < p[2]; t++) {
        const float src = (float)t;
#pragma omp parallel for
        for (size_t i = 0; i < nx; i++)
            for (size_t j = 0; j < ny; j++) {
                size_t c = i * ny + j;
                if (i == 0)
                    ey[c] = src;
                else
                    ey[c] -= PB_FDTD_CH * (hz[c] - hz[c - ny]);
            }
#pragma omp parallel for
        for (size_t i = 0; i < nx; i++)
            for (size_t j = 1; j < ny; j++) {
                size_t c = i * ny + j;
                ex[c] -= PB_FDTD_CH * (hz[c] - hz[c - 1]);
            }
#pragma omp parallel for
        for (size_t i = 0; i < nx - 1; i++)
            for (size_t j = 0; j < ny - 1; j++) {
                size_t c = i * ny + j;
                hz[c] -= PB_FDTD_CE * (ex[c + 1] - ex[c] + ey[c + ny] - ey[c]);
            }
    }
    return 3 * p[2];
}

long pb_omp_conv3d(const long *p, float *const *arr)
{
    const size_t ni = (size_t)p[0], nj = (size_t)p[1], nk = (size_t)p[2];
    const float *in = arr[0];
    float *out = arr[1];
    const size_t sj = nk, si = nj * nk;
    for (size_t i = 1; i < ni - 1; i++) {
#pragma omp parallel for
        for (size_t j = 1; j < nj - 1; j++)
            for (size_t k = 1; k < nk - 1; k++) {
                size_t c = i * si + j * sj + k;
                float faces = in[c - 1] + in[c + 1] + in[c - sj] + in[c + sj] + in[c - si] + in[c + si];
                float edges = in[c - sj - 1] + in[c - sj + 1] + in[c + sj - 1] + in[c + sj + 1] + in[c - si - 1] +
                              in[c - si + 1] + in[c + si - 1] + in[c + si + 1] + in[c - si - sj] + in[c - si + sj] +
                              in[c + si - sj] + in[c + si + sj];
                float corners = in[c - si - sj - 1] + in[c - si - sj + 1] + in[c - si + sj - 1] +
                                in[c - si + sj + 1] + in[c + si - sj - 1] + in[c + si - sj + 1] +
                                in[c + si + sj - 1] + in[c + si + sj + 1];
                out[c] = PB_CONV_C0 * in[c] + PB_CONV_C1 * faces + PB_CONV_C2 * edges + PB_CONV_C3 * corners;
            }
    }
    return (long)(ni - 2);
}

long pb_omp_gemm(const long *p, float *const *arr)
{
    const size_t ni = (size_t)p[0], nj = (size_t)p[1], nk = (size_t)p[2];
    float *c = arr[0];
    const float *a = arr[1], *b = arr[2];
#pragma omp parallel for
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < nj; j++) {
            float acc = 0.0f;
            for (size_t k = 0; k < nk; k++)
                acc += a[i * nk + k] * b[k * nj + j];
            c[i * nj + j] = PB_ALPHA * acc + PB_BETA * c[i * nj + j];
        }
    return 1;
}

long pb_omp_atax(const long *p, float *const *arr)
{
    const size_t m = (size_t)p[0], n = (size_t)p[1];
    const float *a = arr[0], *x = arr[1];
    float *y = arr[2], *tmp = arr[3];
#pragma omp parallel for
    for (size_t i = 0; i < m; i++) {
        float acc = 0.0f;
        for (size_t j = 0; j < n; j++)
            acc += a[i * n + j] * x[j];
        tmp[i] = acc;
    }
#pragma omp parallel for
    for (size_t j = 0; j < n; j++) {
        float acc = 0.0f;
        for (size_t i = 0; i < m; i++)
            acc += a[i * n + j] * tmp[i];
        y[j] = acc;
    }
    return 2;
}

long pb_omp_mvt(const long *p, float *const *arr)
{
    const size_t n = (size_t)p[0];
    const float *a = arr[0], *y1 = arr[3], *y2 = arr[4];
    float *x1 = arr[1], *x2 = arr[2];
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        float acc = x1[i];
        for (size_t j = 0; j < n; j++)
            acc += a[i * n + j] * y1[j];
        x1[i] = acc;
    }
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        float acc = x2[i];
        for (size_t j = 0; j < n; j++)
            acc += a[j * n + i] * y2[j];
        x2[i] = acc;
    }
    return 2;
}

long pb_omp_gemver(const long *p, float *const *arr)
{
    const size_t n = (size_t)p[0];
    float *a = arr[0], *x = arr[5], *w = arr[6];
    const float *u1 = arr[1], *v1 = arr[2], *u2 = arr[3], *v2 = arr[4], *y = arr[7], *z = arr[8];
#pragma omp parallel for
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        float acc = 0.0f;
        for (size_t j = 0; j < n; j++)
            acc += a[j * n + i] * y[j];
        x[i] += PB_BETA * acc;
    }
#pragma omp parallel for
    for (size_t i = 0; i < n; i++)
        x[i] += z[i];
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        float acc = 0.0f;
        for (size_t j = 0; j < n; j++)
            acc += a[i * n + j] * x[j];
        w[i] += PB_ALPHA * acc;
    }
    return 4;
}

/*
 * bench/polybench: launch-bound benchmarks against OpenMP (docs/performance.md, "Launch-bound benchmarks against
 * OpenMP"). main.c drives each benchmark through krt (the host device and ze_pocl, kernels in
 * bench/kernels/pb_*.cl) and through its OpenMP C twin in omp.c, which is compiled apart with
 * gcc -O3 -fopenmp -march=native. This header is what the two files share: the coefficients and the twins.
 */
#ifndef PB_POLYBENCH_H
#define PB_POLYBENCH_H

/* Coefficients, the same for a kernel's launch and its twin. */
#define PB_FDTD_CH 0.5f   /* fdtd-2d: e-field update from hz */
#define PB_FDTD_CE 0.7f   /* fdtd-2d: hz update from the e-field */
#define PB_ADI_A 0.5f     /* adi: a = r / 2, r = dt / h^2 = 1 */
#define PB_CONV_C0 0.5f   /* convolution-3d: the point, its 6 faces, 12 edges, 8 corners */
#define PB_CONV_C1 0.05f
#define PB_CONV_C2 0.01f
#define PB_CONV_C3 0.005f
#define PB_ALPHA 1.5f     /* gemm, gemver */
#define PB_BETA 1.2f
#define PB_GS_GROUP 256   /* gramschmidt: gs_normalize's reqd_work_group_size (pb_linalg.cl's GS_GROUP) */

/* The OpenMP twins: p holds the benchmark's parameters (its row of main.c's size table), a its arrays in the
 * table's order. Each runs the whole benchmark once (a parallel region for every launch its krt twin makes) and
 * returns the number of regions it opened. */
long pb_omp_jacobi1d(const long *p, float *const *a);
long pb_omp_jacobi2d(const long *p, float *const *a);
long pb_omp_lu(const long *p, float *const *a);
long pb_omp_gramschmidt(const long *p, float *const *a);
long pb_omp_adi(const long *p, float *const *a);
long pb_omp_fdtd2d(const long *p, float *const *a);
long pb_omp_conv3d(const long *p, float *const *a);
long pb_omp_gemm(const long *p, float *const *a);
long pb_omp_atax(const long *p, float *const *a);
long pb_omp_mvt(const long *p, float *const *a);
long pb_omp_gemver(const long *p, float *const *a);

/* Sets the OpenMP team size; returns what omp_get_max_threads() then says. */
int pb_omp_threads(int n);

#endif /* PB_POLYBENCH_H */

/* vadd and the reduce kernels as a kernel library of native ABI 3 (test/host/host.mk): the kernels of
 * kernels/vadd.cl and kernels/reduce.cl with the group runners krt-cc wrote before ABI 4, which take the kernel's
 * parameters and then the group, and which the host device calls through libffi (test_host.c,
 * abi3_libraries_run_through_libffi). Without krt_host_loops_ symbols, the reduce kernels' work-items run on the
 * runtime's fibers through run_items. The text below is `krt-cc --host -v`'s at 9325f7d, with KRT__RUNNER as it
 * was then. */
#include "../../kernels/vadd.cl"
#include "../../kernels/reduce.cl"

#if defined(__OPTIMIZE__)
#define KRT__RUNNER3 __attribute__((visibility("default"), flatten))
#else
#define KRT__RUNNER3 __attribute__((visibility("default")))
#endif

struct krt__frame_vadd { const float *a; const float *b; float *c; uint n; char krt__unused; };
static void krt__item_vadd(void *krt__f) { struct krt__frame_vadd *krt__p = krt__f; (void)krt__p; vadd(krt__p->a, krt__p->b, krt__p->c, krt__p->n); }
KRT__RUNNER3 void krt_host_group_vadd(const float *a, const float *b, float *c, uint n, const struct krt_host_group *krt__g);
KRT__RUNNER3 void krt_host_group_vadd(const float *a, const float *b, float *c, uint n, const struct krt_host_group *krt__g)
{ KRT__GROUP_RUN(krt__g, krt__item_vadd, ((struct krt__frame_vadd){ a, b, c, n, 0 }), vadd(a, b, c, n)); }

struct krt__frame_reduce_sum_f32 { const float *in; float *partial; float *scratch; uint n; char krt__unused; };
static void krt__item_reduce_sum_f32(void *krt__f) { struct krt__frame_reduce_sum_f32 *krt__p = krt__f; (void)krt__p; reduce_sum_f32(krt__p->in, krt__p->partial, krt__p->scratch, krt__p->n); }
KRT__RUNNER3 void krt_host_group_reduce_sum_f32(const float *in, float *partial, float *scratch, uint n, const struct krt_host_group *krt__g);
KRT__RUNNER3 void krt_host_group_reduce_sum_f32(const float *in, float *partial, float *scratch, uint n, const struct krt_host_group *krt__g)
{ KRT__GROUP_RUN(krt__g, krt__item_reduce_sum_f32, ((struct krt__frame_reduce_sum_f32){ in, partial, scratch, n, 0 }), reduce_sum_f32(in, partial, scratch, n)); }

struct krt__frame_reduce_sum_i32 { const int *in; int *partial; int *scratch; uint n; char krt__unused; };
static void krt__item_reduce_sum_i32(void *krt__f) { struct krt__frame_reduce_sum_i32 *krt__p = krt__f; (void)krt__p; reduce_sum_i32(krt__p->in, krt__p->partial, krt__p->scratch, krt__p->n); }
KRT__RUNNER3 void krt_host_group_reduce_sum_i32(const int *in, int *partial, int *scratch, uint n, const struct krt_host_group *krt__g);
KRT__RUNNER3 void krt_host_group_reduce_sum_i32(const int *in, int *partial, int *scratch, uint n, const struct krt_host_group *krt__g)
{ KRT__GROUP_RUN(krt__g, krt__item_reduce_sum_i32, ((struct krt__frame_reduce_sum_i32){ in, partial, scratch, n, 0 }), reduce_sum_i32(in, partial, scratch, n)); }

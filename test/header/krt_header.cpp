// krt.h must compile as C++ (built as C++11 and C++17 with -pedantic -Werror; see test/test.mk) and give the
// same layouts as C. KT_LAYOUT_FN names the function for the standard in use.
#include "krt.h"
#include "krt.h"

#include "krt_header_layout.h"

extern "C" void KT_LAYOUT_FN(size_t *out)
{
    size_t i = 0;
#define KT_STORE_(e) out[i++] = (size_t)(e);
    KT_LAYOUT_LIST(KT_STORE_)
#undef KT_STORE_
}

// Calls into libkrt from C++: the link of test_header fails unless krt.h gives the functions C linkage.
extern "C" const char *KT_NAME_FN(int code)
{
    return krt_result_name(static_cast<krt_result>(code));
}

// KRT_ARG's tags through the overloads; see krt_header_layout.h for the order.
extern "C" void KT_TAGS_FN(int *out)
{
    signed char sc = 0;
    unsigned char uc = 0;
    short s = 0;
    unsigned short us = 0;
    int i = 0;
    unsigned u = 0;
    long l = 0;
    unsigned long ul = 0;
    long long ll = 0;
    unsigned long long ull = 0;
    float f = 0;
    double d = 0;
    float *fp = &f;
    const void *vp = &d;
    const double *dp = &d;
    struct pair {
        int a, b;
    } st = {0, 0};
    int8_t i8 = 0;
    const uint64_t u64 = 0;
    krt_arg a[KT_TAG_COUNT] = {KRT_ARG(sc), KRT_ARG(uc), KRT_ARG(s), KRT_ARG(us), KRT_ARG(i),  KRT_ARG(u),
                               KRT_ARG(l),  KRT_ARG(ul), KRT_ARG(ll), KRT_ARG(ull), KRT_ARG(f), KRT_ARG(d),
                               KRT_ARG(fp), KRT_ARG(vp), KRT_ARG(dp), KRT_ARG(st), KRT_ARG(i8), KRT_ARG(u64)};
    for (int k = 0; k < KT_TAG_COUNT; k++)
        out[k] = static_cast<int>(a[k].type);
    krt_arg local = KRT_ARG_LOCAL(64);
    if (a[1].value != static_cast<const void *>(&uc) || a[15].size != sizeof st ||
        a[13].value != static_cast<const void *>(&vp) || local.value != NULL || local.size != 64)
        out[0] = -1;
}

/* krt.h must compile on its own as strict C (this file is built as C11 and as C17 with -pedantic -Werror;
 * see test/test.mk). KT_LAYOUT_FN names the function for the standard in use. */
#include "krt.h"
#include "krt.h" /* the include guard must make a second inclusion harmless */

#include "krt_header_layout.h"

void KT_LAYOUT_FN(size_t *out)
{
    size_t i = 0;
#define KT_STORE_(e) out[i++] = (size_t)(e);
    KT_LAYOUT_LIST(KT_STORE_)
#undef KT_STORE_
    /* The convenience macros are part of the C contract. */
    int x = 3;
    krt_arg a = KRT_ARG(x), l = KRT_ARG_LOCAL(64);
    (void)a;
    (void)l;
}

/* KRT_ARG's tags; see krt_header_layout.h for the order. */
void KT_TAGS_FN(int *out)
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
    struct {
        int a, b;
    } st = {0, 0};
    int8_t i8 = 0;
    const uint64_t u64 = 0;
    krt_arg a[KT_TAG_COUNT] = {KRT_ARG(sc), KRT_ARG(uc), KRT_ARG(s), KRT_ARG(us), KRT_ARG(i),  KRT_ARG(u),
                               KRT_ARG(l),  KRT_ARG(ul), KRT_ARG(ll), KRT_ARG(ull), KRT_ARG(f), KRT_ARG(d),
                               KRT_ARG(fp), KRT_ARG(vp), KRT_ARG(dp), KRT_ARG(st), KRT_ARG(i8), KRT_ARG(u64)};
    for (int k = 0; k < KT_TAG_COUNT; k++)
        out[k] = (int)a[k].type;
    /* KRT_ARG keeps the address and the size. */
    if (a[1].value != (const void *)&uc || a[15].size != sizeof st || a[13].value != (const void *)&vp)
        out[0] = -1;
}

/* The rvalue helpers (C only): tags, sizes, and the converted values they point at. Returns 1 when every value
 * and size is right. */
int KT_HELPERS_FN(int *out)
{
    int n = 7;
    double x = 2.75;
    int ok = 1;
    krt_arg h[KT_HELPER_COUNT] = {KRT_I8(n - 10),    KRT_U8(n + 250),
                                  KRT_I16(-n * 1000), KRT_U16(n * 9000),
                                  KRT_I32(n - 8),     KRT_U32(n),
                                  KRT_I64(-((long long)n << 40)),
                                  KRT_U64(~0ull - (unsigned)n),
                                  KRT_F32(x * 2),     KRT_F64(x / 2),
                                  KRT_PTR(&x)};
    for (int k = 0; k < KT_HELPER_COUNT; k++)
        out[k] = (int)h[k].type;
    ok &= *(const int8_t *)h[0].value == -3 && h[0].size == 1;
    ok &= *(const uint8_t *)h[1].value == 1 && h[1].size == 1; /* 257 converted as by assignment */
    ok &= *(const int16_t *)h[2].value == -7000 && h[2].size == 2;
    ok &= *(const uint16_t *)h[3].value == 63000 && h[3].size == 2;
    ok &= *(const int32_t *)h[4].value == -1 && h[4].size == 4;
    ok &= *(const uint32_t *)h[5].value == 7 && h[5].size == 4;
    ok &= *(const int64_t *)h[6].value == -(INT64_C(7) << 40) && h[6].size == 8;
    ok &= *(const uint64_t *)h[7].value == UINT64_MAX - 7 && h[7].size == 8;
    ok &= *(const float *)h[8].value == 5.5f && h[8].size == 4;
    ok &= *(const double *)h[9].value == 1.375 && h[9].size == 8;
    ok &= *(const void *const *)h[10].value == (const void *)&x && h[10].size == sizeof(void *);
    return ok;
}

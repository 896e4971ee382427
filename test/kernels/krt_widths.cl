/* Stores of every element width, each work-item its own element: dst[i] = src[i] ^ k (test_host.c,
 * stores_of_every_width_are_exact). GCC 12 at -O3 distributed the host device's group runner loop around the byte
 * store and left all but the last item's byte unwritten. */
#include "krt_kernel.h"

#define WIDTH(T, name)                                                                                        \
    kernel void xor_##name(global const T *src, global T *dst, T k)                                           \
    {                                                                                                         \
        size_t i = get_global_id(0);                                                                          \
        dst[i] = src[i] ^ k;                                                                                  \
    }
WIDTH(uchar, uchar)
WIDTH(char, char)
WIDTH(ushort, ushort)
WIDTH(short, short)
WIDTH(uint, uint)
WIDTH(int, int)
WIDTH(ulong, ulong)
WIDTH(long, long)

/* A byte written at a stride. */
kernel void stride_uchar(global const uchar *src, global uchar *dst, uint stride)
{
    size_t i = get_global_id(0);
    dst[i * stride] = src[i];
}

/* half storage and arithmetic (C's _Float16 on the host device): dst[i] = src[i] * k, rounded to half. */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void scale_half(global const half *src, global half *dst, float k)
{
    size_t i = get_global_id(0);
    dst[i] = (half)((float)src[i] * k);
}

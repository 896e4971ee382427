/* The Mandelbrot set: for each pixel of a w x h image of the region [x0, x0 + dx*w) x [y0, y0 + dy*h), the
 * number of iterations of z = z^2 + c before |z| > 2, at most max_iter. Neighbouring pixels need very
 * different iteration counts, which makes this a test of how well groups balance uneven work. */
#include "krt_kernel.h"

__kernel void mandelbrot(__global uint *iters, uint w, uint h, float x0, float y0, float dx, float dy,
                         uint max_iter)
{
    KRT_GUARD_2D(px, py, w, h);
    float cr = x0 + (float)px * dx;
    float ci = y0 + (float)py * dy;
    float zr = 0.0f, zi = 0.0f;
    uint it = 0;
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    iters[py * w + px] = it;
}

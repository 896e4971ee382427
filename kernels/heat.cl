/* One explicit step of the 2-D heat equation on a w x h grid (5-point stencil). The border cells are held at
 * their values (a fixed-temperature boundary), so they are copied through. alpha = diffusivity * dt / dx^2
 * must stay at or below 0.25 for the scheme to be stable. */
#include "krt_kernel.h"

__kernel void heat_step(__global const float *in, __global float *out, uint w, uint h, float alpha)
{
    KRT_GUARD_2D(x, y, w, h);
    size_t i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
        return;
    }
    float c = in[i];
    float lap = in[i - 1] + in[i + 1] + in[i - w] + in[i + w] - 4.0f * c;
    out[i] = c + alpha * lap;
}

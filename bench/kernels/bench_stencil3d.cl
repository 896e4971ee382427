/* A 7-point 3-D stencil, benchmark-only: no example kernel runs over a 3-D range, and the group-size
 * benchmark needs one for the 97 x 89 x 31 range. Work-items past the end of the range return at once,
 * as krt's launch contract requires. */

kernel void stencil3d(global const float *in, global float *out, uint nx, uint ny, uint nz)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= nx || y >= ny || z >= nz)
        return;
    size_t i = (z * ny + y) * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[i] = in[i];
        return;
    }
    size_t sy = nx, sz = (size_t)nx * ny;
    out[i] = 0.4f * in[i] + 0.1f * (in[i - 1] + in[i + 1] + in[i - sy] + in[i + sy] + in[i - sz] + in[i + sz]);
}

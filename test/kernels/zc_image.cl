/* An image argument: valid OpenCL that ze_cuda cannot map to CUDA. test_cuda expects its build to be refused
 * with a log naming the image. */
kernel void zc_image_read(read_only image2d_t img, global float4 *out)
{
    int i = get_global_id(0);
    out[i] = read_imagef(img, (int2)(i, 0));
}

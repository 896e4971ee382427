/* An argument kind krt reflects but does not launch: a sampler. */
kernel void krt_sampler_arg(global int *out, sampler_t s)
{
    out[get_global_id(0)] = 1;
}

// Program-scope variables (OpenCL C 2.0, built with -cl-std=CL2.0: kernels/kernels.mk), which
// zeModuleGetGlobalPointer gives the host. They keep their values between launches and are shared by the
// module's kernels; each module has its own.
global int counter = 5;
global int table[4] = {10, 20, 30, 40};
constant int fixed[2] = {7, 9};

kernel void bump(global int *out)
{
    counter += 1;
    out[0] = counter;
    out[1] = fixed[0] + fixed[1];
}

kernel void read_table(global int *out)
{
    for (int i = 0; i < 4; i++)
        out[i] = table[i];
}

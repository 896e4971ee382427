/* pocl_probe: what the installed PoCL reports that ze_pocl's choices depend on (platform and device
 * versions, IL versions, OpenCL C features, extensions, group limits), one "key: value" a line. A
 * diagnostic for tools/device-suite.sh, not a test. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void str_info(const char *key, cl_device_id d, cl_device_info what) {
    size_t n = 0;
    if (clGetDeviceInfo(d, what, 0, NULL, &n) != CL_SUCCESS) {
        printf("%s: (query failed)\n", key);
        return;
    }
    char *s = calloc(1, n + 1);
    if (!s) return;
    clGetDeviceInfo(d, what, n, s, NULL);
    printf("%s: %s\n", key, s);
    free(s);
}

int main(void) {
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
        printf("platforms: 0\n");
        return 1;
    }
    cl_platform_id ps[8];
    clGetPlatformIDs(np > 8 ? 8 : np, ps, NULL);
    for (cl_uint p = 0; p < np && p < 8; p++) {
        char buf[1024] = {0};
        clGetPlatformInfo(ps[p], CL_PLATFORM_NAME, sizeof buf - 1, buf, NULL);
        printf("platform %u name: %s\n", p, buf);
        memset(buf, 0, sizeof buf);
        clGetPlatformInfo(ps[p], CL_PLATFORM_VERSION, sizeof buf - 1, buf, NULL);
        printf("platform %u version: %s\n", p, buf);
        cl_device_id ds[8];
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 8, ds, &nd) != CL_SUCCESS) continue;
        for (cl_uint i = 0; i < nd && i < 8; i++) {
            printf("device %u.%u\n", p, i);
            str_info("  name", ds[i], CL_DEVICE_NAME);
            str_info("  version", ds[i], CL_DEVICE_VERSION);
            str_info("  driver_version", ds[i], CL_DRIVER_VERSION);
            str_info("  opencl_c_version", ds[i], CL_DEVICE_OPENCL_C_VERSION);
            str_info("  il_version", ds[i], CL_DEVICE_IL_VERSION);
            str_info("  extensions", ds[i], CL_DEVICE_EXTENSIONS);
            cl_bool gas = 0;
            cl_int e = clGetDeviceInfo(ds[i], CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof gas, &gas, NULL);
            printf("  generic_address_space: %s\n", e == CL_SUCCESS ? (gas ? "yes" : "no") : "(query failed)");
            size_t n = 0;
            if (clGetDeviceInfo(ds[i], CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &n) == CL_SUCCESS && n) {
                cl_name_version *f = malloc(n);
                if (f && clGetDeviceInfo(ds[i], CL_DEVICE_OPENCL_C_FEATURES, n, f, NULL) == CL_SUCCESS) {
                    printf("  opencl_c_features:");
                    for (size_t k = 0; k < n / sizeof *f; k++) printf(" %s", f[k].name);
                    printf("\n");
                }
                free(f);
            }
            size_t wg = 0, wi[3] = {0, 0, 0};
            cl_uint cu = 0;
            clGetDeviceInfo(ds[i], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
            clGetDeviceInfo(ds[i], CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof wi, wi, NULL);
            clGetDeviceInfo(ds[i], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
            printf("  max_work_group_size: %zu\n  max_work_item_sizes: %zu %zu %zu\n  compute_units: %u\n", wg,
                   wi[0], wi[1], wi[2], cu);
        }
    }
    return 0;
}

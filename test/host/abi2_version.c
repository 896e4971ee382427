/* Linked into build/test-kernels/abi2/vadd.so (test/host/host.mk): the strong definition that makes a library
 * built from kernels/vadd.cl say ABI 2, as one built by krt-cc before group runners did (the header's
 * krt_host_abi_version is weak). */
#include <stdint.h>

__attribute__((visibility("default"))) uint32_t krt_host_abi_version(void);

__attribute__((visibility("default"))) uint32_t krt_host_abi_version(void)
{
    return 2u;
}

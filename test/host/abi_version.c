/* Linked into the libraries of older native ABIs that test_host.c loads (test/host/host.mk): the strong
 * definition that makes a library built from today's krt_kernel.h say ABI KRT_TEST_ABI (2 or 3), as one built
 * by krt-cc before group runners (2) or before runners took their arguments by address (3) did (the header's
 * krt_host_abi_version is weak). */
#include <stdint.h>

__attribute__((visibility("default"))) uint32_t krt_host_abi_version(void);

__attribute__((visibility("default"))) uint32_t krt_host_abi_version(void)
{
    return KRT_TEST_ABI;
}

/* Virtual memory of the PoCL backend (zp_backend_ops.vm_*): on a CPU device, host address space and host memory.
 * A reservation is address space mapped inaccessible (PROT_NONE, no memory committed); physical memory is a
 * shared-memory file (memfd) of the size asked for, so that several ranges can map the same pages; a mapping
 * replaces part of a reservation with the file's pages (MAP_FIXED | MAP_SHARED), and unmapping puts the
 * inaccessible reservation back. Kernels reach mapped pages like any host memory, and copies and fills of them
 * run on the host, in stream order.
 *
 * Access attributes: NONE is enforced (the pages are PROT_NONE; a kernel or copy touching them faults), READWRITE
 * gives read and write. READONLY is recorded but gives read and write too: the specification makes writing
 * such pages undefined, and a program that writes them (the conformance suite does, on a device that does not
 * report read-only memory as enforced) then runs instead of dying of SIGSEGV. */
#include <sys/mman.h>
#include <unistd.h>

#include "pocl_be.h"

typedef struct {
    int fd;
    size_t size;
} zp_pocl_phys;

static int prot_of(ze_memory_access_attribute_t access) {
    return access == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE ? PROT_NONE : PROT_READ | PROT_WRITE;
}

size_t zp_pocl_vm_page_size(zp_bdev *dev, size_t size) {
    (void)dev;
    (void)size;
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

ze_result_t zp_pocl_vm_reserve(const void *hint, size_t size, void **out) {
    void *p = mmap((void *)hint, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *out = p;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_vm_release(void *ptr, size_t size) { munmap(ptr, size); }

ze_result_t zp_pocl_phys_create(zp_bdev *dev, bool on_host, size_t size, void **out) {
    (void)dev;
    (void)on_host; /* a CPU device's memory is host memory either way */
    zp_pocl_phys *ph = malloc(sizeof *ph);
    if (!ph) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ph->fd = memfd_create("ze_pocl physical memory", MFD_CLOEXEC);
    if (ph->fd < 0 || ftruncate(ph->fd, (off_t)size) != 0) {
        if (ph->fd >= 0) close(ph->fd);
        free(ph);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    ph->size = size;
    *out = ph;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_phys_destroy(void *phys) {
    zp_pocl_phys *ph = phys;
    if (!ph) return;
    close(ph->fd);
    free(ph);
}

ze_result_t zp_pocl_vm_map(void *ptr, size_t size, void *phys, size_t offset, ze_memory_access_attribute_t access) {
    zp_pocl_phys *ph = phys;
    void *p = mmap(ptr, size, prot_of(access), MAP_SHARED | MAP_FIXED, ph->fd, (off_t)offset);
    return p == MAP_FAILED ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_SUCCESS;
}

ze_result_t zp_pocl_vm_unmap(void *ptr, size_t size) {
    void *p = mmap(ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return p == MAP_FAILED ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_SUCCESS;
}

ze_result_t zp_pocl_vm_protect(void *ptr, size_t size, ze_memory_access_attribute_t access) {
    return mprotect(ptr, size, prot_of(access)) == 0 ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

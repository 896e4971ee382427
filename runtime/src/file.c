/*
 * file.c: reading a module file whole (SPIR-V from module.c, the compiler's output from compile.c), with the
 * checks that keep a FIFO, a directory or a huge file from blocking or exhausting memory.
 */
#include "krt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

krt_result krt__read_module_file(const char *path, uint32_t **words, size_t *size)
{
    /* O_NONBLOCK so that a FIFO without a writer (or any other special file) cannot block the open; only a
     * regular file is a module, and for one the flag changes nothing. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return krt__fail(KRT_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return krt__fail(KRT_ERROR_IO, "cannot read %s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > (uint64_t)PTRDIFF_MAX - 4) {
        close(fd);
        return krt__fail(KRT_ERROR_IO, "cannot read %s: %lld bytes", path, (long long)st.st_size);
    }
    size_t len = (size_t)st.st_size;
    uint32_t *buf = malloc(len + 4);
    if (!buf) {
        close(fd);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %s (%zu bytes)", path, len);
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    int err = errno;
    close(fd);
    if (got != len) {
        free(buf);
        return krt__fail(KRT_ERROR_IO, "cannot read %s: %s", path, got < len ? "shorter than its size" : strerror(err));
    }
    *words = buf;
    *size = len;
    return KRT_SUCCESS;
}

/* The shadow map that checked kernel libraries test their accesses against (krt-cc --host --checks, ABI 5,
 * krt_host_abi.h): one byte for each 8 bytes of the address space below 2^47, at KRT_HOST_CHECK_SHADOW + address / 8,
 * read inline by the compiler's kernel-address instrumentation. A byte of 0 lets all 8 through without a call, k
 * in 1..7 the first k, anything else calls the library's check (the ring, the bounds table, outside(): exact, as
 * before). So a 0 must only ever stand for memory a checked kernel may reach, and everything else must read as
 * refused, including the address space nobody mapped:
 *  - the 16 TiB of the map are reserved PROT_NONE, not committed, when libkrt loads (else at the first checked
 *    library, host_shadow_start);
 *  - a page of the map comes into being filled with 0xff (refused): when a launch lets an allocation through
 *    (host_shadow_sync), or when a kernel's test reads a page that nothing made yet, which faults: the SIGSEGV
 *    handler below makes that page and returns, the test reads 0xff and calls the check. The handler acts only on
 *    faults inside the map, on a thread that is running a checked library's kernels; every other fault goes on to
 *    the handler that was there before (or the default action);
 *  - a page is made by preparing it elsewhere and moving it into place (mremap), so that no thread can read a 0
 *    that is not meant;
 *  - 0s are written for the allocations in the bounds table of a checked module's context, at the start of each of
 *    its launches whose table changed (host_run_job), and 0xff is written back when the host device frees memory
 *    (host_mem_free), before the memory can go to anything else. Both under one lock, which the handler takes too.
 * What the map lets through is the union of the tables of every checked context of the process: a kernel of one
 * checked context may reach another's allocations without a refusal (docs/single-source.md says so). Memory of a
 * work-item's own (its stack, __local memory, the library's data) stays refused here and is let through by the check
 * (a call, as before the map). */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host_be.h"
#include "../include/ze_krt_bounds.h"

#define SHADOW_LO ((uintptr_t)KRT_HOST_CHECK_SHADOW)
#define SHADOW_BYTES ((uintptr_t)1 << 44) /* the shadow of [0, 2^47) */
#define SHADOW_HI (SHADOW_LO + SHADOW_BYTES)
#define APP_END ((uintptr_t)1 << 47)
#define SPAGE ((uintptr_t)4096)

static pthread_once_t shadow_once = PTHREAD_ONCE_INIT;
static int shadow_ok;        /* 1: the map is there */
static char shadow_why[200]; /* else why not */
/* One bit per page of the map: made (read-write, filled) or not (PROT_NONE, reads fault). Reserved, not committed. */
static uint8_t *made;
static atomic_flag shadow_lock = ATOMIC_FLAG_INIT;
static struct sigaction shadow_prev;
/* Set while this thread runs a checked library's groups (pool.c): the handler's faults are theirs. */
_Thread_local int host_shadow_running;

/* The map's own bytes are written only here, in place in pages already made: never instrumented by a sanitizer (the
 * map lies outside the memory ThreadSanitizer shadows), never through memset (intercepted), in volatile stores of a
 * byte or an aligned word, so that a test reading a byte reads the old value or the new one. */
__attribute__((no_sanitize_address, no_sanitize_thread)) static void fill(uintptr_t lo, uintptr_t hi, uint8_t v) {
    volatile uint8_t *b = (volatile uint8_t *)lo;
    for (; (uintptr_t)b < hi && ((uintptr_t)b & 7); b++) *b = v;
    const uint64_t w = v * (uint64_t)0x0101010101010101u; /* aligned words: a byte read sees the old or the new */
    for (; (uintptr_t)b + 8 <= hi; b += 8) *(volatile uint64_t *)b = w;
    for (; (uintptr_t)b < hi; b++) *b = v;
}

static void lock_map(void) {
    while (atomic_flag_test_and_set_explicit(&shadow_lock, memory_order_acquire)) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}
static void unlock_map(void) { atomic_flag_clear_explicit(&shadow_lock, memory_order_release); }

/* A page of the map's bit in made. */
static uintptr_t page_bit(uintptr_t page) { return (page - SHADOW_LO) / SPAGE; }
static int page_made(uintptr_t page) {
    uintptr_t i = page_bit(page);
    return made[i / 8] >> (i % 8) & 1;
}

/* Makes the pages of [lo, hi) (page-aligned addresses of the map) that are not made yet, each run of them with one
 * mremap of a region prepared elsewhere: 0 for the map's bytes in [z0, z1) (an allocation let through), 0xff for
 * the rest. Under the lock. 0 when the system refused memory (those pages stay PROT_NONE: refused, which is safe).
 * Only system calls and stores to fresh memory: the signal handler calls it. */
static int make_pages(uintptr_t lo, uintptr_t hi, uintptr_t z0, uintptr_t z1) {
    int ok = 1;
    for (uintptr_t p = lo; p < hi;) {
        if (page_made(p)) {
            p += SPAGE;
            continue;
        }
        uintptr_t e = p;
        while (e < hi && !page_made(e)) e += SPAGE;
        size_t len = e - p;
        uint8_t *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (tmp == MAP_FAILED) return 0;
        uintptr_t a = z0 < p ? p : z0 > e ? e : z0, b = z1 < a ? a : z1 > e ? e : z1; /* [a, b): the 0s here */
        memset(tmp, 0xff, a - p);
        memset(tmp + (b - p), 0xff, e - b);
        if (mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)p) == MAP_FAILED) {
            munmap(tmp, len);
            ok = 0;
        } else {
            for (uintptr_t q = p; q < e; q += SPAGE) {
                uintptr_t i = page_bit(q);
                made[i / 8] |= (uint8_t)(1u << (i % 8));
            }
        }
        p = e;
    }
    return ok;
}

static void on_segv(int sig, siginfo_t *si, void *uc) {
    uintptr_t a = (uintptr_t)si->si_addr;
    /* The address first: the thread-local flag of a library loaded later may need the dynamic linker. */
    if (a >= SHADOW_LO && a < SHADOW_HI && host_shadow_running) {
        int saved = errno;
        lock_map();
        int ok = make_pages(a & ~(SPAGE - 1), (a & ~(SPAGE - 1)) + SPAGE, 0, 0);
        unlock_map();
        errno = saved;
        if (ok) return; /* the test reads the page again: 0xff, or what a launch wrote meanwhile */
    }
    /* Not ours: as the handler before would have. A default action or an ignored SIGSEGV becomes the default
     * action, taken when the faulting instruction runs again. */
    if (shadow_prev.sa_flags & SA_SIGINFO) {
        if (shadow_prev.sa_sigaction) {
            shadow_prev.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (shadow_prev.sa_handler != SIG_DFL && shadow_prev.sa_handler != SIG_IGN) {
        shadow_prev.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
}

static int handler_is_ours(const struct sigaction *sa) {
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_segv;
}

/* Installs on_segv for SIGSEGV, the handler it replaces into *prev. */
static int install_handler(struct sigaction *prev) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGSEGV, &sa, prev);
}

/* Whether only unused reservations hold [lo, hi): ThreadSanitizer reserves its gaps PROT_NONE, this range among
 * them, and the map may take their place in a process that runs it. Another program's reservation (a JIT's, a
 * sandbox's) is its own, to map into later: not taken. */
static int only_reservations(uintptr_t lo, uintptr_t hi) {
    if (!dlsym(RTLD_DEFAULT, "__tsan_init")) return 0;
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return 0;
    char line[512];
    int ok = 1;
    while (ok && fgets(line, sizeof line, f)) {
        unsigned long s, e, off, inode;
        char perms[8], dev[16];
        if (sscanf(line, "%lx-%lx %7s %lx %15s %lu", &s, &e, perms, &off, dev, &inode) != 6) continue;
        if (e <= lo || s >= hi) continue;
        if (strcmp(perms, "---p") != 0 || inode != 0 || strchr(line, '/')) ok = 0;
    }
    fclose(f);
    return ok;
}

/* mmap as the system call: ThreadSanitizer's mmap refuses a fixed address outside the memory it shadows. */
static void *sys_mmap(uintptr_t at, size_t len, int flags) {
    long r = syscall(SYS_mmap, at, len, PROT_NONE, flags, -1, 0);
    return r == -1 ? MAP_FAILED : (void *)r;
}

/* The reservation: 1 once in place. Made when libkrt loads (below), before a program's own fixed or randomly placed
 * mappings can take the range (Criterion's test runner maps its arena at a random address), and tried again at the
 * first checked library if that failed. */
static _Atomic int reserved;
static int reserve_errno;

static void reserve(void) {
    if (atomic_load(&reserved)) return;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *p = sys_mmap(SHADOW_LO, SHADOW_BYTES, flags | MAP_FIXED_NOREPLACE);
    if (p == MAP_FAILED && errno == EEXIST && only_reservations(SHADOW_LO, SHADOW_HI))
        p = sys_mmap(SHADOW_LO, SHADOW_BYTES, flags | MAP_FIXED);
    if (p == MAP_FAILED || p != (void *)SHADOW_LO) {
        reserve_errno = p == MAP_FAILED ? errno : EEXIST;
        if (p != MAP_FAILED) syscall(SYS_munmap, p, SHADOW_BYTES); /* a kernel without MAP_FIXED_NOREPLACE */
        return;
    }
    atomic_store(&reserved, 1);
}

#if defined(__x86_64__) && defined(__linux__)
__attribute__((constructor)) static void reserve_early(void) { reserve(); }
#endif

static void shadow_start(void) {
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    reserve();
    if (!atomic_load(&reserved)) {
        snprintf(shadow_why, sizeof shadow_why,
                 "its shadow map, 16 TiB of address space at 0x%llx, could not be reserved (%s)",
                 (unsigned long long)SHADOW_LO,
                 reserve_errno == EEXIST ? "something else is mapped there" : strerror(reserve_errno));
        return;
    }
    made = mmap(NULL, SHADOW_BYTES / SPAGE / 8, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (made == MAP_FAILED) {
        made = NULL;
        snprintf(shadow_why, sizeof shadow_why, "no address space for the shadow map's page index (%s)",
                 strerror(errno));
        return;
    }
    if (install_handler(&shadow_prev) != 0) {
        snprintf(shadow_why, sizeof shadow_why, "the shadow map's SIGSEGV handler could not be installed (%s)",
                 strerror(errno));
        return;
    }
    shadow_ok = 1;
}

/* Puts the handler back where a program replaced it after the map started (Python's faulthandler.enable(), say),
 * keeping the new one as the one to pass other faults on to; once per launch of a library of the map, before its
 * groups run: one system call. */
void host_shadow_keep_handler(void) {
    if (!shadow_ok) return;
    struct sigaction cur;
    if (sigaction(SIGSEGV, NULL, &cur) != 0 || handler_is_ours(&cur)) return;
    lock_map();
    struct sigaction prev;
    if (sigaction(SIGSEGV, NULL, &cur) == 0 && !handler_is_ours(&cur) && install_handler(&prev) == 0)
        shadow_prev = prev;
    unlock_map();
}

const char *host_shadow_start(void) {
    pthread_once(&shadow_once, shadow_start);
    return shadow_ok ? NULL : shadow_why;
}

/* 0 into the map for [lo, hi): the 8-byte granules inside it, and k for a last granule of which it holds the first
 * k bytes. Under the lock. */
static void allow(uintptr_t lo, uintptr_t hi) {
    if (lo >= hi || hi > APP_END) return;
    uintptr_t g0 = (lo + 7) / 8, g1 = hi / 8, tail = g1 >= g0 ? hi % 8 : 0;
    uintptr_t z0 = SHADOW_LO + g0, z1 = SHADOW_LO + (g1 > g0 ? g1 : g0); /* the 0s */
    uintptr_t end = z1 + (tail ? 1 : 0);
    if (end <= z0) return;
    /* Pages made already: 0s written into them; the others made with their 0s in place. */
    for (uintptr_t p = z0 & ~(SPAGE - 1); p < end; p += SPAGE) {
        if (page_made(p)) {
            fill(p > z0 ? p : z0, p + SPAGE < z1 ? p + SPAGE : z1, 0);
            continue;
        }
        uintptr_t e = p;
        while (e < end && !page_made(e)) e += SPAGE;
        if (!make_pages(p, e, z0, z1)) return;
        p = e - SPAGE;
    }
    if (tail) fill(z1, z1 + 1, (uint8_t)tail);
}

void host_shadow_poison(uintptr_t lo, size_t size) {
    if (!shadow_ok || !size || lo >= APP_END) return;
    uintptr_t hi = size > APP_END - lo ? APP_END : lo + size;
    uintptr_t s0 = SHADOW_LO + lo / 8, s1 = SHADOW_LO + (hi + 7) / 8;
    lock_map();
    for (uintptr_t p = s0 & ~(SPAGE - 1); p < s1; p += SPAGE) {
        if (!page_made(p)) continue; /* PROT_NONE: refused already */
        uintptr_t a = p > s0 ? p : s0, b = p + SPAGE < s1 ? p + SPAGE : s1;
        fill(a, b, 0xff);
    }
    unlock_map();
}

void host_shadow_sync(zp_bmod *m) {
    const volatile uint64_t *t = m->checks.table;
    uint64_t ranges = t[ZE_KRT_BOUNDS_RANGES];
    if (ranges == atomic_load_explicit(&m->shadow_seen, memory_order_relaxed)) return;
    lock_map();
    /* Read under the lock: a free's table update comes before its host_mem_free, whose 0xff then comes after. The
     * array stays allocated while a launch of its context runs (the runtime retires it; runtime/src/checks.c). */
    ranges = t[ZE_KRT_BOUNDS_RANGES];
    const volatile uint64_t *a = (const volatile uint64_t *)(uintptr_t)ranges;
    uint64_t n = a[0];
    for (uint64_t i = 0; i < n; i++) allow((uintptr_t)a[2 + 2 * i], (uintptr_t)a[3 + 2 * i]);
    atomic_store_explicit(&m->shadow_seen, ranges, memory_order_relaxed);
    unlock_map();
}

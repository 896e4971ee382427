/* Work-items on their own stacks, for kernels with work-group barriers (host_be.h): the stacks, the switch
 * between a work-item and its pool thread, and what the sanitizers are told of each switch. */
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "host_be.h"

/* Switching work-items at a barrier. On x86-64 a few instructions save the callee-saved registers and swap
 * stacks (ucontext's swapcontext also saves and restores the signal mask, a system call each way, which made a
 * barrier kernel's work-item cost microseconds); elsewhere ucontext does it. */
#if defined(__x86_64__) && !defined(KRT_HOST_UCONTEXT) /* -DKRT_HOST_UCONTEXT tests the portable path */
#define HOST_FAST_SWITCH 1
/* Saves the callee-saved registers on the current stack, stores its pointer in *save and continues on the stack
 * at next, which either krt__host_switch saved or stack_init prepared. */
void krt__host_switch(void **save, void *next);
__asm__(".text\n"
        ".p2align 4\n"
        ".type krt__host_switch,@function\n"
        ".hidden krt__host_switch\n"
        "krt__host_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size krt__host_switch, .-krt__host_switch\n");
#else
#define HOST_FAST_SWITCH 0
#endif

/* The sanitizers are told about each switch between a work-item's stack and the pool thread's (the scheduler's):
 * ASan so that it knows which stack is current (its fake stacks, and the stack it unpoisons on a noreturn call),
 * TSan so that each work-item has its own shadow call stack and a switch orders what the work-items do, as the
 * barrier does. Compiled only when the sanitizer is on (make sanitize); nothing otherwise. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define HOST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(HOST_ASAN)
#define HOST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(HOST_TSAN)
#define HOST_TSAN 1
#endif
#ifdef HOST_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef HOST_TSAN
#include <sanitizer/tsan_interface.h>
#endif

struct host_fibers {
    size_t cap;               /* fibers the arrays and stacks below are for */
    size_t page;              /* the page size, read once: each stack sits above a guard page */
    ucontext_t sched;         /* the pool thread's (the scheduler's) context */
    ucontext_t *ctx;          /* each fiber's context */
    void *sched_sp;           /* HOST_FAST_SWITCH: the scheduler's saved stack pointer */
    void **sp;                /* HOST_FAST_SWITCH: each fiber's saved stack pointer */
    uint8_t *stacks;          /* cap stacks of HOST_ITEM_STACK bytes, each above a guard page */
    size_t stacks_len;
    uint8_t *finished;
    size_t current;
    int active;               /* inside host_fibers_run */
    /* What host_fibers_run runs. */
    void (*body)(void *arg);
    void *arg;
#ifdef HOST_ASAN
    const void *sched_bottom; /* the pool thread's stack, as ASan reported it at the switch to a fiber */
    size_t sched_size;
    void *sched_fake;         /* the scheduler's fake stack while a fiber runs */
#endif
#ifdef HOST_TSAN
    void *sched_fiber;        /* the pool thread's own TSan context */
    void **fibers;            /* a TSan fiber per work-item of the group, for its life */
#endif
};

/* The fibers the calling thread is running (inside host_fibers_run), NULL otherwise. */
static __thread host_fibers *running;

host_fibers *host_fibers_new(void) { return calloc(1, sizeof(host_fibers)); }

void host_fibers_free(host_fibers *f) {
    if (!f) return;
    if (f->stacks) munmap(f->stacks, f->stacks_len);
    free(f->ctx);
    free(f->sp);
    free(f->finished);
#ifdef HOST_TSAN
    free(f->fibers); /* each run destroys the TSan fibers it made */
#endif
    free(f);
}

int host_fibers_reserve(host_fibers *f, size_t n) {
    if (n <= f->cap) return 1;
    ucontext_t *c = realloc(f->ctx, n * sizeof *c);
    if (!c) return 0;
    f->ctx = c;
    void **sp = realloc(f->sp, n * sizeof *sp);
    if (!sp) return 0;
    f->sp = sp;
    uint8_t *fin = realloc(f->finished, n);
    if (!fin) return 0;
    f->finished = fin;
#ifdef HOST_TSAN
    void **fb = realloc(f->fibers, n * sizeof *fb);
    if (!fb) return 0;
    f->fibers = fb;
#endif
    if (!f->page) f->page = (size_t)sysconf(_SC_PAGESIZE);
    size_t page = f->page;
    size_t len = n * (HOST_ITEM_STACK + page);
    uint8_t *s = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s == MAP_FAILED) return 0;
    /* A guard page below each stack: a work-item that overflows its stack faults instead of writing over its
     * neighbour's. */
    for (size_t i = 0; i < n; i++) mprotect(s + i * (HOST_ITEM_STACK + page), page, PROT_NONE);
    if (f->stacks) munmap(f->stacks, f->stacks_len);
    f->stacks = s;
    f->stacks_len = len;
    f->cap = n;
    return 1;
}

static uint8_t *stack_of(host_fibers *f, size_t i) {
    return f->stacks + i * (HOST_ITEM_STACK + f->page) + f->page;
}

/* The sanitizers' side of a switch (see HOST_ASAN above). The scheduler calls san_to_fiber before it resumes
 * fiber i on its stack and san_in_sched once back; a fiber calls san_in_fiber first on its stack and after each
 * resume, and san_to_sched before it switches back, with fake NULL when it has ended. */
static inline void san_to_fiber(host_fibers *f, size_t i) {
    (void)f, (void)i;
#ifdef HOST_ASAN
    __sanitizer_start_switch_fiber(&f->sched_fake, stack_of(f, i), HOST_ITEM_STACK);
#endif
#ifdef HOST_TSAN
    __tsan_switch_to_fiber(f->fibers[i], 0);
#endif
}

static inline void san_in_sched(host_fibers *f) {
    (void)f;
#ifdef HOST_ASAN
    __sanitizer_finish_switch_fiber(f->sched_fake, NULL, NULL);
#endif
}

static inline void san_in_fiber(host_fibers *f, void *fake) {
    (void)f, (void)fake;
#ifdef HOST_ASAN
    __sanitizer_finish_switch_fiber(fake, &f->sched_bottom, &f->sched_size);
#endif
}

static inline void san_to_sched(host_fibers *f, void **fake) {
    (void)f, (void)fake;
#ifdef HOST_ASAN
    __sanitizer_start_switch_fiber(fake, f->sched_bottom, f->sched_size);
#endif
#ifdef HOST_TSAN
    __tsan_switch_to_fiber(f->sched_fiber, 0);
#endif
}

/* A fiber's entry on its own stack: run the body to its end, then back to the scheduler (uc_link, or the
 * switch below, which never returns here). */
static void fiber_entry(void) {
    host_fibers *f = running;
    san_in_fiber(f, NULL);
    f->body(f->arg);
    f->finished[f->current] = 1;
    san_to_sched(f, NULL);
#if HOST_FAST_SWITCH
    void *dead;
    krt__host_switch(&dead, f->sched_sp);
#endif
}

#if HOST_FAST_SWITCH
/* A fresh stack that krt__host_switch enters at fiber_entry: six zero registers, then fiber_entry as the
 * return address, placed so that fiber_entry starts with the stack aligned as after a call. */
static void *stack_init(uint8_t *base, size_t size) {
    uintptr_t top = ((uintptr_t)(base + size)) & ~(uintptr_t)15;
    void **ret = (void **)(top - 16);
    *ret = (void *)fiber_entry;
    void **sp = ret - 6;
    for (int i = 0; i < 6; i++) sp[i] = NULL;
    return sp;
}
#endif

void host_fiber_yield(host_fibers *f) {
    /* f is the calling pool thread's own: no thread-local lookup at every barrier (libkrt's thread-locals cost
     * a __tls_get_addr call each: 8% of t7_partial_sum's instructions under callgrind). */
    if (!f || !f->active) return;
    void *fake = NULL;
    san_to_sched(f, &fake);
#if HOST_FAST_SWITCH
    krt__host_switch(&f->sp[f->current], f->sched_sp);
#else
    swapcontext(&f->ctx[f->current], &f->sched);
#endif
    san_in_fiber(f, fake);
}

void host_fibers_run(host_fibers *f, size_t n, void (*body)(void *arg), void (*resume)(void *arg, size_t i),
                     void *arg) {
    f->body = body;
    f->arg = arg;
    for (size_t i = 0; i < n; i++) {
#if HOST_FAST_SWITCH
        f->sp[i] = stack_init(stack_of(f, i), HOST_ITEM_STACK);
#else
        getcontext(&f->ctx[i]);
        f->ctx[i].uc_stack.ss_sp = stack_of(f, i);
        f->ctx[i].uc_stack.ss_size = HOST_ITEM_STACK;
        f->ctx[i].uc_link = &f->sched;
        makecontext(&f->ctx[i], fiber_entry, 0);
#endif
        f->finished[i] = 0;
#ifdef HOST_TSAN
        f->fibers[i] = __tsan_create_fiber(0);
#endif
    }
#ifdef HOST_TSAN
    f->sched_fiber = __tsan_get_current_fiber();
#endif
    running = f;
    f->active = 1;
    /* Round robin: each pass runs every unfinished fiber up to its next yield or its end. */
    size_t left = n;
    while (left > 0) {
        for (size_t i = 0; i < n; i++) {
            if (f->finished[i]) continue;
            f->current = i;
            resume(arg, i);
            san_to_fiber(f, i);
#if HOST_FAST_SWITCH
            krt__host_switch(&f->sched_sp, f->sp[i]);
#else
            swapcontext(&f->sched, &f->ctx[i]);
#endif
            san_in_sched(f);
            if (f->finished[i]) {
                left--;
#ifdef HOST_TSAN
                __tsan_destroy_fiber(f->fibers[i]);
#endif
            }
        }
    }
    f->active = 0;
    running = NULL;
}

void host_fibers_span(const host_fibers *f, uintptr_t *lo, uintptr_t *hi) {
    *lo = f && f->stacks ? (uintptr_t)f->stacks : 0;
    *hi = f && f->stacks ? (uintptr_t)f->stacks + f->stacks_len : 0;
}

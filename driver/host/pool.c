/* The host device's thread pool and its work-groups (host_be.h): the thread that submits a launch (a queue's) and
 * one pool thread per other core take its groups a chunk at a time and run each group's work-items, in a plain
 * loop or, for a kernel with barriers, as fibers. A thread out of work watches for more for HOST_SPIN_NS before it
 * sleeps, and a launch of one chunk never leaves the submitting thread: a chain of small kernels costs no wake-up
 * (docs/design.md, "The host device's pool"). */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_be.h"

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static host_job *pool_jobs;   /* jobs with groups left to hand out (under pool_lock) */
/* Counts the jobs published, so that a spinning thread sees new work without the lock. */
static atomic_uint pool_posted;
/* Pool threads asleep on pool_work, and submitters asleep on pool_done (under pool_lock): the other side signals
 * only when one is, so that a busy pool makes no futex call. */
static unsigned pool_sleepers, done_sleepers;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static uint32_t pool_helpers; /* pool threads started: the cores beside the submitting thread */

int host_spin_while(const atomic_uint *v, unsigned seen) {
    uint64_t until = host_now_ns() + HOST_SPIN_NS;
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (atomic_load_explicit(v, memory_order_acquire) != seen) return 1;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ __volatile__("yield");
#endif
        }
        if (host_now_ns() >= until) return 0;
        /* A thread woken onto the core of the one that woke it (Linux places a wakee there when it can) would
         * otherwise spin while that one, ready to run, waits for the core: the spin lets it run. */
        sched_yield();
    }
}

/* What one pool thread keeps between groups. */
typedef struct worker {
    uint8_t *local;           /* this thread's __local buffer */
    size_t local_cap;
    void **avalues;           /* the arguments' addresses for libffi or a runner of ABI 4 with __local arguments, and
                               * an ABI 3 runner's group pointer last */
    uint8_t *ptrs;            /* the __local pointers the avalues of local arguments point at */
    uint32_t cap_args;
    struct krt_host_item *items; /* one per work-item of a group with barriers, one otherwise */
    size_t cap_items;
    host_fibers *fibers;      /* kernels with barriers: a fiber per work-item */
    host_job *job;
    void (*item_fn)(void *frame); /* a group runner's work-item function and its frame (run_items) */
    void *frame;
    const struct krt_host_item **slot; /* the kernel library's current-work-item pointer on this thread */
    /* Checked launches (host_check_outside): the library's check slot on this thread, where a refusal leaves the
     * group (the runner's call, or for a kernel on fibers the work-item's fiber, one jmp_buf per fiber), and this
     * thread's stack. */
    struct krt_host_check_slot *check_slot;
    jmp_buf leave;
    jmp_buf *fiber_leave;
    size_t cap_fiber_leave;
    size_t fibers_live; /* work-items of a checked launch begun on fibers and not ended: one of them is running */
    uintptr_t stack_lo, stack_hi;
} worker;

/* The worker of the thread running a checked group (host_check_outside). */
static __thread worker *checked_worker;

/* The pool's size, read once: KRT_HOST_THREADS where set (1 to HOST_MAX_THREADS; anything else leaves the host device
 * without a device, host_init says why), else one thread per CPU this process may run on (its affinity mask, which
 * taskset and a container's cpuset narrow), else per online CPU. */
static uint32_t pool_threads;
static pthread_once_t threads_once = PTHREAD_ONCE_INIT;

static void threads_read(void) {
    const char *e = getenv("KRT_HOST_THREADS");
    if (e && *e) {
        char *end;
        unsigned long v = strtoul(e, &end, 10);
        pool_threads = *end == '\0' && v >= 1 && v <= HOST_MAX_THREADS ? (uint32_t)v : 0;
        return;
    }
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
    pool_threads = n > 0 ? (uint32_t)(n < HOST_MAX_THREADS ? n : HOST_MAX_THREADS) : 1u;
}

uint32_t host_pool_threads(void) {
    pthread_once(&threads_once, threads_read);
    return pool_threads;
}

static int worker_reserve(worker *w, const host_job *j) {
    uint32_t n = j->kern->num_args + 1;
    if (n > w->cap_args) {
        void **a = realloc(w->avalues, n * sizeof *a);
        if (!a) return 0;
        w->avalues = a;
        uint8_t *p = realloc(w->ptrs, n * sizeof(void *));
        if (!p) return 0;
        w->ptrs = p;
        w->cap_args = n;
    }
    if (j->local_total > w->local_cap) {
        void *b = NULL;
        if (posix_memalign(&b, 64, j->local_total) != 0) return 0;
        free(w->local);
        w->local = b;
        w->local_cap = j->local_total;
    }
    size_t items = j->kern->barrier ? j->group_items : 1;
    if (items > w->cap_items) {
        struct krt_host_item *it = realloc(w->items, items * sizeof *it);
        if (!it) return 0;
        w->items = it;
        w->cap_items = items;
    }
    if (j->kern->barrier) {
        if (!w->fibers && !(w->fibers = host_fibers_new())) return 0;
        if (!host_fibers_reserve(w->fibers, items)) return 0;
        if (j->kern->mod->checks.table && items > w->cap_fiber_leave) {
            jmp_buf *jb = realloc(w->fiber_leave, items * sizeof *jb);
            if (!jb) return 0;
            w->fiber_leave = jb;
            w->cap_fiber_leave = items;
        }
    }
    return 1;
}

/* The kernel's barrier(): on to the next work-item of the group (a no-op outside a kernel with barriers). */
static void item_barrier(const struct krt_host_item *item) {
    host_fiber_yield(((worker *)item->runtime)->fibers);
}

/* A work-item's local and global ids from its group's ids and its place (x, y, z) in the group. */
static inline void set_item_ids(struct krt_host_item *it, const zp_ndrange *r, const size_t gid[3], size_t x,
                                size_t y, size_t z) {
    const size_t l[3] = {x, y, z};
    for (int d = 0; d < 3; d++) {
        it->local_id[d] = l[d];
        it->global_id[d] = d < (int)r->dims ? gid[d] * r->local[d] + l[d] + r->offset[d] : 0;
    }
}

/* A fiber's body: the kernel, for the work-item that resume_item made current. */
static void item_body(void *arg) {
    worker *w = arg;
    ffi_call(&w->job->kern->cif, w->job->kern->fn, NULL, w->avalues);
}

/* The same for a group runner (ABI 3): the work-item function it gave run_items, with its arguments. In a checked
 * launch a refused access ends the work-item here, on its own stack (host_check_outside). */
static void runner_item_body(void *arg) {
    worker *w = arg;
    if (w->job->kern->mod->checks.table) {
        size_t i = (size_t)(*w->slot - w->items);
        w->fibers_live++;
        if (setjmp(w->fiber_leave[i]) == 0) w->item_fn(w->frame);
        w->fibers_live--;
        return;
    }
    w->item_fn(w->frame);
}

static void resume_item(void *arg, size_t i) {
    worker *w = arg;
    *w->slot = &w->items[i];
}

/* A group runner's run_items, for a kernel with barriers: the group's work-items, each on its own fiber, each
 * calling item_fn(frame) for the work-item resume_item made current. */
static void run_items(const struct krt_host_group *g, void (*item_fn)(void *frame), void *frame) {
    worker *w = g->item.runtime;
    size_t lx = g->item.local_size[0], ly = g->item.local_size[1], lz = g->item.local_size[2];
    size_t n = lx * ly * lz;
    size_t i = 0;
    for (size_t z = 0; z < lz; z++)
        for (size_t y = 0; y < ly; y++)
            for (size_t x = 0; x < lx; x++, i++) {
                struct krt_host_item *it = &w->items[i];
                *it = g->item;
                it->local_id[0] = x;
                it->local_id[1] = y;
                it->local_id[2] = z;
                it->global_id[0] += x;
                it->global_id[1] += y;
                it->global_id[2] += z;
            }
    w->item_fn = item_fn;
    w->frame = frame;
    host_fibers_run(w->fibers, n, runner_item_body, resume_item, w);
}

/* Runs count groups from group index g, consecutive in dimension 0 (one row): a group runner of a kernel without
 * barriers takes them in one call, anything else one group at a time. */
static void run_group(worker *w, host_job *j, size_t g, size_t count) {
    zp_bkern *k = j->kern;
    if (count > 1 && (!(k->group || k->runner) || k->barrier)) {
        for (size_t i = 0; i < count; i++) run_group(w, j, g + i, 1);
        return;
    }
    const zp_ndrange *r = &j->range;
    size_t gid[3] = {g % j->num_groups[0], (g / j->num_groups[0]) % j->num_groups[1],
                     g / (j->num_groups[0] * j->num_groups[1])};
    /* Arguments: the addresses of the snapshot's values, and for each __local argument the address of a pointer
     * into this thread's buffer. A runner of ABI 4 takes the job's addresses, made when it was enqueued, as they
     * are when the kernel has no __local argument: nothing to do per group. */
    void **args = j->args;
    if (!args || k->local_args) {
        size_t local_at = 0;
        for (uint32_t i = 0; i < k->num_args; i++) {
            if (k->refl->args[i].kind == KRT_SPV_ARG_LOCAL_POINTER) {
                size_t n;
                memcpy(&n, j->values + k->off[i], sizeof n);
                void *p = w->local + local_at;
                memcpy(w->ptrs + i * sizeof(void *), &p, sizeof p);
                w->avalues[i] = w->ptrs + i * sizeof(void *);
                local_at += (n + 63) & ~(size_t)63;
            } else {
                w->avalues[i] = j->values + k->off[i];
            }
        }
        args = w->avalues;
    }
    struct krt_host_item base;
    memset(&base, 0, sizeof base);
    base.work_dim = r->dims;
    /* The builtins of the whole (exact) launch, backend.h: a partial group's local size is its real size, and
     * only its real items run. */
    for (int d = 0; d < 3; d++) {
        size_t group = gid[d] + r->base[d], left = r->range[d] - group * r->enq[d];
        base.group_id[d] = group;
        base.global_size[d] = r->range[d];
        base.local_size[d] = left < r->enq[d] ? left : r->enq[d];
        base.enqueued_local_size[d] = r->enq[d];
        base.num_groups[d] = (r->range[d] + r->enq[d] - 1) / r->enq[d];
        base.global_offset[d] = r->offset[d] - r->base[d] * r->enq[d];
        if (d >= (int)r->dims) {
            /* OpenCL's values past work_dim, whatever the launch left there (krt_host_abi.h). */
            base.group_id[d] = base.global_offset[d] = 0;
            base.global_size[d] = base.local_size[d] = base.enqueued_local_size[d] = base.num_groups[d] = 1;
        }
    }
    base.barrier = item_barrier;
    base.runtime = w;
    size_t lx = base.local_size[0], ly = base.local_size[1], lz = base.local_size[2];
    if (k->group || k->runner) {
        /* One call for the whole run of groups; the runner loops over the work-items with the kernel inlined, or
         * for a kernel with barriers hands them back to run_items, which runs each on its own fiber. ABI 4: a
         * plain call, the runner reading each argument with its C type; ABI 3: libffi, the group pointer last. */
        struct krt_host_group grp;
        grp.item = base;
        set_item_ids(&grp.item, r, gid, 0, 0, 0);
        grp.run_items = k->barrier ? run_items : NULL;
        grp.groups = k->barrier ? 1 : count;
        if (k->group) {
            k->group(args, &grp);
            return;
        }
        const struct krt_host_group *gp = &grp;
        args[k->num_args] = &gp;
        ffi_call(&k->runner_cif, k->runner, NULL, args);
        return;
    }
    if (!k->barrier) {
        struct krt_host_item *it = &w->items[0];
        *it = base;
        *w->slot = it;
        for (size_t z = 0; z < lz; z++)
            for (size_t y = 0; y < ly; y++)
                for (size_t x = 0; x < lx; x++) {
                    set_item_ids(it, r, gid, x, y, z);
                    ffi_call(&k->cif, k->fn, NULL, w->avalues);
                }
        return;
    }
    size_t n = lx * ly * lz; /* all of the piece's group: exec.c gives these kernels whole groups only */
    for (size_t i = 0; i < n; i++) {
        struct krt_host_item *it = &w->items[i];
        *it = base;
        set_item_ids(it, r, gid, i % lx, (i / lx) % ly, i / (lx * ly));
    }
    host_fibers_run(w->fibers, n, item_body, resume_item, w);
}

/* ---- Checked launches ---- */

/* The range of [lo, hi) that holds [a, a + n), into range; 0 when it does not. */
static int holds(uintptr_t lo, uintptr_t hi, uintptr_t a, size_t n, uintptr_t range[2]) {
    if (a < lo || a >= hi || n > hi - a) return 0;
    range[0] = lo;
    range[1] = hi;
    return 1;
}

int host_check_outside(uintptr_t a, size_t n, uint32_t kind, uintptr_t range[2]) {
    worker *w = checked_worker;
    host_job *j = w->job;
    zp_bmod *m = j->kern->mod;
    /* The thread's own stack (the work-item's private memory, the runner's frame), its fibers' stacks, the group's
     * __local arguments, the work-items' states, and the library's data and its thread-local block (kernel-scope
     * __local arrays). */
    if (!w->stack_hi) {
        pthread_attr_t attr;
        void *lo;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
                w->stack_lo = (uintptr_t)lo;
                w->stack_hi = (uintptr_t)lo + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    if (holds(w->stack_lo, w->stack_hi, a, n, range)) return 1;
    uintptr_t flo, fhi;
    host_fibers_span(w->fibers, &flo, &fhi);
    if (holds(flo, fhi, a, n, range)) return 1;
    if (w->local && holds((uintptr_t)w->local, (uintptr_t)w->local + w->local_cap, a, n, range)) return 1;
    /* The work-items' states on fibers, which the work-item functions read (krt__host_item). */
    if (w->items && holds((uintptr_t)w->items, (uintptr_t)(w->items + w->cap_items), a, n, range)) return 1;
    if (holds(m->data_lo, m->data_hi, a, n, range)) return 1;
    void *tls = NULL;
    if (m->tls_size && dlinfo(m->lib, RTLD_DI_TLS_DATA, &tls) == 0 && tls &&
        holds((uintptr_t)tls, (uintptr_t)tls + m->tls_size, a, n, range))
        return 1;
    /* Refused: the first refusal recorded as a device records it (ze_krt_bounds.h), every one counted, the host's
     * word set; then the group (or the work-item's fiber) is left. */
    volatile uint64_t *t = (volatile uint64_t *)m->checks.table;
    uint64_t zero = 0;
    if (__atomic_compare_exchange_n((uint64_t *)&t[ZE_KRT_BOUNDS_FLAG], &zero, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        const struct krt_host_item *it = *w->slot;
        t[ZE_KRT_BOUNDS_ADDRESS] = a;
        t[ZE_KRT_BOUNDS_SIZE] = n;
        t[ZE_KRT_BOUNDS_KIND] = (uint64_t)kind | (uint64_t)j->kern->name_hash << 32;
        for (int d = 0; d < 3; d++) t[ZE_KRT_BOUNDS_GLOBAL_ID + d] = it ? it->global_id[d] : 0;
    }
    __atomic_fetch_add((uint64_t *)&t[ZE_KRT_BOUNDS_REFUSED], 1, __ATOMIC_ACQ_REL);
    uint64_t notify = t[ZE_KRT_BOUNDS_NOTIFY];
    if (notify) __atomic_store_n((uint32_t *)(uintptr_t)notify, 1, __ATOMIC_RELEASE);
    /* On a fiber (a work-item of a kernel with barriers made current by resume_item), its own jmp_buf, on its stack. */
    if (w->fibers_live > 0) longjmp(w->fiber_leave[*w->slot - w->items], 1);
    longjmp(w->leave, 1);
}

/* One group of a checked launch: a refusal leaves it here (host_check_outside), with the library's work-item pointer
 * put back and the heap blocks its barrier loops registered forgotten (they stay allocated). */
static void run_group_checked(worker *w, host_job *j, size_t g) {
    const struct krt_host_item *outer = *w->slot;
    struct krt_host_check_slot *cs = w->check_slot;
    memset(cs->ok, 0, sizeof cs->ok);
    cs->next = 0;
    if (setjmp(w->leave) == 0) {
        run_group(w, j, g, 1);
        return;
    }
    *w->slot = outer;
    w->fibers_live = 0;
    memset(cs->heap, 0, sizeof cs->heap);
}

/* Runs groups g .. end - 1 of j on this thread, row by row: a group runner takes each row's part in one call. A
 * checked launch runs one group a call, so that a refusal ends only its own group. */
static size_t run_range(worker *w, host_job *j, size_t g, size_t end) {
    size_t done = 0;
    if (j->kern->mod->checks.table) {
        for (; g < end; g++, done++) run_group_checked(w, j, g);
        return done;
    }
    while (g < end) {
        size_t row = j->num_groups[0] - g % j->num_groups[0];
        size_t c = end - g < row ? end - g : row;
        run_group(w, j, g, c);
        done += c;
        g += c;
    }
    return done;
}

/* The first group of unit u of j (u = j->units: the end): the groups split as evenly as they go, with no product
 * that could overflow. */
static size_t unit_start(const host_job *j, uint32_t u) {
    size_t base = j->total_groups / j->units, extra = j->total_groups % j->units;
    return base * u + (u < extra ? u : extra);
}

/* Every unit of j taken. */
static uint64_t units_mask(const host_job *j) { return j->units == 64 ? ~(uint64_t)0 : ((uint64_t)1 << j->units) - 1; }

/* Runs groups of j on this thread, the pool's thread number self (0 for the submitting thread), until none is
 * left. Returns the groups run; 0 with *ok = 0 when the thread's buffers could not be had.
 * With units, a thread takes the units first offered to it, then any left: the same thread runs the same groups
 * launch after launch while the pool keeps up, so a chain of kernels over the same arrays finds its part of them in
 * its own core's cache, as OpenMP's static schedule does, and a thread that is late (asleep, or descheduled) costs
 * only the units it has not taken. Otherwise chunks of j->chunk groups, one atomic operation each. */
static size_t run_chunks(worker *w, host_job *j, uint32_t self, int *ok) {
    size_t done = 0;
    *ok = w && worker_reserve(w, j);
    if (!*ok) return 0;
    w->job = j;
    w->slot = j->kern->mod->slot();
    /* A checked library's slot points at the module's checks, or at none for an unchecked module of it. */
    zp_bmod *m = j->kern->mod;
    w->check_slot = m->checks_slot ? m->checks_slot() : NULL;
    if (w->check_slot) w->check_slot->checks = m->checks.table ? &m->checks : NULL;
    checked_worker = w;
    host_shadow_running = m->shadow;
    if (j->units) {
        uint32_t first = self * j->units_per_thread;
        for (uint32_t i = 0; i < j->units; i++) {
            uint32_t u = (first + i) % j->units;
            uint64_t bit = (uint64_t)1 << u;
            if (atomic_load_explicit(&j->claimed, memory_order_relaxed) & bit) continue;
            if (atomic_fetch_or(&j->claimed, bit) & bit) continue;
            done += run_range(w, j, unit_start(j, u), unit_start(j, u + 1));
        }
    } else {
        for (;;) {
            size_t g = atomic_fetch_add(&j->next, j->chunk);
            if (g >= j->total_groups) break;
            done += run_range(w, j, g, g + j->chunk < j->total_groups ? g + j->chunk : j->total_groups);
        }
    }
    *w->slot = NULL;
    if (w->check_slot) w->check_slot->checks = NULL;
    w->check_slot = NULL;
    checked_worker = NULL;
    host_shadow_running = 0;
    w->job = NULL;
    return done;
}

/* A thread's part of j is over: its count goes in. Returns whether a submitter sleeps on pool_done, which the caller
 * wakes once it has let go of the lock. Caller holds pool_lock. */
static int part_done(host_job *j, size_t done, int ok) {
    if (!ok) {
        /* Out of memory for this thread's buffers: no group is handed out any more and the launch fails. */
        atomic_store(&j->failed, 1);
        atomic_store(&j->next, j->total_groups);
        atomic_fetch_or(&j->claimed, units_mask(j));
    }
    atomic_fetch_add(&j->finished, done);
    atomic_fetch_sub(&j->active, 1);
    return done_sleepers != 0;
}

/* A job with groups left to hand out, or NULL. Caller holds pool_lock. */
static host_job *job_with_work(void) {
    host_job *j = pool_jobs;
    while (j && (j->units ? atomic_load(&j->claimed) == units_mask(j) : atomic_load(&j->next) >= j->total_groups))
        j = j->next_job;
    return j;
}

static void *pool_main(void *arg) {
    uint32_t self = (uint32_t)(uintptr_t)arg; /* 1, 2, ...: the submitting thread is 0 */
    worker *w = calloc(1, sizeof *w);
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        host_job *j = job_with_work();
        if (!j) {
            /* Watch for a job for a while, then sleep until a submitter signals. */
            unsigned posted = atomic_load(&pool_posted);
            pthread_mutex_unlock(&pool_lock);
            int more = host_spin_while(&pool_posted, posted);
            pthread_mutex_lock(&pool_lock);
            if (!more && !job_with_work()) {
                pool_sleepers++;
                pthread_cond_wait(&pool_work, &pool_lock);
                pool_sleepers--;
            }
            continue;
        }
        atomic_fetch_add(&j->active, 1);
        pthread_mutex_unlock(&pool_lock);
        int ok;
        size_t done = run_chunks(w, j, self, &ok);
        pthread_mutex_lock(&pool_lock);
        if (part_done(j, done, ok)) {
            pthread_mutex_unlock(&pool_lock);
            pthread_cond_broadcast(&pool_done);
            pthread_mutex_lock(&pool_lock);
        }
    }
    return NULL;
}

/* One thread per core beside the submitting thread, which takes its part of every job it submits. */
static void pool_start(void) {
    uint32_t n = host_pool_threads();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (uint32_t i = 1; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, pool_main, (void *)(uintptr_t)(pool_helpers + 1)) == 0) pool_helpers++;
    }
    pthread_attr_destroy(&attr);
}

/* The submitting thread's buffers, kept for its next launches (a queue's thread submits all of its queue's). */
static pthread_key_t self_key;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void worker_free(void *p) {
    worker *w = p;
    if (!w) return;
    free(w->local);
    free(w->avalues);
    free(w->ptrs);
    free(w->items);
    free(w->fiber_leave);
    if (w->fibers) host_fibers_free(w->fibers);
    free(w);
}

static void self_key_make(void) { (void)pthread_key_create(&self_key, worker_free); }

static worker *self_worker(void) {
    pthread_once(&self_once, self_key_make);
    worker *w = pthread_getspecific(self_key);
    if (!w && (w = calloc(1, sizeof *w)) != NULL && pthread_setspecific(self_key, w) != 0) {
        free(w);
        w = NULL;
    }
    return w;
}

ze_result_t host_run_job(host_job *j) {
    pthread_once(&pool_once, pool_start);
    /* A library of the shadow map: its SIGSEGV handler in place, and for a checked launch the table's allocations let
     * through the map when they changed. */
    if (j->kern->mod->shadow) {
        host_shadow_keep_handler();
        if (j->kern->mod->checks.table) host_shadow_sync(j->kern->mod);
    }
    /* About 16 chunks per thread: few enough atomic operations and calls that a group's own cost is lost in its
     * work, enough chunks that threads finishing early take the rest (bench/host_device measured it). */
    size_t chunk = j->total_groups / ((size_t)host_pool_threads() * HOST_CHUNKS_PER_THREAD);
    j->chunk = chunk < 1 ? 1 : chunk > HOST_MAX_CHUNK ? HOST_MAX_CHUNK : chunk;
    /* Units (run_chunks) where the pool has at most 64 threads: as many per thread as fit 64 bits, none smaller than
     * a group. */
    uint32_t threads = pool_helpers + 1;
    j->units_per_thread = threads <= 64 ? 64 / threads : 0;
    j->units = threads * j->units_per_thread;
    if (j->units > j->total_groups) {
        j->units_per_thread = (uint32_t)(j->total_groups / threads);
        j->units = threads * j->units_per_thread;
    }
    worker *w = self_worker();
    int ok;
    if (j->total_groups <= j->chunk || j->total_groups * j->group_items <= HOST_INLINE_ITEMS || pool_helpers == 0) {
        /* Too small to share (one chunk, or a few thousand work-items): no other thread is told of it. */
        atomic_store(&j->active, 1);
        size_t done = run_chunks(w, j, 0, &ok);
        atomic_store(&j->finished, done);
        atomic_store(&j->active, 0);
        return ok && done == j->total_groups ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_lock(&pool_lock);
    j->next_job = pool_jobs;
    pool_jobs = j;
    atomic_fetch_add(&j->active, 1); /* this thread's part */
    atomic_fetch_add_explicit(&pool_posted, 1, memory_order_release);
    /* Woken after the lock is let go: a pool thread woken on this thread's core (as Linux places a wakee) would
     * otherwise run only to block on the lock held here, and the two would take turns on one core, a pair of
     * context switches per launch (perf's sched_switch, polybench's jacobi-2d after a pause). */
    int wake = pool_sleepers != 0;
    pthread_mutex_unlock(&pool_lock);
    if (wake) pthread_cond_broadcast(&pool_work);

    size_t done = run_chunks(w, j, 0, &ok);
    pthread_mutex_lock(&pool_lock);
    (void)part_done(j, done, ok); /* this thread waits for the job below: no other submitter waits for it */
    /* The others' parts: usually done, or nearly, when this thread's is; a short watch, then sleep. */
    if (atomic_load(&j->active) > 0) {
        pthread_mutex_unlock(&pool_lock);
        uint64_t until = host_now_ns() + HOST_SPIN_NS;
        for (unsigned spins = 0; atomic_load_explicit(&j->active, memory_order_acquire) > 0 && host_now_ns() < until;
             spins++) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            if (spins % 64 == 63) sched_yield(); /* as in host_spin_while */
        }
        pthread_mutex_lock(&pool_lock);
        while (atomic_load(&j->active) > 0) {
            done_sleepers++;
            pthread_cond_wait(&pool_done, &pool_lock);
            done_sleepers--;
        }
    }
    for (host_job **p = &pool_jobs; *p; p = &(*p)->next_job)
        if (*p == j) {
            *p = j->next_job;
            break;
        }
    pthread_mutex_unlock(&pool_lock);
    return !atomic_load(&j->failed) && atomic_load(&j->finished) == j->total_groups
               ? ZE_RESULT_SUCCESS
               : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

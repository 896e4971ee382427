/* The host device's queues (host_be.h): a queue is a host thread that runs its commands in order, each after
 * the tokens it waits for, and finishes each command's token. A launch is a job of the thread pool. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "host_be.h"

enum { CMD_LAUNCH, CMD_COPY, CMD_FILL, CMD_BARRIER, CMD_TASK, CMD_GRAPH };

typedef struct hcmd {
    int type;
    zp_btoken *done;
    uint32_t num_waits;
    zp_btoken **waits;
    host_job launch;
    void *dst;
    const void *src;
    size_t size, pattern_size;
    uint8_t pattern[128];
    void (*fn)(void *);
    void *data;
    struct hcmd *next;
    size_t values_cap;  /* bytes launch.values holds (the snapshot, then ABI 4's addresses), kept when the
                         * command is recycled */
    size_t values_align; /* and its alignment */
    uint32_t waits_cap;
} hcmd;

/* Finished commands are kept per queue (up to COMMANDS_KEPT) with their buffers, for the next ones. */
#define COMMANDS_KEPT 64u

struct zp_bqueue {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    hcmd *head, *tail;
    int busy;      /* a command is running */
    int stop;
    /* Counts the commands submitted (and the stop), so that the thread, watching for work before it sleeps
     * (HOST_SPIN_NS), sees one without the lock; it is asleep on cv only when sleeping is set (under lock), and
     * only then does a submitter signal. */
    atomic_uint posted;
    int sleeping;
    pthread_t thread;
    ze_result_t error; /* the first failure of a command, reported by queue_finish */
    hcmd *free_cmds;   /* under lock */
    unsigned free_count;
    /* Between host_capture_begin and host_capture_end (a queue of the object model's own, which nothing else
     * uses meanwhile): commands are kept here instead of run, for a graph. */
    int capturing;
    hcmd *cap_head, *cap_tail;
    size_t cap_count;
};

/* A closed command list as one queue command (zp_backend_ops.capture_begin): its launches, copies, fills and
 * barriers, run in order by the queue's thread when the graph's command comes up. */
typedef struct host_graph {
    pthread_mutex_t run; /* one execution at a time (two queues may execute one list): the jobs are reused */
    size_t n;
    hcmd *cmds[];
} host_graph;

static void cmd_destroy(hcmd *c) {
    free(c->waits);
    free(c->launch.values);
    free(c);
}

/* Releases the command's waits and keeps it for the queue's next command. */
static void cmd_free(zp_bqueue *q, hcmd *c) {
    for (uint32_t i = 0; i < c->num_waits; i++) host_token_release(c->waits[i]);
    c->num_waits = 0;
    pthread_mutex_lock(&q->lock);
    if (q->free_count < COMMANDS_KEPT) {
        c->next = q->free_cmds;
        q->free_cmds = c;
        q->free_count++;
        c = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    if (c) cmd_destroy(c);
}

static void fill_bytes(uint8_t *dst, const uint8_t *pattern, size_t pattern_size, size_t size) {
    if (pattern_size == 1) {
        memset(dst, pattern[0], size);
        return;
    }
    for (size_t i = 0; i < size; i += pattern_size)
        memcpy(dst + i, pattern, size - i < pattern_size ? size - i : pattern_size);
}

/* One execution of a graph: each command's work, in order, with no token of its own (the graph's command has
 * the one token). A launch's job is made ready again first: its counters are per run. */
static ze_result_t run_graph(host_graph *g) {
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&g->run);
    for (size_t i = 0; i < g->n && r == ZE_RESULT_SUCCESS; i++) {
        hcmd *c = g->cmds[i];
        switch (c->type) {
        case CMD_LAUNCH:
            atomic_store(&c->launch.next, 0);
            atomic_store(&c->launch.claimed, 0);
            atomic_store(&c->launch.finished, 0);
            atomic_store(&c->launch.failed, 0);
            atomic_store(&c->launch.active, 0);
            c->launch.next_job = NULL;
            r = host_run_job(&c->launch);
            break;
        case CMD_COPY: memmove(c->dst, c->src, c->size); break;
        case CMD_FILL: fill_bytes(c->dst, c->pattern, c->pattern_size, c->size); break;
        default: break;
        }
    }
    pthread_mutex_unlock(&g->run);
    return r;
}

static void *queue_main(void *arg) {
    zp_bqueue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        if (!q->head && !q->stop) {
            /* Out of work: watch for the next command for a while (a chain of small kernels then never waits for a
             * wake-up), then sleep until a submitter signals. */
            unsigned seen = atomic_load(&q->posted);
            pthread_mutex_unlock(&q->lock);
            int more = host_spin_while(&q->posted, seen);
            pthread_mutex_lock(&q->lock);
            while (!more && !q->head && !q->stop) {
                q->sleeping = 1;
                pthread_cond_wait(&q->cv, &q->lock);
                q->sleeping = 0;
            }
            continue;
        }
        if (!q->head) break;
        hcmd *c = q->head;
        q->head = c->next;
        if (!q->head) q->tail = NULL;
        q->busy = 1;
        pthread_mutex_unlock(&q->lock);

        host_token_wait(c->waits, c->num_waits);
        uint64_t start = host_now_ns();
        ze_result_t r = ZE_RESULT_SUCCESS;
        switch (c->type) {
        case CMD_LAUNCH: r = host_run_job(&c->launch); break;
        case CMD_COPY: memmove(c->dst, c->src, c->size); break;
        case CMD_FILL: fill_bytes(c->dst, c->pattern, c->pattern_size, c->size); break;
        case CMD_TASK: c->fn(c->data); break;
        case CMD_GRAPH: r = run_graph(c->data); break;
        default: break;
        }
        host_token_complete(c->done, start, host_now_ns());
        host_token_release(c->done);
        cmd_free(q, c);

        pthread_mutex_lock(&q->lock);
        if (r != ZE_RESULT_SUCCESS && q->error == ZE_RESULT_SUCCESS) q->error = r;
        q->busy = 0;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

ze_result_t host_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out) {
    (void)dev;
    (void)profiling; /* command times cost two clock reads: always recorded */
    zp_bqueue *q = calloc(1, sizeof *q);
    if (!q) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cv, NULL);
    if (pthread_create(&q->thread, NULL, queue_main, q) != 0) {
        pthread_mutex_destroy(&q->lock);
        pthread_cond_destroy(&q->cv);
        free(q);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = q;
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_queue_finish(zp_bqueue *q) {
    pthread_mutex_lock(&q->lock);
    while (q->head || q->busy) pthread_cond_wait(&q->cv, &q->lock);
    ze_result_t r = q->error;
    q->error = ZE_RESULT_SUCCESS;
    pthread_mutex_unlock(&q->lock);
    return r;
}

void host_queue_destroy(zp_bqueue *q) {
    if (!q) return;
    pthread_mutex_lock(&q->lock);
    while (q->head || q->busy) pthread_cond_wait(&q->cv, &q->lock);
    q->stop = 1;
    atomic_fetch_add(&q->posted, 1);
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    while (q->free_cmds) {
        hcmd *next = q->free_cmds->next;
        cmd_destroy(q->free_cmds);
        q->free_cmds = next;
    }
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cv);
    free(q);
}

/* A new command with its waits retained and its completion token; NULL when out of memory. */
static hcmd *cmd_new(zp_bqueue *q, int type, uint32_t num_waits, zp_btoken *const *waits) {
    pthread_mutex_lock(&q->lock);
    hcmd *c = q->free_cmds;
    if (c) {
        q->free_cmds = c->next;
        q->free_count--;
    }
    pthread_mutex_unlock(&q->lock);
    if (!c && !(c = calloc(1, sizeof *c))) return NULL;
    /* A kept command keeps its buffers; everything else starts from zero. */
    zp_btoken **wbuf = c->waits;
    uint32_t wcap = c->waits_cap;
    uint8_t *vbuf = c->launch.values;
    size_t vcap = c->values_cap, valign = c->values_align;
    memset(c, 0, sizeof *c);
    c->waits = wbuf;
    c->waits_cap = wcap;
    c->launch.values = vbuf;
    c->values_cap = vcap;
    c->values_align = valign;
    c->type = type;
    if (num_waits > c->waits_cap) {
        zp_btoken **w = realloc(c->waits, num_waits * sizeof *w);
        if (!w) {
            cmd_destroy(c);
            return NULL;
        }
        c->waits = w;
        c->waits_cap = num_waits;
    }
    c->done = host_token_new();
    if (!c->done) {
        cmd_destroy(c);
        return NULL;
    }
    for (uint32_t i = 0; i < num_waits; i++) {
        host_token_retain(waits[i]);
        c->waits[c->num_waits++] = waits[i];
    }
    return c;
}

static void cmd_submit(zp_bqueue *q, hcmd *c, zp_btoken **done) {
    if (q->capturing) {
        /* Kept for the graph; captured commands come with no waits and no token wanted. */
        c->next = NULL;
        if (q->cap_tail)
            q->cap_tail->next = c;
        else
            q->cap_head = c;
        q->cap_tail = c;
        q->cap_count++;
        return;
    }
    if (done) {
        host_token_retain(c->done);
        *done = c->done;
    }
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        q->tail->next = c;
    else
        q->head = c;
    q->tail = c;
    atomic_fetch_add_explicit(&q->posted, 1, memory_order_release);
    if (q->sleeping) pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->lock);
}

ze_result_t host_launch(zp_bqueue *q, zp_bkern *k, const zp_ndrange *r, uint32_t num_waits,
                        zp_btoken *const *waits, zp_btoken **done) {
    size_t items = 1;
    for (int d = 0; d < 3; d++) {
        if (r->local[d] == 0 || r->global[d] % r->local[d] != 0) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
        items *= r->local[d];
    }
    if (items > HOST_MAX_GROUP) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    size_t local_total = 0;
    for (uint32_t i = 0; i < k->num_args; i++)
        if (k->refl->args[i].kind == KRT_SPV_ARG_LOCAL_POINTER) {
            size_t n;
            memcpy(&n, k->values + k->off[i], sizeof n);
            local_total += (n + 63) & ~(size_t)63;
        }
    hcmd *c = cmd_new(q, CMD_LAUNCH, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    /* The snapshot, aligned as the kernel's values are (an argument's address is aligned for its C type), and
     * for ABI 4 the arguments' addresses after it, in one buffer: a launch that finds no kept command (a chain
     * of launches faster than the queue) allocates once for both. values_size is a multiple of values_align, at
     * least 16, so the addresses are aligned. */
    size_t nargs = k->group ? k->num_args : 0;
    size_t need = k->values_size + nargs * sizeof(void *);
    if (need > c->values_cap || k->values_align > c->values_align) {
        void *v = NULL;
        if (k->values_align <= _Alignof(max_align_t))
            v = malloc(need ? need : 1);
        else if (posix_memalign(&v, k->values_align, need) != 0)
            v = NULL;
        if (!v) {
            host_token_release(c->done);
            cmd_free(q, c);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        free(c->launch.values);
        c->launch.values = v;
        c->values_cap = need;
        c->values_align = k->values_align > _Alignof(max_align_t) ? k->values_align : _Alignof(max_align_t);
    }
    memcpy(c->launch.values, k->values, k->values_size);
    c->launch.args = NULL;
    if (nargs) {
        /* ABI 4: the arguments' addresses, made once here (a recorded launch: once for all its replays) rather
         * than for each group; a __local argument's entry is the group's, filled in by run_group. */
        void **a = (void **)(void *)(c->launch.values + k->values_size);
        for (uint32_t i = 0; i < k->num_args; i++) a[i] = c->launch.values + k->off[i];
        c->launch.args = a;
    }
    c->launch.kern = k;
    c->launch.range = *r;
    c->launch.local_total = local_total;
    c->launch.group_items = items;
    c->launch.total_groups = 1;
    for (int d = 0; d < 3; d++) {
        c->launch.num_groups[d] = r->global[d] / r->local[d];
        c->launch.total_groups *= c->launch.num_groups[d];
    }
    atomic_init(&c->launch.next, 0);
    atomic_init(&c->launch.claimed, 0);
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t num_waits,
                      zp_btoken *const *waits, zp_btoken **done) {
    hcmd *c = cmd_new(q, CMD_COPY, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->dst = dst;
    c->src = src;
    c->size = size;
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_fill(zp_bqueue *q, void *dst, const void *pattern, size_t pattern_size, size_t size,
                      uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done) {
    if (pattern_size == 0 || pattern_size > sizeof ((hcmd *)0)->pattern) return ZE_RESULT_ERROR_INVALID_SIZE;
    hcmd *c = cmd_new(q, CMD_FILL, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->dst = dst;
    c->size = size;
    c->pattern_size = pattern_size;
    memcpy(c->pattern, pattern, pattern_size);
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_barrier(zp_bqueue *q, uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done) {
    hcmd *c = cmd_new(q, CMD_BARRIER, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t num_waits,
                           zp_btoken *const *waits, zp_btoken **done) {
    if (q->capturing) {
        /* A host task owns its data and frees it when it runs: it cannot run once per execution. The list then
         * replays its commands. */
        free(data);
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    hcmd *c = cmd_new(q, CMD_TASK, num_waits, waits);
    if (!c) {
        free(data);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    c->fn = fn;
    c->data = data;
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_capture_begin(zp_bqueue *q) {
    q->capturing = 1;
    return ZE_RESULT_SUCCESS;
}

static void drop_captured(hcmd *c) {
    while (c) {
        hcmd *next = c->next;
        host_token_release(c->done);
        cmd_destroy(c);
        c = next;
    }
}

ze_result_t host_capture_end(zp_bqueue *q, void **graph) {
    *graph = NULL;
    q->capturing = 0;
    hcmd *c = q->cap_head;
    size_t n = q->cap_count;
    q->cap_head = q->cap_tail = NULL;
    q->cap_count = 0;
    host_graph *g = malloc(sizeof *g + n * sizeof g->cmds[0]);
    if (!g) {
        drop_captured(c);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_init(&g->run, NULL);
    g->n = n;
    for (size_t i = 0; i < n; i++, c = c->next) g->cmds[i] = c;
    *graph = g;
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_graph_launch(zp_bqueue *q, void *graph, uint32_t num_waits, zp_btoken *const *waits,
                              zp_btoken **done) {
    hcmd *c = cmd_new(q, CMD_GRAPH, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->data = graph;
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

void host_graph_destroy(void *graph) {
    host_graph *g = graph;
    if (!g) return;
    for (size_t i = 0; i < g->n; i++) {
        g->cmds[i]->next = NULL;
        drop_captured(g->cmds[i]);
    }
    pthread_mutex_destroy(&g->run);
    free(g);
}

/* CUDA backend: completion tokens (CUevents, pooled per device), their times, and the thread that watches
 * the tokens that have callbacks and calls them. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_be.h"

struct zc_cb {
    zp_token_fn fn;
    void *user;
    struct zc_cb *next;
};

CUevent zc_event_get(struct zp_bdev *d, bool timed) {
    CUevent e = NULL;
    pthread_mutex_lock(&d->pool_lock);
    if (d->pool_len[timed]) e = d->pool[timed][--d->pool_len[timed]];
    pthread_mutex_unlock(&d->pool_lock);
    if (!e && zc_cu.cuEventCreate(&e, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) e = NULL;
    return e;
}

/* epoch: the device's when the event was made. An event of an older epoch died with a reset (zc_device_recover): it
 * is neither pooled nor destroyed. */
void zc_event_put(struct zp_bdev *d, CUevent e, bool timed, unsigned epoch) {
    if (!e) return;
    pthread_mutex_lock(&d->pool_lock);
    if (epoch != atomic_load_explicit(&d->epoch, memory_order_acquire)) {
        pthread_mutex_unlock(&d->pool_lock);
        return;
    }
    if (d->pool_len[timed] == d->pool_cap[timed]) {
        uint32_t cap = d->pool_cap[timed] ? d->pool_cap[timed] * 2 : 64;
        CUevent *p = realloc(d->pool[timed], cap * sizeof *p);
        if (p) {
            d->pool[timed] = p;
            d->pool_cap[timed] = cap;
        }
    }
    if (d->pool_len[timed] < d->pool_cap[timed]) {
        d->pool[timed][d->pool_len[timed]++] = e;
        e = NULL;
    }
    pthread_mutex_unlock(&d->pool_lock);
    if (e) zc_cu.cuEventDestroy(e);
}

void zc_token_retain(zp_btoken *t) { atomic_fetch_add(&t->refs, 1); }

void zc_token_release(zp_btoken *t) {
    if (atomic_fetch_sub(&t->refs, 1) != 1) return;
    /* Events go back to the pool rather than to cuEventDestroy: this may run on any thread. */
    zc_event_put(t->dev, t->end, t->start != NULL, t->epoch);
    zc_event_put(t->dev, t->start, true, t->epoch);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* One thread watches tokens that have callbacks and calls them once their events complete. Callbacks may
 * call back into the backend (and CUDA), which CUDA's own host callbacks must not.
 *
 * A launch that signals an event registers its token here from the submitting thread, so registering must not wait
 * behind the watcher's scan: tokens arrive in `incoming` under watch_lock, and the watcher moves them into a list
 * of its own (`mine`) under the lock and calls cuEventQuery on them outside it. The lock is held for a pointer
 * append on one side and a move on the other, never across a CUDA call. */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cv = PTHREAD_COND_INITIALIZER;
static zp_btoken **incoming;             /* registered, not yet taken by the watcher; under watch_lock */
static size_t incoming_len, incoming_cap;
static bool watcher_started, watcher_idle; /* idle: waiting on watch_cv with nothing to watch */

static void fire(zp_btoken *t) {
    pthread_mutex_lock(&t->lock);
    t->complete = true;
    struct zc_cb *cb = t->cbs;
    t->cbs = NULL;
    pthread_mutex_unlock(&t->lock);
    while (cb) {
        struct zc_cb *next = cb->next;
        cb->fn(t, cb->user);
        free(cb);
        cb = next;
    }
}

/* Moves what was registered into the watcher's own list (grown as needed; what does not fit stays in incoming
 * for the next round). Called with watch_lock held. */
static void take_incoming(zp_btoken ***mine, size_t *len, size_t *cap) {
    if (*len + incoming_len > *cap) {
        size_t c = *cap ? *cap : 64;
        while (c < *len + incoming_len) c *= 2;
        zp_btoken **p = realloc(*mine, c * sizeof *p);
        if (p) {
            *mine = p;
            *cap = c;
        }
    }
    size_t n = *cap - *len < incoming_len ? *cap - *len : incoming_len;
    memcpy(*mine + *len, incoming + (incoming_len - n), n * sizeof *incoming);
    *len += n;
    incoming_len -= n;
}

static void *watcher(void *arg) {
    (void)arg;
    zp_btoken **mine = NULL;
    size_t len = 0, cap = 0;
    unsigned idle_us = 2;
    for (;;) {
        pthread_mutex_lock(&watch_lock);
        while (len == 0 && incoming_len == 0) {
            idle_us = 2;
            watcher_idle = true;
            pthread_cond_wait(&watch_cv, &watch_lock);
        }
        watcher_idle = false;
        take_incoming(&mine, &len, &cap);
        pthread_mutex_unlock(&watch_lock);
        /* Query outside the lock; fire the finished ones, keep the rest. */
        size_t w = 0, nd = 0;
        for (size_t i = 0; i < len; i++) {
            zp_btoken *t = mine[i];
            /* A failed query is a completion too (the callbacks must run, or their waiters wait forever), and a sticky
             * error marks the device lost on the way (zc_result): the object model then answers DEVICE_LOST to the
             * waits. A token older than a reset has nothing left to query. */
            bool stale = zc_token_stale(t);
            CUresult q = CUDA_SUCCESS;
            if (!stale) {
                zc_bind(t->dev);
                q = zc_cu.cuEventQuery(t->end);
            }
            if (stale || q != CUDA_ERROR_NOT_READY) {
                if (q != CUDA_SUCCESS && q != CUDA_ERROR_NOT_READY) (void)zc_result(q);
                fire(t);
                zc_token_release(t);
                nd++;
            } else {
                mine[w++] = t;
            }
        }
        len = w;
        if (nd == 0) {
            struct timespec ts = {0, (long)idle_us * 1000};
            nanosleep(&ts, NULL);
            if (idle_us < 200) idle_us *= 2;
        } else {
            idle_us = 2;
        }
    }
    return NULL;
}

ze_result_t zc_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user) {
    struct zc_cb *cb = malloc(sizeof *cb);
    if (!cb) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cb->fn = fn;
    cb->user = user;
    pthread_mutex_lock(&t->lock);
    if (t->complete) {
        pthread_mutex_unlock(&t->lock);
        free(cb);
        fn(t, user);
        return ZE_RESULT_SUCCESS;
    }
    bool first = t->cbs == NULL;
    cb->next = t->cbs;
    t->cbs = cb;
    pthread_mutex_unlock(&t->lock);
    if (!first) return ZE_RESULT_SUCCESS;
    zc_token_retain(t);
    pthread_mutex_lock(&watch_lock);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!watcher_started) {
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&th, &at, watcher, NULL) == 0)
            watcher_started = true;
        else
            r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        pthread_attr_destroy(&at);
    }
    if (r == ZE_RESULT_SUCCESS && incoming_len == incoming_cap) {
        size_t cap = incoming_cap ? incoming_cap * 2 : 64;
        zp_btoken **p = realloc(incoming, cap * sizeof *p);
        if (p) {
            incoming = p;
            incoming_cap = cap;
        } else {
            r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    /* Only a watcher parked on the condition needs the signal; a polling one finds the token on its next round. */
    bool wake = false;
    if (r == ZE_RESULT_SUCCESS) {
        incoming[incoming_len++] = t;
        wake = watcher_idle;
        watcher_idle = false;
    }
    pthread_mutex_unlock(&watch_lock);
    if (wake) pthread_cond_signal(&watch_cv);
    if (r != ZE_RESULT_SUCCESS) {
        /* Undo: the callback stays unregistered and the caller sets its signal itself. */
        pthread_mutex_lock(&t->lock);
        t->cbs = NULL;
        pthread_mutex_unlock(&t->lock);
        free(cb);
        zc_token_release(t);
    }
    return r;
}

ze_result_t zc_token_times(zp_btoken *t, uint64_t *start, uint64_t *end) {
    if (!t->start || zc_token_stale(t)) return ZE_RESULT_ERROR_NOT_AVAILABLE;
    zc_bind(t->dev);
    float from_base = 0, dur = 0;
    CUresult r = zc_cu.cuEventElapsedTime(&from_base, t->dev->base_ev, t->start);
    if (r == CUDA_SUCCESS) r = zc_cu.cuEventElapsedTime(&dur, t->start, t->end);
    if (r != CUDA_SUCCESS) return zc_result(r);
    *start = t->dev->base_ns + (uint64_t)((double)from_base * 1e6);
    *end = *start + (uint64_t)((double)dur * 1e6);
    return ZE_RESULT_SUCCESS;
}

/* Where a kernel's fault surfaces for a waiting host: cuEventSynchronize returns the sticky error (zc_result marks the
 * device lost and answers ZE_RESULT_ERROR_DEVICE_LOST). */
ze_result_t zc_token_wait(zp_btoken *t) {
    if (zc_token_stale(t)) return ZE_RESULT_ERROR_DEVICE_LOST;
    zc_bind(t->dev);
    return zc_result(zc_cu.cuEventSynchronize(t->end));
}

bool zc_token_done(zp_btoken *t) {
    if (zc_token_stale(t)) return true;
    zc_bind(t->dev);
    CUresult r = zc_cu.cuEventQuery(t->end);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) (void)zc_result(r);
    return r == CUDA_SUCCESS;
}

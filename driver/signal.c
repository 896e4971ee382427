/* Host-side signal state behind events and fences. A signal can be waited on (by the host or by a
 * command) before anything that sets it has been appended. When a command that sets it is appended, the
 * signal keeps that command's completion token (commands waiting on the signal then wait on the token)
 * and a completion callback sets the signal. Streams whose next command waits on a signal nothing has
 * armed yet register as waiters (zp_signal_waiter) and are woken when it is armed or set (see stream.c). */
#include <errno.h>
#include <time.h>

#include "zp.h"

void zp_signal_init(zp_signal *s, void (*free_fn)(zp_signal *)) {
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&s->refs, 1);
    atomic_init(&s->state, 0);
    s->token = NULL;
    s->dev = NULL;
    s->gen = 0;
    s->waiters = NULL;
    s->num_waiters = s->cap_waiters = 0;
    s->free_fn = free_fn;
}

/* Takes the waiters list out of the signal; the caller holds s->mu and kicks them after unlocking. */
static zp_signal_waiter **take_waiters(zp_signal *s, uint32_t *n) {
    zp_signal_waiter **w = s->waiters;
    *n = s->num_waiters;
    s->waiters = NULL;
    s->num_waiters = s->cap_waiters = 0;
    return w;
}

static void kick_all(zp_signal_waiter **w, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) w[i]->wake(w[i]);
    free(w);
}

void zp_signal_unref(zp_signal *s) {
    if (atomic_fetch_sub(&s->refs, 1) != 1) return;
    if (s->token) zp_be->token_release(s->token);
    /* Streams still waiting on a signal that no longer exists are kicked: their command then finds a
     * destroyed handle and is dropped, instead of blocking its stream forever. */
    uint32_t n;
    zp_signal_waiter **w = take_waiters(s, &n);
    for (uint32_t i = 0; i < n; i++) w[i]->forget(w[i], s);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    s->free_fn(s);
    kick_all(w, n);
}

/* Once the state reads 1, a waiter on another thread may return and destroy the event (zeEventHostSynchronize
 * or zeEventQueryStatus, then zeEventDestroy: the documented order), while this thread still holds s->mu and
 * has the waiters to take. So the setter holds a reference of its own until it is done with the signal: the
 * caller's handle is valid on entry, since no one can have seen this signalling yet. */
/* Sets the signal; dev (NULL for the host) is the device whose fate its waits then report. */
static void set_from(zp_signal *s, ze_device_handle_t dev) {
    atomic_fetch_add(&s->refs, 1);
    pthread_mutex_lock(&s->mu);
    s->dev = dev;
    atomic_store(&s->state, 1);
    pthread_cond_broadcast(&s->cv);
    uint32_t n;
    zp_signal_waiter **w = take_waiters(s, &n);
    pthread_mutex_unlock(&s->mu);
    kick_all(w, n);
    zp_signal_unref(s);
}

void zp_signal_set(zp_signal *s) { set_from(s, NULL); }

void zp_signal_fail(zp_signal *s, ze_device_handle_t dev) { set_from(s, dev); }

static void reset_locked(zp_signal *s) {
    s->dev = NULL;
    atomic_store(&s->state, 0);
    /* Dropping the token detaches any command still running for the old signalling: its callback
     * will find a different token and change nothing. */
    if (s->token) {
        zp_be->token_release(s->token);
        s->token = NULL;
    }
}

uint64_t zp_signal_renew(zp_signal *s) {
    pthread_mutex_lock(&s->mu);
    reset_locked(s);
    uint64_t gen = ++s->gen;
    pthread_mutex_unlock(&s->mu);
    return gen;
}

void zp_signal_reset(zp_signal *s) {
    pthread_mutex_lock(&s->mu);
    reset_locked(s);
    pthread_mutex_unlock(&s->mu);
}

static void on_token_complete(zp_btoken *token, void *user) {
    zp_signal *s = user;
    pthread_mutex_lock(&s->mu);
    if (s->token == token) {
        atomic_store(&s->state, 1);
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    zp_signal_unref(s);
}

void zp_signal_arm(zp_signal *s, zp_btoken *token, ze_device_handle_t dev) { zp_signal_arm_gen(s, token, dev, 0); }

void zp_signal_arm_gen(zp_signal *s, zp_btoken *token, ze_device_handle_t dev, uint64_t gen) {
    pthread_mutex_lock(&s->mu);
    if (gen && gen != s->gen) {
        /* A later command took the event over while this one was held back: its completion means nothing now. */
        pthread_mutex_unlock(&s->mu);
        zp_be->token_release(token);
        return;
    }
    if (s->token) zp_be->token_release(s->token);
    s->token = token;
    s->dev = dev;
    atomic_fetch_add(&s->refs, 1);
    uint32_t n;
    zp_signal_waiter **w = take_waiters(s, &n);
    pthread_mutex_unlock(&s->mu);
    if (zp_be->token_on_complete(token, on_token_complete, s) != ZE_RESULT_SUCCESS) {
        /* No callback means no one would ever set the signal: set it now rather than hang later. */
        atomic_fetch_sub(&s->refs, 1);
        set_from(s, dev);
    }
    kick_all(w, n);
}

ze_result_t zp_signal_wait_token(zp_signal *s, zp_btoken **out) {
    *out = NULL;
    if (atomic_load(&s->state)) return ZE_RESULT_SUCCESS;
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&s->mu);
    if (!atomic_load(&s->state)) {
        if (s->token) {
            zp_be->token_retain(s->token);
            *out = s->token;
        } else {
            r = ZE_RESULT_NOT_READY;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return r;
}

bool zp_signal_add_waiter(zp_signal *s, zp_signal_waiter *st) {
    bool added = false;
    pthread_mutex_lock(&s->mu);
    if (!atomic_load(&s->state) && !s->token) {
        added = true;
        for (uint32_t i = 0; i < s->num_waiters; i++)
            if (s->waiters[i] == st) goto out;
        if (s->num_waiters == s->cap_waiters) {
            uint32_t cap = s->cap_waiters ? s->cap_waiters * 2 : 4;
            zp_signal_waiter **w = realloc(s->waiters, cap * sizeof *w);
            if (!w) {
                /* Without room to wait, the stream retries at once; that only spins while memory is short. */
                added = false;
                goto out;
            }
            s->waiters = w;
            s->cap_waiters = cap;
        }
        s->waiters[s->num_waiters++] = st;
    }
out:
    pthread_mutex_unlock(&s->mu);
    return added;
}

void zp_signal_remove_waiter(zp_signal *s, zp_signal_waiter *st) {
    pthread_mutex_lock(&s->mu);
    for (uint32_t i = 0; i < s->num_waiters; i++) {
        if (s->waiters[i] == st) {
            s->waiters[i] = s->waiters[--s->num_waiters];
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
}

/* Sets the signal as its completion callback would, if token t still arms it. */
static void set_if_armed_by(zp_signal *s, zp_btoken *t) {
    pthread_mutex_lock(&s->mu);
    if (s->token == t) {
        atomic_store(&s->state, 1);
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

bool zp_signal_query(zp_signal *s) {
    if (atomic_load(&s->state)) return true;
    if (!zp_be->token_done) return false;
    pthread_mutex_lock(&s->mu);
    zp_btoken *t = s->token;
    if (t) zp_be->token_retain(t);
    pthread_mutex_unlock(&s->mu);
    if (!t) return false;
    if (zp_be->token_done(t)) set_if_armed_by(s, t);
    zp_be->token_release(t);
    return atomic_load(&s->state) != 0;
}

/* The device whose work arms the signal, when it is lost. */
static bool dev_lost(zp_signal *s) {
    pthread_mutex_lock(&s->mu);
    ze_device_handle_t dev = s->dev;
    pthread_mutex_unlock(&s->mu);
    return dev && zp_device_lost(dev);
}

ze_result_t zp_signal_status(zp_signal *s) {
    if (dev_lost(s)) return ZE_RESULT_ERROR_DEVICE_LOST;
    bool set = zp_signal_query(s);
    /* The query itself may have seen the device fail (ze_cuda's cuEventQuery). */
    if (dev_lost(s)) return ZE_RESULT_ERROR_DEVICE_LOST;
    return set ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t wait_signal(zp_signal *s, uint64_t timeout_ns);

/* A wait on work of a lost device answers so at once (nothing more of it is worth waiting for: ze_cuda's device runs
 * nothing more, and the knob's answer must not depend on timing), and so does a wait that ends with its device lost
 * meanwhile. */
ze_result_t zp_signal_wait(zp_signal *s, uint64_t timeout_ns) {
    if (dev_lost(s)) return ZE_RESULT_ERROR_DEVICE_LOST;
    ze_result_t r = wait_signal(s, timeout_ns);
    if (r != ZE_RESULT_NOT_READY && dev_lost(s)) return ZE_RESULT_ERROR_DEVICE_LOST;
    return r;
}

static ze_result_t wait_signal(zp_signal *s, uint64_t timeout_ns) {
    if (zp_signal_query(s)) return ZE_RESULT_SUCCESS;
    if (timeout_ns == 0) return ZE_RESULT_NOT_READY;
    if (timeout_ns == UINT64_MAX && zp_be->token_wait) {
        /* Wait on the device for the command that arms the signal, then set the signal as its completion
         * callback would, unless it was reset or armed again meanwhile (then wait for the new arming). */
        for (;;) {
            pthread_mutex_lock(&s->mu);
            zp_btoken *t = atomic_load(&s->state) ? NULL : s->token;
            if (t) zp_be->token_retain(t);
            pthread_mutex_unlock(&s->mu);
            if (!t) break;
            ze_result_t r = zp_be->token_wait(t);
            pthread_mutex_lock(&s->mu);
            bool same = s->token == t;
            if (same && r == ZE_RESULT_SUCCESS) {
                atomic_store(&s->state, 1);
                pthread_cond_broadcast(&s->cv);
            }
            pthread_mutex_unlock(&s->mu);
            zp_be->token_release(t);
            /* The device failed while the command ran (ze_cuda: a sticky error from cuEventSynchronize): that is
             * this wait's answer, whatever the completion callback later sets. */
            if (r != ZE_RESULT_SUCCESS) return r;
            if (same) break;
        }
        if (atomic_load(&s->state)) return ZE_RESULT_SUCCESS;
    }
    pthread_mutex_lock(&s->mu);
    if (timeout_ns == UINT64_MAX) {
        while (!atomic_load(&s->state)) pthread_cond_wait(&s->cv, &s->mu);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t ns = (uint64_t)ts.tv_nsec + timeout_ns % 1000000000u;
        ts.tv_sec += (time_t)(timeout_ns / 1000000000u + ns / 1000000000u);
        ts.tv_nsec = (long)(ns % 1000000000u);
        while (!atomic_load(&s->state))
            if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT) break;
    }
    int st = atomic_load(&s->state);
    pthread_mutex_unlock(&s->mu);
    return st ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

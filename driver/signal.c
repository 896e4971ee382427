/* Host-side signal state behind events and fences. A signal can be waited on (by the host or by a
 * command) before anything that sets it has been appended: commands then wait on a backend gate that
 * opens when the signal is set. When a command that sets it is appended, its completion token is kept
 * and a completion callback sets the signal. */
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
    s->gate = NULL;
    s->free_fn = free_fn;
}

void zp_signal_unref(zp_signal *s) {
    if (atomic_fetch_sub(&s->refs, 1) != 1) return;
    if (s->token) zp_be->token_release(s->token);
    if (s->gate) {
        /* Nothing can set this signal any more; opening the gate keeps commands that still wait on it
         * from blocking their queue forever. */
        zp_be->gate_open(s->gate);
        zp_be->token_release(s->gate);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    s->free_fn(s);
}

/* Caller holds s->mu. */
static void set_locked(zp_signal *s) {
    atomic_store(&s->state, 1);
    if (s->gate) {
        zp_be->gate_open(s->gate);
        zp_be->token_release(s->gate);
        s->gate = NULL;
    }
    pthread_cond_broadcast(&s->cv);
}

void zp_signal_set(zp_signal *s) {
    pthread_mutex_lock(&s->mu);
    set_locked(s);
    pthread_mutex_unlock(&s->mu);
}

void zp_signal_reset(zp_signal *s) {
    pthread_mutex_lock(&s->mu);
    atomic_store(&s->state, 0);
    /* Dropping the token detaches any command still running for the old signalling: its callback
     * will find a different token and change nothing. */
    if (s->token) {
        zp_be->token_release(s->token);
        s->token = NULL;
    }
    pthread_mutex_unlock(&s->mu);
}

static void on_token_complete(zp_btoken *token, void *user) {
    zp_signal *s = user;
    pthread_mutex_lock(&s->mu);
    if (s->token == token) set_locked(s);
    pthread_mutex_unlock(&s->mu);
    zp_signal_unref(s);
}

void zp_signal_arm(zp_signal *s, zp_btoken *token) {
    pthread_mutex_lock(&s->mu);
    if (s->token) zp_be->token_release(s->token);
    s->token = token;
    atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&s->mu);
    if (zp_be->token_on_complete(token, on_token_complete, s) != ZE_RESULT_SUCCESS) {
        /* No callback means no one would ever set the signal; wait here instead of hanging later. */
        atomic_fetch_sub(&s->refs, 1);
        zp_signal_set(s);
    }
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
            if (!s->gate) r = zp_be->gate_create(&s->gate);
            if (r == ZE_RESULT_SUCCESS) {
                zp_be->token_retain(s->gate);
                *out = s->gate;
            }
        }
    }
    pthread_mutex_unlock(&s->mu);
    return r;
}

ze_result_t zp_signal_wait(zp_signal *s, uint64_t timeout_ns) {
    if (atomic_load(&s->state)) return ZE_RESULT_SUCCESS;
    if (timeout_ns == 0) return ZE_RESULT_NOT_READY;
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

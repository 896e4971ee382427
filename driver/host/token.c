/* The host device's completion tokens (host_be.h): one per command, done when the command's queue thread has
 * run it, with the callbacks (an event's signal) the object model hangs on it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "host_be.h"

typedef struct callback {
    zp_token_fn fn;
    void *user;
    struct callback *next;
} callback;

struct zp_btoken {
    atomic_int refs;
    int done;           /* under tok_lock: 0 running, 1 finished (times set, callbacks running), 2 done */
    uint64_t start, end;
    callback *callbacks; /* under tok_lock */
    struct zp_btoken *next_free;
};

/* One lock and condition for every token: a queue thread waiting for tokens of other queues sleeps on it. */
static pthread_mutex_t tok_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tok_cv = PTHREAD_COND_INITIALIZER;

/* Released tokens are kept for the next commands (up to TOKENS_KEPT), so that a warm launch allocates
 * nothing (test_memo's no-allocation tests run on the host device too). */
#define TOKENS_KEPT 1024u
static zp_btoken *tok_free;   /* under tok_lock */
static unsigned tok_free_count;

zp_btoken *host_token_new(void) {
    pthread_mutex_lock(&tok_lock);
    zp_btoken *t = tok_free;
    if (t) {
        tok_free = t->next_free;
        tok_free_count--;
    }
    pthread_mutex_unlock(&tok_lock);
    if (!t && !(t = malloc(sizeof *t))) return NULL;
    memset(t, 0, sizeof *t);
    atomic_init(&t->refs, 1);
    return t;
}

void host_token_retain(zp_btoken *t) { atomic_fetch_add(&t->refs, 1); }

void host_token_release(zp_btoken *t) {
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1) return;
    pthread_mutex_lock(&tok_lock);
    if (tok_free_count < TOKENS_KEPT) {
        t->next_free = tok_free;
        tok_free = t;
        tok_free_count++;
        t = NULL;
    }
    pthread_mutex_unlock(&tok_lock);
    free(t);
}

void host_token_wait(zp_btoken *const *tokens, uint32_t n) {
    pthread_mutex_lock(&tok_lock);
    for (uint32_t i = 0; i < n; i++)
        while (tokens[i]->done < 2) pthread_cond_wait(&tok_cv, &tok_lock);
    pthread_mutex_unlock(&tok_lock);
}

/* The callbacks (an event's signal) run before the token is marked done: a command waiting on the token, on
 * another queue, must not finish before the event it waited for reads as signalled (test_queue_event's
 * event_orders_two_queues on the host device saw the event not ready after the consumer's queue drained).
 * Callbacks added while they run are taken in the next round. */
void host_token_complete(zp_btoken *t, uint64_t start, uint64_t end) {
    t->start = start;
    t->end = end;
    pthread_mutex_lock(&tok_lock);
    t->done = 1;
    for (callback *cb; (cb = t->callbacks) != NULL;) {
        t->callbacks = NULL;
        pthread_mutex_unlock(&tok_lock);
        while (cb) {
            callback *next = cb->next;
            cb->fn(t, cb->user);
            free(cb);
            cb = next;
        }
        pthread_mutex_lock(&tok_lock);
    }
    t->done = 2;
    pthread_cond_broadcast(&tok_cv);
    pthread_mutex_unlock(&tok_lock);
}

ze_result_t host_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user) {
    pthread_mutex_lock(&tok_lock);
    if (t->done < 2) {
        callback *cb = malloc(sizeof *cb);
        if (!cb) {
            pthread_mutex_unlock(&tok_lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        *cb = (callback){fn, user, t->callbacks};
        t->callbacks = cb;
        pthread_mutex_unlock(&tok_lock);
        return ZE_RESULT_SUCCESS;
    }
    pthread_mutex_unlock(&tok_lock);
    fn(t, user);
    return ZE_RESULT_SUCCESS;
}

ze_result_t host_token_times(zp_btoken *t, uint64_t *start, uint64_t *end) {
    pthread_mutex_lock(&tok_lock);
    int done = t->done;
    pthread_mutex_unlock(&tok_lock);
    if (!done) return ZE_RESULT_ERROR_NOT_AVAILABLE;
    *start = t->start;
    *end = t->end;
    return ZE_RESULT_SUCCESS;
}

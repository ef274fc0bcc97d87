/* dlrm_pool.h: a small pool of worker threads for the CPU PEs. The calling
 * thread works too: dlrm_pool_run(pool, fn, arg) runs fn(arg, tid) on
 * tid = 0 (the caller) .. n - 1 and returns when all have returned. */
#ifndef DLRM_POOL_H
#define DLRM_POOL_H

#include <pthread.h>

typedef void (*dlrm_pool_fn_t)(void *arg, int tid);

typedef struct dlrm_pool {
    int n;                      /* threads, the caller included */
    pthread_t *tids;            /* n - 1 workers */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned long generation;   /* bumped per job */
    int running;                /* workers still in the current job */
    int quit;
    dlrm_pool_fn_t fn;
    void *arg;
} dlrm_pool_t;

/* 0, or -1 when a thread could not be started (the pool is then empty). */
int dlrm_pool_init(dlrm_pool_t *p, int n);
void dlrm_pool_run(dlrm_pool_t *p, dlrm_pool_fn_t fn, void *arg);
void dlrm_pool_fini(dlrm_pool_t *p);

#endif

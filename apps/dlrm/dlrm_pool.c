/* dlrm_pool.c: see dlrm_pool.h. */
#include "dlrm_pool.h"

#include <stdlib.h>

typedef struct worker_arg {
    dlrm_pool_t *p;
    int tid;
} worker_arg_t;

static void *worker(void *a)
{
    worker_arg_t *wa = a;
    dlrm_pool_t *p = wa->p;
    int tid = wa->tid;
    unsigned long seen = 0;
    free(wa);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->go, &p->lock);
        if (p->quit)
            break;
        seen = p->generation;
        dlrm_pool_fn_t fn = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->lock);
        fn(arg, tid);
        pthread_mutex_lock(&p->lock);
        if (--p->running == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int dlrm_pool_init(dlrm_pool_t *p, int n)
{
    p->n = n < 1 ? 1 : n;
    p->generation = 0;
    p->running = 0;
    p->quit = 0;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->tids = calloc((size_t)p->n, sizeof(pthread_t));
    if (p->tids == NULL)
        return -1;
    for (int i = 1; i < p->n; i++) {
        worker_arg_t *wa = malloc(sizeof *wa);
        if (wa != NULL) {
            wa->p = p;
            wa->tid = i;
        }
        if (wa == NULL || pthread_create(&p->tids[i - 1], NULL, worker, wa) != 0) {
            free(wa);
            p->n = i;   /* the ones started so far */
            dlrm_pool_fini(p);
            return -1;
        }
    }
    return 0;
}

void dlrm_pool_run(dlrm_pool_t *p, dlrm_pool_fn_t fn, void *arg)
{
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->running = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    fn(arg, 0);
    pthread_mutex_lock(&p->lock);
    while (p->running > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void dlrm_pool_fini(dlrm_pool_t *p)
{
    if (p->tids == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->tids[i - 1], NULL);
    free(p->tids);
    p->tids = NULL;
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
}

/* dlrm_cpu_fused.h: the fused embedding + all-to-all on CPU PEs (host
 * heap), the CPU twin of dlrm_fused.h: the same work items and order
 * (dlrm_plan.h), the same per-slice completion counters and ready signals,
 * run by a pool of threads with gshmem host calls. gshmem-dlrm's CPU
 * backend (dlrm_cpu.c) and the PyTorch op (dlrm_op.c) run it.
 *
 * One run: the threads take work items from one atomic counter; a thread
 * pools an item's bags (sum in fp32, in index order) into the output
 * (local destination) or into the staging slice; the thread that completes
 * a slice's last item sends it: one host put per row, a fence, and a
 * put-with-signal of the last row that sets the slice's signal at the
 * destination to the run's epoch. Then the PE waits for the signals of
 * every slice addressed to it (bounded by GSHMEM_TIMEOUT seconds, default
 * 60: a slice that never comes is named and the job ends) and quiets its
 * puts, so the run returns with the whole output in place and staging free.
 * gshmem calls from the worker threads are serialised by one mutex.
 *
 * OUTPUT, SIGNALS, REUSE: as dlrm_fused.h (out[b][t * D + d] on every PE,
 * sig[s * G + i] >= epoch; the output of epoch e must be consumed on every
 * PE before any PE starts epoch e + 1: a barrier between). */
#ifndef DLRM_CPU_FUSED_H
#define DLRM_CPU_FUSED_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "dlrm_backend.h"
#include "dlrm_plan.h"
#include "dlrm_pool.h"

typedef struct dlrm_cpu_fused {
    dlrm_part_t p;
    int dtype, sched, order;      /* dlrm_dtype_t, dlrm_sched_t, dlrm_order_t */
    const void *weights;          /* [total rows][D] of dtype (host memory) */
    const int64_t *off, *idx, *wrow;   /* local CSR (dlrm_inputs.h's dlrm_local_t layout) */
    float *out;                   /* symmetric [B/P][T * D] */
    float *stage;                 /* symmetric [B][tmax * D] */
    uint64_t *sig;                /* symmetric [P][G] (made by create) */
    uint32_t *cnt;                /* [P][G] per-slice completions (monotonic) */
    uint64_t epoch;               /* of the last run (0: none yet) */
    dlrm_pool_t *pool;            /* the caller's threads */
    int fault;                    /* leave one pooled row unwritten (tests the checks) */
    /* the current run */
    pthread_mutex_t send_lock;
    int64_t next;                 /* atomic work counter */
    int compute_only;
    dlrm_trace_row_t *slice_tr;   /* [P][G] when tracing */
    int64_t t_origin;
} dlrm_cpu_fused_t;

/* Collective (allocates the signals in the symmetric heap). The buffers
 * stay the caller's and may be set later (before the first run): weights
 * and CSR in host memory, out and stage symmetric. 0, or -1 with the
 * reason in why (on every PE when the heap is exhausted). */
int dlrm_cpu_fused_create(dlrm_cpu_fused_t *f, const dlrm_part_t *p, int dtype, int sched,
                          int order, const void *weights, const int64_t *off,
                          const int64_t *idx, const int64_t *wrow, float *out, float *stage,
                          dlrm_pool_t *pool, char *why, size_t whylen);
/* Work items (dlrm_part_set_items with the pool's threads as workers):
 * bag_bytes the mean bag's weight bytes, item_rows 0 for automatic. */
void dlrm_cpu_fused_set_items(dlrm_cpu_fused_t *f, double bag_bytes, int item_rows);
/* One run (see above); returns its epoch. compute_only: every destination
 * forced local (staging only, local signals): the floor. tr != NULL:
 * appends one trace row per slice sent. */
uint64_t dlrm_cpu_fused_run(dlrm_cpu_fused_t *f, int compute_only, dlrm_trace_buf_t *tr);
/* Collective. */
void dlrm_cpu_fused_destroy(dlrm_cpu_fused_t *f);

/* Sum pooling of bag (local table t, global sample b) into dst[0..D),
 * accumulated in fp32 in index order (the baseline pools with it too). */
void dlrm_cpu_pool_bag(const dlrm_cpu_fused_t *f, int64_t t, int64_t b, float *dst);

/* CLOCK_MONOTONIC in ns (the CPU code's clock for times and timeouts). */
static inline int64_t dlrm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* DLRM_CPU_FUSED_H */

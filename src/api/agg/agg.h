/* agg.h: the host side of the aggregator (include/gshmem_agg.h; protocol:
 * include/gshmem/agg/agg_rt.h). Internal.
 *
 *   agg.c          gshmem_agg_attr_init / _create / _destroy, the list of
 *                  live aggregators, the host-engine mode (tests)
 *   agg_service.c  the service thread: ages out buffers and applies
 *                  received ones when no producer does
 *   agg_cuda.cu    the service kernel and the CUDA memory of an aggregator
 *
 * Two modes. Device mode (CUDA heap): kernels are the producers; the
 * descriptor lives in device memory and the service thread launches the
 * service kernel. Host mode (TESTING: a host heap with an engine over
 * host channels, gshmemi_proxy_start_host): host threads are the producers
 * (gshmemi_agg_host_store below) and the service thread runs the same
 * protocol on the host. */
#ifndef GSHMEMI_AGG_HOST_H
#define GSHMEMI_AGG_HOST_H

#include <pthread.h>
#include <stdint.h>
#include "gshmem_agg.h"
#include "gshmem/agg/agg_rt.h"

/* What one service round reports (device mode: pinned mapped memory the
 * service kernel writes). */
typedef struct gshmemi_agg_summary {
    uint32_t pending;        /* send slots holding records or in flight */
    uint32_t applied;        /* received buffers applied */
    uint32_t sent;           /* buffers sent (aged or forced) */
    uint32_t where;          /* with error: s * K + k (receive) or pe * K + k */
    int32_t error;           /* 0, or the first error of the round */
    uint32_t pad;
    gshmemi_agg_apply_err_t err;   /* a malformed received buffer */
} gshmemi_agg_summary_t;

typedef struct gshmemi_agg_host {
    struct gshmemi_agg_host *next;
    gshmemi_agg_rt_t rt;           /* the descriptor (host mode: the live one) */
    gshmem_agg_t *handle;          /* what the user holds (device copy or &rt) */
    void *dev_rt;                  /* device mode: the descriptor in device memory */
    void *block;                   /* the symmetric allocation */
    int cuda;                      /* device mode */
    int serviced;                  /* in the service thread's list */
    gshmemi_agg_summary_t *sum;    /* device mode: pinned mapped */
    /* under the service lock */
    int closing, failed;
    uint64_t rounds;
    uint32_t last_pending;
    uint64_t period_ns;
} gshmemi_agg_host_t;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- agg_service.c ----------------------------------------------------------- */
/* Adds a to the service (starting the thread with the first; while the
 * remover of the last one joins the thread, it waits for that first,
 * bounded by GSHMEM_TIMEOUT). 0 or error (logged). */
int gshmemi_agg_service_add(gshmemi_agg_host_t *a);
/* Until a round that started after the call found nothing pending in a
 * (it seals everything from now on) or timeout_s passed: 0 or
 * GSHMEM_ERR_TIMEOUT (logged with what remains). */
int gshmemi_agg_service_quiesce(gshmemi_agg_host_t *a, long timeout_s);
/* Removes a (stopping the thread after the last). */
void gshmemi_agg_service_remove(gshmemi_agg_host_t *a);
/* The process exits without finalize (src/api/core/exit.c): stops the
 * service thread, if one runs, joining it by deadline_ns (gshmemi_now_ns's
 * clock); the aggregators stay as they are. 1 when joined, 0 when none
 * ran (or the caller is it), GSHMEM_ERR_TIMEOUT (logged at WARN). */
int gshmemi_agg_service_exit(uint64_t deadline_ns);
/* One round for a: the summary in *sum_p; 1 when it did something. */
int gshmemi_agg_service_round(gshmemi_agg_host_t *a, void *stream, gshmemi_agg_summary_t *sum_p);

/* ---- agg.c ------------------------------------------------------------------- */
/* gshmemi_proxy_stop's hook (finalize): stops the service, forgets the
 * aggregators not destroyed (warning). */
void gshmemi_agg_shutdown(void);

/* TESTING, host mode: a host thread's store (ch: the ring it posts on) and
 * flush (pe -1: every PE). 0 or the error, logged with the values. */
int gshmemi_agg_host_store(gshmem_agg_t *agg, void *dst, const void *src, size_t bytes, int pe,
                           uint32_t ch);
int gshmemi_agg_host_flush(gshmem_agg_t *agg, int pe, uint32_t ch);

/* ---- agg_cuda.cu (stubs in agg.c without CUDA) ------------------------------- */
int gshmemi_agg_cuda_alloc(gshmemi_agg_host_t *a);     /* dev_rt (copy of rt), sum */
void gshmemi_agg_cuda_free(gshmemi_agg_host_t *a);
int gshmemi_agg_cuda_stream(int device, void **stream_p);  /* the service thread's */
void gshmemi_agg_cuda_stream_destroy(void *stream);
/* Launches the service kernel on stream and waits for it. */
int gshmemi_agg_cuda_round(gshmemi_agg_host_t *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEMI_AGG_HOST_H */

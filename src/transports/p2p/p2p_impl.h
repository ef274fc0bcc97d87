/* p2p_impl.h: the p2p transport's private state, shared by its files. */
#ifndef GSHMEMI_P2P_IMPL_H
#define GSHMEMI_P2P_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "p2p.h"
#include "base/heap/heap_cuda_batch.h"
#include "base/util/log.h"

#define P2P_SUBSYS GSHMEMI_SUBSYS_TRANSPORT

typedef struct p2p_priv {
    int my_pe, n_pes;
    gshmemi_bootstrap_t *boot; /* for the barrier of finalize */
    int device;                /* this PE's CUDA device (the heap's) */
    size_t size;               /* heap bytes, the same on every PE */
    void **base;               /* [n_pes] host table: peer heap bases, NULL if not reached */
    unsigned char *opened;     /* [n_pes] 1 where base came from cudaIpcOpenMemHandle */
    void **base_dev;           /* [n_pes] the same table in device memory */
    cudaStream_t stream;       /* every copy and AMO kernel, in issue order */
    int own_reach;             /* tp->reach was allocated here */
    gshmemi_cbatch_t *batch;   /* small ops without a CUDA call each; NULL: none */
} p2p_priv_t;

#ifdef __cplusplus
extern "C" {
#endif

/* p2p_init.c */
int gshmemi_p2p_init(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env);
int gshmemi_p2p_finalize(gshmemi_transport_t *tp);

/* Log a failed CUDA call once, with what it was doing; returns rc_if. */
int gshmemi_p2p_cuda_error(cudaError_t e, int rc_if, const char *what, int pe);

/* p2p_ops.c: make priv->device current for one operation; *prev_p says
 * what p2p_dev_leave restores. */
void p2p_dev_enter(const p2p_priv_t *priv, int *prev_p);
void p2p_dev_leave(int prev);

/* Launches the small-op batch's records (base/heap/heap_cuda_batch.h);
 * every path into priv->stream calls it first: stream order is issue order. */
static inline int p2p_batch_flush(p2p_priv_t *priv)
{
    return priv->batch != NULL ? gshmemi_cbatch_flush(priv->batch) : GSHMEM_SUCCESS;
}


#ifdef __cplusplus
}
#endif

#endif /* GSHMEMI_P2P_IMPL_H */

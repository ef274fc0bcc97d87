/* p2p_impl.h: the p2p transport's private state, shared by its files. */
#ifndef GSHMEMI_P2P_IMPL_H
#define GSHMEMI_P2P_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "p2p.h"
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
} p2p_priv_t;

/* p2p_init.c */
int gshmemi_p2p_init(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env);
int gshmemi_p2p_finalize(gshmemi_transport_t *tp);

/* Log a failed CUDA call once, with what it was doing; returns rc_if. */
int gshmemi_p2p_cuda_error(cudaError_t e, int rc_if, const char *what, int pe);

#endif /* GSHMEMI_P2P_IMPL_H */

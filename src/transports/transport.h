/* transport.h: one ops table for every transport (host control path).
 * Remote addresses are offsets into the target PE's symmetric heap; local
 * buffers are plain pointers (inside the local heap, a registered region,
 * or any host memory: a transport that needs registered local memory
 * bounces through its own buffers). A missing operation is a stub that
 * returns GSHMEM_ERR_NOT_SUPPORTED, never a NULL slot. */
#ifndef GSHMEMI_TRANSPORT_H
#define GSHMEMI_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "base/bootstrap/bootstrap.h"
#include "base/heap/heap.h"
#include "base/util/config.h"

typedef enum gshmemi_amo_op {
    GSHMEMI_AMO_SET = 0,        /* *dst = v */
    GSHMEMI_AMO_ADD,            /* *dst += v */
    GSHMEMI_AMO_FETCH,          /* result = *dst */
    GSHMEMI_AMO_FETCH_ADD,      /* result = *dst; *dst += v */
    GSHMEMI_AMO_SWAP,           /* result = *dst; *dst = v */
    GSHMEMI_AMO_CSWAP           /* result = *dst; if (*dst == cmp) *dst = v */
} gshmemi_amo_op_t;

typedef enum gshmemi_dtype {
    GSHMEMI_DT_INT32 = 0,
    GSHMEMI_DT_INT64,
    GSHMEMI_DT_UINT64
} gshmemi_dtype_t;

static inline size_t gshmemi_dtype_size(gshmemi_dtype_t dt)
{
    return dt == GSHMEMI_DT_INT32 ? 4 : 8;
}

/* What a transport sees of the runtime at init. */
typedef struct gshmemi_tp_env {
    const gshmemi_config_t *cfg;
    gshmemi_bootstrap_t *boot;     /* collective exchange */
    gshmemi_heap_t *heap;          /* the local heap, already created */
    const int *node_of;            /* node index of each PE */
    int my_pe, n_pes;
} gshmemi_tp_env_t;

typedef struct gshmemi_transport gshmemi_transport_t;

typedef struct gshmemi_transport_ops {
    size_t size;                                   /* sizeof(gshmemi_transport_ops_t) */
    const char *name;                              /* "shm", "ofi", "p2p" */
    /* Collective over all PEs (every PE calls it, even one that reaches no
     * peer). Sets tp->reach[pe] for the PEs it can serve. */
    int (*init)(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env);
    /* Collective; completes everything outstanding first. */
    int (*finalize)(gshmemi_transport_t *tp);
    /* Blocking unless nbi: returns when src may be reused (put) or the
     * data is in dst (get). nbi: completes at quiet. */
    int (*put)(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
               size_t n, int nbi);
    int (*get)(gshmemi_transport_t *tp, int pe, void *dst, uint64_t src_off,
               size_t n, int nbi);
    /* Atomic on dt at pe's heap offset off. operand/compare/result point to
     * one dt value each (result NULL for non-fetching ops). Blocking. */
    int (*amo)(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
               uint64_t off, const void *operand, const void *compare, void *result);
    /* Non-blocking non-fetching atomic (signals): ordered after all earlier
     * puts to the same pe when after_fence is set; completes at quiet. */
    int (*amo_nbi)(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op,
                   gshmemi_dtype_t dt, uint64_t off, const void *operand, int after_fence);
    /* Order earlier puts/AMOs before later ones, per target PE. */
    int (*fence)(gshmemi_transport_t *tp);
    /* Complete and make visible everything this PE issued. */
    int (*quiet)(gshmemi_transport_t *tp);
    /* Local load/store address of pe's heap offset off, or NULL. */
    void *(*ptr)(gshmemi_transport_t *tp, int pe, uint64_t off);
    /* Drive progress once (called from wait loops); may be a no-op. */
    int (*progress)(gshmemi_transport_t *tp);
    /* Local memory registration for gshmem_register (may be a no-op). */
    int (*mem_register)(gshmemi_transport_t *tp, void *addr, size_t len);
    int (*mem_unregister)(gshmemi_transport_t *tp, void *addr);
} gshmemi_transport_ops_t;

struct gshmemi_transport {
    const gshmemi_transport_ops_t *ops;
    unsigned char *reach;      /* [n_pes]: 1 where this transport serves pe */
    int hw_atomics;            /* 1: AMOs are CPU atomics on mapped memory */
    void *priv;
};

/* Registered transports, by name; NULL when not built in. */
const gshmemi_transport_ops_t *gshmemi_transport_lookup(const char *name);

extern const gshmemi_transport_ops_t gshmemi_shm_ops;
extern const gshmemi_transport_ops_t gshmemi_ofi_ops;

#endif /* GSHMEMI_TRANSPORT_H */

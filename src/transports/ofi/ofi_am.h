/* ofi_am.h: private state of the ofi transport's active-message path (CUDA
 * heaps without an FI_HMEM provider: active messages through registered
 * host bounce buffers; see the top of ofi_am_source.c). Built only with
 * GSHMEM_HAVE_CUDA. */
#ifndef GSHMEMI_OFI_AM_H
#define GSHMEMI_OFI_AM_H

#include "ofi.h"

#define OFI_AM_HDR 64u                          /* header room before a payload */
#define OFI_AM_CHUNK (64u << 10)                /* payload bytes per message, at most */
#define OFI_AM_BUF (OFI_AM_HDR + OFI_AM_CHUNK)
#define OFI_AM_TX 64                            /* send buffers (a 64-bit bitmap) */
#define OFI_AM_WINDOW 16                        /* unacknowledged requests per target */
#define OFI_AM_RX_EXTRA 32                      /* receive buffers for replies and acks */

typedef enum ofi_am_type {
    OFI_AM_PUT = 1,     /* payload -> heap[off, +len) */
    OFI_AM_GET,         /* reply with heap[off, +len) */
    OFI_AM_AMO,         /* amo_op/dtype on heap[off]; reply (old value) when req != 0 */
    OFI_AM_REPLY,       /* to the requester: status, payload (GET) or operand = old value */
    OFI_AM_ACK          /* to a source: seq = its requests applied and visible so far */
} ofi_am_type_t;

typedef struct ofi_am_hdr {
    uint8_t type, amo_op, dtype, pad0;
    int32_t src_pe;          /* sender */
    int32_t status;          /* REPLY/ACK: 0 or the first failure at the target */
    uint32_t pad1;
    uint64_t seq;            /* request: number in the (sender, target) order; ACK: count */
    uint64_t off;            /* heap offset at the target */
    uint64_t len;            /* PUT/REPLY: payload bytes; GET: bytes asked; AMO: type size */
    uint64_t req;            /* requester's arena index + 1 to reply to; 0: no reply */
    uint64_t operand, compare;
} ofi_am_hdr_t;

_Static_assert(sizeof(ofi_am_hdr_t) <= OFI_AM_HDR, "ofi_am_hdr_t fits its room");

typedef struct ofi_am {
    int cuda;                /* the heap is CUDA memory (else host: the unit-test mode) */
    int dev;                 /* its device */
    void *stream;            /* cudaStream_t: target-side applies, in arrival order */
    void *ustream;           /* cudaStream_t: source-side copies out of device buffers */
    size_t chunk;            /* payload bytes per message */
    int err;                 /* first failure an ACK reported (atomic), for quiet */

    /* source side (any thread) */
    char *tx;
    struct fid_mr *tx_mr;
    void *tx_desc;
    uint64_t tx_free;        /* bitmap of free send buffers (atomic) */
    ofi_sync_t tx_sync;      /* sends from send buffers */
    uint64_t *next_seq;      /* [n_pes] next request number per target (atomic) */
    uint64_t *acked;         /* [n_pes] requests applied at each target (atomic) */

    /* target side: under lock (one thread reads the CQ at a time) */
    pthread_mutex_t lock;
    char *rx;
    struct fid_mr *rx_mr;
    void *rx_desc;
    int n_rx;
    ofi_op_t *rx_ops;        /* [n_rx] one per receive buffer, bounce = its index */
    uint64_t *applied;       /* [n_pes] requests applied from each source */
    uint64_t *acked_out;     /* [n_pes] count last acknowledged to each source */
    int *src_err;            /* [n_pes] first failure to report to each source */
    ofi_op_t **stash;        /* [n_pes] requests that arrived ahead of their turn */
    ofi_op_t *done;          /* applied buffers waiting for the stream before reuse */
    ofi_op_t *retry;         /* buffers whose repost or reply send hit -FI_EAGAIN */
    int dirty;               /* applies queued on stream since the last sync */
    int ack_due;             /* some source may be owed an ACK */
    int activity;            /* a pass completed something (atomic; ofi_am_hot) */
} ofi_am_t;

static inline char *ofi_am_tx_ptr(ofi_am_t *st, int slot)
{
    return st->tx + (size_t)slot * OFI_AM_BUF;
}

static inline char *ofi_am_rx_ptr(ofi_am_t *st, int idx)
{
    return st->rx + (size_t)idx * OFI_AM_BUF;
}

/* ofi_am_target.c: the receive side */
int ofi_am_post_recv(ofi_state_t *s, ofi_op_t *op);

/* ofi_am_mem.c: memory of the active-message path. The heap side and the
 * bounce buffers are CUDA memory / pinned host memory when st->cuda, plain
 * host memory otherwise; "user" buffers are anything the caller passed. */
int ofi_smem_init(ofi_am_t *st, const gshmemi_heap_t *heap);
void ofi_smem_fini(ofi_am_t *st);
int ofi_smem_alloc(ofi_am_t *st, size_t len, void **p_p);
void ofi_smem_free(ofi_am_t *st, void *p);
/* Make st->dev current in this thread; *prev_p: the device to restore or -1. */
void ofi_smem_dev_enter(ofi_am_t *st, int *prev_p);
void ofi_smem_dev_leave(int prev);
/* Synchronous copies between a host buffer and a user buffer (host or
 * device memory), through stream (st->stream or st->ustream). */
int ofi_smem_from_user(ofi_am_t *st, void *stream, void *host_dst, const void *src, size_t n);
int ofi_smem_to_user(ofi_am_t *st, void *stream, void *dst, const void *host_src, size_t n);
/* Heap side, on st->stream in order: write is asynchronous (see sync), read
 * waits; amo is asynchronous unless result is wanted. */
int ofi_smem_heap_write(ofi_am_t *st, void *heap_dst, const void *host_src, size_t n);
int ofi_smem_heap_read(ofi_am_t *st, void *host_dst, const void *heap_src, size_t n);
int ofi_smem_heap_amo(ofi_am_t *st, void *heap_p, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                      const void *operand, const void *compare, void *result);
int ofi_smem_sync(ofi_am_t *st);

#endif /* GSHMEMI_OFI_AM_H */

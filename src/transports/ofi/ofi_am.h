/* ofi_am.h: private state of the ofi transport's active-message path (CUDA
 * heaps without an FI_HMEM provider: active messages through registered
 * host bounce buffers; see the top of ofi_am_source.c). Built only with
 * GSHMEM_HAVE_CUDA. */
#ifndef GSHMEMI_OFI_AM_H
#define GSHMEMI_OFI_AM_H

#include "ofi.h"

#define OFI_AM_HDR 64u                          /* header room before a payload */
#define OFI_AM_REC 16u                          /* a PUT record's header (ofi_am_rec_t) */
#define OFI_AM_TX 64                            /* send buffers (a 64-bit bitmap) */
#define OFI_AM_WINDOW 16                        /* unacknowledged requests per target */
#define OFI_AM_RX_EXTRA 32                      /* receive buffers for replies and acks */
#define OFI_AM_BATCHES 32                       /* target: passes' applies in flight */
#define OFI_AM_MARKS 8                          /* quiet marks in flight (engine) */
#define OFI_AM_SMALL 16384u                     /* messages up to this size take rail 0 */

typedef enum ofi_am_type {
    OFI_AM_PUT = 1,     /* len bytes of records: ofi_am_rec_t + payload padded to
                         * 16 B, applied in order; operand = the number of records */
    OFI_AM_GET,         /* reply with heap[off, +len) */
    OFI_AM_AMO,         /* amo_op/dtype on heap[off]; reply (old value) when req != 0 */
    OFI_AM_REPLY,       /* to the requester: status, payload (GET) or operand = old value */
    OFI_AM_ACK          /* to a source: seq = its requests applied and visible so far */
} ofi_am_type_t;

/* One put inside a PUT message; its payload follows, padded to OFI_AM_REC. */
typedef struct ofi_am_rec {
    uint64_t off;            /* heap offset at the target */
    uint64_t len;            /* payload bytes | OFI_AM_REC_FENCE */
} ofi_am_rec_t;

/* In a record's len: the first record after its source's fence (ofi_fence):
 * the target applies it after every earlier record. Fences are otherwise
 * free: a source's requests are applied in order, except small records,
 * which the target's batch applies in parallel up to the next fence. */
#define OFI_AM_REC_FENCE (1ull << 63)

_Static_assert(sizeof(ofi_am_rec_t) == OFI_AM_REC, "ofi_am_rec_t is one record header");

static inline size_t ofi_am_pad(size_t n)
{
    return (n + OFI_AM_REC - 1) & ~(size_t)(OFI_AM_REC - 1);
}

/* The PUT message being filled for one target (source side, under src_lock). */
typedef struct ofi_am_open {
    int slot;                /* its send buffer, -1: none open */
    size_t used;             /* bytes after the header */
    uint32_t nrec;
    int copies;              /* device copies issued into it */
    uint64_t t_open;         /* when it was opened (ns): progress closes old ones */
    /* rows of device memory not copied yet: run_n rows of run_len bytes from
     * run_src (contiguous) to run_dst, one record apart; one 2D copy */
    const char *run_src;
    char *run_dst;
    size_t run_len;
    uint32_t run_n;
} ofi_am_open_t;

/* A closed message waiting for its device copies before it is sent. */
typedef struct ofi_am_ready {
    int slot, pe, copies;
    size_t len;
} ofi_am_ready_t;

/* One endpoint of the path (a rail). Rail 0 is the transport's own
 * endpoint (s->domain, s->ep, s->cq; its progress thread); rails 1.. have
 * their own domain, AV, CQ, endpoint and thread (ofi_am_rail.c), so that
 * the provider's copies and socket calls of different messages run on
 * different cores. Requests are numbered per target and applied in that
 * order whatever rail brought them, so PUT messages to one PE take the
 * rails in turn (seq % n_rails) unless small (OFI_AM_SMALL); header-only
 * requests, replies to them and ACKs use rail 0. */
typedef struct ofi_am_rail {
    struct ofi_state *s;
    int idx;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    int cq_fd;               /* its wait fd, or -1 */
    struct fid_mr *tx_mr, *rx_mr;
    void *tx_desc, *rx_desc;
    fi_addr_t *addr;         /* [n_pes] each PE's endpoint of this rail */
    pthread_mutex_t lock;    /* held by the one thread reading its CQ and sending on it */
    /* PUT messages handed to this rail (one producer at a time: ofi_am_pump
     * under src_lock; one consumer: the holder of lock) */
    ofi_am_ready_t q[OFI_AM_TX];
    ofi_op_t *q_op[OFI_AM_TX];
    unsigned q_head, q_tail;
    uint64_t msgs, bytes;    /* sent on this rail */
    pthread_t thread;        /* rails 1.. */
    int started;
    gshmemi_idle_t idle;
} ofi_am_rail_t;

/* A quiet mark (ofi_am_quiet_mark): what had been issued when it was made. */
typedef struct ofi_am_mark {
    uint64_t *seq;           /* [n_pes] next_seq */
    uint64_t tx, nbi;        /* tx_sync.posted and s->dchan.nbi.posted */
} ofi_am_mark_t;

/* What the source side did (printed at INFO when the transport closes). */
typedef struct ofi_am_stats {
    uint64_t puts, msgs, bytes, copies, window_waits, tx_waits, copy_waits;
} ofi_am_stats_t;

/* 64 bytes: a header-only message fits tcp;ofi_rxm's 64-byte inject. */
typedef struct ofi_am_hdr {
    uint8_t type, amo_op, dtype;
    int8_t status;           /* REPLY/ACK: 0 or the first failure at the target (a
                              * GSHMEM_ERR_*, -1..-17) */
    int32_t src_pe;          /* sender */
    uint64_t key;            /* the sender's key (its card's): a message whose key is
                              * not src_pe's is dropped (ofi_secure.c) */
    uint64_t seq;            /* request: number in the (sender, target) order; ACK: count */
    uint64_t off;            /* heap offset at the target */
    uint64_t len;            /* PUT/REPLY: payload bytes; GET: bytes asked; AMO: type size */
    uint64_t req;            /* requester's arena index + 1 to reply to; 0: no reply */
    uint64_t operand, compare;
} ofi_am_hdr_t;

_Static_assert(sizeof(ofi_am_hdr_t) == OFI_AM_HDR, "ofi_am_hdr_t fills its room");

typedef struct ofi_am {
    int cuda;                /* the heap is CUDA memory (else host: the unit-test mode) */
    int dev;                 /* its device */
    void *stream;            /* cudaStream_t: target-side applies, in arrival order */
    void *ustream;           /* cudaStream_t: source-side copies out of device buffers */
    struct gshmemi_cbatch *batch;   /* target: records of <= 8 bytes, in stream; NULL: none */
    size_t chunk;            /* payload bytes per message */
    size_t buf;              /* bytes of one send or receive buffer: OFI_AM_HDR + chunk */
    int coalesce;            /* GSHMEM_OFI_AM_COALESCE: puts share PUT messages */
    int err;                 /* first failure an ACK reported (atomic), for quiet */

    /* source side: messages being filled and closed ones waiting for their
     * copies (in request order), under src_lock */
    pthread_mutex_t src_lock;
    ofi_am_open_t *open;     /* [n_pes] */
    ofi_am_ready_t ready[OFI_AM_TX];
    unsigned ready_head, ready_tail;   /* written under src_lock, read anywhere */
    int n_open;              /* open messages (atomic; progress stays hot while > 0) */
    void **ev;               /* [OFI_AM_TX] cudaEvent_t per send buffer (CUDA heap) */
    ofi_am_stats_t stats;
    uint64_t foreign;        /* messages dropped for a wrong key (target side) */
    /* quiet marks (ofi_am_quiet_mark): what had been issued at each */
    ofi_am_mark_t marks[OFI_AM_MARKS];
    uint64_t n_marks;        /* marks made (the next one's number) */
    unsigned tests;          /* ofi_am_quiet_test's looks (the engine's thread only) */

    ofi_am_rail_t rails[OFI_RAILS_MAX];
    int n_rails;

    /* source side (any thread) */
    char *tx;
    uint64_t tx_free;        /* bitmap of free send buffers (atomic) */
    ofi_sync_t tx_sync;      /* sends from send buffers */
    uint64_t *next_seq;      /* [n_pes] next request number per target (atomic) */
    uint64_t *acked;         /* [n_pes] requests applied at each target (atomic) */

    /* target side: under lock (one thread reads the CQ at a time) */
    pthread_mutex_t lock;
    char *rx;
    int n_rx;
    ofi_op_t *rx_ops;        /* [n_rx] one per receive buffer, bounce = its index */
    uint64_t *applied;       /* [n_pes] requests applied from each source */
    uint64_t *acked_out;     /* [n_pes] count last acknowledged to each source */
    int *src_err;            /* [n_pes] first failure to report to each source */
    unsigned char *fence_next;   /* [n_pes] source: mark the next record OFI_AM_REC_FENCE */
    ofi_op_t **stash;        /* [n_pes] requests that arrived ahead of their turn */
    ofi_op_t *done;          /* buffers applied in this pass (reused once visible) */
    /* passes whose applies are queued on st->stream, oldest first: each
     * one's buffers and the applied counts it makes visible (ACKed) */
    ofi_op_t *batch_done[OFI_AM_BATCHES];
    uint64_t *batch_applied; /* [OFI_AM_BATCHES][n_pes] */
    unsigned batch_head, batch_tail;   /* tail written under lock, read by ofi_am_hot */
    void **tev;              /* [OFI_AM_BATCHES] cudaEvent_t (CUDA heap) */
    uint64_t *visible;       /* [n_pes] requests of each source applied and visible */
    ofi_op_t *retry;         /* buffers whose repost or reply send hit -FI_EAGAIN */
    int pending;             /* requests applied in this pass (a batch to make) */
    int ack_due;             /* some source may be owed an ACK */
    int activity;            /* a pass completed something (atomic; ofi_am_hot) */
} ofi_am_t;

static inline char *ofi_am_tx_ptr(ofi_am_t *st, int slot)
{
    return st->tx + (size_t)slot * st->buf;
}

static inline char *ofi_am_rx_ptr(ofi_am_t *st, int idx)
{
    return st->rx + (size_t)idx * st->buf;
}

/* ofi_am_target.c: the receive side */
int ofi_am_post_recv(ofi_state_t *s, ofi_op_t *op);
/* One pass over rail r: its queued sends, its completions (the target's
 * share under st->lock); returns the work done or < 0. */
int ofi_am_rail_pass(ofi_state_t *s, ofi_am_rail_t *r);

/* ofi_am_rail.c */
int ofi_am_rails_open(ofi_state_t *s, int n);
void ofi_am_rails_close(ofi_state_t *s);   /* after rail 0's endpoint is closed */
/* Hand the ready PUT message m (its op counted in tx_sync) to its rail;
 * sent now if the rail is free, else by the rail's next pass. */
void ofi_am_rail_queue(ofi_state_t *s, const ofi_am_ready_t *m, ofi_op_t *op, uint64_t seq);
/* Send what is queued on r (r->lock held); returns how many went or < 0. */
int ofi_am_rail_drain(ofi_state_t *s, ofi_am_rail_t *r);

/* ofi_am_mem.c: memory of the active-message path. The heap side and the
 * bounce buffers are CUDA memory / pinned host memory when st->cuda, plain
 * host memory otherwise; "user" buffers are anything the caller passed. */
/* init: batch 1 gives the target a small-op batch (GSHMEM_OFI_AM_BATCH) on
 * a CUDA heap: heap writes of up to 8 bytes a row become its records. */
int ofi_smem_init(ofi_am_t *st, const gshmemi_heap_t *heap, int batch);
void ofi_smem_fini(ofi_am_t *st);
int ofi_smem_alloc(ofi_am_t *st, size_t len, void **p_p);
void ofi_smem_free(ofi_am_t *st, void *p);
/* Make st->dev current in this thread; *prev_p: the device to restore or -1. */
void ofi_smem_dev_enter(ofi_am_t *st, int *prev_p);
void ofi_smem_dev_leave(int prev);
/* Synchronous copies between a host buffer and a user buffer (host or
 * device memory), through stream (st->stream or st->ustream). */
int ofi_smem_from_user(ofi_am_t *st, void *stream, void *host_dst, const void *src, size_t n);
/* 1 when src is device memory (the heap's range first, then the runtime). */
int ofi_smem_is_device(ofi_am_t *st, const gshmemi_heap_t *heap, const void *src);
/* Source side, on st->ustream, not waited for: height rows of width bytes
 * from device memory src (rows contiguous) to host dst (rows dpitch apart). */
int ofi_smem_rows_from_device(ofi_am_t *st, void *dst, size_t dpitch, const void *src,
                              size_t width, size_t height);
/* Events (CUDA heap; a host heap has none and needs none): st->ev, one per
 * send buffer, and st->tev, one per target batch. mark records ev after
 * the work issued so far on stream; marked: 1 once it is done (always on a
 * host heap), 0 before, < 0 on failure. wait_copies waits for every copy
 * issued on st->ustream. */
int ofi_smem_events_init(ofi_am_t *st);
void ofi_smem_events_fini(ofi_am_t *st);
int ofi_smem_mark(ofi_am_t *st, void *ev, void *stream);
int ofi_smem_marked(ofi_am_t *st, void *ev);
int ofi_smem_wait_copies(ofi_am_t *st);
int ofi_smem_to_user(ofi_am_t *st, void *stream, void *dst, const void *host_src, size_t n);
/* Heap side, on st->stream in order: write_rows (height rows of width bytes,
 * spitch apart in host_src, dpitch apart in the heap) is asynchronous (see
 * sync and the events; rows of <= 8 bytes go into the batch, which every
 * other call on st->stream launches first), read waits; amo is
 * asynchronous unless result is wanted. */
int ofi_smem_heap_write_rows(ofi_am_t *st, void *heap_dst, size_t dpitch, const void *host_src,
                             size_t spitch, size_t width, size_t height);
int ofi_smem_heap_read(ofi_am_t *st, void *host_dst, const void *heap_src, size_t n);
int ofi_smem_heap_amo(ofi_am_t *st, void *heap_p, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                      const void *operand, const void *compare, void *result);
int ofi_smem_sync(ofi_am_t *st);
/* The next heap write is applied after every earlier one (the batch's
 * fence; copies are in stream order anyway). */
void ofi_smem_heap_fence(ofi_am_t *st);

#endif /* GSHMEMI_OFI_AM_H */

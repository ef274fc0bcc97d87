/* sq.h: the submission/completion ring between GPU (or host) producers and
 * the proxy engine, for CUDA, HIP and plain C. Bodies: impl/sq_impl.h
 * (producer), impl/sq_consumer_impl.h (consumer). Multi-producer, single
 * consumer; `capacity` (a power of two) 32-byte WQEs, entry i in slot
 * i & (capacity - 1). A producer reserves with one atomic add on `head`,
 * waits while the ring is full (never drops), writes words 0..2, then ctrl
 * with the lap in one release store (the doorbell). The consumer publishes
 * `tail` and `completed` in batches and when idle; a nonzero `status` is
 * the engine's error, returned by every producer wait. Layout, lap rule,
 * producers' cache, ordering: docs/DESIGN.md#the-queue-protocol. */
#ifndef GSHMEMI_DEVICE_SQ_H
#define GSHMEMI_DEVICE_SQ_H

#include <stdint.h>
#include "port.h"
#include "gshmem_types.h"

/* ---- the WQE (wire format between producers and the engine) ---------------- */

/* 32 bytes, 4 words; word 3 (ctrl) is written last with a release store. */
typedef struct gshmemi_wqe {
    uint64_t laddr;   /* w0: local address (source of PUT, destination of GET,
                       *     result of fetching AMOs) */
    uint64_t roff;    /* w1: remote offset in the target's symmetric heap */
    uint64_t value;   /* w2: byte count (PUT/GET), operand (AMO/SIGNAL) */
    uint64_t ctrl;    /* w3: op | flags << 8 | aux << 16 | lap << 24 | pe << 32 */
} gshmemi_wqe_t;
GSHMEMI_STATIC_ASSERT(sizeof(gshmemi_wqe_t) == 32, "a WQE is 32 bytes");

enum gshmemi_wqe_op {
    GSHMEMI_OP_NOP = 0,
    GSHMEMI_OP_PUT = 1,
    GSHMEMI_OP_GET = 2,
    GSHMEMI_OP_PUT_SIGNAL = 3,  /* + 1 EXT slot: roff = signal offset,
                                 *   value = signal value, aux = signal op */
    GSHMEMI_OP_AMO = 4,         /* aux = AMO kind; CAS: + 1 EXT slot (value =
                                 *   the new value, w2 of the first = compare) */
    GSHMEMI_OP_SIGNAL = 5,
    GSHMEMI_OP_FENCE = 6,
    GSHMEMI_OP_QUIET = 7,
    GSHMEMI_OP_AGG_FLUSH = 8,
    GSHMEMI_OP_EXT = 9          /* continuation of the previous entry */
};

enum gshmemi_wqe_flag {
    GSHMEMI_WQE_F_FENCE = 1u << 0,  /* ordered after earlier entries to pe */
    GSHMEMI_WQE_F_AMO32 = 1u << 1   /* AMO on 4 bytes (default 8) */
};

#define GSHMEMI_WQE_LAP_SHIFT 24
#define GSHMEMI_WQE_LAP_MASK 0xffull

/* ctrl word without the lap (the ring adds it). */
GSHMEMI_HD uint64_t gshmemi_wqe_ctrl(uint32_t op, uint32_t flags, uint32_t aux,
                                     uint32_t pe)
{
    return (uint64_t)(op & 0xffu) | (uint64_t)(flags & 0xffu) << 8 |
           (uint64_t)(aux & 0xffu) << 16 | (uint64_t)pe << 32;
}
GSHMEMI_HD uint32_t gshmemi_wqe_op(const gshmemi_wqe_t *w) { return (uint32_t)(w->ctrl & 0xff); }
GSHMEMI_HD uint32_t gshmemi_wqe_flags(const gshmemi_wqe_t *w) { return (uint32_t)(w->ctrl >> 8) & 0xff; }
GSHMEMI_HD uint32_t gshmemi_wqe_aux(const gshmemi_wqe_t *w) { return (uint32_t)(w->ctrl >> 16) & 0xff; }
GSHMEMI_HD uint32_t gshmemi_wqe_pe(const gshmemi_wqe_t *w) { return (uint32_t)(w->ctrl >> 32); }

/* Producers' copies of the engine's words (device memory, zeroed). */
typedef struct gshmemi_ring_cache {
    uint64_t tail;            /* <= *ring.tail */
    uint64_t completed;       /* <= *ring.completed */
    uint32_t status;          /* copy of *ring.status once nonzero */
    uint32_t token;           /* 1 while one thread reads the host words */
} gshmemi_ring_cache_t;

/* ---- the ring descriptor (shared by producers and the consumer) ------------- */

typedef struct gshmemi_ring {
    gshmemi_wqe_t *slots;     /* host-pinned, mapped: [capacity] */
    uint64_t *tail;           /* host-pinned: consumed count, engine publishes */
    uint64_t *completed;      /* host-pinned: completed count, engine publishes */
    uint32_t *status;         /* host-pinned: 0, or the engine's fatal error */
    uint64_t *head;           /* device memory: reservation counter */
    gshmemi_ring_cache_t *cache;  /* device memory: producers' copies */
    uint32_t capacity;        /* power of two, >= 2 */
    uint32_t log2cap;
} gshmemi_ring_t;

/* Channels: one ring per group of blocks. */
typedef struct gshmemi_channels {
    gshmemi_ring_t *rings;    /* [count], in device-readable memory */
    uint32_t count;
} gshmemi_channels_t;

GSHMEMI_HD gshmemi_ring_t *gshmemi_channel_ring(const gshmemi_channels_t *ch,
                                                uint32_t group)
{
    return &ch->rings[group % ch->count];
}

/* Fill a descriptor from separately allocated, zeroed memory. Returns
 * GSHMEM_ERR_INVALID_ARG (without logging: the caller names the setting)
 * when capacity is not a power of two >= 2 or a pointer is NULL. */
GSHMEMI_HD int gshmemi_ring_init(gshmemi_ring_t *ring_p, gshmemi_wqe_t *slots,
                                 uint32_t capacity, uint64_t *tail,
                                 uint64_t *completed, uint32_t *status,
                                 uint64_t *head, gshmemi_ring_cache_t *cache);

/* ---- producer (device or host threads) ----------------------------------- */

/* Reserve n consecutive entries; returns the first index. */
GSHMEMI_HD uint64_t gshmemi_ring_reserve(const gshmemi_ring_t *r, uint32_t n);
/* Wait until entries [idx, idx + n) fit (back-pressure). Returns 0 or the
 * engine's error; *waits_p (may be NULL) gets the back-off rounds spent. */
GSHMEMI_HD int gshmemi_ring_wait_space(const gshmemi_ring_t *r, uint64_t idx,
                                       uint32_t n, uint32_t *waits_p);
/* Publish entry idx: body words, then the ctrl word with the lap (release). */
GSHMEMI_HD void gshmemi_ring_write(const gshmemi_ring_t *r, uint64_t idx,
                                   const gshmemi_wqe_t *wqe);
/* All three for n entries wqes[0..n), 1 <= n <= capacity; returns 0 and the
 * first index in *idx_p, GSHMEM_ERR_INVALID_ARG for a bad n, or the
 * engine's error. */
GSHMEMI_HD int gshmemi_ring_post(const gshmemi_ring_t *r, const gshmemi_wqe_t *wqes,
                                 uint32_t n, uint32_t *waits_p, uint64_t *idx_p);
/* Refresh the cache from the host words if this thread wins the token. */
GSHMEMI_HD void gshmemi_ring_refresh(const gshmemi_ring_t *r);
/* Quiet's refresh: the completed count only (and the status when
 * with_status); 1 when this thread read the host words. */
GSHMEMI_HD int gshmemi_ring_refresh_completed(const gshmemi_ring_t *r, int with_status);
/* Wait until entry idx is complete (completed > idx). 0 or the engine's error. */
GSHMEMI_HD int gshmemi_ring_quiet(const gshmemi_ring_t *r, uint64_t idx);

/* ---- consumer (the engine thread; host) ------------------------------------- */

typedef struct gshmemi_ring_consumer {
    gshmemi_ring_t ring;           /* host addresses */
    uint64_t tail;                 /* next index to read */
    uint64_t tail_published;
    uint64_t completed;            /* entries [0, completed) are complete */
    uint64_t completed_published;
    uint32_t batch;                /* publish every `batch` entries (>= 1) */
} gshmemi_ring_consumer_t;

GSHMEMI_HD void gshmemi_ring_consumer_init(gshmemi_ring_consumer_t *c,
                                           const gshmemi_ring_t *ring, uint32_t batch);
/* Take the next entry: 1 and *wqe_p (lap cleared from ctrl) when one is
 * ready, its index in *idx_p (may be NULL); 0 when the ring is empty (then
 * pending tail and completed counts are published: idle flush). */
GSHMEMI_HD int gshmemi_ring_poll(gshmemi_ring_consumer_t *c, gshmemi_wqe_t *wqe_p,
                                 uint64_t *idx_p);
/* Entries [0, upto) are complete (monotonic; upto <= c->tail). */
GSHMEMI_HD void gshmemi_ring_complete(gshmemi_ring_consumer_t *c, uint64_t upto);
/* Publish tail and completed now. The engine calls it whenever it has
 * nothing to do (completions after the last empty poll wait otherwise). */
GSHMEMI_HD void gshmemi_ring_flush(gshmemi_ring_consumer_t *c);
/* Fatal engine error: producers' waits return code (negative status). */
GSHMEMI_HD void gshmemi_ring_set_error(gshmemi_ring_consumer_t *c, int code);

#include "impl/sq_impl.h"
#include "impl/sq_consumer_impl.h"

#endif /* GSHMEMI_DEVICE_SQ_H */

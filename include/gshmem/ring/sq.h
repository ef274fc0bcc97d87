/* sq.h: the submission/completion ring between GPU (or host) producers and
 * the proxy engine. Header-only; the same source compiles for CUDA, HIP and
 * plain C (host tests, the engine). Bodies: impl/sq_impl.h (producer) and
 * impl/sq_consumer_impl.h (consumer).
 *
 * DESIGN
 *
 * A ring is multi-producer (any number of device or host threads) and
 * single-consumer (the engine thread). It holds `capacity` (a power of two)
 * fixed-size 32-byte WQEs. Entry i (a 64-bit index that never wraps) lives
 * in slot i & (capacity - 1) during lap i >> log2(capacity).
 *
 * Memory layout (separate pointers, never one allocation assumed):
 *   slots, tail, completed, status   host-pinned memory mapped into the GPU
 *                                    (the engine polls slots and writes the
 *                                    counters without touching the GPU);
 *   head, cache                      device memory (only producers touch
 *                                    them; the engine never reads them).
 * `cache` (gshmemi_ring_cache_t) holds the producers' copies of tail,
 * completed and status plus a try-lock token: waiting producers poll the
 * copies in device memory, and only the one thread that wins the token reads
 * the three host words and refreshes the copies. So
 * thousands of waiting threads cost the bus one read at a time per ring
 * (measured on an H200, 135k producer threads, 4 rings of 1024: 0.3-0.4 M
 * msg/s when every waiter read host memory, 3.7-6.7 M msg/s with the token). The token is never waited for (a loser
 * just backs off and looks at the copies again), so it cannot deadlock a
 * warp or wavefront.
 * In the host build every one of them is ordinary memory. Keep each counter
 * on its own 128-byte line (false sharing). Pointers in the descriptor are
 * the addresses producers use (cudaHostGetDevicePointer; the same value as
 * the host's under UVA); the consumer's copy may hold host addresses.
 *
 * Ownership without a valid array: word 3 of a WQE (ctrl) holds op, flags,
 * aux, an 8-bit LAP field and the PE. A producer writes words 0..2 with
 * plain stores, then ctrl with ONE release store (the doorbell). Entry i is
 * valid when ctrl.lap == (uint8_t)((i >> log2cap) + 1); zeroed memory
 * (lap 0) is never valid in lap 0, and a stale entry of the previous lap
 * always differs by one.
 *
 * Producer (gshmemi_ring_post = reserve + wait_space + write):
 *   1. idx = fetch_add(head, n)            (n consecutive slots, n >= 1)
 *   2. while idx + n - capacity > cache.tail:         (ring looks full)
 *          refresh (token winner: acquire-load tail, release-store it into
 *          cache.tail); back off (nanosleep / sched_yield); never drop.
 *      The acquire on tail and the release/acquire on cache.tail carry the
 *      engine's "I have copied slot s out" to the producer that reuses s.
 *   3. write words 0..2 (plain), release-store ctrl with the lap of idx.
 * Consumer (the engine thread, host C):
 *   poll slot tail & mask with an acquire load of ctrl; when the lap
 *   matches, copy the entry out and advance the private tail. The consumed
 *   tail is published (release) every `batch` entries and whenever the
 *   ring is found empty, so producers blocked on a full ring always
 *   progress. The CQ side is a `completed` counter: the number of entries,
 *   from index 0, whose operations are complete (the engine advances it in
 *   index order), published (release) in batches and when idle. Engine
 *   contract: call gshmemi_ring_flush() whenever it has nothing to do
 *   (completions that arrive after the last empty poll are otherwise held
 *   back until the next batch, and a quiet would wait for them).
 * Quiet: after posting entry idx, a producer waits until completed > idx
 *   (i.e. >= idx + 1), through cache.completed and the same refresh.
 * Errors: `status` (host-pinned) is 0 while the engine is healthy; the
 *   engine stores a negative gshmem_status_t there on a fatal error, and
 *   every producer spin loop returns that code (seen through cache.status)
 *   instead of hanging.
 * Multi-slot entries: an op that needs more than 32 bytes (PUT_SIGNAL, CAS)
 *   reserves n slots at once; the continuation slots carry op EXT and the
 *   consumer reads them as the next entries.
 * Channels: an array of rings (one per group of blocks); the caller picks
 *   one with gshmemi_channel_ring() (e.g. from blockIdx / group size).
 */
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
/* Publish tail and completed now. */
GSHMEMI_HD void gshmemi_ring_flush(gshmemi_ring_consumer_t *c);
/* Fatal engine error: producers' waits return code (negative status). */
GSHMEMI_HD void gshmemi_ring_set_error(gshmemi_ring_consumer_t *c, int code);

#include "impl/sq_impl.h"
#include "impl/sq_consumer_impl.h"

#endif /* GSHMEMI_DEVICE_SQ_H */

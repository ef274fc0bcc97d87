/* agg_buf.h: the producer side of the small-message aggregator. Header-only;
 * the same source compiles for CUDA, HIP and plain C (host tests, engine)
 * through ../device/port.h. Bodies: impl/agg_buf_impl.h. Receive side:
 * agg_apply.h.
 *
 * DESIGN
 *
 * Record (the wire format, shared with agg_apply.h): an 8-byte header word
 *     bits  0..39  destination offset in the target's symmetric heap (1 TiB)
 *     bits 40..55  payload length in bytes, 1..65535
 *     bits 56..63  GSHMEMI_AGG_REC_MAGIC (a zero or torn word never decodes)
 * then the payload, padded with unspecified bytes to a multiple of 8. A
 * record of n payload bytes takes gshmemi_agg_rec_size(n) = 8 + round8(n)
 * bytes; records are packed back to back from byte 0 of a buffer, so every
 * header is 8-byte aligned.
 *
 * Memory (separate pointers; zeroed memory is the valid initial state):
 *   data   [npes][nbufs][buf_bytes]  the buffers (device memory in the real
 *                                    system; the send reads them from there)
 *   slots  [npes][nbufs]             per-buffer control words (128 B each)
 *   cur    [npes]                    per-destination generation counter
 * Buffer generation G of destination pe lives in slot G % nbufs during lap
 * G / nbufs. slot.state = lap << 40 | fill: the 24-bit lap and the number of
 * bytes reserved, in ONE 64-bit word, so a reservation always knows which
 * generation it landed in and a recycle is a single store.
 *
 * Reservation (gshmemi_agg_store_step; many producers, device or host):
 *   g = cur[pe]; s = g % nbufs; expected lap L = g / nbufs.
 *   A relaxed look at slot s: lap L-1 and sealed -> the previous occupant of
 *   the slot is still in flight: return FULL (back-pressure; the caller
 *   backs off and calls again; nothing is ever dropped). Lap other than L
 *   and L-1 -> generation g is done: CAS cur g -> g+1 and look again.
 *   old = fetch_add(state, rec_size)         (the only hot atomic)
 *     fill(old) + rec <= cap: bytes [fill(old), +rec) are ours in the
 *         generation of lap(old) (whatever g we looked up); write header and
 *         payload with plain stores, then commit (below). The first
 *         reservation (fill(old) == 0) stamps ts = now (seal-by-age).
 *         An exact fit (fill(old) + rec == cap) also closes the buffer: that
 *         writer is its sealer too, S = cap (one add: rec + BIG - S).
 *     fill(old) < cap < fill(old) + rec: our add closed the buffer: we are
 *         its unique SEALER, with size S = fill(old); store sealed = S,
 *         CAS cur past this generation, add BIG - S to committed (below),
 *         then retry our record on the next buffer.
 *     fill(old) >= cap: already sealed; CAS cur past g; retry.
 *   Seal by age (gshmemi_agg_flush_slot; the flusher: engine thread or a
 *   device call): a slot with 0 < fill < cap and now - ts >= max_wait (or
 *   force) is sealed by CAS state (lap, f) -> (lap, f + cap), size S = f.
 *   The CAS fails if any reservation raced it; the flusher just looks again
 *   next round. Empty buffers are never sealed.
 *
 * Commit and send: committed counts bytes written. Each writer adds its
 * record size after its stores (acq_rel); the sealer adds BIG - S once.
 * The sum reaches exactly BIG = 2^62 only after the seal AND every reserved
 * byte was written, and exactly one add observes the result BIG: that
 * caller (writer, sealer or flusher) gets READY with a descriptor of the
 * buffer (pe, slot, data, S) and must send it. Nobody ever waits for another
 * thread's commit (no spin on a warp- or wavefront-mate: no SIMT deadlock).
 * Send hook: the core holds no function pointer (device data path); the
 * caller sends READY buffers (host test: a queue to a "network" thread;
 * real system: put-with-signal into the target's receive ring, or P2P
 * stores) and, once the target has applied it and the buffer may be
 * overwritten, calls gshmemi_agg_release(): committed, sealed and ts are
 * reset, then ONE release store sets state = (lap + 1) << 40 (open, empty,
 * next generation G + nbufs of that slot).
 *
 * Exactly once: within one lap the fill word only grows, so the fetch_adds
 * give disjoint byte ranges; the successful ones are exactly those ordered
 * before the first add that reached cap (or the flusher's CAS), whose
 * reservations sum to S. Hence the writers commit exactly S bytes and the
 * counter hits BIG once: one send per generation, containing every record
 * reserved in it. A store that did not reserve (sealed, FULL, sealer) holds
 * no bytes and retries, so every record is in exactly one sent buffer. The
 * slot is reopened only by release() after the send, so no record is
 * overwritten before delivery, and the release store / acq_rel fetch_add
 * pair orders the reset of committed before any new reservation.
 * Bounds: fill <= 2 * cap + (concurrent producers) * (max record) < 2^40.
 * Laps compare modulo 2^24 (a producer would have to stall for 16M laps of
 * one slot to be confused).
 * Clock: `now` is the caller's (ns; device: globaltimer / wall clock);
 * the producer's ts and the flusher's now must come from the same clock.
 */
#ifndef GSHMEMI_AGG_BUF_H
#define GSHMEMI_AGG_BUF_H

#include <stdint.h>
#include "gshmem/ring/port.h"
#include "gshmem_types.h"

/* ---- records ------------------------------------------------------------- */

#define GSHMEMI_AGG_REC_MAGIC 0xa6u
#define GSHMEMI_AGG_HDR_BYTES 8u
#define GSHMEMI_AGG_MAX_LEN 0xffffu                  /* 16-bit length */
#define GSHMEMI_AGG_MAX_OFFSET ((1ull << 40) - 1)    /* 40-bit offset */

GSHMEMI_HD uint32_t gshmemi_agg_rec_size(uint32_t len)
{
    return GSHMEMI_AGG_HDR_BYTES + ((len + 7u) & ~7u);
}
GSHMEMI_HD uint64_t gshmemi_agg_rec_encode(uint64_t offset, uint32_t len)
{
    return (offset & GSHMEMI_AGG_MAX_OFFSET) | (uint64_t)(len & 0xffffu) << 40 |
           (uint64_t)GSHMEMI_AGG_REC_MAGIC << 56;
}
GSHMEMI_HD uint64_t gshmemi_agg_rec_offset(uint64_t hdr) { return hdr & GSHMEMI_AGG_MAX_OFFSET; }
GSHMEMI_HD uint32_t gshmemi_agg_rec_len(uint64_t hdr) { return (uint32_t)(hdr >> 40) & 0xffffu; }
GSHMEMI_HD uint32_t gshmemi_agg_rec_magic(uint64_t hdr) { return (uint32_t)(hdr >> 56); }

/* ---- control words ---------------------------------------------------------- */

#define GSHMEMI_AGG_FILL_BITS 40
#define GSHMEMI_AGG_FILL_MASK ((1ull << GSHMEMI_AGG_FILL_BITS) - 1)
#define GSHMEMI_AGG_LAP_MASK 0xffffffull             /* 24-bit lap */
#define GSHMEMI_AGG_BIG (1ull << 62)                 /* committed when done */

/* One buffer's control (128 bytes: fill and committed on separate lines). */
typedef struct gshmemi_agg_slot {
    uint64_t state;        /* lap << 40 | fill (bytes reserved) */
    uint64_t ts;           /* `now` of the first reservation; 0: none yet */
    uint64_t sealed;       /* S, the sealed size (written by the sealer) */
    uint64_t pad0[5];
    uint64_t committed;    /* bytes written (+ BIG - S after the seal) */
    uint64_t pad1[7];
} gshmemi_agg_slot_t;
GSHMEMI_STATIC_ASSERT(sizeof(gshmemi_agg_slot_t) == 128, "slot is two 64-B lines");

/* Per-destination generation counter, alone on a 128-byte line. */
typedef struct gshmemi_agg_cur {
    uint64_t gen;
    uint64_t pad[15];
} gshmemi_agg_cur_t;

/* The descriptor (producers, flusher and releaser share it). */
typedef struct gshmemi_agg {
    uint8_t *data;                /* [npes * nbufs * buf_bytes], 8-B aligned */
    gshmemi_agg_slot_t *slots;    /* [npes * nbufs], zeroed at start */
    gshmemi_agg_cur_t *cur;       /* [npes], zeroed at start */
    uint64_t heap_size;           /* target heap bytes: records must fit */
    uint64_t max_wait;            /* seal-by-age bound, units of `now` */
    uint32_t npes;
    uint32_t nbufs;               /* buffers per destination, >= 1 */
    uint32_t buf_bytes;           /* multiple of 8, 16 .. 2^30 */
} gshmemi_agg_t;

/* A sealed, fully written buffer that the caller must send. */
typedef struct gshmemi_agg_ready {
    uint8_t *data;                /* the buffer (records from byte 0) */
    uint32_t bytes;               /* S: bytes of records */
    uint32_t pe;                  /* destination */
    uint32_t slot;                /* index in [0, nbufs) for release() */
    uint32_t lap;                 /* 24-bit lap (diagnostics) */
} gshmemi_agg_ready_t;

/* Flags returned by store_step / flush_slot (>= 0); errors are < 0. */
enum gshmemi_agg_flag {
    GSHMEMI_AGG_STORED = 1,       /* the record is in a buffer */
    GSHMEMI_AGG_READY = 2,        /* *ready_p must be sent by the caller */
    GSHMEMI_AGG_FULL = 4          /* back-pressure: back off, call again */
};

/* Fill a descriptor. GSHMEM_ERR_INVALID_ARG (not logged: the caller names
 * the setting) for a NULL pointer, npes or nbufs 0, buf_bytes not a
 * multiple of 8 or outside [16, 2^30], heap_size > 2^40. */
GSHMEMI_HD int gshmemi_agg_init(gshmemi_agg_t *agg_p, uint8_t *data,
                                gshmemi_agg_slot_t *slots, gshmemi_agg_cur_t *cur,
                                uint32_t npes, uint32_t nbufs, uint32_t buf_bytes,
                                uint64_t heap_size, uint64_t max_wait);

/* Largest payload one record may carry in this configuration. */
GSHMEMI_HD uint32_t gshmemi_agg_max_payload(const gshmemi_agg_t *a);

/* Check a store's arguments: GSHMEM_ERR_INVALID_PE (pe >= npes),
 * GSHMEM_ERR_INVALID_ARG (bytes 0 or > max_payload, src NULL),
 * GSHMEM_ERR_OUT_OF_HEAP (dst_off + bytes > heap_size), else 0. */
GSHMEMI_HD int gshmemi_agg_check(const gshmemi_agg_t *a, uint32_t pe, uint64_t dst_off,
                                 const void *src, uint32_t bytes);

/* One attempt to append the record (dst_off, bytes of src) for pe. Returns
 * an error of gshmemi_agg_check, or flags: STORED (done), READY (send
 * *ready_p; with STORED the record is in, without it call again), FULL
 * (nothing done: back off and call again). `now` stamps a new buffer. */
GSHMEMI_HD int gshmemi_agg_store_step(const gshmemi_agg_t *a, uint32_t pe, uint64_t dst_off,
                                      const void *src, uint32_t bytes, uint64_t now,
                                      gshmemi_agg_ready_t *ready_p);

/* The same step split in three, for callers that copy the payload with a
 * group of threads (the warp form): reserve (one thread), write the record
 * at r.at (gshmemi_agg_write_rec, or the group's own copy of header and
 * payload), then commit (the thread that reserved, after the group's
 * writes are ordered before it). reserve returns an error of
 * gshmemi_agg_check, or flags: GSHMEMI_AGG_RESERVED with *resv_p filled
 * (write, then commit: commit returns 0 or READY with *ready_p), READY
 * without RESERVED (send *ready_p, call again), FULL (back off, call
 * again). store_step is reserve + write_rec + commit. */
typedef struct gshmemi_agg_resv {
    uint8_t *at;        /* where the record goes (8-byte aligned) */
    uint64_t add;       /* the commit's add: record size (+ BIG - cap on an exact fit) */
    uint32_t pe, slot;
} gshmemi_agg_resv_t;
#define GSHMEMI_AGG_RESERVED 8
GSHMEMI_HD int gshmemi_agg_reserve(const gshmemi_agg_t *a, uint32_t pe, uint64_t dst_off,
                                   const void *src, uint32_t bytes, uint64_t now,
                                   gshmemi_agg_resv_t *resv_p, gshmemi_agg_ready_t *ready_p);
GSHMEMI_HD int gshmemi_agg_commit_resv(const gshmemi_agg_t *a, const gshmemi_agg_resv_t *r,
                                       gshmemi_agg_ready_t *ready_p);
/* Header and payload of a record into reserved bytes (plain stores). */
GSHMEMI_HD void gshmemi_agg_write_rec(uint8_t *dst, uint64_t dst_off, const void *src,
                                      uint32_t bytes);

/* Seal slot `slot` of pe if it holds records and is older than max_wait
 * (or force != 0). Returns 0, or READY with *ready_p to send. */
GSHMEMI_HD int gshmemi_agg_flush_slot(const gshmemi_agg_t *a, uint32_t pe, uint32_t slot,
                                      uint64_t now, int force, gshmemi_agg_ready_t *ready_p);

/* The buffer of r was delivered: reopen its slot for the next lap. */
GSHMEMI_HD void gshmemi_agg_release(const gshmemi_agg_t *a, const gshmemi_agg_ready_t *r);

#include "impl/agg_buf_impl.h"

#endif /* GSHMEMI_AGG_BUF_H */

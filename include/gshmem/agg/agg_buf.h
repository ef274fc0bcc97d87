/* agg_buf.h: the producer side of the small-message aggregator, for CUDA,
 * HIP and plain C (through ../ring/port.h). Bodies: impl/agg_buf_impl.h;
 * receive side: agg_apply.h. A record is an 8-byte header (offset:40 |
 * len:16 | magic:8) and its payload padded to 8 bytes, packed from byte 0
 * of a buffer. Each destination has nbufs buffers; one 64-bit word per
 * buffer (lap << 40 | fill) takes reservations by fetch_add. The producer
 * whose record does not fit seals the buffer (or a flusher seals it by
 * age), and the one add that completes `committed` (BIG = 2^62) returns
 * READY: that caller sends the buffer, then release() reopens it. Nobody
 * waits for another's commit. Exactly-once argument: docs/DESIGN.md#exactly-once. */
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

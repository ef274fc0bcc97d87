/* agg_apply.h: the receive side of the aggregator: a sealed buffer of
 * records (agg_buf.h) is applied to the target's heap, each payload copied
 * to base + offset, so the user never unpacks. For CUDA, HIP and plain C;
 * bodies: impl/agg_apply_impl.h. A buffer is validated whole before any
 * byte is written: a bad record (magic, length 0, past the end, outside
 * [0, heap_size)) rejects it and is named; nothing is half-applied.
 * Records of a buffer have disjoint destinations, so they are applied in
 * any order and in parallel: host one thread, device one warp per record
 * (apply_block) or one thread per record (apply_block_idx).
 * See docs/DESIGN.md#apply-agg_applyh-and-the-service. */
#ifndef GSHMEMI_AGG_APPLY_H
#define GSHMEMI_AGG_APPLY_H

#include <stdint.h>
#include "agg_buf.h"

/* Where a buffer went wrong (filled by validate on error). */
typedef struct gshmemi_agg_apply_err {
    uint64_t at;        /* byte position of the bad record in the buffer */
    uint64_t offset;    /* its destination offset (from the header) */
    uint32_t len;       /* its payload length (from the header) */
    uint32_t magic;     /* its magic byte */
} gshmemi_agg_apply_err_t;

/* Check every record of buf[0, bytes). Returns GSHMEM_SUCCESS and the number
 * of records in *nrec_p (may be NULL), or (filling *err_p, may be NULL):
 *   GSHMEM_ERR_OUT_OF_HEAP  offset + len > heap_size
 *   GSHMEM_ERR_INVALID_ARG  bytes not a multiple of 8, bad magic, length 0,
 *                           or the record runs past `bytes`. */
GSHMEMI_HD int gshmemi_agg_validate(const uint8_t *buf, uint32_t bytes, uint64_t heap_size,
                                    uint32_t *nrec_p, gshmemi_agg_apply_err_t *err_p);

/* Copy the payloads of records k with k % nworkers == worker to base +
 * offset; within a record, bytes lane, lane + nlanes, ... Call only on a
 * validated buffer. Host: worker 0 of 1, lane 0 of 1 copies everything. */
GSHMEMI_HD void gshmemi_agg_apply_part(uint8_t *base, const uint8_t *buf, uint32_t bytes,
                                       uint32_t worker, uint32_t nworkers, uint32_t lane,
                                       uint32_t nlanes);

/* Validate, then apply all records (one thread). Same returns as validate;
 * on error nothing is written. */
GSHMEMI_HD int gshmemi_agg_apply(uint8_t *base, uint64_t heap_size, const uint8_t *buf,
                                 uint32_t bytes, uint32_t *nrec_p,
                                 gshmemi_agg_apply_err_t *err_p);

#if defined(__CUDACC__) || defined(__HIPCC__)
/* Every thread of the block calls it with the same arguments. Returns the
 * validate result in every thread; thread 0 fills *err_p (may be NULL). */
__device__ inline int gshmemi_agg_apply_block(uint8_t *base, uint64_t heap_size,
                                              const uint8_t *buf, uint32_t bytes,
                                              gshmemi_agg_apply_err_t *err_p);

/* The same for large buffers of small records: thread 0 walks the headers
 * once (validating) and lists record positions in idx (shared memory,
 * cap >= 1 entries, refilled per cap records); then each thread copies
 * whole records (one thread per record, words as wide as the destination's
 * alignment allows). sh: one shared int per block. Every thread of the
 * block calls it with the same arguments; returns the validate result. */
__device__ inline int gshmemi_agg_apply_block_idx(uint8_t *base, uint64_t heap_size,
                                                  const uint8_t *buf, uint32_t bytes,
                                                  uint32_t *idx, uint32_t cap, int *sh,
                                                  gshmemi_agg_apply_err_t *err_p);
#endif

#if defined(GSHMEMI_PORT_HOST)
/* "record at byte B of the buffer: offset O length L outside the heap of H
 * bytes" and the like, for the caller's log line (host only). */
static inline void gshmemi_agg_apply_describe(int rc, const gshmemi_agg_apply_err_t *e,
                                              uint64_t heap_size, char *msg, uint32_t n);
#endif

#include "impl/agg_apply_impl.h"

#endif /* GSHMEMI_AGG_APPLY_H */

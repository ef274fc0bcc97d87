/* gshmem_agg.h: the asynchronous small-message aggregator, host API.
 * The device calls (gshmem_agg_store, gshmem_agg_flush, gshmem_agg_drain
 * ...) are in gshmem_device.h (impl/gshmem_dev_agg.h), which includes this.
 *
 * What it is: kernels store many small records (a destination address in
 * the symmetric heap of some PE, and 1 .. 65535 payload bytes) with
 * gshmem_agg_store; records to one PE are packed into a buffer, and a full
 * buffer goes to that PE as ONE put-with-signal through the queue path
 * instead of one message per record. The target applies the records to
 * their destination addresses itself: the user never unpacks.
 *
 * Policy, per aggregator (gshmem_agg_attr_t, defaults from the GSHMEM_AGG_*
 * settings):
 * - buf_bytes:   bytes of one buffer; a buffer is sent when the next record
 *                does not fit (a record takes 8 + its payload rounded up to
 *                8 bytes, so the largest payload is buf_bytes - 8).
 * - bufs_per_pe: buffers per destination PE, i.e. how many may be in
 *                flight to it at once (the receive ring at the target has
 *                as many slots). When all are in flight, gshmem_agg_store
 *                waits (back-pressure); nothing is ever dropped.
 * - max_wait_us: a buffer holding records is sent at the latest about this
 *                long after its first record, even when no producer
 *                touches it again (the library's service thread seals and
 *                sends aged buffers; see README "Aggregator").
 * - p2p_bypass:  1 (default): records to PEs this GPU reaches by
 *                load/store, and to the calling PE itself, are stored
 *                directly (no buffering). 0: only the calling PE is.
 *
 * COMPLETION RULE: when gshmem_agg_flush(agg) (or gshmem_agg_flush_pe for
 * one PE) returns in a thread, every record stored to agg before the call
 * (by this thread, or by threads whose stores happen before the call, e.g.
 * through __syncthreads) is applied at its target and visible there; the
 * direct (P2P) stores are fenced like gshmem_quiet does. So "flush, then
 * quiet" completes everything; a target reads the data after a
 * synchronization with the flushing PE (a barrier, or a signal sent after
 * the flush). Records not flushed arrive within about max_wait_us plus
 * the service period and the transfer; gshmem_agg_destroy delivers all
 * that remain.
 *
 * Applying at the target needs no user call: the library's service thread
 * launches a small kernel on the target's GPU that applies received buffers
 * (so, like the AMO kernels of the queue path, a persistent kernel must
 * leave room for one block), and producers waiting for room apply what
 * reached their own PE. A kernel may also apply at once with
 * gshmem_agg_drain / gshmemx_agg_drain_block.
 *
 * Needs a CUDA heap (GSHMEM_HEAP=cuda); buffered records travel through
 * the queue path (proxy engine), which runs when some PE is not reached by
 * load/store or with GSHMEM_DEVICE_QUEUE_ONLY=1.
 */
#ifndef GSHMEM_AGG_H
#define GSHMEM_AGG_H

#include <stddef.h>
#include <stdint.h>
#include "gshmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An aggregator (opaque). The pointer is what kernels take. */
typedef struct gshmem_agg gshmem_agg_t;

typedef struct gshmem_agg_attr {
    size_t buf_bytes;        /* 16 .. 16 MiB, a multiple of 8 (GSHMEM_AGG_BYTES) */
    uint32_t bufs_per_pe;    /* 1 .. 64 (GSHMEM_AGG_BUFS) */
    uint32_t max_wait_us;    /* 0 .. 10^7 (GSHMEM_AGG_WAIT_US) */
    int p2p_bypass;          /* 0 or 1 (GSHMEM_AGG_P2P_BYPASS) */
} gshmem_agg_attr_t;

/* The defaults: the GSHMEM_AGG_* settings. Needs gshmem_init. */
void gshmem_agg_attr_init(gshmem_agg_attr_t *attr);

/* Collective over all PEs, with the same attributes everywhere (attr NULL:
 * the defaults). Allocates 2 x n_pes x bufs_per_pe x buf_bytes bytes of
 * symmetric heap (plus a few control words per buffer). Returns 0 and the
 * aggregator in *agg_p, or on every PE (the cause logged):
 * GSHMEM_ERR_INVALID_ARG (an attribute out of range, named; no CUDA heap;
 * p2p_bypass 0 without a queue path), GSHMEM_ERR_MISMATCH (PEs passed
 * different attributes), GSHMEM_ERR_NOMEM (heap full). */
int gshmem_agg_create(const gshmem_agg_attr_t *attr, gshmem_agg_t **agg_p);

/* Collective. Delivers and applies every record still buffered anywhere,
 * then frees the aggregator. No kernel may use agg during or after it.
 * Returns 0, or GSHMEM_ERR_TIMEOUT when buffers were still in flight after
 * GSHMEM_TIMEOUT seconds (logged; agg is freed all the same). */
int gshmem_agg_destroy(gshmem_agg_t *agg);

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_AGG_H */

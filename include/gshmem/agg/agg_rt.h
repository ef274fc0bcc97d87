/* agg_rt.h: the aggregator's runtime protocol on top of agg_buf.h (send
 * buffers), agg_apply.h (apply) and the queue path's rings, run by the
 * device API (include/gshmem/impl/gshmem_dev_agg.h), the service kernel
 * (src/api/agg/agg_cuda.cu) and the host side (src/api/agg). Bodies:
 * impl/agg_rt_impl.h. A READY buffer goes as one put-with-signal into the
 * target's receive slot (me, k); a drainer there claims it (CAS), applies
 * it and acks with a signal; the source releases the slot when the ack
 * matches. Layout, flush and exactly-once: docs/DESIGN.md#the-aggregator.
 * Functions return 0 or a negative gshmem_status_t; waits are bounded by
 * rt->timeout_ns (GSHMEM_ERR_TIMEOUT); the caller reports. */
#ifndef GSHMEMI_AGG_RT_H
#define GSHMEMI_AGG_RT_H

#include <stdint.h>
#include "agg_apply.h"
#include "gshmem/impl/gshmem_dev_queue.h"

#if defined(GSHMEMI_PORT_HOST)
#include <time.h>
#endif

#define GSHMEMI_AGG_RT_MAGIC 0x41676752u   /* "Aggr": a live aggregator */
#define GSHMEMI_AGG_F_BYPASS 1u              /* load/store peers: direct stores */
#define GSHMEMI_AGG_TAG_MASK 0xffffffffull   /* rsig/ack: low 32 bits are the tag */
#define GSHMEMI_AGG_HELP_ROUNDS 64           /* waits before a store/flush drains itself */

typedef struct gshmemi_agg_rt {
    gshmemi_agg_t core;              /* send buffers; core.data in the heap */
    const gshmemi_queue_t *queue;    /* the producers' queue; NULL: no engine */
    uint8_t *heap_base;              /* this PE's heap as the running code sees it */
    uint64_t send_off, recv_off, rsig_off, ack_off;   /* heap offsets */
    uint64_t *rx_state;              /* [N * K] */
    uint64_t *inflight;              /* [N * K] */
    uint64_t timeout_ns;             /* bound of every wait */
    int32_t my_pe, n_pes;
    uint32_t flags;                  /* GSHMEMI_AGG_F_* */
    uint32_t magic;                  /* GSHMEMI_AGG_RT_MAGIC while live */
} gshmemi_agg_rt_t;

/* Layout of the symmetric block for n_pes, nbufs, buf_bytes: fills the
 * offsets (relative to the block) and returns its size. */
typedef struct gshmemi_agg_layout {
    uint64_t send, recv, rsig, ack, slots, cur, rx_state, inflight, total;
} gshmemi_agg_layout_t;
GSHMEMI_HD void gshmemi_agg_layout(uint32_t n_pes, uint32_t nbufs, uint32_t buf_bytes,
                                   gshmemi_agg_layout_t *l);

/* Nanoseconds of a clock shared by every caller of one side (device:
 * %globaltimer; host: CLOCK_MONOTONIC). */
GSHMEMI_HD uint64_t gshmemi_agg_now(void);

/* Post a READY buffer: inflight := tag, then the put-with-signal on ring
 * ch of the queue (waits while the ring is full). 0 or the engine's error. */
GSHMEMI_HD int gshmemi_agg_rt_send(const gshmemi_agg_rt_t *rt, const gshmemi_agg_ready_t *r,
                                   uint32_t ch);
/* Reopen send slot k to pe if its ack came. 1 released, 0 not (yet). */
GSHMEMI_HD int gshmemi_agg_rt_try_release(const gshmemi_agg_rt_t *rt, uint32_t pe,
                                          uint32_t k);
/* Claim receive slot (s, k) when it holds an unapplied buffer: 1 and its
 * signal value in *sig_p, else 0. */
GSHMEMI_HD int gshmemi_agg_rt_rx_claim(const gshmemi_agg_rt_t *rt, uint32_t s, uint32_t k,
                                       uint64_t *sig_p);
/* The records of claimed receive slot (s, k) (S = sig >> 32 bytes). */
GSHMEMI_HD const uint8_t *gshmemi_agg_rt_rx_buf(const gshmemi_agg_rt_t *rt, uint32_t s,
                                                uint32_t k);
/* After the apply of (s, k) is complete (and fenced): the ack to s. */
GSHMEMI_HD int gshmemi_agg_rt_rx_ack(const gshmemi_agg_rt_t *rt, uint32_t s, uint32_t k,
                                     uint64_t sig, uint32_t ch);
/* One thread: claim, apply and ack every waiting receive slot. *applied_p
 * (may be NULL) += buffers applied. 0, the engine's error, or the apply's
 * error (*err_p, may be NULL, names the record; *where_p = s * K + k). */
GSHMEMI_HD int gshmemi_agg_rt_drain(const gshmemi_agg_rt_t *rt, uint32_t ch,
                                    uint32_t *applied_p, gshmemi_agg_apply_err_t *err_p,
                                    uint32_t *where_p);
/* Service of send slot k to pe: release if acked, seal if older than
 * max_wait (any age with force) and send. *pending_p += 1 when the slot
 * still holds records or is in flight; *sent_p += buffers sent. */
GSHMEMI_HD int gshmemi_agg_rt_tx_slot(const gshmemi_agg_rt_t *rt, uint32_t pe, uint32_t k,
                                      uint64_t now, int force, uint32_t ch,
                                      uint32_t *pending_p, uint32_t *sent_p);
/* Store one record (dst_off in the target's heap) to pe through the
 * buffers, sending what fills up and, while the buffers to pe are all in
 * flight, helping (release, drain) and backing off. 0, an error of
 * gshmemi_agg_check, the engine's error or GSHMEM_ERR_TIMEOUT. */
GSHMEMI_HD int gshmemi_agg_rt_store(const gshmemi_agg_rt_t *rt, uint64_t dst_off,
                                    const void *src, uint32_t bytes, uint32_t pe, uint32_t ch);
/* Until every record stored before the call to PEs [pe_lo, pe_hi) is
 * applied at its target. 0, the engine's error or GSHMEM_ERR_TIMEOUT
 * (*stuck_p, may be NULL, = pe * K + k of the slot that did not finish). */
GSHMEMI_HD int gshmemi_agg_rt_flush(const gshmemi_agg_rt_t *rt, uint32_t pe_lo,
                                    uint32_t pe_hi, uint32_t ch, uint32_t *stuck_p);

#include "impl/agg_rt_impl.h"

#endif /* GSHMEMI_AGG_RT_H */

/* gshmem_dev_queue.h: the queue path of the device API (device producer
 * side) and the protocol it shares with the proxy engine (src/engine).
 * The top half is plain C (the engine includes it); the bottom half is the
 * device producer, compiled in the device pass only (CUDA; HIP compile
 * check), included by gshmem_dev_common.h.
 * Protocol (channels, entry kinds and fields, completion, result slots,
 * error state): docs/DESIGN.md, "The queue protocol". */
#ifndef GSHMEMI_DEV_QUEUE_H
#define GSHMEMI_DEV_QUEUE_H
#define GSHMEMI_DEV_HAVE_QUEUE 1

#include <stdint.h>
#include "gshmem_dev_port.h"
#include "gshmem/ring/sq.h"
#include "gshmem_amo_op.h"   /* the AMO kinds in an entry's aux */

#define GSHMEMI_QUEUE_CHANNELS 4u
#define GSHMEMI_QUEUE_CAPACITY 1024u

/* Flags beyond sq.h's FENCE (1 << 0) and AMO32 (1 << 1). */
#define GSHMEMI_WQE_F_INLINE (1u << 2)   /* PUT: data in w2 */
#define GSHMEMI_WQE_F_RESULT (1u << 3)   /* GET: data to the result slot */
#define GSHMEMI_WQE_F_PAYLOAD (1u << 4)  /* PUT: w2 bytes in the entry's payload */
#define GSHMEMI_WQE_F_KNOWN                                                     \
    (GSHMEMI_WQE_F_FENCE | GSHMEMI_WQE_F_AMO32 | GSHMEMI_WQE_F_INLINE |          \
     GSHMEMI_WQE_F_RESULT | GSHMEMI_WQE_F_PAYLOAD)

/* Bytes of an entry's payload: a put of up to this many bytes that does
 * not fit the entry (F_INLINE) is copied by the posting thread into its
 * payload, pinned host memory that the engine reads in place (F_PAYLOAD):
 * no copy out of GPU memory on the engine's side. Each ring has 2 x
 * capacity payloads (gshmemi_devq_post_payload says why). */
#define GSHMEMI_QPAYLOAD 64u

/* A ring's payload bytes, and where entry idx's payload starts in them:
 * payloads go by idx modulo 2 x capacity (gshmemi_devq_post_payload). The
 * producer and the engine both index with these. */
GSHMEMI_HD size_t gshmemi_qpayload_ring_bytes(uint32_t capacity)
{
    return (size_t)2 * capacity * GSHMEMI_QPAYLOAD;
}
GSHMEMI_HD size_t gshmemi_qpayload_at(uint32_t capacity, uint64_t idx)
{
    return (size_t)(idx & (2 * (uint64_t)capacity - 1)) * GSHMEMI_QPAYLOAD;
}

/* Slots an entry takes, from its first word: 2 for PUT_SIGNAL and CSWAP. */
GSHMEMI_HD uint32_t gshmemi_qwqe_slots(const gshmemi_wqe_t *w)
{
    uint32_t op = gshmemi_wqe_op(w);
    if (op == GSHMEMI_OP_PUT_SIGNAL ||
        (op == GSHMEMI_OP_AMO && gshmemi_wqe_aux(w) == GSHMEMI_AMO_CSWAP))
        return 2;
    return 1;
}

typedef struct gshmemi_qresult {
    uint64_t value;   /* written by the engine before completing the entry */
    uint32_t busy;    /* 1: holds a value its reader has not taken yet */
    uint32_t pad;
} gshmemi_qresult_t;

/* What the device state's `channels` points to (device memory). The first
 * member makes the pointer a valid gshmemi_channels_t * as well. */
typedef struct gshmemi_queue {
    gshmemi_channels_t ch;        /* rings[count] (device memory) */
    gshmemi_qresult_t *results;   /* [count * capacity], pinned + mapped */
    unsigned char *payload;       /* [count][2 * capacity][GSHMEMI_QPAYLOAD], pinned + mapped */
    uint32_t capacity;            /* slots per ring (power of two) */
    uint32_t reserved;
} gshmemi_queue_t;

/* ======================================================================== */
#if defined(GSHMEMI_DEV_PASS)

GSHMEMI_DEV_COLD void gshmemi_devq_fail(const char *call, int pe, int rc)
{
    const char *why = rc == GSHMEM_ERR_OUT_OF_HEAP ? "an address outside the heap"
                    : rc == GSHMEM_ERR_INVALID_PE ? "an invalid PE"
                    : rc == GSHMEM_ERR_INVALID_ARG ? "an invalid entry"
                    : rc == GSHMEM_ERR_TRANSPORT ? "a transport failure"
                    : "an error";
    printf("gshmem: PE %d: %s (PE %d): the proxy engine stopped on %s (status %d); the "
           "host log names the entry\n", gshmemi_dstate.my_pe, call, pe, why, rc);
    gshmemi_dev_trap();
}

GSHMEMI_DEV const gshmemi_queue_t *gshmemi_devq(const char *call, int pe)
{
    const gshmemi_queue_t *q = (const gshmemi_queue_t *)gshmemi_dstate.channels;
    if (q == NULL)
        gshmemi_dev_queue_off(call, pe);
    return q;
}

GSHMEMI_DEV uint32_t gshmemi_devq_channel(const gshmemi_queue_t *q)
{
    uint32_t b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    return b % q->ch.count;
}

/* Where a posted entry went. */
typedef struct gshmemi_devq_ticket {
    const gshmemi_queue_t *q;
    uint32_t ch;
    uint64_t idx;   /* first slot */
    uint64_t last;  /* last slot */
} gshmemi_devq_ticket_t;

/* Posts n entries (1 or 2) on this block's ring; traps if the engine failed. */
GSHMEMI_DEV gshmemi_devq_ticket_t gshmemi_devq_post(const char *call, int pe,
                                                   const gshmemi_wqe_t *w, uint32_t n)
{
    gshmemi_devq_ticket_t t;
    t.q = gshmemi_devq(call, pe);
    t.ch = gshmemi_devq_channel(t.q);
    int rc = gshmemi_ring_post(&t.q->ch.rings[t.ch], w, n, NULL, &t.idx);
    if (rc != 0)
        gshmemi_devq_fail(call, pe, rc);
    t.last = t.idx + n - 1;
    return t;
}

/* Posts the PUT or PUT_SIGNAL w[0..n) (n slots; w[0]: laddr = source,
 * value = its n <= GSHMEMI_QPAYLOAD bytes) with F_PAYLOAD: the bytes go to
 * the entry's payload first, which the engine reads in place, so the
 * source may be any memory the thread reads (registers, shared memory).
 * Payloads are indexed modulo twice the capacity by the entry's first
 * slot: ring space for entry idx means entry idx - capacity was taken,
 * and the engine never has half a ring issued and incomplete, so the
 * payload's previous entry (idx - 2 x capacity) is complete: no transport
 * reads it any more, and no wait beyond ring space is needed. */
GSHMEMI_DEV void gshmemi_devq_post_payload(const char *call, int pe, gshmemi_wqe_t *w,
                                           uint32_t n)
{
    const gshmemi_queue_t *q = gshmemi_devq(call, pe);
    uint32_t ch = gshmemi_devq_channel(q);
    const gshmemi_ring_t *r = &q->ch.rings[ch];
    uint64_t idx = gshmemi_ring_reserve(r, n);
    int rc = gshmemi_ring_wait_space(r, idx, n, NULL);
    if (rc != 0)
        gshmemi_devq_fail(call, pe, rc);
    uint64_t *d = (uint64_t *)(q->payload + ch * gshmemi_qpayload_ring_bytes(q->capacity) +
                               gshmemi_qpayload_at(q->capacity, idx));
    const unsigned char *src = (const unsigned char *)(uintptr_t)w[0].laddr;
    uint32_t bytes = (uint32_t)w[0].value;
    for (uint32_t i = 0; i < bytes; i += 8) {   /* whole words: the payload has room */
        uint64_t v = 0;
        for (uint32_t j = 0; j < 8 && i + j < bytes; j++)
            v |= (uint64_t)src[i + j] << (8 * j);
        d[i / 8] = v;
    }
    w[0].laddr = 0;
    w[0].ctrl = gshmemi_wqe_ctrl(gshmemi_wqe_op(&w[0]), GSHMEMI_WQE_F_PAYLOAD, 0, (uint32_t)pe);
    for (uint32_t i = 0; i < n; i++)   /* the release stores order the payload before them */
        gshmemi_ring_write(r, idx + i, &w[i]);
}

/* Until the ticket's entries are complete. */
GSHMEMI_DEV void gshmemi_devq_wait(const char *call, int pe, const gshmemi_devq_ticket_t &t)
{
    int rc = gshmemi_ring_quiet(&t.q->ch.rings[t.ch], t.last);
    if (rc != 0)
        gshmemi_devq_fail(call, pe, rc);
}

/* The fetched value of a complete entry; frees its result slot. */
GSHMEMI_DEV uint64_t gshmemi_devq_take(const gshmemi_devq_ticket_t &t)
{
    gshmemi_qresult_t *r =
        &t.q->results[(size_t)t.ch * t.q->capacity + (t.idx & (t.q->capacity - 1))];
    uint64_t v = gshmemi_atomic_load_relaxed_u64(&r->value);
    gshmemi_atomic_store_release_u32(&r->busy, 0);
    return v;
}

GSHMEMI_DEV gshmemi_wqe_t gshmemi_devq_wqe(uint64_t laddr, uint64_t roff, uint64_t value,
                                          uint32_t op, uint32_t flags, uint32_t aux, int pe)
{
    gshmemi_wqe_t w;
    w.laddr = laddr;
    w.roff = roff;
    w.value = value;
    w.ctrl = gshmemi_wqe_ctrl(op, flags, aux, (uint32_t)pe);
    return w;
}

GSHMEMI_DEV uint64_t gshmemi_devq_off(const void *sym)
{
    return (uint64_t)((const char *)sym - gshmemi_dstate.heap_base);
}

/* A group's queue-path call is made by its rank 0 after the group's
 * threads reached it (their writes of the source are then issued). */
GSHMEMI_DEV void gshmemi_devq_group_sync(gshmemi_dev_group_t g)
{
    if (g.size == 1)
        return;
    if (g.size == blockDim.x * blockDim.y * blockDim.z)
        __syncthreads();
    else
        gshmemi_dev_syncwarp(gshmemi_dev_lanes(g.size));
}

/* ---- operations ---------------------------------------------------------- */

/* Blocking: returns once the source may be reused, as OpenSHMEM and
 * NVSHMEM define it (delivery is quiet's job): at once for inline data and
 * payloads (up to GSHMEMI_QPAYLOAD bytes, copied at the post), else when
 * the entry is complete (the engine read the source and the data was
 * delivered). nbi: returns once posted; the engine reads a larger source
 * later: reuse it after gshmem_quiet. */
GSHMEMI_DEV void gshmemi_devq_put(const char *call, void *dest, const void *src, size_t n,
                                  int pe, bool blocking)
{
    gshmemi_wqe_t w = gshmemi_devq_wqe((uint64_t)(uintptr_t)src, gshmemi_devq_off(dest), n,
                                       GSHMEMI_OP_PUT, 0, 0, pe);
    /* 4 or 8 aligned bytes travel in the entry (no copy of the source by
     * the engine: the source is reusable as soon as the entry is posted) */
    if ((n == 8 || n == 4) && ((uintptr_t)src & (n - 1)) == 0) {
        w.laddr = 0;
        w.value = n == 8 ? *(const uint64_t *)src : *(const uint32_t *)src;
        w.ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE |
                                  (n == 4 ? GSHMEMI_WQE_F_AMO32 : 0u), 0, (uint32_t)pe);
        blocking = false;
    } else if (n <= GSHMEMI_QPAYLOAD) {
        gshmemi_devq_post_payload(call, pe, &w, 1);
        return;
    }
    gshmemi_devq_ticket_t t = gshmemi_devq_post(call, pe, &w, 1);
    if (blocking)
        gshmemi_devq_wait(call, pe, t);
}

/* Blocking: the data is in dest on return. nbi: after gshmem_quiet. */
GSHMEMI_DEV void gshmemi_devq_get(const char *call, void *dest, const void *src, size_t n,
                                  int pe, bool blocking)
{
    gshmemi_wqe_t w = gshmemi_devq_wqe((uint64_t)(uintptr_t)dest, gshmemi_devq_off(src), n,
                                       GSHMEMI_OP_GET, 0, 0, pe);
    gshmemi_devq_ticket_t t = gshmemi_devq_post(call, pe, &w, 1);
    if (blocking)
        gshmemi_devq_wait(call, pe, t);
}

/* p: the value travels in the entry; returns once posted (complete at quiet). */
GSHMEMI_DEV void gshmemi_devq_p(const char *call, void *dest, uint64_t bits, size_t size,
                                int pe)
{
    gshmemi_wqe_t w = gshmemi_devq_wqe(0, gshmemi_devq_off(dest), bits, GSHMEMI_OP_PUT,
                                       GSHMEMI_WQE_F_INLINE |
                                           (size == 4 ? GSHMEMI_WQE_F_AMO32 : 0u),
                                       0, pe);
    (void)gshmemi_devq_post(call, pe, &w, 1);
}

/* g: through the entry's result slot. */
GSHMEMI_DEV uint64_t gshmemi_devq_g(const char *call, const void *src, size_t size, int pe)
{
    gshmemi_wqe_t w = gshmemi_devq_wqe(0, gshmemi_devq_off(src), size, GSHMEMI_OP_GET,
                                       GSHMEMI_WQE_F_RESULT |
                                           (size == 4 ? GSHMEMI_WQE_F_AMO32 : 0u),
                                       0, pe);
    gshmemi_devq_ticket_t t = gshmemi_devq_post(call, pe, &w, 1);
    gshmemi_devq_wait(call, pe, t);
    return gshmemi_devq_take(t);
}

/* An AMO of kind (gshmemi_amo_op_t) on a 4- or 8-byte word; fetching kinds
 * wait and return the old value, the others return 0 once posted. */
GSHMEMI_DEV uint64_t gshmemi_devq_amo(const char *call, const void *dest, size_t size,
                                      uint32_t kind, uint64_t v, uint64_t cmp, int pe)
{
    uint32_t fl = size == 4 ? GSHMEMI_WQE_F_AMO32 : 0u;
    gshmemi_wqe_t w[2];
    uint32_t n = 1;
    w[0] = gshmemi_devq_wqe(0, gshmemi_devq_off(dest), v, GSHMEMI_OP_AMO, fl, kind, pe);
    if (kind == GSHMEMI_AMO_CSWAP) {
        w[0].value = cmp;
        w[1] = gshmemi_devq_wqe(0, 0, v, GSHMEMI_OP_EXT, 0, 0, pe);
        n = 2;
    }
    gshmemi_devq_ticket_t t = gshmemi_devq_post(call, pe, w, n);
    if (!gshmemi_amo_fetching(kind))
        return 0;
    gshmemi_devq_wait(call, pe, t);
    return gshmemi_devq_take(t);
}

/* Put-with-signal as one two-slot entry: the engine applies the signal
 * only after the data. Up to GSHMEMI_QPAYLOAD bytes travel in the entry's
 * payload, as a put's do (the source is reusable at once); a larger
 * source is read by the engine: blocking returns when both are complete. */
GSHMEMI_DEV void gshmemi_devq_put_signal(const char *call, void *dest, const void *src,
                                         size_t n, uint64_t *sig_addr, uint64_t signal,
                                         int sig_op, int pe, bool blocking)
{
    gshmemi_wqe_t w[2];
    w[0] = gshmemi_devq_wqe((uint64_t)(uintptr_t)src, gshmemi_devq_off(dest), n,
                            GSHMEMI_OP_PUT_SIGNAL, 0, 0, pe);
    w[1] = gshmemi_devq_wqe(0, gshmemi_devq_off(sig_addr), signal, GSHMEMI_OP_EXT, 0,
                            (uint32_t)sig_op, pe);
    if (n > 0 && n <= GSHMEMI_QPAYLOAD) {
        gshmemi_devq_post_payload(call, pe, w, 2);
        return;
    }
    gshmemi_devq_ticket_t t = gshmemi_devq_post(call, pe, w, 2);
    if (blocking)
        gshmemi_devq_wait(call, pe, t);
}

/* A signal update alone (gshmemx_signal_op): one SIGNAL entry, the
 * engine's amo_nbi of put-with-signal's signal; complete at quiet. */
GSHMEMI_DEV void gshmemi_devq_signal(const char *call, uint64_t *sig_addr, uint64_t signal,
                                     int sig_op, int pe)
{
    gshmemi_wqe_t w = gshmemi_devq_wqe(0, gshmemi_devq_off(sig_addr), signal, GSHMEMI_OP_SIGNAL,
                                       0, (uint32_t)sig_op, pe);
    (void)gshmemi_devq_post(call, pe, &w, 1);
}

/* Fence: one FENCE entry in this thread's ring (every earlier entry of the
 * ring is ordered before every later one). No-op without an engine. */
GSHMEMI_DEV void gshmemi_devq_fence(void)
{
    const gshmemi_queue_t *q = (const gshmemi_queue_t *)gshmemi_dstate.channels;
    if (q == NULL)
        return;
    gshmemi_wqe_t w = gshmemi_devq_wqe(0, 0, 0, GSHMEMI_OP_FENCE, 0, 0, 0);
    (void)gshmemi_devq_post("gshmem_fence", gshmemi_dstate.my_pe, &w, 1);
}

/* Quiet: waits until every ring's completed count reaches its head as read
 * here, i.e. every entry posted before this call (by any thread of this
 * PE, this thread's included) is complete. No-op without an engine. */
GSHMEMI_DEV void gshmemi_devq_quiet(const char *call)
{
    const gshmemi_queue_t *q = (const gshmemi_queue_t *)gshmemi_dstate.channels;
    if (q == NULL)
        return;
    for (uint32_t c = 0; c < q->ch.count; c++) {
        const gshmemi_ring_t *r = &q->ch.rings[c];
        uint64_t head = gshmemi_atomic_load_relaxed_u64(r->head);
        if (head == 0)
            continue;
        int rc = gshmemi_ring_quiet(r, head - 1);
        if (rc != 0)
            gshmemi_devq_fail(call, gshmemi_dstate.my_pe, rc);
    }
}

/* 0 while the engine is healthy (or absent), else its negative status. */
GSHMEMI_DEV int gshmemi_devq_status(void)
{
    const gshmemi_queue_t *q = (const gshmemi_queue_t *)gshmemi_dstate.channels;
    if (q == NULL)
        return 0;
    for (uint32_t c = 0; c < q->ch.count; c++) {
        uint32_t st = gshmemi_atomic_load_relaxed_u32(q->ch.rings[c].status);
        if (st != 0)
            return (int)(int32_t)st;
    }
    return 0;
}

extern "C" {
GSHMEMI_DEV int gshmemx_queue_status(void)
{
    return gshmemi_devq_status();
}
}

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_QUEUE_H */

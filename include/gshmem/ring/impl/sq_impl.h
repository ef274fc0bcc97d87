/* sq_impl.h: producer side of the SQ/CQ ring (contracts: ../sq.h; design:
 * docs/DESIGN.md#the-queue-protocol). Included by sq.h only. */
#ifndef GSHMEMI_DEVICE_SQ_IMPL_H
#define GSHMEMI_DEVICE_SQ_IMPL_H

/* The lap value stored in ctrl for entry idx (never 0 in lap 0). */
GSHMEMI_HD uint64_t gshmemi_ring_lap(const gshmemi_ring_t *r, uint64_t idx)
{
    return ((idx >> r->log2cap) + 1) & GSHMEMI_WQE_LAP_MASK;
}

GSHMEMI_HD int gshmemi_ring_init(gshmemi_ring_t *ring_p, gshmemi_wqe_t *slots,
                                 uint32_t capacity, uint64_t *tail,
                                 uint64_t *completed, uint32_t *status,
                                 uint64_t *head, gshmemi_ring_cache_t *cache)
{
    if (capacity < 2 || (capacity & (capacity - 1)) != 0 || !slots || !tail ||
        !completed || !status || !head || !cache)
        return GSHMEM_ERR_INVALID_ARG;
    uint32_t log2cap = 0;
    while ((1u << log2cap) < capacity)
        log2cap++;
    ring_p->slots = slots;
    ring_p->tail = tail;
    ring_p->completed = completed;
    ring_p->status = status;
    ring_p->head = head;
    ring_p->cache = cache;
    ring_p->capacity = capacity;
    ring_p->log2cap = log2cap;
    return GSHMEM_SUCCESS;
}

GSHMEMI_HD uint64_t gshmemi_ring_reserve(const gshmemi_ring_t *r, uint32_t n)
{
    return gshmemi_atomic_fetch_add_relaxed_u64(r->head, (uint64_t)n);
}

/* One thread at a time (the token winner) reads the engine's host words
 * and refreshes the device-memory copies; the others return at once. */
GSHMEMI_HD void gshmemi_ring_refresh(const gshmemi_ring_t *r)
{
    gshmemi_ring_cache_t *c = r->cache;
    if (gshmemi_atomic_load_relaxed_u32(&c->token) != 0 ||
        gshmemi_atomic_cas_u32(&c->token, 0, 1) != 0)
        return;  /* another thread is refreshing: use its result */
    /* up to three bus reads, by one thread per ring at a time */
    uint64_t t = gshmemi_atomic_load_acquire_u64(r->tail);
    uint64_t done = gshmemi_atomic_load_acquire_u64(r->completed);
    uint32_t st = gshmemi_atomic_load_relaxed_u32(r->status);
    /* token holders are serialized and the host words only grow, so these
     * stores never move a copy backwards; release pairs with the waiters'
     * acquire loads (slot reuse, quiet) */
    gshmemi_atomic_store_release_u64(&c->tail, t);
    gshmemi_atomic_store_release_u64(&c->completed, done);
    if (st != 0)
        gshmemi_atomic_store_relaxed_u32(&c->status, st);
    gshmemi_atomic_store_release_u32(&c->token, 0);
}

/* Quiet's look at the host: the completed count only (one bus read), the
 * status too when with_status, by the token winner. Returns 1 when this
 * thread read (its wait was the read), 0 when another thread is at it. */
GSHMEMI_HD int gshmemi_ring_refresh_completed(const gshmemi_ring_t *r, int with_status)
{
    gshmemi_ring_cache_t *c = r->cache;
    if (gshmemi_atomic_load_relaxed_u32(&c->token) != 0 ||
        gshmemi_atomic_cas_u32(&c->token, 0, 1) != 0)
        return 0;
    gshmemi_atomic_store_release_u64(&c->completed, gshmemi_atomic_load_acquire_u64(r->completed));
    if (with_status) {
        uint32_t st = gshmemi_atomic_load_relaxed_u32(r->status);
        if (st != 0)
            gshmemi_atomic_store_relaxed_u32(&c->status, st);
    }
    gshmemi_atomic_store_release_u32(&c->token, 0);
    return 1;
}

/* Entries [idx, idx + n) fit when idx + n <= tail + capacity. */
GSHMEMI_HD int gshmemi_ring_wait_space(const gshmemi_ring_t *r, uint64_t idx,
                                       uint32_t n, uint32_t *waits_p)
{
    uint32_t waits = 0, backoff = 0;
    int rc = GSHMEM_SUCCESS;
    /* the tail must reach need; in the first lap (idx + n <= capacity) it has */
    uint64_t need = idx + n > r->capacity ? idx + n - r->capacity : 0;
    while (need > 0) {
        if (gshmemi_atomic_load_acquire_u64(&r->cache->tail) >= need)
            break;                          /* the common case: no bus access */
        gshmemi_ring_refresh(r);            /* looks full: ask the host */
        if (gshmemi_atomic_load_acquire_u64(&r->cache->tail) >= need)
            break;
        uint32_t st = gshmemi_atomic_load_relaxed_u32(&r->cache->status);
        if (st != 0) {
            rc = (int)(int32_t)st;
            break;
        }
        waits++;
        gshmemi_backoff(&backoff);
    }
    if (waits_p)
        *waits_p = waits;
    return rc;
}

GSHMEMI_HD void gshmemi_ring_write(const gshmemi_ring_t *r, uint64_t idx,
                                   const gshmemi_wqe_t *wqe)
{
    gshmemi_wqe_t *s = &r->slots[idx & (r->capacity - 1)];
    uint64_t ctrl = (wqe->ctrl & ~(GSHMEMI_WQE_LAP_MASK << GSHMEMI_WQE_LAP_SHIFT)) |
                    gshmemi_ring_lap(r, idx) << GSHMEMI_WQE_LAP_SHIFT;
    s->laddr = wqe->laddr;
    s->roff = wqe->roff;
    s->value = wqe->value;
    gshmemi_atomic_store_release_u64(&s->ctrl, ctrl);  /* the doorbell */
}

GSHMEMI_HD int gshmemi_ring_post(const gshmemi_ring_t *r, const gshmemi_wqe_t *wqes,
                                 uint32_t n, uint32_t *waits_p, uint64_t *idx_p)
{
    if (n == 0 || n > r->capacity)
        return GSHMEM_ERR_INVALID_ARG;  /* would never fit: refuse, don't hang */
    uint64_t idx = gshmemi_ring_reserve(r, n);
    int rc = gshmemi_ring_wait_space(r, idx, n, waits_p);
    if (rc != GSHMEM_SUCCESS)
        return rc;  /* the engine is dead: the reserved slots stay unwritten */
    for (uint32_t i = 0; i < n; i++)
        gshmemi_ring_write(r, idx + i, &wqes[i]);
    *idx_p = idx;
    return GSHMEM_SUCCESS;
}

/* The thread that reads the host words (one bus read, about a microsecond
 * from a GPU) polls again at once: the read is its wait, and a sleep after
 * it would only add to the latency that quiet sees (up to 2 us a look, and
 * three reads a look, when every look read tail, completed and status).
 * The status, needed only when the engine failed, is read every
 * GSHMEMI_RING_STATUS_EVERY looks. Threads without the token, and host
 * threads (where a read costs nothing), back off. */
#define GSHMEMI_RING_STATUS_EVERY 8u
#if defined(GSHMEMI_PORT_CUDA_DEVICE) || defined(GSHMEMI_PORT_HIP_DEVICE)
#define GSHMEMI_RING_READ_WAITS 1
#else
#define GSHMEMI_RING_READ_WAITS 0
#endif

GSHMEMI_HD int gshmemi_ring_quiet(const gshmemi_ring_t *r, uint64_t idx)
{
    uint32_t backoff = 0, looks = 0;
    while (gshmemi_atomic_load_acquire_u64(&r->cache->completed) <= idx) {
        int read = gshmemi_ring_refresh_completed(
            r, ++looks % GSHMEMI_RING_STATUS_EVERY == 0);
        if (gshmemi_atomic_load_acquire_u64(&r->cache->completed) > idx)
            break;
        uint32_t st = gshmemi_atomic_load_relaxed_u32(&r->cache->status);
        if (st != 0)
            return (int)(int32_t)st;
        if (!read || !GSHMEMI_RING_READ_WAITS)
            gshmemi_backoff(&backoff);
    }
    return GSHMEM_SUCCESS;
}

#endif /* GSHMEMI_DEVICE_SQ_IMPL_H */

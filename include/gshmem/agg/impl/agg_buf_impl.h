/* agg_buf_impl.h: bodies of the aggregator's producer side (contracts:
 * ../agg_buf.h; the design and the exactly-once argument:
 * docs/DESIGN.md#the-aggregator). Included by agg_buf.h only. */
#ifndef GSHMEMI_AGG_BUF_IMPL_H
#define GSHMEMI_AGG_BUF_IMPL_H

GSHMEMI_HD int gshmemi_agg_init(gshmemi_agg_t *agg_p, uint8_t *data,
                                gshmemi_agg_slot_t *slots, gshmemi_agg_cur_t *cur,
                                uint32_t npes, uint32_t nbufs, uint32_t buf_bytes,
                                uint64_t heap_size, uint64_t max_wait)
{
    if (!agg_p || !data || !slots || !cur || npes == 0 || nbufs == 0 ||
        (buf_bytes & 7u) != 0 || buf_bytes < 16 || buf_bytes > (1u << 30) ||
        heap_size > GSHMEMI_AGG_MAX_OFFSET + 1)
        return GSHMEM_ERR_INVALID_ARG;
    agg_p->data = data;
    agg_p->slots = slots;
    agg_p->cur = cur;
    agg_p->heap_size = heap_size;
    agg_p->max_wait = max_wait;
    agg_p->npes = npes;
    agg_p->nbufs = nbufs;
    agg_p->buf_bytes = buf_bytes;
    return GSHMEM_SUCCESS;
}

GSHMEMI_HD uint32_t gshmemi_agg_max_payload(const gshmemi_agg_t *a)
{
    uint32_t room = a->buf_bytes - GSHMEMI_AGG_HDR_BYTES;   /* multiple of 8 */
    return room < GSHMEMI_AGG_MAX_LEN ? room : GSHMEMI_AGG_MAX_LEN;
}

GSHMEMI_HD int gshmemi_agg_check(const gshmemi_agg_t *a, uint32_t pe, uint64_t dst_off,
                                 const void *src, uint32_t bytes)
{
    if (pe >= a->npes)
        return GSHMEM_ERR_INVALID_PE;
    if (bytes == 0 || bytes > gshmemi_agg_max_payload(a) || !src)
        return GSHMEM_ERR_INVALID_ARG;
    if (dst_off > a->heap_size || bytes > a->heap_size - dst_off)
        return GSHMEM_ERR_OUT_OF_HEAP;
    return GSHMEM_SUCCESS;
}

GSHMEMI_HD gshmemi_agg_slot_t *gshmemi_agg_slot(const gshmemi_agg_t *a, uint32_t pe,
                                                uint32_t slot)
{
    return &a->slots[(uint64_t)pe * a->nbufs + slot];
}

GSHMEMI_HD uint8_t *gshmemi_agg_buf(const gshmemi_agg_t *a, uint32_t pe, uint32_t slot)
{
    return a->data + ((uint64_t)pe * a->nbufs + slot) * a->buf_bytes;
}

GSHMEMI_HD uint32_t gshmemi_agg_lap_of(uint64_t state)
{
    return (uint32_t)(state >> GSHMEMI_AGG_FILL_BITS) & GSHMEMI_AGG_LAP_MASK;
}

/* Add `add` to the slot's committed count; READY (and *ready_p) when this
 * add completed the sealed buffer, else 0. */
GSHMEMI_HD int gshmemi_agg_commit(const gshmemi_agg_t *a, uint32_t pe, uint32_t slot,
                                  uint64_t add, gshmemi_agg_ready_t *ready_p)
{
    gshmemi_agg_slot_t *sl = gshmemi_agg_slot(a, pe, slot);
    uint64_t old = gshmemi_atomic_fetch_add_acq_rel_u64(&sl->committed, add);
    if (old + add != GSHMEMI_AGG_BIG)
        return 0;
    /* the last one in: every byte of the sealed size is written */
    ready_p->data = gshmemi_agg_buf(a, pe, slot);
    ready_p->bytes = (uint32_t)gshmemi_atomic_load_relaxed_u64(&sl->sealed);
    ready_p->pe = pe;
    ready_p->slot = slot;
    ready_p->lap = gshmemi_agg_lap_of(gshmemi_atomic_load_relaxed_u64(&sl->state));
    return GSHMEMI_AGG_READY;
}

/* Seal bookkeeping shared by the crossing producer and the flusher: store S,
 * move cur past generation `gen` if it is still there, add BIG - S. */
GSHMEMI_HD int gshmemi_agg_sealed(const gshmemi_agg_t *a, uint32_t pe, uint32_t slot,
                                  uint64_t size, uint64_t gen, gshmemi_agg_ready_t *ready_p)
{
    gshmemi_agg_slot_t *sl = gshmemi_agg_slot(a, pe, slot);
    gshmemi_atomic_store_relaxed_u64(&sl->sealed, size);   /* published by commit */
    gshmemi_atomic_cas_u64(&a->cur[pe].gen, gen, gen + 1);
    return gshmemi_agg_commit(a, pe, slot, GSHMEMI_AGG_BIG - size, ready_p);
}

/* Copy the record into the reserved bytes (plain stores; the commit's
 * release publishes them). dst is 8-byte aligned; src may be anything. */
GSHMEMI_HD void gshmemi_agg_write_rec(uint8_t *dst, uint64_t dst_off, const void *src,
                                      uint32_t bytes)
{
    *(uint64_t *)dst = gshmemi_agg_rec_encode(dst_off, bytes);
    uint8_t *p = dst + GSHMEMI_AGG_HDR_BYTES;
#if defined(GSHMEMI_PORT_HOST)
    __builtin_memcpy(p, src, bytes);
#else
    const uint8_t *s = (const uint8_t *)src;
    uint32_t i = 0;
    if (((uintptr_t)s & 7u) == 0)
        for (; i + 8 <= bytes; i += 8)
            *(uint64_t *)(p + i) = *(const uint64_t *)(s + i);
    for (; i < bytes; i++)
        p[i] = s[i];
#endif
}

GSHMEMI_HD int gshmemi_agg_reserve(const gshmemi_agg_t *a, uint32_t pe, uint64_t dst_off,
                                   const void *src, uint32_t bytes, uint64_t now,
                                   gshmemi_agg_resv_t *resv_p, gshmemi_agg_ready_t *ready_p)
{
    int rc = gshmemi_agg_check(a, pe, dst_off, src, bytes);
    if (rc != GSHMEM_SUCCESS)
        return rc;
    const uint64_t rec = gshmemi_agg_rec_size(bytes);
    const uint64_t cap = a->buf_bytes;
    for (;;) {
        uint64_t g = gshmemi_atomic_load_acquire_u64(&a->cur[pe].gen);
        uint32_t slot = (uint32_t)(g % a->nbufs);
        uint32_t lap = (uint32_t)(g / a->nbufs) & GSHMEMI_AGG_LAP_MASK;
        gshmemi_agg_slot_t *sl = gshmemi_agg_slot(a, pe, slot);
        uint64_t st = gshmemi_atomic_load_relaxed_u64(&sl->state);
        uint32_t d = (gshmemi_agg_lap_of(st) - lap) & GSHMEMI_AGG_LAP_MASK;
        if (d == GSHMEMI_AGG_LAP_MASK)
            return GSHMEMI_AGG_FULL;     /* previous lap still in flight */
        if (d != 0 || (st & GSHMEMI_AGG_FILL_MASK) >= cap) {
            /* generation g sealed (or done and recycled): move on */
            gshmemi_atomic_cas_u64(&a->cur[pe].gen, g, g + 1);
            continue;
        }
        uint64_t old = gshmemi_atomic_fetch_add_acq_rel_u64(&sl->state, rec);
        uint64_t fill = old & GSHMEMI_AGG_FILL_MASK;
        uint32_t got = gshmemi_agg_lap_of(old);   /* the lap we really hit */
        if (fill + rec <= cap) {
            if (fill == 0)
                gshmemi_atomic_store_relaxed_u64(&sl->ts, now ? now : 1);
            resv_p->at = gshmemi_agg_buf(a, pe, slot) + fill;
            resv_p->add = rec;
            resv_p->pe = pe;
            resv_p->slot = slot;
            if (fill + rec == cap) {
                /* an exact fit closed it: we are also its sealer, S = cap
                 * (one add carries our commit and the seal's BIG - S) */
                gshmemi_atomic_store_relaxed_u64(&sl->sealed, cap);
                if (got == lap)
                    gshmemi_atomic_cas_u64(&a->cur[pe].gen, g, g + 1);
                resv_p->add = rec + GSHMEMI_AGG_BIG - cap;
            }
            return GSHMEMI_AGG_RESERVED;
        }
        if (fill < cap) {
            /* our add closed it: we are the sealer (cur moves only if the
             * generation we hit is the one cur names) */
            uint64_t gen = got == lap ? g : ~0ull;
            rc = gshmemi_agg_sealed(a, pe, slot, fill, gen, ready_p);
            if (rc)
                return rc;   /* READY, record not stored: send, call again */
            continue;
        }
        gshmemi_atomic_cas_u64(&a->cur[pe].gen, g, g + 1);   /* sealed already */
    }
}

GSHMEMI_HD int gshmemi_agg_commit_resv(const gshmemi_agg_t *a, const gshmemi_agg_resv_t *r,
                                       gshmemi_agg_ready_t *ready_p)
{
    return gshmemi_agg_commit(a, r->pe, r->slot, r->add, ready_p);
}

GSHMEMI_HD int gshmemi_agg_store_step(const gshmemi_agg_t *a, uint32_t pe, uint64_t dst_off,
                                      const void *src, uint32_t bytes, uint64_t now,
                                      gshmemi_agg_ready_t *ready_p)
{
    gshmemi_agg_resv_t r;
    int rc = gshmemi_agg_reserve(a, pe, dst_off, src, bytes, now, &r, ready_p);
    if (rc != GSHMEMI_AGG_RESERVED)
        return rc;
    gshmemi_agg_write_rec(r.at, dst_off, src, bytes);
    return GSHMEMI_AGG_STORED | gshmemi_agg_commit_resv(a, &r, ready_p);
}

GSHMEMI_HD int gshmemi_agg_flush_slot(const gshmemi_agg_t *a, uint32_t pe, uint32_t slot,
                                      uint64_t now, int force, gshmemi_agg_ready_t *ready_p)
{
    gshmemi_agg_slot_t *sl = gshmemi_agg_slot(a, pe, slot);
    const uint64_t cap = a->buf_bytes;
    uint64_t st = gshmemi_atomic_load_acquire_u64(&sl->state);
    uint64_t fill = st & GSHMEMI_AGG_FILL_MASK;
    if (fill == 0 || fill >= cap)
        return 0;                        /* empty, or sealed already */
    if (!force) {
        uint64_t ts = gshmemi_atomic_load_relaxed_u64(&sl->ts);
        if (ts == 0 || now < ts || now - ts < a->max_wait)
            return 0;                    /* not stamped yet, or young */
    }
    if (gshmemi_atomic_cas_u64(&sl->state, st, st + cap) != st)
        return 0;                        /* a reservation raced: next round */
    /* cur moves past this generation if it names it */
    uint64_t g = gshmemi_atomic_load_relaxed_u64(&a->cur[pe].gen);
    uint64_t gen = (g % a->nbufs == slot &&
                    ((uint32_t)(g / a->nbufs) & GSHMEMI_AGG_LAP_MASK) == gshmemi_agg_lap_of(st))
                       ? g : ~0ull;
    return gshmemi_agg_sealed(a, pe, slot, fill, gen, ready_p);
}

GSHMEMI_HD void gshmemi_agg_release(const gshmemi_agg_t *a, const gshmemi_agg_ready_t *r)
{
    gshmemi_agg_slot_t *sl = gshmemi_agg_slot(a, r->pe, r->slot);
    uint64_t st = gshmemi_atomic_load_relaxed_u64(&sl->state);
    uint64_t lap = (gshmemi_agg_lap_of(st) + 1) & GSHMEMI_AGG_LAP_MASK;
    gshmemi_atomic_store_relaxed_u64(&sl->committed, 0);
    gshmemi_atomic_store_relaxed_u64(&sl->sealed, 0);
    gshmemi_atomic_store_relaxed_u64(&sl->ts, 0);
    /* one store reopens the slot; release orders the resets (and the
     * sender's reads of the buffer) before any new reservation */
    gshmemi_atomic_store_release_u64(&sl->state, lap << GSHMEMI_AGG_FILL_BITS);
}

#endif /* GSHMEMI_AGG_BUF_IMPL_H */

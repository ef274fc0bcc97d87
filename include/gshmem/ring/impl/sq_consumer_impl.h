/* sq_consumer_impl.h: consumer (engine) side of the SQ/CQ ring (contracts:
 * ../sq.h; design: docs/DESIGN.md#the-queue-protocol). Runs on the host;
 * compiled for the device too, harmlessly. Included by sq.h only. */
#ifndef GSHMEMI_DEVICE_SQ_CONSUMER_IMPL_H
#define GSHMEMI_DEVICE_SQ_CONSUMER_IMPL_H

GSHMEMI_HD void gshmemi_ring_consumer_init(gshmemi_ring_consumer_t *c,
                                           const gshmemi_ring_t *ring, uint32_t batch)
{
    c->ring = *ring;
    c->tail = gshmemi_atomic_load_relaxed_u64(ring->tail);
    c->tail_published = c->tail;
    c->completed = gshmemi_atomic_load_relaxed_u64(ring->completed);
    c->completed_published = c->completed;
    c->batch = batch ? batch : 1;
}

GSHMEMI_HD void gshmemi_ring_flush(gshmemi_ring_consumer_t *c)
{
    if (c->tail != c->tail_published) {
        gshmemi_atomic_store_release_u64(c->ring.tail, c->tail);
        c->tail_published = c->tail;
    }
    if (c->completed != c->completed_published) {
        gshmemi_atomic_store_release_u64(c->ring.completed, c->completed);
        c->completed_published = c->completed;
    }
}

GSHMEMI_HD int gshmemi_ring_poll(gshmemi_ring_consumer_t *c, gshmemi_wqe_t *wqe_p,
                                 uint64_t *idx_p)
{
    const gshmemi_ring_t *r = &c->ring;
    gshmemi_wqe_t *s = &r->slots[c->tail & (r->capacity - 1)];
    uint64_t ctrl = gshmemi_atomic_load_acquire_u64(&s->ctrl);
    if (((ctrl >> GSHMEMI_WQE_LAP_SHIFT) & GSHMEMI_WQE_LAP_MASK) !=
        gshmemi_ring_lap(r, c->tail)) {
        gshmemi_ring_flush(c);  /* idle: let blocked producers and quiet go on */
        return 0;
    }
    /* the acquire above orders these reads after the producer's writes */
    wqe_p->laddr = s->laddr;
    wqe_p->roff = s->roff;
    wqe_p->value = s->value;
    wqe_p->ctrl = ctrl & ~(GSHMEMI_WQE_LAP_MASK << GSHMEMI_WQE_LAP_SHIFT);
    if (idx_p)
        *idx_p = c->tail;
    /* the slot is copied out: free it (published below, or when idle) */
    c->tail++;
    if (c->tail - c->tail_published >= c->batch) {
        gshmemi_atomic_store_release_u64(r->tail, c->tail);
        c->tail_published = c->tail;
    }
    return 1;
}

GSHMEMI_HD void gshmemi_ring_complete(gshmemi_ring_consumer_t *c, uint64_t upto)
{
    if (upto <= c->completed)
        return;
    c->completed = upto;
    if (c->completed - c->completed_published >= c->batch) {
        gshmemi_atomic_store_release_u64(c->ring.completed, c->completed);
        c->completed_published = c->completed;
    }
}

GSHMEMI_HD void gshmemi_ring_set_error(gshmemi_ring_consumer_t *c, int code)
{
    gshmemi_atomic_store_release_u32(c->ring.status, (uint32_t)code);
}

#endif /* GSHMEMI_DEVICE_SQ_CONSUMER_IMPL_H */

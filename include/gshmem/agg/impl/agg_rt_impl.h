/* agg_rt_impl.h: bodies of the aggregator's runtime protocol (contracts:
 * ../agg_rt.h; design: docs/DESIGN.md#runtime-protocol-agg_rth). Included
 * by agg_rt.h only. */
#ifndef GSHMEMI_AGG_RT_IMPL_H
#define GSHMEMI_AGG_RT_IMPL_H

GSHMEMI_HD void gshmemi_agg_layout(uint32_t n_pes, uint32_t nbufs, uint32_t buf_bytes,
                                   gshmemi_agg_layout_t *l)
{
    uint64_t nk = (uint64_t)n_pes * nbufs, bufs = nk * buf_bytes;
    l->send = 0;
    l->recv = bufs;
    l->rsig = 2 * bufs;
    l->ack = l->rsig + nk * 8;
    l->slots = (l->ack + nk * 8 + 127) & ~127ull;
    l->cur = l->slots + nk * sizeof(gshmemi_agg_slot_t);
    l->rx_state = l->cur + (uint64_t)n_pes * sizeof(gshmemi_agg_cur_t);
    l->inflight = l->rx_state + nk * 8;
    l->total = l->inflight + nk * 8;
}

GSHMEMI_HD uint64_t gshmemi_agg_now(void)
{
#if defined(GSHMEMI_PORT_CUDA_DEVICE)
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#elif defined(GSHMEMI_PORT_HIP_DEVICE)
    return wall_clock64() * 10;   /* 100 MHz constant clock (gfx90a; compile-checked only) */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/* Word (pe, k) of a [N][K] u64 array at heap offset off. */
GSHMEMI_HD uint64_t *gshmemi_agg_rt_word(const gshmemi_agg_rt_t *rt, uint64_t off, uint32_t pe,
                                         uint32_t k)
{
    return (uint64_t *)(rt->heap_base + off) + (uint64_t)pe * rt->core.nbufs + k;
}

GSHMEMI_HD int gshmemi_agg_rt_post(const gshmemi_agg_rt_t *rt, const gshmemi_wqe_t *w,
                                   uint32_t n, uint32_t ch)
{
    uint64_t idx;
    const gshmemi_channels_t *c = &rt->queue->ch;
    return gshmemi_ring_post(gshmemi_channel_ring(c, ch), w, n, NULL, &idx);
}

GSHMEMI_HD gshmemi_wqe_t gshmemi_agg_rt_wqe(uint64_t laddr, uint64_t roff, uint64_t value,
                                           uint32_t op, uint32_t aux, uint32_t pe)
{
    gshmemi_wqe_t w;
    w.laddr = laddr;
    w.roff = roff;
    w.value = value;
    w.ctrl = gshmemi_wqe_ctrl(op, 0, aux, pe);
    return w;
}

GSHMEMI_HD int gshmemi_agg_rt_send(const gshmemi_agg_rt_t *rt, const gshmemi_agg_ready_t *r,
                                   uint32_t ch)
{
    const uint32_t K = rt->core.nbufs;
    const uint64_t mine = (uint64_t)rt->my_pe * K + r->slot;
    const uint64_t tag = (uint64_t)(r->lap & GSHMEMI_AGG_LAP_MASK) + 1;
    gshmemi_wqe_t w[2];

    /* before the post: the ack cannot come earlier than this */
    gshmemi_atomic_store_release_u64(&rt->inflight[(uint64_t)r->pe * K + r->slot], tag);
    w[0] = gshmemi_agg_rt_wqe((uint64_t)(uintptr_t)r->data,
                              rt->recv_off + mine * rt->core.buf_bytes, r->bytes,
                              GSHMEMI_OP_PUT_SIGNAL, 0, r->pe);
    w[1] = gshmemi_agg_rt_wqe(0, rt->rsig_off + mine * 8, (uint64_t)r->bytes << 32 | tag,
                              GSHMEMI_OP_EXT, GSHMEM_SIGNAL_SET, r->pe);
    return gshmemi_agg_rt_post(rt, w, 2, ch);
}

GSHMEMI_HD int gshmemi_agg_rt_try_release(const gshmemi_agg_rt_t *rt, uint32_t pe, uint32_t k)
{
    uint64_t *inf = &rt->inflight[(uint64_t)pe * rt->core.nbufs + k];
    uint64_t tag = gshmemi_atomic_load_acquire_u64(inf);
    if (tag == 0)
        return 0;
    uint64_t ack = gshmemi_atomic_load_acquire_u64(gshmemi_agg_rt_word(rt, rt->ack_off, pe, k));
    if ((ack & GSHMEMI_AGG_TAG_MASK) != tag || gshmemi_atomic_cas_u64(inf, tag, 0) != tag)
        return 0;
    gshmemi_agg_ready_t r;
    r.data = 0;
    r.bytes = 0;
    r.pe = pe;
    r.slot = k;
    r.lap = 0;
    gshmemi_agg_release(&rt->core, &r);
    return 1;
}

GSHMEMI_HD int gshmemi_agg_rt_rx_claim(const gshmemi_agg_rt_t *rt, uint32_t s, uint32_t k,
                                       uint64_t *sig_p)
{
    uint64_t sig = gshmemi_atomic_load_acquire_u64(gshmemi_agg_rt_word(rt, rt->rsig_off, s, k));
    uint64_t tag = sig & GSHMEMI_AGG_TAG_MASK;
    uint64_t *st = &rt->rx_state[(uint64_t)s * rt->core.nbufs + k];
    if (tag == 0)
        return 0;
    /* only the generation after the last claimed one: a drainer that read
     * an old signal before others claimed it and the next one must not
     * claim it again (tags run 1 .. 2^24, then 1) */
    uint64_t old = gshmemi_atomic_load_relaxed_u64(st);
    if (tag != (old & GSHMEMI_AGG_LAP_MASK) + 1 || gshmemi_atomic_cas_u64(st, old, tag) != old)
        return 0;
    *sig_p = sig;
    return 1;
}

GSHMEMI_HD const uint8_t *gshmemi_agg_rt_rx_buf(const gshmemi_agg_rt_t *rt, uint32_t s,
                                                uint32_t k)
{
    return rt->heap_base + rt->recv_off +
           ((uint64_t)s * rt->core.nbufs + k) * rt->core.buf_bytes;
}

GSHMEMI_HD int gshmemi_agg_rt_rx_ack(const gshmemi_agg_rt_t *rt, uint32_t s, uint32_t k,
                                     uint64_t sig, uint32_t ch)
{
    const uint64_t mine = (uint64_t)rt->my_pe * rt->core.nbufs + k;
    gshmemi_fence_system();   /* the applied records before the ack */
    gshmemi_wqe_t w = gshmemi_agg_rt_wqe(0, rt->ack_off + mine * 8, sig, GSHMEMI_OP_SIGNAL,
                                         GSHMEM_SIGNAL_SET, s);
    return gshmemi_agg_rt_post(rt, &w, 1, ch);
}

GSHMEMI_HD int gshmemi_agg_rt_drain(const gshmemi_agg_rt_t *rt, uint32_t ch,
                                    uint32_t *applied_p, gshmemi_agg_apply_err_t *err_p,
                                    uint32_t *where_p)
{
    const uint32_t K = rt->core.nbufs;
    for (uint32_t s = 0; s < (uint32_t)rt->n_pes; s++) {
        if (s == (uint32_t)rt->my_pe)
            continue;   /* records to oneself are stored directly */
        for (uint32_t k = 0; k < K; k++) {
            uint64_t sig;
            if (!gshmemi_agg_rt_rx_claim(rt, s, k, &sig))
                continue;
            int rc = gshmemi_agg_apply(rt->heap_base, rt->core.heap_size,
                                       gshmemi_agg_rt_rx_buf(rt, s, k), (uint32_t)(sig >> 32),
                                       NULL, err_p);
            if (rc == GSHMEM_SUCCESS)
                rc = gshmemi_agg_rt_rx_ack(rt, s, k, sig, ch);
            if (rc != GSHMEM_SUCCESS) {
                if (where_p)
                    *where_p = s * K + k;
                return rc;
            }
            if (applied_p)
                (*applied_p)++;
        }
    }
    return GSHMEM_SUCCESS;
}

GSHMEMI_HD int gshmemi_agg_rt_tx_slot(const gshmemi_agg_rt_t *rt, uint32_t pe, uint32_t k,
                                      uint64_t now, int force, uint32_t ch,
                                      uint32_t *pending_p, uint32_t *sent_p)
{
    gshmemi_agg_ready_t r;
    (void)gshmemi_agg_rt_try_release(rt, pe, k);
    if (gshmemi_agg_flush_slot(&rt->core, pe, k, now, force, &r) & GSHMEMI_AGG_READY) {
        int rc = gshmemi_agg_rt_send(rt, &r, ch);
        if (rc != GSHMEM_SUCCESS)
            return rc;
        if (sent_p)
            (*sent_p)++;
    }
    uint64_t st = gshmemi_atomic_load_relaxed_u64(&gshmemi_agg_slot(&rt->core, pe, k)->state);
    if ((st & GSHMEMI_AGG_FILL_MASK) != 0 && pending_p)
        (*pending_p)++;   /* holds records, or sealed and not yet released */
    return GSHMEM_SUCCESS;
}

/* One round of a wait: 0, or GSHMEM_ERR_TIMEOUT once timeout_ns passed
 * since the first round (*t0_p: 0 before it). */
GSHMEMI_HD int gshmemi_agg_rt_wait_step(const gshmemi_agg_rt_t *rt, uint64_t *t0_p,
                                        uint32_t *backoff_p)
{
    uint64_t now = gshmemi_agg_now();
    if (*t0_p == 0)
        *t0_p = now;
    else if (now - *t0_p > rt->timeout_ns)
        return GSHMEM_ERR_TIMEOUT;
    gshmemi_backoff(backoff_p);
    return GSHMEM_SUCCESS;
}

GSHMEMI_HD int gshmemi_agg_rt_store(const gshmemi_agg_rt_t *rt, uint64_t dst_off,
                                    const void *src, uint32_t bytes, uint32_t pe, uint32_t ch)
{
    uint64_t t0 = 0;
    uint32_t backoff = 0, rounds = 0;
    for (;;) {
        gshmemi_agg_ready_t r;
        int rc = gshmemi_agg_store_step(&rt->core, pe, dst_off, src, bytes, gshmemi_agg_now(),
                                        &r);
        if (rc < 0)
            return rc;
        if (rc & GSHMEMI_AGG_READY) {
            int e = gshmemi_agg_rt_send(rt, &r, ch);
            if (e != GSHMEM_SUCCESS)
                return e;
        }
        if (rc & GSHMEMI_AGG_STORED)
            return GSHMEM_SUCCESS;
        if (!(rc & GSHMEMI_AGG_FULL))
            continue;
        /* every buffer to pe is in flight: reopen what was acked; after
         * GSHMEMI_AGG_HELP_ROUNDS rounds also apply what others sent here
         * (a target whose GPU is full of producers drains through them;
         * before that, the service applies faster, with whole blocks) */
        int freed = 0;
        for (uint32_t k = 0; k < rt->core.nbufs; k++)
            freed |= gshmemi_agg_rt_try_release(rt, pe, k);
        if (freed)
            continue;
        if (++rounds >= GSHMEMI_AGG_HELP_ROUNDS &&
            (rc = gshmemi_agg_rt_drain(rt, ch, NULL, NULL, NULL)) != 0)
            return rc;
        if ((rc = gshmemi_agg_rt_wait_step(rt, &t0, &backoff)) != 0)
            return rc;
    }
}

GSHMEMI_HD int gshmemi_agg_rt_flush(const gshmemi_agg_rt_t *rt, uint32_t pe_lo,
                                    uint32_t pe_hi, uint32_t ch, uint32_t *stuck_p)
{
    const uint64_t cap = rt->core.buf_bytes;
    for (uint32_t pe = pe_lo; pe < pe_hi; pe++) {
        if (pe == (uint32_t)rt->my_pe)
            continue;
        for (uint32_t k = 0; k < rt->core.nbufs; k++) {
            uint64_t *state = &gshmemi_agg_slot(&rt->core, pe, k)->state;
            uint32_t lap0 = gshmemi_agg_lap_of(gshmemi_atomic_load_acquire_u64(state));
            uint64_t t0 = 0;
            uint32_t backoff = 0, rounds = 0;
            for (;;) {
                uint64_t st = gshmemi_atomic_load_acquire_u64(state);
                uint64_t fill = st & GSHMEMI_AGG_FILL_MASK;
                if (gshmemi_agg_lap_of(st) != lap0 || fill == 0)
                    break;   /* generation lap0 released (applied), or empty */
                int rc;
                if (fill < cap) {   /* holds records: seal and send it now */
                    gshmemi_agg_ready_t r;
                    if (gshmemi_agg_flush_slot(&rt->core, pe, k, gshmemi_agg_now(), 1, &r) &
                        GSHMEMI_AGG_READY) {
                        if ((rc = gshmemi_agg_rt_send(rt, &r, ch)) != 0)
                            return rc;
                    }
                    continue;
                }
                if (gshmemi_agg_rt_try_release(rt, pe, k))
                    continue;
                if (++rounds >= GSHMEMI_AGG_HELP_ROUNDS &&
                    (rc = gshmemi_agg_rt_drain(rt, ch, NULL, NULL, NULL)) != 0)
                    return rc;
                if ((rc = gshmemi_agg_rt_wait_step(rt, &t0, &backoff)) != 0) {
                    if (stuck_p)
                        *stuck_p = pe * rt->core.nbufs + k;
                    return rc;
                }
            }
        }
    }
    gshmemi_fence_system();
    return GSHMEM_SUCCESS;
}

#endif /* GSHMEMI_AGG_RT_IMPL_H */

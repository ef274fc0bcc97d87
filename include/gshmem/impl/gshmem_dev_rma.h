/* gshmem_dev_rma.h: PE queries, gshmem_ptr, put/get of bytes (thread,
 * warp, block; the typed forms: impl/gshmem_dev_rma_typed.h). P2P path:
 * stores to / loads from the peer's mapped heap. Included by
 * gshmem_device.h only; bodies in the device pass. */
#ifndef GSHMEMI_DEV_RMA_H
#define GSHMEMI_DEV_RMA_H

#if defined(GSHMEMI_DEV_PASS)

extern "C" {

GSHMEMI_DEV_API int gshmem_my_pe(void)
{
    return gshmemi_dstate.my_pe;
}

GSHMEMI_DEV_API int gshmem_n_pes(void)
{
    return gshmemi_dstate.n_pes;
}

GSHMEMI_DEV_API void *gshmem_ptr(const void *addr, int pe)
{
    if (gshmemi_dev_checks_on() && (pe < 0 || pe >= gshmemi_dstate.n_pes))
        gshmemi_dev_fail_pe("gshmem_ptr", pe);
    if (!gshmemi_dev_in_heap(addr, 1))
        return NULL;
    return gshmemi_dev_peer_addr(addr, pe);
}

} /* extern "C" */

/* The put and get every form goes through: g splits the bytes (P2P path);
 * on the queue path the group's rank 0 posts one entry for the whole range
 * once the group reached the call. blocking: see gshmemi_devq_put/_get.
 * sm: a thread's small put, its words already loaded (gshmemi_dev_small_load;
 * gshmemi_dev_small_none otherwise). A group's threads with nothing to copy
 * leave first (gshmemi_dev_group_idle). */
GSHMEMI_DEV void gshmemi_dev_put(const char *call, void *dest, const void *source, size_t n,
                                 int pe, gshmemi_dev_group_t g, bool blocking,
                                 const gshmemi_dev_small_t &sm)
{
    if (n == 0 || gshmemi_dev_group_idle(dest, source, n, pe, g))
        return;
    gshmemi_dev_check(call, "dest", dest, n, pe);
    char *r = gshmemi_dev_peer_addr(dest, pe);
    if (r != NULL) {
        if (sm.nw != 0)
            gshmemi_dev_small_store(r, sm);
        else
            gshmemi_dev_copy_p2p(r, source, n, g, dest, source);
        return;
    }
    gshmemi_devq_group_sync(g);
    if (g.rank == 0)
        gshmemi_devq_put(call, dest, source, n, pe, blocking);
}

GSHMEMI_DEV void gshmemi_dev_get(const char *call, void *dest, const void *source, size_t n,
                                 int pe, gshmemi_dev_group_t g, bool blocking)
{
    if (n == 0 || gshmemi_dev_group_idle(dest, source, n, pe, g))
        return;
    gshmemi_dev_check(call, "source", source, n, pe);
    char *r = gshmemi_dev_peer_addr(source, pe);
    if (r != NULL) {
        gshmemi_dev_copy_p2p(dest, r, n, g, dest, source);
        return;
    }
    gshmemi_devq_group_sync(g);
    if (g.rank == 0)
        gshmemi_devq_get(call, dest, source, n, pe, blocking);
}

extern "C" {

/* On P2P a blocking put equals nbi: the stores are issued (the source may
 * be reused) and quiet's system fence completes them. On the queue path a
 * blocking put of up to 64 bytes returns once posted (the bytes travel
 * with the entry: inline or in its payload; quiet completes it), a larger
 * one when its entry is complete (delivered). */
GSHMEMI_DEV_API void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmem_putmem", dest, source, nelems, pe, gshmemi_dev_thread(), true,
                    gshmemi_dev_small_load(dest, source, nelems));
}

GSHMEMI_DEV_API void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmem_putmem_nbi", dest, source, nelems, pe, gshmemi_dev_thread(),
                    false, gshmemi_dev_small_load(dest, source, nelems));
}

GSHMEMI_DEV_API void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_get("gshmem_getmem", dest, source, nelems, pe, gshmemi_dev_thread(), true);
}

GSHMEMI_DEV_API void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_get("gshmem_getmem_nbi", dest, source, nelems, pe, gshmemi_dev_thread(),
                    false);
}

/* ---- cooperative forms: blocking ones end with the group's barrier ---------- */

GSHMEMI_DEV void gshmemx_putmem_warp(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_lanemask_t mask;
    gshmemi_dev_put("gshmemx_putmem_warp", dest, source, nelems, pe, gshmemi_dev_warp(&mask),
                    true, gshmemi_dev_small_none());
    gshmemi_dev_syncwarp(mask);
}

GSHMEMI_DEV void gshmemx_putmem_nbi_warp(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_lanemask_t mask;
    gshmemi_dev_put("gshmemx_putmem_nbi_warp", dest, source, nelems, pe,
                    gshmemi_dev_warp(&mask), false, gshmemi_dev_small_none());
}

GSHMEMI_DEV void gshmemx_putmem_block(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmemx_putmem_block", dest, source, nelems, pe, gshmemi_dev_block(),
                    true, gshmemi_dev_small_none());
    __syncthreads();
}

GSHMEMI_DEV void gshmemx_putmem_nbi_block(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmemx_putmem_nbi_block", dest, source, nelems, pe, gshmemi_dev_block(),
                    false, gshmemi_dev_small_none());
}

GSHMEMI_DEV void gshmemx_getmem_warp(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_lanemask_t mask;
    gshmemi_dev_get("gshmemx_getmem_warp", dest, source, nelems, pe, gshmemi_dev_warp(&mask),
                    true);
    gshmemi_dev_syncwarp(mask);
}

GSHMEMI_DEV void gshmemx_getmem_block(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_get("gshmemx_getmem_block", dest, source, nelems, pe, gshmemi_dev_block(),
                    true);
    __syncthreads();
}

/* The data is in place at quiet (P2P: once each thread's copies are
 * done); no group barrier here, as for putmem_nbi. */
GSHMEMI_DEV void gshmemx_getmem_nbi_warp(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_lanemask_t mask;
    gshmemi_dev_get("gshmemx_getmem_nbi_warp", dest, source, nelems, pe,
                    gshmemi_dev_warp(&mask), false);
}

GSHMEMI_DEV void gshmemx_getmem_nbi_block(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_get("gshmemx_getmem_nbi_block", dest, source, nelems, pe, gshmemi_dev_block(),
                    false);
}

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_RMA_H */

/* gshmem_dev_rma.h: PE queries, gshmem_ptr, put/get (thread, warp, block)
 * and the typed forms. P2P path: stores to / loads from the peer's mapped
 * heap. Included by gshmem_device.h only; bodies in the device pass. */
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

} /* extern "C" */

/* ---- typed forms ------------------------------------------------------------- */
/* p and g are single volatile accesses (a g in a user's polling loop is
 * reloaded every time). Queue path: p carries the value in its entry and
 * returns once posted; g waits for the value. */
template <typename T> GSHMEMI_DEV uint64_t gshmemi_dev_bits(T v)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}
template <typename T> GSHMEMI_DEV T gshmemi_dev_from_bits(uint64_t b)
{
    T v;
    memcpy(&v, &b, sizeof(T));
    return v;
}

template <typename T> GSHMEMI_DEV void gshmemi_dev_p(const char *call, T *dest, T value, int pe)
{
    gshmemi_dev_check(call, "dest", dest, sizeof(T), pe);
    T *r = (T *)gshmemi_dev_peer_addr(dest, pe);
    if (r != NULL)
        *(volatile T *)r = value;
    else
        gshmemi_devq_p(call, dest, gshmemi_dev_bits(value), sizeof(T), pe);
}

template <typename T> GSHMEMI_DEV T gshmemi_dev_g(const char *call, const T *source, int pe)
{
    gshmemi_dev_check(call, "source", source, sizeof(T), pe);
    T *r = (T *)gshmemi_dev_peer_addr(source, pe);
    if (r != NULL)
        return *(volatile T *)r;
    return gshmemi_dev_from_bits<T>(gshmemi_devq_g(call, source, sizeof(T), pe));
}

extern "C" {

#define GSHMEMI_DDEF_RMA(T, N)                                                         \
    GSHMEMI_DEV_API void gshmem_##N##_p(T *dest, T value, int pe)                      \
    {                                                                                  \
        gshmemi_dev_p<T>("gshmem_" #N "_p", dest, value, pe);                          \
    }                                                                                  \
    GSHMEMI_DEV_API T gshmem_##N##_g(const T *source, int pe)                          \
    {                                                                                  \
        return gshmemi_dev_g<T>("gshmem_" #N "_g", source, pe);                        \
    }                                                                                  \
    GSHMEMI_DEV_API void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                  \
        gshmemi_dev_put("gshmem_" #N "_put", dest, source, nelems * sizeof(T), pe,     \
                        gshmemi_dev_thread(), true,                                    \
                        gshmemi_dev_small_load(dest, source, nelems * sizeof(T)));     \
    }                                                                                  \
    GSHMEMI_DEV_API void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                  \
        gshmemi_dev_get("gshmem_" #N "_get", dest, source, nelems * sizeof(T), pe,     \
                        gshmemi_dev_thread(), true);                                   \
    }                                                                                  \
    GSHMEMI_DEV_API void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, \
                                          int pe)                                      \
    {                                                                                  \
        gshmemi_dev_put("gshmem_" #N "_put_nbi", dest, source, nelems * sizeof(T), pe, \
                        gshmemi_dev_thread(), false,                                   \
                        gshmemi_dev_small_load(dest, source, nelems * sizeof(T)));     \
    }                                                                                  \
    GSHMEMI_DEV_API void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, \
                                          int pe)                                      \
    {                                                                                  \
        gshmemi_dev_get("gshmem_" #N "_get_nbi", dest, source, nelems * sizeof(T), pe, \
                        gshmemi_dev_thread(), false);                                  \
    }
GSHMEMI_DDEF_RMA(int32_t, int32)
GSHMEMI_DDEF_RMA(int64_t, int64)
GSHMEMI_DDEF_RMA(uint64_t, uint64)
GSHMEMI_DDEF_RMA(float, float)
GSHMEMI_DDEF_RMA(double, double)
#undef GSHMEMI_DDEF_RMA

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_RMA_H */

/* gshmem_dev_rma.h: PE queries, gshmem_ptr, put/get (thread, warp, block)
 * and the typed forms. P2P path: stores to / loads from the peer's mapped
 * heap. Included by gshmem_device.h only; bodies in the device pass. */
#ifndef GSHMEMI_DEV_RMA_H
#define GSHMEMI_DEV_RMA_H

#if defined(__CUDA_ARCH__)

extern "C" {

GSHMEMI_DEV int gshmem_my_pe(void)
{
    return gshmemi_dstate.my_pe;
}

GSHMEMI_DEV int gshmem_n_pes(void)
{
    return gshmemi_dstate.n_pes;
}

GSHMEMI_DEV void *gshmem_ptr(const void *addr, int pe)
{
    if (gshmemi_dev_checks_on() && (pe < 0 || pe >= gshmemi_dstate.n_pes))
        gshmemi_dev_fail_pe("gshmem_ptr", pe);
    if (!gshmemi_dev_in_heap(addr, 1))
        return NULL;
    return gshmemi_dev_peer_addr(addr, pe);
}

} /* extern "C" */

/* The put and get every form goes through: g splits the bytes. */
GSHMEMI_DEV void gshmemi_dev_put(const char *call, void *dest, const void *source, size_t n,
                                 int pe, gshmemi_dev_group_t g)
{
    if (n == 0)
        return;
    gshmemi_dev_check(call, "dest", dest, n, pe);
    gshmemi_dev_copy(gshmemi_dev_peer_addr_or_fail(call, dest, pe), source, n, g);
}

GSHMEMI_DEV void gshmemi_dev_get(const char *call, void *dest, const void *source, size_t n,
                                 int pe, gshmemi_dev_group_t g)
{
    if (n == 0)
        return;
    gshmemi_dev_check(call, "source", source, n, pe);
    gshmemi_dev_copy(dest, gshmemi_dev_peer_addr_or_fail(call, source, pe), n, g);
}

extern "C" {

/* On P2P a blocking put equals nbi: the stores are issued (the source may
 * be reused) and quiet's system fence completes them. */
GSHMEMI_DEV void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmem_putmem", dest, source, nelems, pe, gshmemi_dev_thread());
}

GSHMEMI_DEV void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmem_putmem_nbi", dest, source, nelems, pe, gshmemi_dev_thread());
}

GSHMEMI_DEV void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_get("gshmem_getmem", dest, source, nelems, pe, gshmemi_dev_thread());
}

GSHMEMI_DEV void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_get("gshmem_getmem_nbi", dest, source, nelems, pe, gshmemi_dev_thread());
}

/* ---- cooperative forms: blocking ones end with the group's barrier ---------- */

GSHMEMI_DEV void gshmemx_putmem_warp(void *dest, const void *source, size_t nelems, int pe)
{
    unsigned mask;
    gshmemi_dev_put("gshmemx_putmem_warp", dest, source, nelems, pe, gshmemi_dev_warp(&mask));
    __syncwarp(mask);
}

GSHMEMI_DEV void gshmemx_putmem_nbi_warp(void *dest, const void *source, size_t nelems, int pe)
{
    unsigned mask;
    gshmemi_dev_put("gshmemx_putmem_nbi_warp", dest, source, nelems, pe,
                    gshmemi_dev_warp(&mask));
}

GSHMEMI_DEV void gshmemx_putmem_block(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmemx_putmem_block", dest, source, nelems, pe, gshmemi_dev_block());
    __syncthreads();
}

GSHMEMI_DEV void gshmemx_putmem_nbi_block(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_put("gshmemx_putmem_nbi_block", dest, source, nelems, pe, gshmemi_dev_block());
}

GSHMEMI_DEV void gshmemx_getmem_warp(void *dest, const void *source, size_t nelems, int pe)
{
    unsigned mask;
    gshmemi_dev_get("gshmemx_getmem_warp", dest, source, nelems, pe, gshmemi_dev_warp(&mask));
    __syncwarp(mask);
}

GSHMEMI_DEV void gshmemx_getmem_block(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_dev_get("gshmemx_getmem_block", dest, source, nelems, pe, gshmemi_dev_block());
    __syncthreads();
}

/* ---- typed forms ------------------------------------------------------------- */
/* p and g are single volatile accesses (a g in a user's polling loop is
 * reloaded every time). */
#define GSHMEMI_DDEF_RMA(T, N)                                                         \
    GSHMEMI_DEV void gshmem_##N##_p(T *dest, T value, int pe)                          \
    {                                                                                  \
        gshmemi_dev_check("gshmem_" #N "_p", "dest", dest, sizeof(T), pe);             \
        T *r = (T *)gshmemi_dev_peer_addr_or_fail("gshmem_" #N "_p", dest, pe);        \
        *(volatile T *)r = value;                                                      \
    }                                                                                  \
    GSHMEMI_DEV T gshmem_##N##_g(const T *source, int pe)                              \
    {                                                                                  \
        gshmemi_dev_check("gshmem_" #N "_g", "source", source, sizeof(T), pe);         \
        T *r = (T *)gshmemi_dev_peer_addr_or_fail("gshmem_" #N "_g", source, pe);      \
        return *(volatile T *)r;                                                       \
    }                                                                                  \
    GSHMEMI_DEV void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                  \
        gshmemi_dev_put("gshmem_" #N "_put", dest, source, nelems * sizeof(T), pe,     \
                        gshmemi_dev_thread());                                         \
    }                                                                                  \
    GSHMEMI_DEV void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                  \
        gshmemi_dev_get("gshmem_" #N "_get", dest, source, nelems * sizeof(T), pe,     \
                        gshmemi_dev_thread());                                         \
    }                                                                                  \
    GSHMEMI_DEV void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems,     \
                                          int pe)                                      \
    {                                                                                  \
        gshmemi_dev_put("gshmem_" #N "_put_nbi", dest, source, nelems * sizeof(T), pe, \
                        gshmemi_dev_thread());                                         \
    }                                                                                  \
    GSHMEMI_DEV void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems,     \
                                          int pe)                                      \
    {                                                                                  \
        gshmemi_dev_get("gshmem_" #N "_get_nbi", dest, source, nelems * sizeof(T), pe, \
                        gshmemi_dev_thread());                                         \
    }
GSHMEMI_DDEF_RMA(int32_t, int32)
GSHMEMI_DDEF_RMA(int64_t, int64)
GSHMEMI_DDEF_RMA(uint64_t, uint64)
GSHMEMI_DDEF_RMA(float, float)
GSHMEMI_DDEF_RMA(double, double)
#undef GSHMEMI_DDEF_RMA

} /* extern "C" */

#endif /* __CUDA_ARCH__ */
#endif /* GSHMEMI_DEV_RMA_H */

/* gshmem_dev_rma_typed.h: the typed RMA forms of the device API for every
 * type of the RMA table and the half types (impl/gshmem_coll_types.h):
 * gshmem_<T>_{p,g,put,get,put_nbi,get_nbi,iput,iget,put_signal,
 * put_signal_nbi} and gshmemx_<T>_..._warp / _block. Contiguous forms go
 * through the byte forms' paths (gshmemi_dev_put/_get,
 * gshmemi_dev_put_signal) with nelems * sizeof(T) bytes; p, g and the
 * strided forms move one element at a time. Included by gshmem_device.h
 * only; bodies in the device pass. */
#ifndef GSHMEMI_DEV_RMA_TYPED_H
#define GSHMEMI_DEV_RMA_TYPED_H

#if defined(GSHMEMI_DEV_PASS)

/* p and g are single volatile accesses (a g in a user's polling loop is
 * reloaded every time). Queue path: p carries the value in its entry (4
 * and 8 bytes inline, 1 and 2 in its payload) and returns once posted; g
 * waits for the value (1 and 2 bytes: the aligned 4-byte word that holds
 * the element comes back, the element is taken out of it). */
template <typename T> GSHMEMI_DEV void gshmemi_dev_p(const char *call, T *dest, T value, int pe)
{
    gshmemi_dev_check(call, "dest", dest, sizeof(T), pe);
    T *r = (T *)gshmemi_dev_peer_addr(dest, pe);
    if (r != NULL)
        gshmemi_dev_st_volatile(r, value);
    else if (sizeof(T) >= 4)
        gshmemi_devq_p(call, dest, gshmemi_dev_bits(value), sizeof(T), pe);
    else
        gshmemi_devq_put(call, dest, &value, sizeof(T), pe, false);
}

template <typename T> GSHMEMI_DEV T gshmemi_dev_g(const char *call, const T *source, int pe)
{
    gshmemi_dev_check(call, "source", source, sizeof(T), pe);
    T *r = (T *)gshmemi_dev_peer_addr(source, pe);
    if (r != NULL)
        return gshmemi_dev_ld_volatile(r);
    if (sizeof(T) >= 4)
        return gshmemi_dev_from_bits<T>(gshmemi_devq_g(call, source, sizeof(T), pe));
    uintptr_t a = (uintptr_t)source;
    uint64_t w = gshmemi_devq_g(call, (const void *)(a & ~(uintptr_t)3), 4, pe);
    return gshmemi_dev_from_bits<T>(w >> (8 * (a & 3)));
}

/* The group of a gshmemx_<T>_<op>_warp / _block form. */
GSHMEMI_DEV gshmemi_dev_group_t gshmemi_dev_group_warp(void)
{
    gshmemi_dev_lanemask_t mask;
    return gshmemi_dev_warp(&mask);
}
GSHMEMI_DEV gshmemi_dev_group_t gshmemi_dev_group_block(void)
{
    return gshmemi_dev_block();
}

/* The bodies of the cooperative forms and of the strided ones, compiled
 * once per translation unit (GSHMEMI_DEV_BODY) for every type (for the
 * strided ones, every element size), not inlined into each call site: a
 * kernel using many types would otherwise hold a copy of the copy loop per
 * type and form; a call costs little next to the group's barrier. */

/* A group's contiguous put or get of n bytes; blocking ones end with the
 * group's barrier. */
GSHMEMI_DEV_BODY void gshmemi_dev_put_group(const char *call, void *dest, const void *source,
                                            size_t n, int pe, gshmemi_dev_group_t g,
                                            bool blocking)
{
    gshmemi_dev_put(call, dest, source, n, pe, g, blocking, gshmemi_dev_small_none());
    if (blocking)
        gshmemi_devq_group_sync(g);
}

GSHMEMI_DEV_BODY void gshmemi_dev_get_group(const char *call, void *dest, const void *source,
                                            size_t n, int pe, gshmemi_dev_group_t g,
                                            bool blocking)
{
    gshmemi_dev_get(call, dest, source, n, pe, g, blocking);
    if (blocking)
        gshmemi_devq_group_sync(g);
}

GSHMEMI_DEV_BODY void gshmemi_dev_put_signal_group(const char *call, void *dest,
                                                   const void *source, size_t n,
                                                   uint64_t *sig_addr, uint64_t signal,
                                                   int sig_op, int pe, gshmemi_dev_group_t g,
                                                   bool blocking)
{
    gshmemi_dev_put_signal(call, dest, source, n, sig_addr, signal, sig_op, pe, g, blocking,
                           gshmemi_dev_small_none());
}

/* The unsigned word of a 1, 2, 4 or 8-byte element, for the strided
 * bodies. */
template <size_t S> struct gshmemi_dev_elem;
template <> struct gshmemi_dev_elem<1> {
    typedef uint8_t type;
};
template <> struct gshmemi_dev_elem<2> {
    typedef uint16_t type;
};
template <> struct gshmemi_dev_elem<4> {
    typedef uint32_t type;
};
template <> struct gshmemi_dev_elem<8> {
    typedef uint64_t type;
};

/* Strided forms (strides in elements, any sign): element i of source (at
 * source + i * sst) to dest + i * dst, one p (iput) or g (iget) each, on
 * the element's word W; the group's threads split i, then meet (iput:
 * every element issued; iget: every element in place for every thread). */
template <typename W>
GSHMEMI_DEV_BODY void gshmemi_dev_iput(const char *call, W *dest, const W *source,
                                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
                                       gshmemi_dev_group_t g)
{
    for (size_t i = g.rank; i < nelems; i += g.size)
        gshmemi_dev_p<W>(call, dest + (ptrdiff_t)i * dst, source[(ptrdiff_t)i * sst], pe);
    gshmemi_devq_group_sync(g);
}

template <typename W>
GSHMEMI_DEV_BODY void gshmemi_dev_iget(const char *call, W *dest, const W *source,
                                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
                                       gshmemi_dev_group_t g)
{
    for (size_t i = g.rank; i < nelems; i += g.size)
        dest[(ptrdiff_t)i * dst] = gshmemi_dev_g<W>(call, source + (ptrdiff_t)i * sst, pe);
    gshmemi_devq_group_sync(g);
}
#define GSHMEMI_DEV_ELEM_(T) typename gshmemi_dev_elem<sizeof(T)>::type

extern "C" {

#define GSHMEMI_DCALL_(PRE, N, OP) PRE #N "_" #OP
/* The cooperative forms of group G (warp, block) for T. */
#define GSHMEMI_DDEF_RMA_G(T, N, G)                                                       \
    GSHMEMI_DEV void gshmemx_##N##_put_##G(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                     \
        gshmemi_dev_put_group(GSHMEMI_DCALL_("gshmemx_", N, put_##G), dest, source,      \
                              nelems * sizeof(T), pe, gshmemi_dev_group_##G(), true);     \
    }                                                                                     \
    GSHMEMI_DEV void gshmemx_##N##_put_nbi_##G(T *dest, const T *source, size_t nelems,   \
                                               int pe)                                    \
    {                                                                                     \
        gshmemi_dev_put_group(GSHMEMI_DCALL_("gshmemx_", N, put_nbi_##G), dest, source,  \
                              nelems * sizeof(T), pe, gshmemi_dev_group_##G(), false);    \
    }                                                                                     \
    GSHMEMI_DEV void gshmemx_##N##_get_##G(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                     \
        gshmemi_dev_get_group(GSHMEMI_DCALL_("gshmemx_", N, get_##G), dest, source,      \
                              nelems * sizeof(T), pe, gshmemi_dev_group_##G(), true);     \
    }                                                                                     \
    GSHMEMI_DEV void gshmemx_##N##_get_nbi_##G(T *dest, const T *source, size_t nelems,   \
                                               int pe)                                    \
    {                                                                                     \
        gshmemi_dev_get_group(GSHMEMI_DCALL_("gshmemx_", N, get_nbi_##G), dest, source,  \
                              nelems * sizeof(T), pe, gshmemi_dev_group_##G(), false);    \
    }                                                                                     \
    GSHMEMI_DEV void gshmemx_##N##_put_signal_##G(T *dest, const T *source, size_t nelems, \
                                                  uint64_t *sig_addr, uint64_t signal,   \
                                                  int sig_op, int pe)                     \
    {                                                                                     \
        gshmemi_dev_put_signal_group(GSHMEMI_DCALL_("gshmemx_", N, put_signal_##G), dest, \
                                     source, nelems * sizeof(T), sig_addr, signal, sig_op, \
                                     pe, gshmemi_dev_group_##G(), true);                  \
    }                                                                                     \
    GSHMEMI_DEV void gshmemx_##N##_put_signal_nbi_##G(T *dest, const T *source,           \
                                                      size_t nelems, uint64_t *sig_addr,  \
                                                      uint64_t signal, int sig_op, int pe) \
    {                                                                                     \
        gshmemi_dev_put_signal_group(GSHMEMI_DCALL_("gshmemx_", N, put_signal_nbi_##G),   \
                                     dest, source, nelems * sizeof(T), sig_addr, signal,  \
                                     sig_op, pe, gshmemi_dev_group_##G(), false);         \
    }                                                                                     \
    GSHMEMI_DEV void gshmemx_##N##_iput_##G(T *dest, const T *source, ptrdiff_t dst,      \
                                            ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                     \
        gshmemi_dev_iput(GSHMEMI_DCALL_("gshmemx_", N, iput_##G),                         \
                         (GSHMEMI_DEV_ELEM_(T) *)dest, (const GSHMEMI_DEV_ELEM_(T) *)source, \
                         dst, sst, nelems, pe, gshmemi_dev_group_##G());                  \
    }                                                                                     \
    GSHMEMI_DEV void gshmemx_##N##_iget_##G(T *dest, const T *source, ptrdiff_t dst,      \
                                            ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                     \
        gshmemi_dev_iget(GSHMEMI_DCALL_("gshmemx_", N, iget_##G),                         \
                         (GSHMEMI_DEV_ELEM_(T) *)dest, (const GSHMEMI_DEV_ELEM_(T) *)source, \
                         dst, sst, nelems, pe, gshmemi_dev_group_##G());                  \
    }

/* Every form for T; Q: GSHMEMI_DEV_API (a name the host has) or
 * GSHMEMI_DEV (device only). A thread's put loads a small source first
 * (gshmemi_dev_small_load), as putmem does. */
#define GSHMEMI_DDEF_RMA(Q, T, N)                                                         \
    Q void gshmem_##N##_p(T *dest, T value, int pe)                                       \
    {                                                                                     \
        gshmemi_dev_p<T>(GSHMEMI_DCALL_("gshmem_", N, p), dest, value, pe);              \
    }                                                                                     \
    Q T gshmem_##N##_g(const T *source, int pe)                                           \
    {                                                                                     \
        return gshmemi_dev_g<T>(GSHMEMI_DCALL_("gshmem_", N, g), source, pe);            \
    }                                                                                     \
    Q void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)              \
    {                                                                                     \
        gshmemi_dev_put(GSHMEMI_DCALL_("gshmem_", N, put), dest, source, nelems * sizeof(T), \
                        pe, gshmemi_dev_thread(), true,                                   \
                        gshmemi_dev_small_load(dest, source, nelems * sizeof(T)));        \
    }                                                                                     \
    Q void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)          \
    {                                                                                     \
        gshmemi_dev_put(GSHMEMI_DCALL_("gshmem_", N, put_nbi), dest, source,             \
                        nelems * sizeof(T), pe, gshmemi_dev_thread(), false,              \
                        gshmemi_dev_small_load(dest, source, nelems * sizeof(T)));        \
    }                                                                                     \
    Q void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)              \
    {                                                                                     \
        gshmemi_dev_get(GSHMEMI_DCALL_("gshmem_", N, get), dest, source, nelems * sizeof(T), \
                        pe, gshmemi_dev_thread(), true);                                  \
    }                                                                                     \
    Q void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)          \
    {                                                                                     \
        gshmemi_dev_get(GSHMEMI_DCALL_("gshmem_", N, get_nbi), dest, source,             \
                        nelems * sizeof(T), pe, gshmemi_dev_thread(), false);             \
    }                                                                                     \
    Q void gshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,      \
                             size_t nelems, int pe)                                       \
    {                                                                                     \
        gshmemi_dev_iput(GSHMEMI_DCALL_("gshmem_", N, iput), (GSHMEMI_DEV_ELEM_(T) *)dest, \
                         (const GSHMEMI_DEV_ELEM_(T) *)source, dst, sst, nelems, pe,      \
                         gshmemi_dev_thread());                                           \
    }                                                                                     \
    Q void gshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,      \
                             size_t nelems, int pe)                                       \
    {                                                                                     \
        gshmemi_dev_iget(GSHMEMI_DCALL_("gshmem_", N, iget), (GSHMEMI_DEV_ELEM_(T) *)dest, \
                         (const GSHMEMI_DEV_ELEM_(T) *)source, dst, sst, nelems, pe,      \
                         gshmemi_dev_thread());                                           \
    }                                                                                     \
    Q void gshmem_##N##_put_signal(T *dest, const T *source, size_t nelems,               \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    {                                                                                     \
        gshmemi_dev_put_signal(GSHMEMI_DCALL_("gshmem_", N, put_signal), dest, source,    \
                               nelems * sizeof(T), sig_addr, signal, sig_op, pe,          \
                               gshmemi_dev_thread(), true,                                \
                               gshmemi_dev_small_load(dest, source, nelems * sizeof(T))); \
    }                                                                                     \
    Q void gshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,           \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                       int pe)                                            \
    {                                                                                     \
        gshmemi_dev_put_signal(GSHMEMI_DCALL_("gshmem_", N, put_signal_nbi), dest, source, \
                               nelems * sizeof(T), sig_addr, signal, sig_op, pe,          \
                               gshmemi_dev_thread(), false,                               \
                               gshmemi_dev_small_load(dest, source, nelems * sizeof(T))); \
    }                                                                                     \
    GSHMEMI_DDEF_RMA_G(T, N, warp)                                                        \
    GSHMEMI_DDEF_RMA_G(T, N, block)
#define GSHMEMI_DDEF_RMA_HD(T, N) GSHMEMI_DDEF_RMA(GSHMEMI_DEV_API, T, N)
#define GSHMEMI_DDEF_RMA_DEV(T, N) GSHMEMI_DDEF_RMA(GSHMEMI_DEV, T, N)
GSHMEMI_RMA_EACH_TYPE(GSHMEMI_DDEF_RMA_HD)
GSHMEMI_DEV_HALF_EACH_TYPE(GSHMEMI_DDEF_RMA_DEV)
#undef GSHMEMI_DDEF_RMA_HD
#undef GSHMEMI_DDEF_RMA_DEV
#undef GSHMEMI_DDEF_RMA
#undef GSHMEMI_DDEF_RMA_G
#undef GSHMEMI_DCALL_
#undef GSHMEMI_DEV_ELEM_

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_RMA_TYPED_H */

/* gshmem_dev_amo.h: atomics on int32, int64 and uint64 at any PE. P2P path:
 * system-scope relaxed atomics on the peer's mapped address (ordered by
 * fence/quiet like puts). Signed types use the unsigned word of the same
 * width (two's complement add, bitwise compare). Included by
 * gshmem_device.h only; bodies in the device pass. */
#ifndef GSHMEMI_DEV_AMO_H
#define GSHMEMI_DEV_AMO_H

#if defined(__CUDA_ARCH__)

/* The word type of each AMO type, and the word operations by width. */
GSHMEMI_DEV uint32_t gshmemi_dev_amo_add(uint32_t *p, uint32_t v)
{
    return gshmemi_atomic_fetch_add_relaxed_u32(p, v);
}
GSHMEMI_DEV uint64_t gshmemi_dev_amo_add(uint64_t *p, uint64_t v)
{
    return gshmemi_atomic_fetch_add_relaxed_u64(p, v);
}
GSHMEMI_DEV uint32_t gshmemi_dev_amo_cas(uint32_t *p, uint32_t c, uint32_t v)
{
    return gshmemi_atomic_cas_u32(p, c, v);
}
GSHMEMI_DEV uint64_t gshmemi_dev_amo_cas(uint64_t *p, uint64_t c, uint64_t v)
{
    return gshmemi_atomic_cas_u64(p, c, v);
}
GSHMEMI_DEV uint32_t gshmemi_dev_amo_swap(uint32_t *p, uint32_t v)
{
    return gshmemi_dev_exch_u32(p, v);
}
GSHMEMI_DEV uint64_t gshmemi_dev_amo_swap(uint64_t *p, uint64_t v)
{
    return gshmemi_dev_exch_u64(p, v);
}
GSHMEMI_DEV uint32_t gshmemi_dev_amo_load(const uint32_t *p)
{
    return gshmemi_atomic_load_relaxed_u32(p);
}
GSHMEMI_DEV uint64_t gshmemi_dev_amo_load(const uint64_t *p)
{
    return gshmemi_atomic_load_relaxed_u64(p);
}
GSHMEMI_DEV void gshmemi_dev_amo_store(uint32_t *p, uint32_t v)
{
    gshmemi_atomic_store_relaxed_u32(p, v);
}
GSHMEMI_DEV void gshmemi_dev_amo_store(uint64_t *p, uint64_t v)
{
    gshmemi_atomic_store_relaxed_u64(p, v);
}

/* The target word at pe, after the checks (natural alignment included). */
template <typename W>
GSHMEMI_DEV W *gshmemi_dev_amo_addr(const char *call, const void *dest, int pe)
{
    gshmemi_dev_check(call, "dest", dest, sizeof(W), pe);
    if (gshmemi_dev_checks_on() && ((uintptr_t)dest & (sizeof(W) - 1)) != 0)
        gshmemi_dev_fail_addr(call, "dest (misaligned)", dest, sizeof(W));
    return (W *)gshmemi_dev_peer_addr_or_fail(call, dest, pe);
}

extern "C" {

#define GSHMEMI_DDEF_AMO(T, W, N)                                                          \
    GSHMEMI_DEV T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe)                  \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_fetch_add", dest, pe);        \
        return (T)gshmemi_dev_amo_add(w, (W)value);                                        \
    }                                                                                      \
    GSHMEMI_DEV void gshmem_##N##_atomic_add(T *dest, T value, int pe)                     \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_add", dest, pe);              \
        (void)gshmemi_dev_amo_add(w, (W)value);                                            \
    }                                                                                      \
    GSHMEMI_DEV T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)       \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_compare_swap", dest, pe);     \
        return (T)gshmemi_dev_amo_cas(w, (W)cond, (W)value);                               \
    }                                                                                      \
    GSHMEMI_DEV T gshmem_##N##_atomic_swap(T *dest, T value, int pe)                       \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_swap", dest, pe);             \
        return (T)gshmemi_dev_amo_swap(w, (W)value);                                       \
    }                                                                                      \
    GSHMEMI_DEV T gshmem_##N##_atomic_fetch(const T *source, int pe)                       \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_fetch", source, pe);          \
        return (T)gshmemi_dev_amo_load(w);                                                 \
    }                                                                                      \
    GSHMEMI_DEV void gshmem_##N##_atomic_set(T *dest, T value, int pe)                     \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_set", dest, pe);              \
        gshmemi_dev_amo_store(w, (W)value);                                                \
    }                                                                                      \
    GSHMEMI_DEV void gshmem_##N##_atomic_inc(T *dest, int pe)                              \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_inc", dest, pe);              \
        (void)gshmemi_dev_amo_add(w, (W)1);                                                \
    }                                                                                      \
    GSHMEMI_DEV T gshmem_##N##_atomic_fetch_inc(T *dest, int pe)                           \
    {                                                                                      \
        W *w = gshmemi_dev_amo_addr<W>("gshmem_" #N "_atomic_fetch_inc", dest, pe);        \
        return (T)gshmemi_dev_amo_add(w, (W)1);                                            \
    }
GSHMEMI_DDEF_AMO(int32_t, uint32_t, int32)
GSHMEMI_DDEF_AMO(int64_t, uint64_t, int64)
GSHMEMI_DDEF_AMO(uint64_t, uint64_t, uint64)
#undef GSHMEMI_DDEF_AMO

} /* extern "C" */

#endif /* __CUDA_ARCH__ */
#endif /* GSHMEMI_DEV_AMO_H */

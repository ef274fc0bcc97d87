/* gshmem_dev_amo.h: atomics on int32, int64 and uint64 at any PE (the
 * standard ones, and, or, xor and their fetching forms). P2P path:
 * system-scope relaxed atomics on the peer's mapped address (ordered by
 * fence/quiet like puts). Queue path: one AMO entry each (fetching ones wait
 * for the value; the others complete at quiet). Signed types use the unsigned word of the same
 * width (two's complement add, bitwise compare). Included by
 * gshmem_device.h only; bodies in the device pass. */
#ifndef GSHMEMI_DEV_AMO_H
#define GSHMEMI_DEV_AMO_H

#if defined(GSHMEMI_DEV_PASS)

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

/* and, or, xor (kind: one of them or its fetching form), relaxed, system
 * scope; returns the old word. */
#if defined(__HIPCC__)
#define GSHMEMI_DEV_BIT_(p, kind, v)                                                        \
    ((kind) == GSHMEMI_AMO_AND || (kind) == GSHMEMI_AMO_FETCH_AND                           \
         ? __hip_atomic_fetch_and(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM)       \
     : (kind) == GSHMEMI_AMO_OR || (kind) == GSHMEMI_AMO_FETCH_OR                           \
         ? __hip_atomic_fetch_or(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM)        \
         : __hip_atomic_fetch_xor(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM))
#else
#define GSHMEMI_DEV_BIT_(p, kind, v)                                                        \
    ((kind) == GSHMEMI_AMO_AND || (kind) == GSHMEMI_AMO_FETCH_AND ? atomicAnd_system(p, v)  \
     : (kind) == GSHMEMI_AMO_OR || (kind) == GSHMEMI_AMO_FETCH_OR ? atomicOr_system(p, v)   \
                                                                  : atomicXor_system(p, v))
#endif
GSHMEMI_DEV uint32_t gshmemi_dev_amo_bit(uint32_t *p, uint32_t kind, uint32_t v)
{
    return (uint32_t)GSHMEMI_DEV_BIT_((unsigned int *)p, kind, (unsigned int)v);
}
GSHMEMI_DEV uint64_t gshmemi_dev_amo_bit(uint64_t *p, uint32_t kind, uint64_t v)
{
    return (uint64_t)GSHMEMI_DEV_BIT_((unsigned long long *)p, kind, (unsigned long long)v);
}
#undef GSHMEMI_DEV_BIT_

/* The target word at pe, after the checks (natural alignment included);
 * NULL when pe is reached through the queue path. */
template <typename W>
GSHMEMI_DEV W *gshmemi_dev_amo_addr(const char *call, const void *dest, int pe)
{
    gshmemi_dev_check(call, "dest", dest, sizeof(W), pe);
    if (gshmemi_dev_checks_on() && ((uintptr_t)dest & (sizeof(W) - 1)) != 0)
        gshmemi_dev_fail_addr(call, "dest (misaligned)", dest, sizeof(W));
    return (W *)gshmemi_dev_peer_addr(dest, pe);
}

/* Queue path of one AMO (kind: gshmemi_amo_op_t); fetching kinds wait. */
template <typename W>
GSHMEMI_DEV W gshmemi_dev_amo_q(const char *call, const void *dest, uint32_t kind, W v, W cmp,
                                int pe)
{
    return (W)gshmemi_devq_amo(call, dest, sizeof(W), kind, (uint64_t)v, (uint64_t)cmp, pe);
}

extern "C" {

#define GSHMEMI_DDEF_AMO(T, W, N)                                                          \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe)              \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_fetch_add";                                  \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            return (T)gshmemi_dev_amo_q<W>(c, dest, GSHMEMI_AMO_FETCH_ADD, (W)value, 0, pe); \
        return (T)gshmemi_dev_amo_add(w, (W)value);                                        \
    }                                                                                      \
    GSHMEMI_DEV_API void gshmem_##N##_atomic_add(T *dest, T value, int pe)                 \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_add";                                        \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            (void)gshmemi_dev_amo_q<W>(c, dest, GSHMEMI_AMO_ADD, (W)value, 0, pe);        \
        else                                                                               \
            (void)gshmemi_dev_amo_add(w, (W)value);                                        \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)   \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_compare_swap";                               \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            return (T)gshmemi_dev_amo_q<W>(c, dest, GSHMEMI_AMO_CSWAP, (W)value, (W)cond, \
                                           pe);                                            \
        return (T)gshmemi_dev_amo_cas(w, (W)cond, (W)value);                               \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_swap(T *dest, T value, int pe)                   \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_swap";                                       \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            return (T)gshmemi_dev_amo_q<W>(c, dest, GSHMEMI_AMO_SWAP, (W)value, 0, pe);   \
        return (T)gshmemi_dev_amo_swap(w, (W)value);                                       \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_fetch(const T *source, int pe)                   \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_fetch";                                      \
        W *w = gshmemi_dev_amo_addr<W>(c, source, pe);                                     \
        if (w == NULL)                                                                     \
            return (T)gshmemi_dev_amo_q<W>(c, source, GSHMEMI_AMO_FETCH, 0, 0, pe);       \
        return (T)gshmemi_dev_amo_load(w);                                                 \
    }                                                                                      \
    GSHMEMI_DEV_API void gshmem_##N##_atomic_set(T *dest, T value, int pe)                 \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_set";                                        \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            (void)gshmemi_dev_amo_q<W>(c, dest, GSHMEMI_AMO_SET, (W)value, 0, pe);        \
        else                                                                               \
            gshmemi_dev_amo_store(w, (W)value);                                            \
    }                                                                                      \
    GSHMEMI_DEV_API void gshmem_##N##_atomic_inc(T *dest, int pe)                          \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_inc";                                        \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            (void)gshmemi_dev_amo_q<W>(c, dest, GSHMEMI_AMO_ADD, (W)1, 0, pe);            \
        else                                                                               \
            (void)gshmemi_dev_amo_add(w, (W)1);                                            \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_fetch_inc(T *dest, int pe)                       \
    {                                                                                      \
        const char *c = "gshmem_" #N "_atomic_fetch_inc";                                  \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            return (T)gshmemi_dev_amo_q<W>(c, dest, GSHMEMI_AMO_FETCH_ADD, (W)1, 0, pe);  \
        return (T)gshmemi_dev_amo_add(w, (W)1);                                            \
    }
GSHMEMI_DDEF_AMO(int32_t, uint32_t, int32)
GSHMEMI_DDEF_AMO(int64_t, uint64_t, int64)
GSHMEMI_DDEF_AMO(uint64_t, uint64_t, uint64)
#undef GSHMEMI_DDEF_AMO

/* and, or, xor: A and F name the plain and the fetching call, OP and FOP
 * their kinds. P2P: one atomicAnd/Or/Xor_system; queue path: one entry. */
#define GSHMEMI_DDEF_AMO_BIT_OP(T, W, N, A, F, OP, FOP)                                    \
    GSHMEMI_DEV_API void gshmem_##N##_##A(T *dest, T value, int pe)                        \
    {                                                                                      \
        const char *c = "gshmem_" #N "_" #A;                                               \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            (void)gshmemi_dev_amo_q<W>(c, dest, OP, (W)value, 0, pe);                      \
        else                                                                               \
            (void)gshmemi_dev_amo_bit(w, OP, (W)value);                                    \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_##F(T *dest, T value, int pe)                           \
    {                                                                                      \
        const char *c = "gshmem_" #N "_" #F;                                               \
        W *w = gshmemi_dev_amo_addr<W>(c, dest, pe);                                       \
        if (w == NULL)                                                                     \
            return (T)gshmemi_dev_amo_q<W>(c, dest, FOP, (W)value, 0, pe);                 \
        return (T)gshmemi_dev_amo_bit(w, FOP, (W)value);                                   \
    }
#define GSHMEMI_DDEF_AMO_BIT(T, W, N)                                                      \
    GSHMEMI_DDEF_AMO_BIT_OP(T, W, N, atomic_and, atomic_fetch_and, GSHMEMI_AMO_AND,        \
                            GSHMEMI_AMO_FETCH_AND)                                         \
    GSHMEMI_DDEF_AMO_BIT_OP(T, W, N, atomic_or, atomic_fetch_or, GSHMEMI_AMO_OR,           \
                            GSHMEMI_AMO_FETCH_OR)                                          \
    GSHMEMI_DDEF_AMO_BIT_OP(T, W, N, atomic_xor, atomic_fetch_xor, GSHMEMI_AMO_XOR,        \
                            GSHMEMI_AMO_FETCH_XOR)
GSHMEMI_DDEF_AMO_BIT(int32_t, uint32_t, int32)
GSHMEMI_DDEF_AMO_BIT(int64_t, uint64_t, int64)
GSHMEMI_DDEF_AMO_BIT(uint64_t, uint64_t, uint64)
#undef GSHMEMI_DDEF_AMO_BIT
#undef GSHMEMI_DDEF_AMO_BIT_OP

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_AMO_H */

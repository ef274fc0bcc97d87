/* gshmem_dev_amo.h: atomics at any PE for the AMO tables of
 * impl/gshmem_coll_types.h (the standard ones, and, or, xor and their
 * fetching forms; fetch, set, swap on float and double). P2P path:
 * system-scope relaxed atomics on the peer's mapped address (ordered by
 * fence/quiet like puts). Queue path: one AMO entry each (fetching ones
 * wait for the value; the others complete at quiet). Every type works on
 * the unsigned word of its size, its bits (two's complement add, bitwise
 * compare; floats as their bit patterns). Included by gshmem_device.h
 * only; bodies in the device pass. */
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

/* The unsigned word of a 4- or 8-byte type. */
template <size_t S> struct gshmemi_dev_word;
template <> struct gshmemi_dev_word<4> {
    typedef uint32_t type;
};
template <> struct gshmemi_dev_word<8> {
    typedef uint64_t type;
};

/* kind (gshmemi_amo_op_t, a constant at every call site) on the word w
 * here; returns the old word (SET: 0). */
template <typename W> GSHMEMI_DEV W gshmemi_dev_amo_word(W *w, uint32_t kind, W v, W cmp)
{
    switch (kind) {
    case GSHMEMI_AMO_SET: gshmemi_dev_amo_store(w, v); return 0;
    case GSHMEMI_AMO_FETCH: return gshmemi_dev_amo_load(w);
    case GSHMEMI_AMO_ADD:
    case GSHMEMI_AMO_FETCH_ADD: return gshmemi_dev_amo_add(w, v);
    case GSHMEMI_AMO_SWAP: return gshmemi_dev_amo_swap(w, v);
    case GSHMEMI_AMO_CSWAP: return gshmemi_dev_amo_cas(w, cmp, v);
    default: return gshmemi_dev_amo_bit(w, kind, v);
    }
}

/* One AMO of kind on the T at dest of pe (cmp: compare_swap's cond);
 * returns the old value (non-fetching kinds: meaningless). Queue path:
 * one entry; fetching kinds wait for it. */
template <typename T>
GSHMEMI_DEV T gshmemi_dev_amo(const char *call, const void *dest, uint32_t kind, T value, T cmp,
                              int pe)
{
    typedef typename gshmemi_dev_word<sizeof(T)>::type W;
    W v = (W)gshmemi_dev_bits(value), c = (W)gshmemi_dev_bits(cmp);
    W *w = gshmemi_dev_amo_addr<W>(call, dest, pe);
    W old = w != NULL ? gshmemi_dev_amo_word(w, kind, v, c)
                      : (W)gshmemi_devq_amo(call, dest, sizeof(W), kind, v, c, pe);
    return gshmemi_dev_from_bits<T>(old);
}

extern "C" {

#define GSHMEMI_DAMO_(T, N, NAME, dest, KIND, VALUE, CMP)                                   \
    gshmemi_dev_amo<T>("gshmem_" #N "_atomic_" #NAME, dest, KIND, VALUE, CMP, pe)
/* fetch, set, swap: every AMO type. */
#define GSHMEMI_DDEF_AMO_EXT(T, N)                                                         \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_fetch(const T *source, int pe)                   \
    {                                                                                      \
        return GSHMEMI_DAMO_(T, N, fetch, source, GSHMEMI_AMO_FETCH, (T)0, (T)0);          \
    }                                                                                      \
    GSHMEMI_DEV_API void gshmem_##N##_atomic_set(T *dest, T value, int pe)                 \
    {                                                                                      \
        (void)GSHMEMI_DAMO_(T, N, set, dest, GSHMEMI_AMO_SET, value, (T)0);                \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_swap(T *dest, T value, int pe)                   \
    {                                                                                      \
        return GSHMEMI_DAMO_(T, N, swap, dest, GSHMEMI_AMO_SWAP, value, (T)0);             \
    }
/* The standard ops: the above, add, inc, compare_swap. */
#define GSHMEMI_DDEF_AMO(T, N)                                                             \
    GSHMEMI_DDEF_AMO_EXT(T, N)                                                             \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe)              \
    {                                                                                      \
        return GSHMEMI_DAMO_(T, N, fetch_add, dest, GSHMEMI_AMO_FETCH_ADD, value, (T)0);   \
    }                                                                                      \
    GSHMEMI_DEV_API void gshmem_##N##_atomic_add(T *dest, T value, int pe)                 \
    {                                                                                      \
        (void)GSHMEMI_DAMO_(T, N, add, dest, GSHMEMI_AMO_ADD, value, (T)0);                \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)   \
    {                                                                                      \
        return GSHMEMI_DAMO_(T, N, compare_swap, dest, GSHMEMI_AMO_CSWAP, value, cond);    \
    }                                                                                      \
    GSHMEMI_DEV_API void gshmem_##N##_atomic_inc(T *dest, int pe)                          \
    {                                                                                      \
        (void)GSHMEMI_DAMO_(T, N, inc, dest, GSHMEMI_AMO_ADD, (T)1, (T)0);                 \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_fetch_inc(T *dest, int pe)                       \
    {                                                                                      \
        return GSHMEMI_DAMO_(T, N, fetch_inc, dest, GSHMEMI_AMO_FETCH_ADD, (T)1, (T)0);    \
    }
/* and, or, xor (OP) and fetch_<OP> (kinds K, FK). */
#define GSHMEMI_DDEF_AMO_BIT_OP(T, N, OP, K, FK)                                           \
    GSHMEMI_DEV_API void gshmem_##N##_atomic_##OP(T *dest, T value, int pe)                \
    {                                                                                      \
        (void)GSHMEMI_DAMO_(T, N, OP, dest, K, value, (T)0);                               \
    }                                                                                      \
    GSHMEMI_DEV_API T gshmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe)             \
    {                                                                                      \
        return GSHMEMI_DAMO_(T, N, fetch_##OP, dest, FK, value, (T)0);                     \
    }
#define GSHMEMI_DDEF_AMO_BIT(T, N)                                                         \
    GSHMEMI_DDEF_AMO_BIT_OP(T, N, and, GSHMEMI_AMO_AND, GSHMEMI_AMO_FETCH_AND)             \
    GSHMEMI_DDEF_AMO_BIT_OP(T, N, or, GSHMEMI_AMO_OR, GSHMEMI_AMO_FETCH_OR)                \
    GSHMEMI_DDEF_AMO_BIT_OP(T, N, xor, GSHMEMI_AMO_XOR, GSHMEMI_AMO_FETCH_XOR)
GSHMEMI_AMO_EACH_STANDARD(GSHMEMI_DDEF_AMO)
GSHMEMI_AMO_EACH_BITWISE(GSHMEMI_DDEF_AMO_BIT)
GSHMEMI_AMO_EACH_EXTENDED(GSHMEMI_DDEF_AMO_EXT)
#undef GSHMEMI_DDEF_AMO_BIT
#undef GSHMEMI_DDEF_AMO_BIT_OP
#undef GSHMEMI_DDEF_AMO
#undef GSHMEMI_DDEF_AMO_EXT
#undef GSHMEMI_DAMO_

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_AMO_H */

/* amo.c: the atomics of gshmem.h: the standard ops for int32, int64,
 * uint32 and uint64, the bitwise ones on the same, fetch/set/swap also for
 * float and double (their bit patterns as 32/64-bit words), generated from
 * one definition per group. The fetching _nbi forms are blocking AMOs
 * writing *fetch before they return (complete early: OpenSHMEM requires
 * the value by the next quiet). Every AMO goes through gshmemi_amo_tp_of(pe): the
 * transport of pe when all started transports do hardware atomics, else
 * the one software-atomic transport for every PE, this one included, so
 * that all AMOs to one location are atomic with each other (select.c). */
#include <stdio.h>

#include "core.h"

void gshmemi_amo(const char *call, gshmemi_amo_op_t op, gshmemi_dtype_t dt, const void *dest,
                 const void *operand, const void *compare, void *result, int pe)
{
    static const char *const names[] = {
        [GSHMEMI_AMO_SET] = "atomic set",         [GSHMEMI_AMO_ADD] = "atomic add",
        [GSHMEMI_AMO_FETCH] = "atomic fetch",     [GSHMEMI_AMO_FETCH_ADD] = "atomic fetch-add",
        [GSHMEMI_AMO_SWAP] = "atomic swap",       [GSHMEMI_AMO_CSWAP] = "atomic compare-swap",
        [GSHMEMI_AMO_AND] = "atomic and",         [GSHMEMI_AMO_OR] = "atomic or",
        [GSHMEMI_AMO_XOR] = "atomic xor",         [GSHMEMI_AMO_FETCH_AND] = "atomic fetch-and",
        [GSHMEMI_AMO_FETCH_OR] = "atomic fetch-or", [GSHMEMI_AMO_FETCH_XOR] = "atomic fetch-xor",
    };

    GSHMEMI_REQUIRE_INIT(call);
    gshmemi_check_pe(call, pe);
    uint64_t off = gshmemi_check_sym_aligned(call, op == GSHMEMI_AMO_FETCH ? "source" : "dest",
                                             dest, gshmemi_dtype_size(dt));
    gshmemi_transport_t *tp = gshmemi_amo_tp_of(pe);
    int rc = tp->ops->amo(tp, pe, op, dt, off, operand, compare, result);
    if (rc != 0)
        gshmemi_tp_fatal(call, tp, rc, names[op], pe);
}

/* A fetching AMO whose old value goes to *fetch (the _nbi forms). */
static void gshmemi_amo_into(const char *call, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                             void *fetch, const void *dest, const void *operand,
                             const void *compare, int pe)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (fetch == NULL)
        gshmemi_fatal(call, "fetch is NULL (the local address for the old value)");
    gshmemi_amo(call, op, dt, dest, operand, compare, fetch, pe);
}

/* A fetching AMO with an operand (no compare) leaving the old value in old. */
#define GSHMEMI_AMO_V(T, N, DT, NAME, OP, dest, value, pe)                           \
    T old;                                                                           \
    gshmemi_amo("gshmem_" #N "_atomic_" NAME, OP, DT, dest, &value, NULL, &old, pe);
#define GSHMEMI_AMO_INTO(N, DT, NAME, OP, fetch, dest, value, pe)                    \
    gshmemi_amo_into("gshmem_" #N "_atomic_" NAME, OP, DT, fetch, dest, &value, NULL, pe)

/* fetch, set, swap and their _nbi forms: every AMO type. */
#define GSHMEMI_DEF_AMO_EXT(T, N, DT)                                                 \
    T gshmem_##N##_atomic_fetch(const T *source, int pe)                              \
    {                                                                                 \
        T zero = 0;                                                                   \
        GSHMEMI_AMO_V(T, N, DT, "fetch", GSHMEMI_AMO_FETCH, source, zero, pe)         \
        return old;                                                                   \
    }                                                                                 \
    void gshmem_##N##_atomic_set(T *dest, T value, int pe)                            \
    {                                                                                 \
        gshmemi_amo("gshmem_" #N "_atomic_set", GSHMEMI_AMO_SET, DT, dest, &value,     \
                    NULL, NULL, pe);                                                  \
    }                                                                                 \
    T gshmem_##N##_atomic_swap(T *dest, T value, int pe)                              \
    {                                                                                 \
        GSHMEMI_AMO_V(T, N, DT, "swap", GSHMEMI_AMO_SWAP, dest, value, pe)            \
        return old;                                                                   \
    }                                                                                 \
    void gshmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)             \
    {                                                                                 \
        T zero = 0;                                                                   \
        GSHMEMI_AMO_INTO(N, DT, "fetch_nbi", GSHMEMI_AMO_FETCH, fetch, source, zero, pe); \
    }                                                                                 \
    void gshmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe)             \
    {                                                                                 \
        GSHMEMI_AMO_INTO(N, DT, "swap_nbi", GSHMEMI_AMO_SWAP, fetch, dest, value, pe); \
    }

/* The standard types: the above and add, inc, compare_swap. */
#define GSHMEMI_DEF_AMO(T, N, DT)                                                     \
    GSHMEMI_DEF_AMO_EXT(T, N, DT)                                                     \
    T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe)                         \
    {                                                                                 \
        GSHMEMI_AMO_V(T, N, DT, "fetch_add", GSHMEMI_AMO_FETCH_ADD, dest, value, pe)  \
        return old;                                                                   \
    }                                                                                 \
    void gshmem_##N##_atomic_add(T *dest, T value, int pe)                            \
    {                                                                                 \
        gshmemi_amo("gshmem_" #N "_atomic_add", GSHMEMI_AMO_ADD, DT, dest, &value,     \
                    NULL, NULL, pe);                                                  \
    }                                                                                 \
    T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)              \
    {                                                                                 \
        T old;                                                                        \
        gshmemi_amo("gshmem_" #N "_atomic_compare_swap", GSHMEMI_AMO_CSWAP, DT, dest,  \
                    &value, &cond, &old, pe);                                         \
        return old;                                                                   \
    }                                                                                 \
    void gshmem_##N##_atomic_inc(T *dest, int pe)                                     \
    {                                                                                 \
        T one = 1;                                                                    \
        gshmemi_amo("gshmem_" #N "_atomic_inc", GSHMEMI_AMO_ADD, DT, dest, &one, NULL, \
                    NULL, pe);                                                        \
    }                                                                                 \
    T gshmem_##N##_atomic_fetch_inc(T *dest, int pe)                                  \
    {                                                                                 \
        T one = 1;                                                                    \
        GSHMEMI_AMO_V(T, N, DT, "fetch_inc", GSHMEMI_AMO_FETCH_ADD, dest, one, pe)    \
        return old;                                                                   \
    }                                                                                 \
    void gshmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe)        \
    {                                                                                 \
        GSHMEMI_AMO_INTO(N, DT, "fetch_add_nbi", GSHMEMI_AMO_FETCH_ADD, fetch, dest, value, \
                         pe);                                                         \
    }                                                                                 \
    void gshmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe)                 \
    {                                                                                 \
        T one = 1;                                                                    \
        GSHMEMI_AMO_INTO(N, DT, "fetch_inc_nbi", GSHMEMI_AMO_FETCH_ADD, fetch, dest, one, pe); \
    }                                                                                 \
    void gshmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) \
    {                                                                                 \
        gshmemi_amo_into("gshmem_" #N "_atomic_compare_swap_nbi", GSHMEMI_AMO_CSWAP, DT, \
                         fetch, dest, &value, &cond, pe);                             \
    }

/* and, or, xor: the plain, fetching and fetching _nbi form of one op. */
#define GSHMEMI_DEF_AMO_BIT_OP(T, N, DT, OPN, OP, FOP)                                \
    void gshmem_##N##_atomic_##OPN(T *dest, T value, int pe)                          \
    {                                                                                 \
        gshmemi_amo("gshmem_" #N "_atomic_" #OPN, OP, DT, dest, &value, NULL, NULL, pe); \
    }                                                                                 \
    T gshmem_##N##_atomic_fetch_##OPN(T *dest, T value, int pe)                       \
    {                                                                                 \
        GSHMEMI_AMO_V(T, N, DT, "fetch_" #OPN, FOP, dest, value, pe)                  \
        return old;                                                                   \
    }                                                                                 \
    void gshmem_##N##_atomic_fetch_##OPN##_nbi(T *fetch, T *dest, T value, int pe)    \
    {                                                                                 \
        GSHMEMI_AMO_INTO(N, DT, "fetch_" #OPN "_nbi", FOP, fetch, dest, value, pe);   \
    }
#define GSHMEMI_DEF_AMO_BIT(T, N, DT)                                                 \
    GSHMEMI_DEF_AMO_BIT_OP(T, N, DT, and, GSHMEMI_AMO_AND, GSHMEMI_AMO_FETCH_AND)     \
    GSHMEMI_DEF_AMO_BIT_OP(T, N, DT, or, GSHMEMI_AMO_OR, GSHMEMI_AMO_FETCH_OR)        \
    GSHMEMI_DEF_AMO_BIT_OP(T, N, DT, xor, GSHMEMI_AMO_XOR, GSHMEMI_AMO_FETCH_XOR)

/* uint32 shares int32's words: add, compare and the bitwise ops are the
 * same bit operations whatever the signedness. */
GSHMEMI_DEF_AMO(int32_t, int32, GSHMEMI_DT_INT32)
GSHMEMI_DEF_AMO(int64_t, int64, GSHMEMI_DT_INT64)
GSHMEMI_DEF_AMO(uint32_t, uint32, GSHMEMI_DT_INT32)
GSHMEMI_DEF_AMO(uint64_t, uint64, GSHMEMI_DT_UINT64)
GSHMEMI_DEF_AMO_BIT(int32_t, int32, GSHMEMI_DT_INT32)
GSHMEMI_DEF_AMO_BIT(int64_t, int64, GSHMEMI_DT_INT64)
GSHMEMI_DEF_AMO_BIT(uint32_t, uint32, GSHMEMI_DT_INT32)
GSHMEMI_DEF_AMO_BIT(uint64_t, uint64, GSHMEMI_DT_UINT64)
GSHMEMI_DEF_AMO_EXT(float, float, GSHMEMI_DT_INT32)
GSHMEMI_DEF_AMO_EXT(double, double, GSHMEMI_DT_INT64)

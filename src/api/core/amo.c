/* amo.c: the atomics of gshmem.h for the AMO tables of
 * impl/gshmem_coll_types.h: the standard ops on the standard and bitwise
 * types, and, or, xor on the bitwise ones, fetch/set/swap also for float
 * and double (their bit patterns as 32/64-bit words), generated from one
 * definition per group, each also as its gshmem_ctx_ form (issued
 * through the context's instance of the transport, so ordered by its
 * fence). The fetching _nbi forms are blocking AMOs writing *fetch before
 * they return (complete early: OpenSHMEM requires the value by the next
 * quiet). Every AMO goes through gshmemi_amo_tp_of(pe): the
 * transport of pe when all started transports do hardware atomics, else
 * the one software-atomic transport for every PE, this one included, so
 * that all AMOs to one location are atomic with each other (select.c). */
#include <stdio.h>

#include "core.h"

void gshmemi_amo_on(const char *call, gshmemi_ctx_t *c, gshmemi_amo_op_t op,
                    gshmemi_dtype_t dt, const void *dest, const void *operand,
                    const void *compare, void *result, int pe)
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
    gshmemi_transport_t *tp = gshmemi_ctx_tp(c, gshmemi_amo_tp_of(pe));
    int rc = tp->ops->amo(tp, pe, op, dt, off, operand, compare, result);
    if (rc != 0)
        gshmemi_tp_fatal(call, tp, rc, names[op], pe);
}

/* A fetching AMO whose old value goes to *fetch (the _nbi forms). */
static void gshmemi_amo_into(const char *call, gshmemi_ctx_t *c, gshmemi_amo_op_t op,
                             gshmemi_dtype_t dt, void *fetch, const void *dest,
                             const void *operand, const void *compare, int pe)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (fetch == NULL)
        gshmemi_fatal(call, "fetch is NULL (the local address for the old value)");
    gshmemi_amo_on(call, c, op, dt, dest, operand, compare, fetch, pe);
}

/* In the macros below C is empty (the plain call, on the default context)
 * or ctx_ (its gshmem_ctx_ form, on the argument ctx: core.h); each body
 * names its call and its context first (GSHMEMI_AMO_CALL). */
#define GSHMEMI_AMO_CALL(C, N, NAME)                                                  \
    const char *call = "gshmem_" #C #N "_atomic_" NAME;                               \
    gshmemi_ctx_t *c = GSHMEMI_CTX_OF_##C(call);
/* A fetching AMO with an operand (no compare) returning the old value. */
#define GSHMEMI_AMO_V(T, DT, OP, dest, value, pe)                                     \
    T old;                                                                            \
    gshmemi_amo_on(call, c, OP, DT, dest, &value, NULL, &old, pe);                    \
    return old;

/* The three shapes most calls share, for op OP named NAME with operand
 * VAL (value: the argument; 1: none, inc): returning the old value (FV),
 * returning nothing (NV), the old value into *fetch (INTO). */
#define GSHMEMI_AMO_VP_value(T) T value,
#define GSHMEMI_AMO_VP_1(T)
#define GSHMEMI_DEF_AMO_FV(C, T, N, DT, NAME, OP, VAL)                                        \
    T gshmem_##C##N##_atomic_##NAME(GSHMEMI_CTXA_##C T *dest, GSHMEMI_AMO_VP_##VAL(T) int pe) \
    {                                                                                         \
        GSHMEMI_AMO_CALL(C, N, #NAME)                                                         \
        T v = (VAL);                                                                          \
        GSHMEMI_AMO_V(T, DT, OP, dest, v, pe)                                                 \
    }
#define GSHMEMI_DEF_AMO_NV(C, T, N, DT, NAME, OP, VAL)                                    \
    void gshmem_##C##N##_atomic_##NAME(GSHMEMI_CTXA_##C T *dest, GSHMEMI_AMO_VP_##VAL(T)  \
                                       int pe)                                            \
    {                                                                                     \
        GSHMEMI_AMO_CALL(C, N, #NAME)                                                     \
        T v = (VAL);                                                                      \
        gshmemi_amo_on(call, c, OP, DT, dest, &v, NULL, NULL, pe);                        \
    }
#define GSHMEMI_DEF_AMO_INTO(C, T, N, DT, NAME, OP, VAL)                                  \
    void gshmem_##C##N##_atomic_##NAME(GSHMEMI_CTXA_##C T *fetch, T *dest,                \
                                       GSHMEMI_AMO_VP_##VAL(T) int pe)                    \
    {                                                                                     \
        GSHMEMI_AMO_CALL(C, N, #NAME)                                                     \
        T v = (VAL);                                                                      \
        gshmemi_amo_into(call, c, OP, DT, fetch, dest, &v, NULL, pe);                     \
    }

/* fetch, set, swap and their _nbi forms: every AMO type. */
#define GSHMEMI_DEF_AMO_EXT_C(C, T, N, DT)                                                \
    T gshmem_##C##N##_atomic_fetch(GSHMEMI_CTXA_##C const T *source, int pe)              \
    {                                                                                     \
        GSHMEMI_AMO_CALL(C, N, "fetch")                                                   \
        T zero = 0;                                                                       \
        GSHMEMI_AMO_V(T, DT, GSHMEMI_AMO_FETCH, source, zero, pe)                         \
    }                                                                                     \
    void gshmem_##C##N##_atomic_fetch_nbi(GSHMEMI_CTXA_##C T *fetch, const T *source,     \
                                          int pe)                                         \
    {                                                                                     \
        GSHMEMI_AMO_CALL(C, N, "fetch_nbi")                                               \
        T zero = 0;                                                                       \
        gshmemi_amo_into(call, c, GSHMEMI_AMO_FETCH, DT, fetch, source, &zero, NULL, pe); \
    }                                                                                     \
    GSHMEMI_DEF_AMO_NV(C, T, N, DT, set, GSHMEMI_AMO_SET, value)                          \
    GSHMEMI_DEF_AMO_FV(C, T, N, DT, swap, GSHMEMI_AMO_SWAP, value)                        \
    GSHMEMI_DEF_AMO_INTO(C, T, N, DT, swap_nbi, GSHMEMI_AMO_SWAP, value)

/* The standard types: the above, add, inc, compare_swap. */
#define GSHMEMI_DEF_AMO_C(C, T, N, DT)                                                    \
    GSHMEMI_DEF_AMO_EXT_C(C, T, N, DT)                                                    \
    GSHMEMI_DEF_AMO_FV(C, T, N, DT, fetch_add, GSHMEMI_AMO_FETCH_ADD, value)              \
    GSHMEMI_DEF_AMO_NV(C, T, N, DT, add, GSHMEMI_AMO_ADD, value)                          \
    GSHMEMI_DEF_AMO_INTO(C, T, N, DT, fetch_add_nbi, GSHMEMI_AMO_FETCH_ADD, value)        \
    GSHMEMI_DEF_AMO_NV(C, T, N, DT, inc, GSHMEMI_AMO_ADD, 1)                              \
    GSHMEMI_DEF_AMO_FV(C, T, N, DT, fetch_inc, GSHMEMI_AMO_FETCH_ADD, 1)                  \
    GSHMEMI_DEF_AMO_INTO(C, T, N, DT, fetch_inc_nbi, GSHMEMI_AMO_FETCH_ADD, 1)            \
    T gshmem_##C##N##_atomic_compare_swap(GSHMEMI_CTXA_##C T *dest, T cond, T value,      \
                                          int pe)                                         \
    {                                                                                     \
        GSHMEMI_AMO_CALL(C, N, "compare_swap")                                            \
        T old;                                                                            \
        gshmemi_amo_on(call, c, GSHMEMI_AMO_CSWAP, DT, dest, &value, &cond, &old, pe);    \
        return old;                                                                       \
    }                                                                                     \
    void gshmem_##C##N##_atomic_compare_swap_nbi(GSHMEMI_CTXA_##C T *fetch, T *dest,      \
                                                 T cond, T value, int pe)                 \
    {                                                                                     \
        GSHMEMI_AMO_CALL(C, N, "compare_swap_nbi")                                        \
        gshmemi_amo_into(call, c, GSHMEMI_AMO_CSWAP, DT, fetch, dest, &value, &cond, pe); \
    }

/* and, or, xor: the plain, fetching and fetching _nbi form of one op. */
#define GSHMEMI_DEF_AMO_BIT_OP(C, T, N, DT, OPN, OP, FOP)                                 \
    GSHMEMI_DEF_AMO_NV(C, T, N, DT, OPN, OP, value)                                       \
    GSHMEMI_DEF_AMO_FV(C, T, N, DT, fetch_##OPN, FOP, value)                              \
    GSHMEMI_DEF_AMO_INTO(C, T, N, DT, fetch_##OPN##_nbi, FOP, value)
#define GSHMEMI_DEF_AMO_BIT_C(C, T, N, DT)                                            \
    GSHMEMI_DEF_AMO_BIT_OP(C, T, N, DT, and, GSHMEMI_AMO_AND, GSHMEMI_AMO_FETCH_AND)  \
    GSHMEMI_DEF_AMO_BIT_OP(C, T, N, DT, or, GSHMEMI_AMO_OR, GSHMEMI_AMO_FETCH_OR)     \
    GSHMEMI_DEF_AMO_BIT_OP(C, T, N, DT, xor, GSHMEMI_AMO_XOR, GSHMEMI_AMO_FETCH_XOR)

/* Each with its gshmem_ctx_ form. */
#define GSHMEMI_DEF_AMO_EXT(T, N, DT)                                                 \
    GSHMEMI_DEF_AMO_EXT_C(, T, N, DT) GSHMEMI_DEF_AMO_EXT_C(ctx_, T, N, DT)
#define GSHMEMI_DEF_AMO(T, N, DT) GSHMEMI_DEF_AMO_C(, T, N, DT) GSHMEMI_DEF_AMO_C(ctx_, T, N, DT)
#define GSHMEMI_DEF_AMO_BIT(T, N, DT)                                                 \
    GSHMEMI_DEF_AMO_BIT_C(, T, N, DT) GSHMEMI_DEF_AMO_BIT_C(ctx_, T, N, DT)

/* The transport's word of a 4- or 8-byte T: 4-byte types share int32's
 * (add, compare and the bitwise ops are the same bit operations whatever
 * the signedness), 8-byte ones take the word of their signedness. */
#define GSHMEMI_AMO_DT(T)                                                             \
    (sizeof(T) == 4 ? GSHMEMI_DT_INT32 : GSHMEMI_SIGNED(T) ? GSHMEMI_DT_INT64           \
                                                         : GSHMEMI_DT_UINT64)
#define GSHMEMI_AMO_SIZE_OK(T, N)                                                     \
    _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, #N ": an AMO type is 4 or 8 bytes");
#define GSHMEMI_DEF_AMO_T(T, N) GSHMEMI_AMO_SIZE_OK(T, N) GSHMEMI_DEF_AMO(T, N, GSHMEMI_AMO_DT(T))
#define GSHMEMI_DEF_AMO_BIT_T(T, N) GSHMEMI_DEF_AMO_BIT(T, N, GSHMEMI_AMO_DT(T))
#define GSHMEMI_DEF_AMO_EXT_T(T, N)                                                   \
    GSHMEMI_AMO_SIZE_OK(T, N) GSHMEMI_DEF_AMO_EXT(T, N, GSHMEMI_AMO_DT(T))
GSHMEMI_AMO_EACH_STANDARD(GSHMEMI_DEF_AMO_T)
GSHMEMI_AMO_EACH_BITWISE(GSHMEMI_DEF_AMO_BIT_T)
GSHMEMI_AMO_EACH_EXTENDED(GSHMEMI_DEF_AMO_EXT_T)

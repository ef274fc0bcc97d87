/* amo.c: the atomics of gshmem.h for int32, int64 and uint64, generated
 * from one definition. Every AMO goes through gshmemi_amo_tp_of(pe): the
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

#define GSHMEMI_DEF_AMO(T, N, DT)                                                     \
    T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe)                         \
    {                                                                                 \
        T old;                                                                        \
        gshmemi_amo("gshmem_" #N "_atomic_fetch_add", GSHMEMI_AMO_FETCH_ADD, DT, dest, \
                    &value, NULL, &old, pe);                                          \
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
    T gshmem_##N##_atomic_swap(T *dest, T value, int pe)                              \
    {                                                                                 \
        T old;                                                                        \
        gshmemi_amo("gshmem_" #N "_atomic_swap", GSHMEMI_AMO_SWAP, DT, dest, &value,   \
                    NULL, &old, pe);                                                  \
        return old;                                                                   \
    }                                                                                 \
    T gshmem_##N##_atomic_fetch(const T *source, int pe)                              \
    {                                                                                 \
        T old, zero = 0;                                                              \
        gshmemi_amo("gshmem_" #N "_atomic_fetch", GSHMEMI_AMO_FETCH, DT, source,       \
                    &zero, NULL, &old, pe);                                           \
        return old;                                                                   \
    }                                                                                 \
    void gshmem_##N##_atomic_set(T *dest, T value, int pe)                            \
    {                                                                                 \
        gshmemi_amo("gshmem_" #N "_atomic_set", GSHMEMI_AMO_SET, DT, dest, &value,     \
                    NULL, NULL, pe);                                                  \
    }                                                                                 \
    void gshmem_##N##_atomic_inc(T *dest, int pe)                                     \
    {                                                                                 \
        T one = 1;                                                                    \
        gshmemi_amo("gshmem_" #N "_atomic_inc", GSHMEMI_AMO_ADD, DT, dest, &one, NULL, \
                    NULL, pe);                                                        \
    }                                                                                 \
    T gshmem_##N##_atomic_fetch_inc(T *dest, int pe)                                  \
    {                                                                                 \
        T old, one = 1;                                                               \
        gshmemi_amo("gshmem_" #N "_atomic_fetch_inc", GSHMEMI_AMO_FETCH_ADD, DT, dest, \
                    &one, NULL, &old, pe);                                            \
        return old;                                                                   \
    }

GSHMEMI_DEF_AMO(int32_t, int32, GSHMEMI_DT_INT32)
GSHMEMI_DEF_AMO(int64_t, int64, GSHMEMI_DT_INT64)
GSHMEMI_DEF_AMO(uint64_t, uint64, GSHMEMI_DT_UINT64)

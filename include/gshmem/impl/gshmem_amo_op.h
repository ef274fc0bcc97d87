/* gshmem_amo_op.h: the one vocabulary of atomic operations, shared by the
 * device queue protocol (a queue entry's aux field, gshmem_dev_queue.h),
 * the engine, the transports' ops table (src/transports/transport.h) and
 * the CUDA atomics of the heap. Plain C, host and device. */
#ifndef GSHMEMI_AMO_OP_H
#define GSHMEMI_AMO_OP_H

#include <stddef.h>
#include "gshmem/ring/port.h"

typedef enum gshmemi_amo_op {
    GSHMEMI_AMO_SET = 0,        /* *dst = v */
    GSHMEMI_AMO_ADD = 1,        /* *dst += v */
    GSHMEMI_AMO_FETCH = 2,      /* result = *dst */
    GSHMEMI_AMO_FETCH_ADD = 3,  /* result = *dst; *dst += v */
    GSHMEMI_AMO_SWAP = 4,       /* result = *dst; *dst = v */
    GSHMEMI_AMO_CSWAP = 5,      /* result = *dst; if (*dst == cmp) *dst = v */
    GSHMEMI_AMO_AND = 6,        /* *dst &= v */
    GSHMEMI_AMO_OR = 7,         /* *dst |= v */
    GSHMEMI_AMO_XOR = 8,        /* *dst ^= v */
    GSHMEMI_AMO_FETCH_AND = 9,  /* result = *dst; *dst &= v */
    GSHMEMI_AMO_FETCH_OR = 10,  /* result = *dst; *dst |= v */
    GSHMEMI_AMO_FETCH_XOR = 11  /* result = *dst; *dst ^= v */
} gshmemi_amo_op_t;

/* A queue entry carries the op in its 8-bit aux field (ring/sq.h). */
#define GSHMEMI_AMO_OP_MAX GSHMEMI_AMO_FETCH_XOR
#if defined(__cplusplus)
static_assert(GSHMEMI_AMO_OP_MAX <= 0xff, "an AMO op must fit a queue entry's aux field");
#else
_Static_assert(GSHMEMI_AMO_OP_MAX <= 0xff, "an AMO op must fit a queue entry's aux field");
#endif

typedef enum gshmemi_dtype {
    GSHMEMI_DT_INT32 = 0,
    GSHMEMI_DT_INT64,
    GSHMEMI_DT_UINT64
} gshmemi_dtype_t;

/* 1 for the ops that return the old value. */
GSHMEMI_HD int gshmemi_amo_fetching(unsigned op)
{
    return (op >= GSHMEMI_AMO_FETCH && op <= GSHMEMI_AMO_CSWAP) ||
           (op >= GSHMEMI_AMO_FETCH_AND && op <= GSHMEMI_AMO_FETCH_XOR);
}

/* 1 for and/or/xor and their fetching forms. */
GSHMEMI_HD int gshmemi_amo_bitwise(unsigned op)
{
    return op >= GSHMEMI_AMO_AND && op <= GSHMEMI_AMO_FETCH_XOR;
}

/* The new value of a word holding old under op with operand v (bitwise
 * ops only; a software atomic's compare-and-swap loop uses it). */
GSHMEMI_HD unsigned long long gshmemi_amo_bitwise_apply(unsigned op, unsigned long long old,
                                                        unsigned long long v)
{
    switch (op) {
    case GSHMEMI_AMO_AND: case GSHMEMI_AMO_FETCH_AND: return old & v;
    case GSHMEMI_AMO_OR: case GSHMEMI_AMO_FETCH_OR: return old | v;
    default: return old ^ v;
    }
}

GSHMEMI_HD size_t gshmemi_dtype_size(gshmemi_dtype_t dt)
{
    return dt == GSHMEMI_DT_INT32 ? 4 : 8;
}

#endif /* GSHMEMI_AMO_OP_H */

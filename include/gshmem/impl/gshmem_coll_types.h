/* gshmem_coll_types.h: the type tables of the team collectives of the
 * device API (gshmem_device.h) and of the on-stream API (gshmemx.h),
 * NVSHMEM's (and OpenSHMEM 1.5's) standard types without long double:
 * every declaration and definition of a typed collective is generated from
 * these lists. Plain C, no dependencies but <stddef.h> and <stdint.h>.
 *
 *   GSHMEMI_COLL_EACH_TYPE(X)  X(T, N) for every type: broadcast, fcollect,
 *                              alltoall
 *   GSHMEMI_REDUCE_EACH(X)     X(T, N, OP) for every reduction: OP sum,
 *                              prod, min, max on every type, and, or, xor
 *                              on the unsigned C types, int8 .. uint64 and
 *                              size (the 1.5 tables: the other signed C
 *                              types have no bitwise reduction)
 * T is the C type, N its name in the calls (gshmem_<N>_broadcast). */
#ifndef GSHMEMI_COLL_TYPES_H
#define GSHMEMI_COLL_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* The lists, each X(A, T, N): A passes through (the tables below). */
#define GSHMEMI_COLL_TYPES_SIGNED_(X, A)                                            \
    X(A, char, char) X(A, signed char, schar) X(A, short, short) X(A, int, int)      \
    X(A, long, long) X(A, long long, longlong) X(A, ptrdiff_t, ptrdiff)
#define GSHMEMI_COLL_TYPES_BITWISE_(X, A)                                           \
    X(A, unsigned char, uchar) X(A, unsigned short, ushort) X(A, unsigned int, uint) \
    X(A, unsigned long, ulong) X(A, unsigned long long, ulonglong)                   \
    X(A, int8_t, int8) X(A, int16_t, int16) X(A, int32_t, int32) X(A, int64_t, int64) \
    X(A, uint8_t, uint8) X(A, uint16_t, uint16) X(A, uint32_t, uint32)               \
    X(A, uint64_t, uint64) X(A, size_t, size)
#define GSHMEMI_COLL_TYPES_FLOAT_(X, A) X(A, float, float) X(A, double, double)

#define GSHMEMI_COLL_TYPE_(X, T, N) X(T, N)
#define GSHMEMI_COLL_EACH_TYPE(X)                                                   \
    GSHMEMI_COLL_TYPES_SIGNED_(GSHMEMI_COLL_TYPE_, X)                               \
    GSHMEMI_COLL_TYPES_BITWISE_(GSHMEMI_COLL_TYPE_, X)                              \
    GSHMEMI_COLL_TYPES_FLOAT_(GSHMEMI_COLL_TYPE_, X)

#define GSHMEMI_REDUCE_ARITH_(X, T, N) X(T, N, sum) X(T, N, prod) X(T, N, min) X(T, N, max)
#define GSHMEMI_REDUCE_ALL_(X, T, N)                                                \
    GSHMEMI_REDUCE_ARITH_(X, T, N) X(T, N, and) X(T, N, or) X(T, N, xor)
#define GSHMEMI_REDUCE_EACH(X)                                                      \
    GSHMEMI_COLL_TYPES_SIGNED_(GSHMEMI_REDUCE_ARITH_, X)                            \
    GSHMEMI_COLL_TYPES_BITWISE_(GSHMEMI_REDUCE_ALL_, X)                             \
    GSHMEMI_COLL_TYPES_FLOAT_(GSHMEMI_REDUCE_ARITH_, X)

#endif /* GSHMEMI_COLL_TYPES_H */

/* gshmem_coll_types.h: the type tables of every typed call of the host API
 * (gshmem.h), the device API (gshmem_device.h) and the on-stream API
 * (gshmemx.h): NVSHMEM's (and OpenSHMEM 1.5's) standard types. Every
 * declaration and definition of a typed call is generated from these
 * lists. Plain C, no dependencies but <stddef.h> and <stdint.h>; the
 * device-only half types come with cuda_fp16.h and cuda_bf16.h, included
 * in CUDA C++ only.
 *
 *   GSHMEMI_RMA_EACH_TYPE(X)      X(T, N): the RMA types (p, g, put, get,
 *                                 iput, put_signal ...), NVSHMEM's
 *                                 STANDARD_RMA table without half and
 *                                 bfloat16
 *   GSHMEMI_COLL_EACH_TYPE(X)     the same types: broadcast, fcollect,
 *                                 alltoall
 *   GSHMEMI_AMO_EACH_STANDARD(X)  X(T, N): fetch, set, swap, compare_swap,
 *                                 add, fetch_add, inc, fetch_inc: int,
 *                                 long, longlong, size, ptrdiff and every
 *                                 bitwise type
 *   GSHMEMI_AMO_EACH_BITWISE(X)   and, or, xor and their fetch_ forms:
 *                                 uint, ulong, ulonglong, int32, uint32,
 *                                 int64, uint64
 *   GSHMEMI_AMO_EACH_EXTENDED(X)  fetch, set, swap only: float, double
 *   GSHMEMI_WAIT_EACH_TYPE(X)     X(T, N): wait_until, test and the set
 *                                 forms (_all, _any, _some, _vector)
 *   GSHMEMI_REDUCE_EACH(X)        X(T, N, OP): sum, prod, min, max on
 *                                 every RMA type; and, or, xor on the
 *                                 unsigned C types, int8 .. uint64 and
 *                                 size (the 1.5 tables: the other signed
 *                                 C types have no bitwise reduction)
 *   GSHMEMI_DEV_HALF_EACH_TYPE(X) X(T, N): half and bfloat16, device only
 *                                 (typed RMA), CUDA C++ only: empty
 *                                 elsewhere (C, host C++, HIP)
 *   GSHMEMI_DEV_HALF_REDUCE_EACH(X) X(T, N, OP): sum, prod, min, max on
 *                                 those (device only); GSHMEMI_DEV_HAVE_HALF
 *                                 is defined where the list is not empty
 *   GSHMEMI_HOST_RMA_EXTRA(X),    what gshmem.h has beyond the tables:
 *   GSHMEMI_HOST_WAIT_EXTRA(X)    long double RMA; int16 and uint16 point
 *                                 synchronization
 * T is the C type, N its name in the calls (gshmem_<N>_put). */
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
#define GSHMEMI_AMO_TYPES_STANDARD_(X, A)                                           \
    X(A, int, int) X(A, long, long) X(A, long long, longlong) X(A, size_t, size)     \
    X(A, ptrdiff_t, ptrdiff)
#define GSHMEMI_AMO_TYPES_BITWISE_(X, A)                                            \
    X(A, unsigned int, uint) X(A, unsigned long, ulong)                              \
    X(A, unsigned long long, ulonglong) X(A, int32_t, int32) X(A, uint32_t, uint32)  \
    X(A, int64_t, int64) X(A, uint64_t, uint64)
#define GSHMEMI_WAIT_TYPES_(X, A)                                                   \
    X(A, short, short) X(A, int, int) X(A, long, long) X(A, long long, longlong)     \
    X(A, unsigned short, ushort) X(A, unsigned int, uint) X(A, unsigned long, ulong) \
    X(A, unsigned long long, ulonglong) X(A, int32_t, int32) X(A, int64_t, int64)    \
    X(A, uint32_t, uint32) X(A, uint64_t, uint64) X(A, size_t, size)                 \
    X(A, ptrdiff_t, ptrdiff)
#if defined(__CUDACC__) && defined(__cplusplus) && !defined(__HIPCC__)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define GSHMEMI_DEV_HAVE_HALF 1
#define GSHMEMI_DEV_TYPES_HALF_(X, A) X(A, __half, half) X(A, __nv_bfloat16, bfloat16)
#else
#define GSHMEMI_DEV_TYPES_HALF_(X, A)
#endif

#define GSHMEMI_COLL_TYPE_(X, T, N) X(T, N)
#define GSHMEMI_RMA_EACH_TYPE(X)                                                    \
    GSHMEMI_COLL_TYPES_SIGNED_(GSHMEMI_COLL_TYPE_, X)                               \
    GSHMEMI_COLL_TYPES_BITWISE_(GSHMEMI_COLL_TYPE_, X)                              \
    GSHMEMI_COLL_TYPES_FLOAT_(GSHMEMI_COLL_TYPE_, X)
#define GSHMEMI_COLL_EACH_TYPE(X) GSHMEMI_RMA_EACH_TYPE(X)
#define GSHMEMI_AMO_EACH_STANDARD(X)                                                \
    GSHMEMI_AMO_TYPES_STANDARD_(GSHMEMI_COLL_TYPE_, X)                              \
    GSHMEMI_AMO_TYPES_BITWISE_(GSHMEMI_COLL_TYPE_, X)
#define GSHMEMI_AMO_EACH_BITWISE(X) GSHMEMI_AMO_TYPES_BITWISE_(GSHMEMI_COLL_TYPE_, X)
#define GSHMEMI_AMO_EACH_EXTENDED(X) GSHMEMI_COLL_TYPES_FLOAT_(GSHMEMI_COLL_TYPE_, X)
#define GSHMEMI_WAIT_EACH_TYPE(X) GSHMEMI_WAIT_TYPES_(GSHMEMI_COLL_TYPE_, X)
#define GSHMEMI_DEV_HALF_EACH_TYPE(X) GSHMEMI_DEV_TYPES_HALF_(GSHMEMI_COLL_TYPE_, X)
#define GSHMEMI_HOST_RMA_EXTRA(X) X(long double, longdouble)
#define GSHMEMI_HOST_WAIT_EXTRA(X) X(int16_t, int16) X(uint16_t, uint16)

#define GSHMEMI_REDUCE_ARITH_(X, T, N) X(T, N, sum) X(T, N, prod) X(T, N, min) X(T, N, max)
#define GSHMEMI_REDUCE_ALL_(X, T, N)                                                \
    GSHMEMI_REDUCE_ARITH_(X, T, N) X(T, N, and) X(T, N, or) X(T, N, xor)
#define GSHMEMI_REDUCE_EACH(X)                                                      \
    GSHMEMI_COLL_TYPES_SIGNED_(GSHMEMI_REDUCE_ARITH_, X)                            \
    GSHMEMI_COLL_TYPES_BITWISE_(GSHMEMI_REDUCE_ALL_, X)                             \
    GSHMEMI_COLL_TYPES_FLOAT_(GSHMEMI_REDUCE_ARITH_, X)
#define GSHMEMI_DEV_HALF_REDUCE_EACH(X) GSHMEMI_DEV_TYPES_HALF_(GSHMEMI_REDUCE_ARITH_, X)

#endif /* GSHMEMI_COLL_TYPES_H */

/* pe_dev_team.h: what the team collective PE programs share
 * (pe_dev_team_coll.cu: the device calls; pe_dev_team_stream.cu: the
 * on-stream calls): the values every PE puts in its sources, what each
 * collective must leave in dest, and the calls of the three forms by
 * type. A value depends on a seed (a world PE, or for all-to-all the
 * sender and the receiver), the element and a round, so a result from
 * another round, PE or offset does not pass. A reduction's expected value
 * is combined here in team order with the same operations as the library,
 * so a float result must match bit for bit (and so be the same on every
 * PE). */
#ifndef GSHMEM_TESTS_PE_DEV_TEAM_H
#define GSHMEM_TESTS_PE_DEV_TEAM_H

#include <string.h>
#include <type_traits>

#include "pe_dev.h"

enum { F_THREAD, F_WARP, F_BLOCK };                 /* the form of a device call */
enum { C_BCAST, C_FCOLLECT, C_ALLTOALL, C_REDUCE };  /* the collective */
enum { R_SUM, R_PROD, R_MIN, R_MAX, R_AND, R_OR, R_XOR };

/* ---- values ------------------------------------------------------------------ */

template <typename T> __host__ __device__ T tval(int s, size_t j, int r);
template <> __host__ __device__ inline int tval<int>(int s, size_t j, int r)
{
    return (int)(((long long)s * 131 + (long long)(j % 100003) * 7 + (long long)r * 3) % 2001) -
           1000;
}
template <> __host__ __device__ inline uint64_t tval<uint64_t>(int s, size_t j, int r)
{
    return ((uint64_t)(s + 1) * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)j * 0x100000001B3ull) ^
           ((uint64_t)r << 40);
}
/* Reciprocals: rounded, so the order of a sum shows in its last bits. */
template <> __host__ __device__ inline float tval<float>(int s, size_t j, int r)
{
    return 1.0f / (float)(3 + s % 13 + (int)(j % 5) + r % 3);
}
template <> __host__ __device__ inline double tval<double>(int s, size_t j, int r)
{
    return 1.0 / (double)(3 + s % 11 + (int)(j % 7) + r % 5);
}

/* The library's operations (impl/gshmem_dev_reduce.h, src/api/core/reduce.c). */
template <typename T> __host__ __device__ inline T tapply(int op, T a, T x)
{
    switch (op) {
    case R_SUM: return (T)(a + x);
    case R_PROD: return (T)(a * x);
    case R_MIN: return x < a ? x : a;
    case R_MAX: return x > a ? x : a;
    default: break;
    }
    if constexpr (std::is_integral<T>::value) {
        switch (op) {
        case R_AND: return (T)(a & x);
        case R_OR: return (T)(a | x);
        default: return (T)(a ^ x);
        }
    }
    return a;
}

template <typename T> __host__ __device__ inline unsigned long long tbits(T v)
{
    unsigned long long b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

/* ---- teams -------------------------------------------------------------------------- */

/* split_strided of WORLD that must succeed; GSHMEM_TEAM_INVALID exactly
 * on the PEs outside it. */
static inline gshmem_team_t tsplit(int start, int stride, int size)
{
    int me = gshmem_my_pe();
    gshmem_team_t t = GSHMEM_TEAM_INVALID;
    int rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t);
    PE_CHECK(rc == 0, "split_strided(%d, %d, %d): %d", start, stride, size, rc);
    int member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
    PE_CHECK((t != GSHMEM_TEAM_INVALID) == member, "split_strided(%d, %d, %d): team %d on %s",
             start, stride, size, t, member ? "a member" : "a PE outside");
    return t;
}

/* "part": with 4 PEs or more the odd PEs (stride 2), else the last PE. */
static inline gshmem_team_t tsplit_part(void)
{
    int n = gshmem_n_pes();
    return n >= 4 ? tsplit(1, 2, n / 2) : tsplit(n - 1, 1, 1);
}

/* World PE of team PE i (the device query). */
__device__ inline int wpe(gshmem_team_t t, int i)
{
    return gshmem_team_translate_pe(t, i, GSHMEM_TEAM_WORLD);
}

/* The threads that make a call of form f in a one-block kernel. */
__device__ inline bool tcaller(int f)
{
    return f == F_BLOCK || (f == F_WARP ? threadIdx.x < 32 : threadIdx.x == 0);
}

/* ---- sources and results ------------------------------------------------------------- */

/* This PE's source for collective kind (the whole block fills it). */
template <typename T>
__device__ void tfill(int kind, gshmem_team_t t, T *src, size_t n, int r)
{
    int me = gshmem_my_pe(), tn = gshmem_team_n_pes(t);
    size_t ns = kind == C_ALLTOALL ? n * (size_t)tn : n;
    for (size_t j = threadIdx.x; j < ns; j += blockDim.x)
        src[j] = kind == C_ALLTOALL ? tval<T>(me * 64 + (int)(j / n), j % n, r) : tval<T>(me, j, r);
}

/* dest[j] of a reduction: the members' values combined in team order. */
template <typename T> __device__ T texpect(int op, gshmem_team_t t, size_t j, int r)
{
    int tn = gshmem_team_n_pes(t);
    T e = tval<T>(wpe(t, 0), j, r);
    for (int i = 1; i < tn; i++)
        e = tapply<T>(op, e, tval<T>(wpe(t, i), j, r));
    return e;
}

/* Checks dest after collective kind (the whole block checks). */
template <typename T>
__device__ void tcheck(int kind, int op, gshmem_team_t t, const T *dst, size_t n, int root, int r,
                       int *errs, const char *what)
{
    int tn = gshmem_team_n_pes(t), tme = gshmem_team_my_pe(t);
    size_t nd = kind == C_BCAST || kind == C_REDUCE ? n : n * (size_t)tn;
    for (size_t j = threadIdx.x; j < nd; j += blockDim.x) {
        T want;
        if (kind == C_BCAST)
            want = tval<T>(wpe(t, root), j, r);
        else if (kind == C_FCOLLECT)
            want = tval<T>(wpe(t, (int)(j / n)), j % n, r);
        else if (kind == C_ALLTOALL)
            want = tval<T>(wpe(t, (int)(j / n)) * 64 + tme, j % n, r);
        else
            want = texpect<T>(op, t, j, r);
        DEV_EXPECT(errs, tbits(dst[j]) == tbits(want),
                   "%s: team %d n %llu root %d op %d round %d: element %llu is %#llx, want %#llx",
                   what, t, (unsigned long long)n, root, op, r, (unsigned long long)j,
                   tbits(dst[j]), tbits(want));
    }
}

/* ---- the device calls by form --------------------------------------------------------- */

#define TFORM3(f, NAME, ...)                                                        \
    ((f) == F_BLOCK  ? gshmemx_##NAME##_block(__VA_ARGS__)                          \
     : (f) == F_WARP ? gshmemx_##NAME##_warp(__VA_ARGS__)                           \
                     : gshmem_##NAME(__VA_ARGS__))

/* broadcast, fcollect or alltoall of n elements (mem: the *mem form on
 * their bytes). */
#define TDATA_FN(T, N)                                                              \
    __device__ inline int trun_data(int kind, int f, bool mem, gshmem_team_t t, T *d,    \
                                    const T *s, size_t n, int root)                 \
    {                                                                               \
        size_t b = n * sizeof(T);                                                   \
        switch (kind) {                                                             \
        case C_BCAST:                                                               \
            return mem ? TFORM3(f, broadcastmem, t, d, s, b, root)                  \
                       : TFORM3(f, N##_broadcast, t, d, s, n, root);                \
        case C_FCOLLECT:                                                            \
            return mem ? TFORM3(f, fcollectmem, t, d, s, b)                         \
                       : TFORM3(f, N##_fcollect, t, d, s, n);                       \
        default:                                                                    \
            return mem ? TFORM3(f, alltoallmem, t, d, s, b)                         \
                       : TFORM3(f, N##_alltoall, t, d, s, n);                       \
        }                                                                           \
    }
TDATA_FN(int, int)
TDATA_FN(float, float)
TDATA_FN(double, double)
TDATA_FN(uint64_t, uint64)
#undef TDATA_FN

#define TRED_CASE(N, OP, ID)                                                        \
    case ID:                                                                        \
        return TFORM3(f, N##_##OP##_reduce, t, d, s, n);
#define TRED_FN(T, N, BITS)                                                         \
    __device__ inline int trun_reduce(int op, int f, gshmem_team_t t, T *d, const T *s, \
                                      size_t n)                                     \
    {                                                                               \
        switch (op) {                                                               \
        TRED_CASE(N, sum, R_SUM)                                                    \
        TRED_CASE(N, prod, R_PROD)                                                  \
        TRED_CASE(N, min, R_MIN)                                                    \
        TRED_CASE(N, max, R_MAX)                                                    \
        BITS                                                                        \
        default: return -99;                                                        \
        }                                                                           \
    }
TRED_FN(int, int, )
TRED_FN(float, float, )
TRED_FN(double, double, )
TRED_FN(uint64_t, uint64, TRED_CASE(uint64, and, R_AND) TRED_CASE(uint64, or, R_OR)
                              TRED_CASE(uint64, xor, R_XOR))
#undef TRED_FN
#undef TRED_CASE

#endif /* GSHMEM_TESTS_PE_DEV_TEAM_H */

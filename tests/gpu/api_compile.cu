/* api_compile.cu: a user translation unit compiled WITHOUT -rdc that
 * includes gshmem.h and gshmem_device.h, calls every device call from
 * kernels and the host calls of the same names from host code, and links
 * against libgshmem. The typed calls (thousands of names: RMA, AMOs,
 * waits, team collectives, generated from the tables of
 * impl/gshmem_coll_types.h) are checked by name and signature in
 * unevaluated operands (no code), a few of each kind for real; the
 * on-stream team calls of gshmemx.h are taken by address, so every one must
 * link (CUDA only). Built as gshmem-device-api-compile; running it is not
 * a test (it exits 0 at once without arguments).
 *
 * The same file is the HIP compile check (gshmem-device-api-hip-check:
 * hipcc -x hip --offload-arch=gfx90a -c, object only, nothing links or
 * runs; see include/gshmem/impl/gshmem_dev_port.h). */
#include <stdio.h>
#include <string.h>

#if defined(__HIPCC__)
/* HIP: gshmem_device.h must come before gshmem.h (it includes it). */
#include "gshmem_device.h"
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaSuccess hipSuccess
#endif
#include "gshmem.h"
#include "gshmem_device.h"
#if !defined(__HIPCC__)
#include "gshmemx.h"
#endif

/* The types of the typed team collectives, X(T, N); BX: those with the
 * bitwise reductions too. */
#define EVERY_SIGNED(X)                                                          \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(float, float) X(double, double)
#define EVERY_BITWISE(X)                                                         \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)       \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)      \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)       \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)

/* Every typed RMA, AMO and wait call of the tables (impl/gshmem_coll_types.h),
 * half and bfloat16 included, by name and signature in unevaluated
 * operands (SIG1: no code); typed_calls below makes some of them for real. */
#define SIG1(CALL) (void)sizeof((CALL, 0))
#define SIG_RMA_G(T, N, G)                                                       \
    SIG1(gshmemx_##N##_put_##G((T *)b, (const T *)b, 1, pe));                   \
    SIG1(gshmemx_##N##_put_nbi_##G((T *)b, (const T *)b, 1, pe));               \
    SIG1(gshmemx_##N##_get_##G((T *)b, (const T *)b, 1, pe));                   \
    SIG1(gshmemx_##N##_get_nbi_##G((T *)b, (const T *)b, 1, pe));               \
    SIG1(gshmemx_##N##_put_signal_##G((T *)b, (const T *)b, 1, sig, 1, 0, pe)); \
    SIG1(gshmemx_##N##_put_signal_nbi_##G((T *)b, (const T *)b, 1, sig, 1, 0, pe)); \
    SIG1(gshmemx_##N##_iput_##G((T *)b, (const T *)b, 2, 1, 1, pe));            \
    SIG1(gshmemx_##N##_iget_##G((T *)b, (const T *)b, 2, 1, 1, pe));
#define SIG_RMA(T, N)                                                            \
    SIG1(gshmem_##N##_p((T *)b, *(const T *)b, pe));                             \
    SIG1(*(T *)b = gshmem_##N##_g((const T *)b, pe));                            \
    SIG1(gshmem_##N##_put((T *)b, (const T *)b, 1, pe));                         \
    SIG1(gshmem_##N##_get((T *)b, (const T *)b, 1, pe));                         \
    SIG1(gshmem_##N##_put_nbi((T *)b, (const T *)b, 1, pe));                     \
    SIG1(gshmem_##N##_get_nbi((T *)b, (const T *)b, 1, pe));                     \
    SIG1(gshmem_##N##_iput((T *)b, (const T *)b, 2, 1, 1, pe));                  \
    SIG1(gshmem_##N##_iget((T *)b, (const T *)b, 2, 1, 1, pe));                  \
    SIG1(gshmem_##N##_put_signal((T *)b, (const T *)b, 1, sig, 1, 0, pe));       \
    SIG1(gshmem_##N##_put_signal_nbi((T *)b, (const T *)b, 1, sig, 1, 0, pe));   \
    SIG_RMA_G(T, N, warp) SIG_RMA_G(T, N, block)
#define SIG_SYNC(T, N)                                                           \
    SIG1(gshmem_##N##_wait_until((T *)b, 0, (T)0));                              \
    SIG1(ix[0] = (size_t)gshmem_##N##_test((T *)b, 0, (T)0));                    \
    SIG1(gshmem_##N##_wait_until_all((T *)b, 1, st, 0, (T)0));                   \
    SIG1(ix[0] = gshmem_##N##_wait_until_any((T *)b, 1, st, 0, (T)0));           \
    SIG1(ix[0] = gshmem_##N##_wait_until_some((T *)b, 1, ix, st, 0, (T)0));      \
    SIG1(gshmem_##N##_wait_until_all_vector((T *)b, 1, st, 0, (T *)b));          \
    SIG1(ix[0] = gshmem_##N##_wait_until_any_vector((T *)b, 1, st, 0, (T *)b));  \
    SIG1(ix[0] = gshmem_##N##_wait_until_some_vector((T *)b, 1, ix, st, 0, (T *)b)); \
    SIG1(ix[0] = (size_t)gshmem_##N##_test_all((T *)b, 1, st, 0, (T)0));         \
    SIG1(ix[0] = gshmem_##N##_test_any((T *)b, 1, st, 0, (T)0));                 \
    SIG1(ix[0] = gshmem_##N##_test_some((T *)b, 1, ix, st, 0, (T)0));            \
    SIG1(ix[0] = (size_t)gshmem_##N##_test_all_vector((T *)b, 1, st, 0, (T *)b)); \
    SIG1(ix[0] = gshmem_##N##_test_any_vector((T *)b, 1, st, 0, (T *)b));        \
    SIG1(ix[0] = gshmem_##N##_test_some_vector((T *)b, 1, ix, st, 0, (T *)b));
#define SIG_AMO_EXT(T, N)                                                        \
    SIG1(*(T *)b = gshmem_##N##_atomic_fetch((const T *)b, pe));                 \
    SIG1(gshmem_##N##_atomic_set((T *)b, (T)1, pe));                             \
    SIG1(*(T *)b = gshmem_##N##_atomic_swap((T *)b, (T)1, pe));
#define SIG_AMO(T, N)                                                            \
    SIG_AMO_EXT(T, N)                                                            \
    SIG1(*(T *)b = gshmem_##N##_atomic_fetch_add((T *)b, (T)1, pe));             \
    SIG1(gshmem_##N##_atomic_add((T *)b, (T)1, pe));                             \
    SIG1(*(T *)b = gshmem_##N##_atomic_compare_swap((T *)b, (T)0, (T)1, pe));    \
    SIG1(gshmem_##N##_atomic_inc((T *)b, pe));                                   \
    SIG1(*(T *)b = gshmem_##N##_atomic_fetch_inc((T *)b, pe));
#define SIG_AMO_BIT(T, N)                                                        \
    SIG1(gshmem_##N##_atomic_and((T *)b, (T)1, pe));                             \
    SIG1(gshmem_##N##_atomic_or((T *)b, (T)1, pe));                              \
    SIG1(gshmem_##N##_atomic_xor((T *)b, (T)1, pe));                             \
    SIG1(*(T *)b = gshmem_##N##_atomic_fetch_and((T *)b, (T)1, pe));             \
    SIG1(*(T *)b = gshmem_##N##_atomic_fetch_or((T *)b, (T)1, pe));              \
    SIG1(*(T *)b = gshmem_##N##_atomic_fetch_xor((T *)b, (T)1, pe));

/* Typed RMA of T on buf (32 elements), every form, for real. */
#define CALL_RMA(T, N)                                                           \
    do {                                                                         \
        T *b_ = (T *)(b + 2048);                                                 \
        gshmem_##N##_p(b_, b_[1], pe);                                           \
        b_[1] = gshmem_##N##_g(b_, pe);                                          \
        gshmem_##N##_iput(b_ + 2, b_, 2, 1, 2, pe);                              \
        gshmem_##N##_iget(b_ + 6, b_, 1, 2, 2, pe);                              \
        gshmem_##N##_put_signal(b_ + 8, b_, 2, sig, 1, GSHMEM_SIGNAL_ADD, pe);   \
        gshmemx_##N##_put_warp(b_ + 10, b_, 2, pe);                              \
        gshmemx_##N##_get_nbi_block(b_ + 12, b_, 2, pe);                         \
        gshmemx_##N##_put_signal_nbi_warp(b_ + 14, b_, 2, sig, 1, 0, pe);        \
        gshmemx_##N##_iget_block(b_ + 16, b_, 1, 1, 2, pe);                      \
    } while (0);

__global__ void typed_calls(char *b, uint64_t *sig, int pe, int *out)
{
    int st[1] = {0};
    size_t ix[1] = {0};
    GSHMEMI_RMA_EACH_TYPE(SIG_RMA)
    GSHMEMI_DEV_HALF_EACH_TYPE(SIG_RMA)
    GSHMEMI_WAIT_EACH_TYPE(SIG_SYNC)
    GSHMEMI_AMO_EACH_STANDARD(SIG_AMO)
    GSHMEMI_AMO_EACH_BITWISE(SIG_AMO_BIT)
    GSHMEMI_AMO_EACH_EXTENDED(SIG_AMO_EXT)
    /* for real: each element size and kind, the half types */
    CALL_RMA(char, char)
    CALL_RMA(short, short)
    CALL_RMA(size_t, size)
    GSHMEMI_DEV_HALF_EACH_TYPE(CALL_RMA)
    gshmem_short_wait_until((short *)b, GSHMEM_CMP_GE, 0);
    out[0] = (int)gshmem_ushort_test_some_vector((unsigned short *)b, 1, ix, st, GSHMEM_CMP_EQ,
                                                 (unsigned short *)b + 4) +
             (int)gshmem_ptrdiff_wait_until_any((ptrdiff_t *)b, 1, st, GSHMEM_CMP_GE, 0);
    out[1] = (int)gshmem_long_atomic_fetch_add((long *)b, 1, pe) +
             (int)gshmem_size_atomic_compare_swap((size_t *)b, 0, 1, pe) +
             (int)gshmem_uint_atomic_fetch_xor((unsigned int *)b, 1, pe) +
             (int)gshmem_float_atomic_swap((float *)b, 1.5f, pe);
    gshmemx_signal_op(sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_getmem_nbi_warp(b + 64, b, 16, pe);
    gshmemx_getmem_nbi_block(b + 64, b, 16, pe);
}

/* A __host__ __device__ user function may call the same name on both sides. */
__host__ __device__ static int both_sides_my_pe(void)
{
    return gshmem_my_pe();
}

#define TOUCH_RMA(T, N, buf, pe)                                                 \
    do {                                                                         \
        T *b_ = (T *)(buf);                                                      \
        gshmem_##N##_p(b_, (T)1, pe);                                            \
        b_[1] = gshmem_##N##_g(b_, pe);                                          \
        gshmem_##N##_put(b_ + 2, b_, 2, pe);                                     \
        gshmem_##N##_get(b_ + 4, b_, 2, pe);                                     \
        gshmem_##N##_put_nbi(b_ + 6, b_, 2, pe);                                 \
        gshmem_##N##_get_nbi(b_ + 8, b_, 2, pe);                                 \
    } while (0)

#define TOUCH_SYNC(T, N, buf)                                                    \
    do {                                                                         \
        T *v_ = (T *)(buf);                                                      \
        int st_[2] = {0, 1};                                                     \
        gshmem_##N##_wait_until(v_, GSHMEM_CMP_GE, (T)0);                        \
        v_[1] = (T)gshmem_##N##_test(v_, GSHMEM_CMP_EQ, (T)0);                   \
        gshmem_##N##_wait_until_all(v_, 2, st_, GSHMEM_CMP_GE, (T)0);            \
        v_[2] = (T)gshmem_##N##_wait_until_any(v_, 2, NULL, GSHMEM_CMP_GE, (T)0); \
    } while (0)

#define TOUCH_AMO(T, N, buf, pe)                                                 \
    do {                                                                         \
        T *a_ = (T *)(buf);                                                      \
        T r_ = gshmem_##N##_atomic_fetch_add(a_, (T)1, pe);                      \
        gshmem_##N##_atomic_add(a_, r_, pe);                                     \
        r_ += gshmem_##N##_atomic_compare_swap(a_, (T)0, (T)1, pe);              \
        r_ += gshmem_##N##_atomic_swap(a_, (T)2, pe);                            \
        r_ += gshmem_##N##_atomic_fetch(a_, pe);                                 \
        gshmem_##N##_atomic_set(a_, r_, pe);                                     \
        gshmem_##N##_atomic_inc(a_, pe);                                         \
        a_[1] = gshmem_##N##_atomic_fetch_inc(a_, pe);                           \
        gshmem_##N##_atomic_and(a_, (T)3, pe);                                   \
        gshmem_##N##_atomic_or(a_, (T)4, pe);                                    \
        gshmem_##N##_atomic_xor(a_, (T)5, pe);                                   \
        a_[2] = gshmem_##N##_atomic_fetch_and(a_, (T)6, pe) +                    \
                gshmem_##N##_atomic_fetch_or(a_, (T)7, pe) +                     \
                gshmem_##N##_atomic_fetch_xor(a_, (T)8, pe);                     \
    } while (0)

/* name and signature of the three forms of a team call (unevaluated) */
#define SIG3(NAME, ...)                                                          \
    (void)sizeof(gshmem_##NAME(__VA_ARGS__) + gshmemx_##NAME##_warp(__VA_ARGS__) + \
                 gshmemx_##NAME##_block(__VA_ARGS__))
#define SIG_COLL(T, N)                                                           \
    SIG3(N##_broadcast, team, (T *)sym, (const T *)sym, 1, 0);                   \
    SIG3(N##_fcollect, team, (T *)sym, (const T *)sym, 1);                       \
    SIG3(N##_alltoall, team, (T *)sym, (const T *)sym, 1);
#define SIG_ARITH(T, N)                                                          \
    SIG3(N##_sum_reduce, team, (T *)sym, (const T *)sym, 1);                     \
    SIG3(N##_prod_reduce, team, (T *)sym, (const T *)sym, 1);                    \
    SIG3(N##_min_reduce, team, (T *)sym, (const T *)sym, 1);                     \
    SIG3(N##_max_reduce, team, (T *)sym, (const T *)sym, 1);
#define SIG_BITWISE(T, N)                                                        \
    SIG_ARITH(T, N)                                                              \
    SIG3(N##_and_reduce, team, (T *)sym, (const T *)sym, 1);                     \
    SIG3(N##_or_reduce, team, (T *)sym, (const T *)sym, 1);                      \
    SIG3(N##_xor_reduce, team, (T *)sym, (const T *)sym, 1);

#define SIG_RED(T, N, OP) SIG3(N##_##OP##_reduce, team, (T *)sym, (const T *)sym, 1);

__global__ void team_calls(gshmem_team_t team, char *sym, int *out)
{
    GSHMEMI_DEV_HALF_REDUCE_EACH(SIG_RED)
    EVERY_SIGNED(SIG_COLL)
    EVERY_BITWISE(SIG_COLL)
    EVERY_SIGNED(SIG_ARITH)
    EVERY_BITWISE(SIG_BITWISE)
    out[0] = gshmem_team_my_pe(team) + gshmem_team_n_pes(team) +
             gshmem_team_translate_pe(team, 0, GSHMEM_TEAM_WORLD);
    out[1] = gshmem_barrier(team) + gshmemx_barrier_warp(team) + gshmemx_barrier_block(team);
    out[2] = gshmem_team_sync(team) + gshmemx_team_sync_warp(team) +
             gshmemx_team_sync_block(team);
    out[3] = gshmem_broadcastmem(team, sym, sym + 64, 8, 0) +
             gshmemx_broadcastmem_warp(team, sym, sym + 64, 8, 0) +
             gshmemx_broadcastmem_block(team, sym, sym + 64, 8, 0);
    out[4] = gshmem_fcollectmem(team, sym, sym + 4096, 8) +
             gshmemx_fcollectmem_warp(team, sym, sym + 4096, 8) +
             gshmemx_fcollectmem_block(team, sym, sym + 4096, 8);
    out[5] = gshmem_alltoallmem(team, sym, sym + 4096, 8) +
             gshmemx_alltoallmem_warp(team, sym, sym + 4096, 8) +
             gshmemx_alltoallmem_block(team, sym, sym + 4096, 8);
    out[6] = gshmem_int_broadcast(team, (int *)sym, (const int *)(sym + 64), 2, 0) +
             gshmemx_double_fcollect_warp(team, (double *)sym, (const double *)(sym + 4096), 2) +
             gshmemx_uint64_alltoall_block(team, (uint64_t *)sym, (const uint64_t *)(sym + 4096),
                                           2);
    out[7] = gshmem_int32_sum_reduce(team, (int32_t *)sym, (const int32_t *)sym, 4) +
             gshmemx_float_min_reduce_warp(team, (float *)sym, (const float *)sym, 4) +
             gshmemx_ulong_xor_reduce_block(team, (unsigned long *)sym,
                                            (const unsigned long *)sym, 4);
#if defined(GSHMEMI_DEV_HAVE_HALF)
    out[8] = gshmem_half_sum_reduce(team, (__half *)sym, (const __half *)sym, 4) +
             gshmemx_bfloat16_max_reduce_block(team, (__nv_bfloat16 *)sym,
                                               (const __nv_bfloat16 *)sym, 4);
#endif
}

#if !defined(__HIPCC__)
/* Every on-stream team call, by address: each must link. */
#define STREAM_COLL(T, N)                                                        \
    (void *)gshmemx_##N##_broadcast_on_stream, (void *)gshmemx_##N##_fcollect_on_stream, \
        (void *)gshmemx_##N##_alltoall_on_stream,
#define STREAM_ARITH(T, N)                                                       \
    (void *)gshmemx_##N##_sum_reduce_on_stream, (void *)gshmemx_##N##_prod_reduce_on_stream, \
        (void *)gshmemx_##N##_min_reduce_on_stream, (void *)gshmemx_##N##_max_reduce_on_stream,
#define STREAM_BITWISE(T, N)                                                     \
    STREAM_ARITH(T, N)                                                           \
    (void *)gshmemx_##N##_and_reduce_on_stream, (void *)gshmemx_##N##_or_reduce_on_stream, \
        (void *)gshmemx_##N##_xor_reduce_on_stream,
static void *const stream_team_calls[] = {
    EVERY_SIGNED(STREAM_COLL) EVERY_BITWISE(STREAM_COLL) EVERY_SIGNED(STREAM_ARITH)
    EVERY_BITWISE(STREAM_BITWISE)
    (void *)gshmemx_barrier_on_stream, (void *)gshmemx_team_sync_on_stream,
    (void *)gshmemx_sync_all_on_stream, (void *)gshmemx_broadcastmem_on_stream,
    (void *)gshmemx_fcollectmem_on_stream, (void *)gshmemx_alltoallmem_on_stream};
#endif

__global__ void every_call(char *sym, uint64_t *sig, int *out)
{
    int pe = (gshmem_my_pe() + 1) % gshmem_n_pes();
    out[0] = both_sides_my_pe();
    out[1] = gshmem_ptr(sym, pe) != NULL;
    gshmem_putmem(sym, sym + 64, 16, pe);
    gshmem_getmem(sym + 128, sym, 16, pe);
    gshmem_putmem_nbi(sym, sym + 64, 16, pe);
    gshmem_getmem_nbi(sym + 128, sym, 16, pe);
    TOUCH_RMA(int32_t, int32, sym + 256, pe);
    TOUCH_RMA(int64_t, int64, sym + 512, pe);
    TOUCH_RMA(uint64_t, uint64, sym + 768, pe);
    TOUCH_RMA(float, float, sym + 1024, pe);
    TOUCH_RMA(double, double, sym + 1280, pe);
    gshmemx_putmem_warp(sym, sym + 64, 64, pe);
    gshmemx_putmem_block(sym, sym + 64, 64, pe);
    gshmemx_putmem_nbi_warp(sym, sym + 64, 64, pe);
    gshmemx_putmem_nbi_block(sym, sym + 64, 64, pe);
    gshmemx_getmem_warp(sym + 128, sym, 64, pe);
    gshmemx_getmem_block(sym + 128, sym, 64, pe);
    gshmem_fence();
    gshmem_quiet();
    gshmem_putmem_signal(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_SET, pe);
    gshmem_putmem_signal_nbi(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_warp(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_block(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_nbi_warp(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    gshmemx_putmem_signal_nbi_block(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_ADD, pe);
    out[2] = (int)gshmem_signal_fetch(sig);
    out[3] = (int)gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, 1);
    TOUCH_SYNC(int32_t, int32, sym + 1536);
    TOUCH_SYNC(int64_t, int64, sym + 1600);
    TOUCH_SYNC(uint64_t, uint64, sym + 1664);
    TOUCH_AMO(int32_t, int32, sym + 1792, pe);
    TOUCH_AMO(int64_t, int64, sym + 1856, pe);
    TOUCH_AMO(uint64_t, uint64, sym + 1920, pe);
    gshmem_barrier_all();
    gshmem_sync_all();
    gshmemx_barrier_all_block();
    out[4] = gshmemx_alltoallmem_block(GSHMEM_TEAM_WORLD, sym + 4096, sym + 8192, 16);
    out[5] = gshmem_team_n_pes(GSHMEM_TEAM_WORLD);
}

/* Host code calling the host functions of the same names. */
static int host_side(void)
{
    if (gshmem_init() != 0)
        return 1;
    char *sym = (char *)gshmem_malloc(16384);
    uint64_t *sig = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    int pe = (gshmem_my_pe() + 1) % gshmem_n_pes();
    int *out = NULL, rc_team = 0;
    gshmem_putmem(sym, sym + 64, 16, pe);
    gshmem_int32_p((int32_t *)sym, 1, pe);
    gshmem_int_p((int *)sym, 1, pe);   /* the C-type names of the tables, host side */
    gshmem_short_iput((short *)sym, (const short *)(sym + 64), 2, 1, 4, pe);
    (void)gshmem_size_atomic_fetch_add((size_t *)sym, 1, pe);
    (void)gshmem_ushort_test((unsigned short *)sym, GSHMEM_CMP_GE, 0);
    (void)gshmem_uint64_atomic_fetch_add((uint64_t *)sym, 1, pe);
    gshmem_putmem_signal(sym, sym + 64, 8, sig, 1, GSHMEM_SIGNAL_SET, pe);
    (void)gshmem_ptr(sym, pe);
    gshmem_barrier_all();
    if (cudaMalloc((void **)&out, 16 * sizeof(int)) == cudaSuccess) {
        every_call<<<1, 32>>>(sym, sig, out);
        team_calls<<<1, 1>>>(GSHMEM_TEAM_WORLD, sym, out);   /* one thread: every form */
        typed_calls<<<1, 32>>>(sym, sig, pe, out);
        cudaDeviceSynchronize();
        cudaFree(out);
    }
    gshmem_sync_all();
    (void)gshmem_team_sync(GSHMEM_TEAM_WORLD);   /* the host functions of the same names */
    (void)gshmem_barrier(GSHMEM_TEAM_WORLD);
    (void)gshmem_int32_sum_reduce(GSHMEM_TEAM_WORLD, (int32_t *)sym, (int32_t *)sym, 1);
#if !defined(__HIPCC__)
    if (stream_team_calls[0] == NULL)
        rc_team = 1;
#endif
    int rc = both_sides_my_pe() == gshmem_my_pe() && rc_team == 0 ? 0 : 1;
    gshmem_free(sig);
    gshmem_free(sym);
    gshmem_finalize();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return host_side();
    printf("gshmem-device-api-compile: built and linked (pass 'run' to run it)\n");
    return 0;
}

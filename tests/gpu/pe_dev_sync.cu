/* pe_dev_sync: ordering, signals and point synchronization on the device.
 *
 * Message-passing litmus test, six ways: every block of every PE sends a
 * slice of data to its right neighbour, then raises a flag there (fence +
 * atomic, put-with-signal block/warp/thread, p + fence, and a thread's
 * small put-with-signal: 24 bytes, the words loaded before the checks and
 * the peer lookup, gshmemi_dev_small_load); the target block
 * waits for the flag (signal_wait_until, uint64_wait_until, a test loop,
 * wait_until_any, wait_until_all), checks every element of the slice, and
 * acknowledges to the sender, which waits before the next iteration. A
 * flag seen before its data is a failure. Then wait_until_all/_any with
 * status masks and every comparison of test, for int32, int64, uint64. */
#include "pe_dev.h"

#define NB 16          /* blocks */
#define NT 256         /* threads per block */
#define SLICE 4096     /* int32 per block and iteration */
#define ITERS 40
#define N_VARIANT 6
#define SMALL_ELEMS 6   /* variant 5: 24 bytes, 8-byte aligned, not 16 */

__host__ __device__ static inline int32_t val(int pe, int it, int b, int i)
{
    return (int32_t)(((uint32_t)pe * 1000003u) ^ ((uint32_t)it * 7919u + (uint32_t)b * 65537u +
                                                  (uint32_t)i));
}

/* What the flag of one block reaches after iteration it. */
__host__ __device__ static inline uint64_t flag_target(int v, int it)
{
    return v == 3 ? (uint64_t)(it + 1) * (NT / 32) : (uint64_t)(it + 1);
}

__device__ static void mp_send(int v, int it, int32_t *data, int32_t *src, uint64_t *flag,
                               int right)
{
    int b = blockIdx.x, t = threadIdx.x, me = gshmem_my_pe();
    int32_t *d = data + (size_t)b * SLICE, *s = src + (size_t)b * SLICE;
    for (int i = t; i < SLICE; i += NT)
        s[i] = val(me, it, b, i);
    __syncthreads();
    switch (v) {
    case 0:   /* block put, fence, atomic add */
        gshmemx_putmem_nbi_block(d, s, SLICE * sizeof(int32_t), right);
        __syncthreads();
        if (t == 0) {
            gshmem_fence();
            gshmem_uint64_atomic_add(&flag[b], 1, right);
        }
        break;
    case 1:   /* block put-with-signal (add) */
        gshmemx_putmem_signal_nbi_block(d, s, SLICE * sizeof(int32_t), &flag[b], 1,
                                        GSHMEM_SIGNAL_ADD, right);
        break;
    case 2:   /* every thread p's its elements and fences; thread 0 signals */
        for (int i = t; i < SLICE; i += NT)
            gshmem_int32_p(&d[i], s[i], right);
        gshmem_fence();
        __syncthreads();
        if (t == 0) {
            gshmem_fence();
            gshmem_uint64_atomic_inc(&flag[b], right);
        }
        break;
    case 3: { /* each warp: put-with-signal (add 1) of its part */
        int w = t / 32, per = SLICE / (NT / 32);
        gshmemx_putmem_signal_warp(d + w * per, s + w * per, per * sizeof(int32_t), &flag[b], 1,
                                   GSHMEM_SIGNAL_ADD, right);
        break;
    }
    case 4:   /* one thread: blocking put-with-signal (set) */
        if (t == 0)
            gshmem_putmem_signal(d, s, SLICE * sizeof(int32_t), &flag[b],
                                 (uint64_t)it + 1, GSHMEM_SIGNAL_SET, right);
        break;
    default:  /* one thread: small put-with-signal (set) from 8 bytes in */
        if (t == 0)
            gshmem_putmem_signal_nbi(d + 2, s + 2, SMALL_ELEMS * sizeof(int32_t), &flag[b],
                                     (uint64_t)it + 1, GSHMEM_SIGNAL_SET, right);
        break;
    }
}

__device__ static void mp_wait_flag(int v, int it, uint64_t *flag)
{
    uint64_t want = flag_target(v, it), *f = &flag[blockIdx.x];
    switch (v) {
    case 0: (void)gshmem_signal_wait_until(f, GSHMEM_CMP_GE, want); break;
    case 1: gshmem_uint64_wait_until(f, GSHMEM_CMP_GE, want); break;
    case 2: while (!gshmem_uint64_test(f, GSHMEM_CMP_GE, want)) { } break;
    case 3: (void)gshmem_uint64_wait_until_any(f, 1, NULL, GSHMEM_CMP_GE, want); break;
    default: gshmem_uint64_wait_until_all(f, 1, NULL, GSHMEM_CMP_GE, want); break;
    }
}

__global__ void k_mp(int v, int32_t *data, int32_t *src, uint64_t *flag, uint64_t *ack,
                     int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int left = (me + n - 1) % n, right = (me + 1) % n, b = blockIdx.x, t = threadIdx.x;
    for (int it = 0; it < ITERS; it++) {
        mp_send(v, it, data, src, flag, right);
        if (t == 0)
            mp_wait_flag(v, it, flag);
        __syncthreads();
        const int32_t *d = data + (size_t)b * SLICE;
        int lo = v == 5 ? 2 : 0, hi = v == 5 ? 2 + SMALL_ELEMS : SLICE;
        for (int i = lo + t; i < hi; i += NT)
            DEV_EXPECT(errs, d[i] == val(left, it, b, i),
                       "variant %d iter %d block %d elem %d: %d, want %d (flag seen first)", v,
                       it, b, i, d[i], val(left, it, b, i));
        __syncthreads();
        if (t == 0) {
            gshmem_uint64_atomic_inc(&ack[b], left);   /* slice consumed */
            gshmem_uint64_wait_until(&ack[b], GSHMEM_CMP_GE, (uint64_t)it + 1);
        }
        __syncthreads();
    }
    if (t == 0) {
        uint64_t f = gshmem_signal_fetch(&flag[b]);
        DEV_EXPECT(errs, f == flag_target(v, ITERS - 1), "variant %d block %d: final flag %llu",
                   v, b, (unsigned long long)f);
    }
}

/* ---- wait_until_all / _any / test ------------------------------------------------- */
#define NIV 8

template <typename T> struct ivt;
#define IVT(T, N)                                                                         \
    template <> struct ivt<T> {                                                           \
        __device__ static void p(T *d, T v, int pe) { gshmem_##N##_p(d, v, pe); }         \
        __device__ static void wait(T *i, int c, T v) { gshmem_##N##_wait_until(i, c, v); } \
        __device__ static int test(T *i, int c, T v) { return gshmem_##N##_test(i, c, v); } \
        __device__ static void all(T *i, size_t n, const int *s, int c, T v)              \
        { gshmem_##N##_wait_until_all(i, n, s, c, v); }                                   \
        __device__ static size_t any(T *i, size_t n, const int *s, int c, T v)            \
        { return gshmem_##N##_wait_until_any(i, n, s, c, v); }                            \
    };
IVT(int32_t, int32)
IVT(int64_t, int64)
IVT(uint64_t, uint64)

/* Thread 0 sets the right PE's ivars to 1 one by one (last first);
 * thread 32 (another warp) waits on this PE's ivars. */
template <typename T> __global__ void k_ivars(T *iv, T *cmpv, int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes(), right = (me + 1) % n;
    __shared__ int st_any[NIV], st_all[NIV], st_none[NIV];
    if (threadIdx.x < NIV) {
        st_any[threadIdx.x] = threadIdx.x == NIV - 1;   /* exclude the first one set */
        st_all[threadIdx.x] = threadIdx.x == 3;
        st_none[threadIdx.x] = 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = NIV - 1; i >= 0; i--) {
            if (i == 3)
                continue;                              /* masked in wait_until_all */
            ivt<T>::p(&iv[i], (T)1, right);
            gshmem_fence();
        }
    } else if (threadIdx.x == 32) {
        size_t k = ivt<T>::any(iv, NIV, st_any, GSHMEM_CMP_EQ, (T)1);
        DEV_EXPECT(errs, k < NIV - 1 && iv[k] == (T)1, "wait_until_any returned %llu",
                   (unsigned long long)k);
        ivt<T>::all(iv, NIV, st_all, GSHMEM_CMP_EQ, (T)1);
        for (int i = 0; i < NIV; i++)
            DEV_EXPECT(errs, i == 3 || iv[i] == (T)1, "after wait_until_all ivar %d is %lld", i,
                       (long long)iv[i]);
        k = ivt<T>::any(iv, NIV, st_none, GSHMEM_CMP_EQ, (T)1);
        DEV_EXPECT(errs, k == SIZE_MAX, "wait_until_any, all masked: %llu",
                   (unsigned long long)k);
        ivt<T>::wait(&iv[0], GSHMEM_CMP_EQ, (T)1);
        /* comparisons on a value of 5 */
        *cmpv = (T)5;
        __threadfence();
        const int cmps[12] = {GSHMEM_CMP_EQ, GSHMEM_CMP_EQ, GSHMEM_CMP_NE, GSHMEM_CMP_NE,
                              GSHMEM_CMP_GT, GSHMEM_CMP_GT, GSHMEM_CMP_GE, GSHMEM_CMP_GE,
                              GSHMEM_CMP_LT, GSHMEM_CMP_LT, GSHMEM_CMP_LE, GSHMEM_CMP_LE};
        const int refs[12] = {5, 4, 4, 5, 4, 5, 5, 6, 6, 5, 5, 4};   /* even: true */
        for (int i = 0; i < 12; i++) {
            int r = ivt<T>::test(cmpv, cmps[i], (T)refs[i]);
            DEV_EXPECT(errs, r == !(i & 1), "test(5, cmp %d, %d) gave %d", cmps[i], refs[i], r);
        }
        ivt<T>::wait(cmpv, GSHMEM_CMP_LE, (T)5);
    }
}

template <typename T> static void run_ivars(int *errs)
{
    T *iv = (T *)pe_dev_sym(NIV * sizeof(T) + 64);
    T *cmpv = (T *)((char *)iv + NIV * sizeof(T) + 32);
    gshmem_barrier_all();
    k_ivars<T><<<1, 64>>>(iv, cmpv, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "wait_until_all/_any/test");
    gshmem_barrier_all();
    gshmem_free(iv);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int *errs = pe_dev_errs_new();
    size_t data_bytes = (size_t)NB * SLICE * sizeof(int32_t);
    int32_t *data = (int32_t *)pe_dev_sym(data_bytes), *src = NULL;
    uint64_t *flag = (uint64_t *)pe_dev_sym(2 * NB * sizeof(uint64_t)), *ack = flag + NB;
    CU(cudaMalloc((void **)&src, data_bytes));
    /* the sources of the puts: a peer on the queue path needs them
     * registered (p2p does not: stores from the kernel) */
    PE_CHECK(gshmem_register(src, data_bytes) == 0, "gshmem_register of the put sources");

    for (int v = 0; v < N_VARIANT; v++) {
        CU(cudaMemset(flag, 0, 2 * NB * sizeof(uint64_t)));
        CU(cudaMemset(data, 0, data_bytes));
        CU(cudaDeviceSynchronize());
        gshmem_barrier_all();
        k_mp<<<NB, NT>>>(v, data, src, flag, ack, errs);
        CU_SYNC();
        pe_dev_errs_check(errs, "message passing");
        gshmem_barrier_all();
    }
    run_ivars<int32_t>(errs);
    run_ivars<int64_t>(errs);
    run_ivars<uint64_t>(errs);

    PE_CHECK(gshmem_unregister(src) == 0, "gshmem_unregister");
    CU(cudaFree(src));
    gshmem_free(flag);
    gshmem_free(data);
    CU(cudaFree(errs));
    printf("pe_dev_sync: OK (PE %d of %d)\n", me, n);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}

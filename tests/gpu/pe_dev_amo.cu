/* pe_dev_amo: device atomics. (1) Every op on every type (int32, int64,
 * uint64), and, or, xor and their fetching forms included, at the right
 * neighbour, one thread, values checked step by step,
 * negative values included. (2) Contention: every thread of every PE on
 * counters at PE 0 and PE n-1: fetch_add (per-thread results strictly
 * increasing, exact total), add, fetch_inc (exact total and the sum of all
 * fetched values = 0 + 1 + ... + M-1), a compare_swap increment loop (exact
 * total), swap (returned values + final value = every value swapped in). */
#include "pe_dev.h"

#define NBLK 8
#define NTHR 256
#define K 64          /* fetch_add / add / fetch_inc per thread */
#define K_CAS 4       /* CAS increments per warp leader */

template <typename T> struct amo;
#define AMO(T, N)                                                                            \
    template <> struct amo<T> {                                                              \
        __device__ static T fadd(T *d, T v, int pe)                                          \
        { return gshmem_##N##_atomic_fetch_add(d, v, pe); }                                  \
        __device__ static void add(T *d, T v, int pe) { gshmem_##N##_atomic_add(d, v, pe); } \
        __device__ static T cswap(T *d, T c, T v, int pe)                                    \
        { return gshmem_##N##_atomic_compare_swap(d, c, v, pe); }                           \
        __device__ static T swap(T *d, T v, int pe) { return gshmem_##N##_atomic_swap(d, v, pe); } \
        __device__ static T fetch(const T *d, int pe) { return gshmem_##N##_atomic_fetch(d, pe); } \
        __device__ static void set(T *d, T v, int pe) { gshmem_##N##_atomic_set(d, v, pe); } \
        __device__ static void inc(T *d, int pe) { gshmem_##N##_atomic_inc(d, pe); }         \
        __device__ static T finc(T *d, int pe) { return gshmem_##N##_atomic_fetch_inc(d, pe); } \
        __device__ static void band(T *d, T v, int pe) { gshmem_##N##_atomic_and(d, v, pe); } \
        __device__ static void bor(T *d, T v, int pe) { gshmem_##N##_atomic_or(d, v, pe); }  \
        __device__ static void bxor(T *d, T v, int pe) { gshmem_##N##_atomic_xor(d, v, pe); } \
        __device__ static T fband(T *d, T v, int pe)                                         \
        { return gshmem_##N##_atomic_fetch_and(d, v, pe); }                                  \
        __device__ static T fbor(T *d, T v, int pe) { return gshmem_##N##_atomic_fetch_or(d, v, pe); } \
        __device__ static T fbxor(T *d, T v, int pe)                                         \
        { return gshmem_##N##_atomic_fetch_xor(d, v, pe); }                                  \
    };
AMO(int32_t, int32)
AMO(int64_t, int64)
AMO(uint64_t, uint64)

#define EXPECT_EQ(got, want)                                                                 \
    DEV_EXPECT(errs, (got) == (want), "size %d step %d: got %lld want %lld", (int)sizeof(T), \
               __LINE__, (long long)(got), (long long)(want))

template <typename T> __global__ void k_ops(T *w, int *errs)
{
    typedef amo<T> A;
    int pe = (gshmem_my_pe() + 1) % gshmem_n_pes();
    A::set(w, (T)10, pe);
    EXPECT_EQ(A::fetch(w, pe), (T)10);
    EXPECT_EQ(A::fadd(w, (T)5, pe), (T)10);
    A::add(w, (T)7, pe);
    EXPECT_EQ(A::fetch(w, pe), (T)22);
    EXPECT_EQ(A::cswap(w, (T)99, (T)1, pe), (T)22);   /* fails */
    EXPECT_EQ(A::fetch(w, pe), (T)22);
    EXPECT_EQ(A::cswap(w, (T)22, (T)40, pe), (T)22);  /* succeeds */
    EXPECT_EQ(A::swap(w, (T)50, pe), (T)40);
    A::inc(w, pe);
    EXPECT_EQ(A::finc(w, pe), (T)51);
    EXPECT_EQ(A::fetch(w, pe), (T)52);
    A::set(w, (T)-5, pe);
    EXPECT_EQ(A::fadd(w, (T)-10, pe), (T)-5);
    EXPECT_EQ(A::fetch(w, pe), (T)-15);
    EXPECT_EQ(A::cswap(w, (T)-15, (T)-1, pe), (T)-15);
    EXPECT_EQ(A::swap(w, (T)0x7fffffff, pe), (T)-1);
    EXPECT_EQ(A::fetch(w, pe), (T)0x7fffffff);
    A::set(w, (T)0x0f0f, pe);   /* bitwise: and, or, xor, then the fetching forms */
    A::band(w, (T)0x00ff, pe);
    EXPECT_EQ(A::fetch(w, pe), (T)0x000f);
    A::bor(w, (T)0x0300, pe);
    A::bxor(w, (T)0x0101, pe);
    EXPECT_EQ(A::fetch(w, pe), (T)0x020e);
    EXPECT_EQ(A::fband(w, (T)0x0f00, pe), (T)0x020e);
    EXPECT_EQ(A::fbor(w, (T)0x0011, pe), (T)0x0200);
    EXPECT_EQ(A::fbxor(w, (T)-1, pe), (T)0x0211);
    EXPECT_EQ(A::fetch(w, pe), (T)~(T)0x0211);
}

/* Counters (symmetric, zeroed): at PE 0: c32, u64 (fetch_inc), swapw,
 * sums[2]; at PE n-1: c64 (add), cas. */
struct counters {
    int32_t c32;
    int32_t pad;
    uint64_t u64, swapw, sum_finc, sum_swap;
    int64_t c64, cas;
};

__global__ void k_contend(counters *c, unsigned long long *local_sums, int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes(), last = n - 1;
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    int32_t prev = -1;
    unsigned long long s_finc = 0;
    for (int k = 0; k < K; k++) {
        int32_t v = gshmem_int32_atomic_fetch_add(&c->c32, 1, 0);
        DEV_EXPECT(errs, v > prev, "thread %u: fetch_add gave %d after %d", tid, v, prev);
        prev = v;
        gshmem_int64_atomic_add(&c->c64, 3, last);
        s_finc += gshmem_uint64_atomic_fetch_inc(&c->u64, 0);
    }
    uint64_t mine = (uint64_t)me * NBLK * NTHR + tid + 1;
    unsigned long long s_swap = gshmem_uint64_atomic_swap(&c->swapw, mine, 0);
    if ((threadIdx.x & 31) == 0) {
        for (int k = 0; k < K_CAS; k++) {
            int64_t cur = gshmem_int64_atomic_fetch(&c->cas, last), old;
            while ((old = gshmem_int64_atomic_compare_swap(&c->cas, cur, cur + 1, last)) != cur)
                cur = old;
        }
    }
    atomicAdd(&local_sums[0], s_finc);
    atomicAdd(&local_sums[1], s_swap);
}

__global__ void k_publish_sums(counters *c, const unsigned long long *local_sums)
{
    gshmem_uint64_atomic_add(&c->sum_finc, local_sums[0], 0);
    gshmem_uint64_atomic_add(&c->sum_swap, local_sums[1], 0);
    gshmem_quiet();
}

__global__ void k_totals(counters *c, int *errs)
{
    uint64_t n = (uint64_t)gshmem_n_pes(), thr = n * NBLK * NTHR, m = thr * K;
    int last = gshmem_n_pes() - 1;
    DEV_EXPECT(errs, (uint64_t)gshmem_int32_atomic_fetch(&c->c32, 0) == m, "c32 %d want %llu",
               gshmem_int32_atomic_fetch(&c->c32, 0), (unsigned long long)m);
    DEV_EXPECT(errs, (uint64_t)gshmem_int64_atomic_fetch(&c->c64, last) == 3 * m,
               "c64 %lld want %llu", (long long)gshmem_int64_atomic_fetch(&c->c64, last),
               (unsigned long long)(3 * m));
    DEV_EXPECT(errs, gshmem_uint64_atomic_fetch(&c->u64, 0) == m, "u64 %llu want %llu",
               (unsigned long long)gshmem_uint64_atomic_fetch(&c->u64, 0), (unsigned long long)m);
    uint64_t want_cas = n * NBLK * (NTHR / 32) * K_CAS;
    DEV_EXPECT(errs, (uint64_t)gshmem_int64_atomic_fetch(&c->cas, last) == want_cas,
               "cas %lld want %llu", (long long)gshmem_int64_atomic_fetch(&c->cas, last),
               (unsigned long long)want_cas);
    uint64_t sf = gshmem_uint64_atomic_fetch(&c->sum_finc, 0);
    DEV_EXPECT(errs, sf == m * (m - 1) / 2, "sum of fetch_inc results %llu want %llu",
               (unsigned long long)sf, (unsigned long long)(m * (m - 1) / 2));
    uint64_t ss = gshmem_uint64_atomic_fetch(&c->sum_swap, 0) +
                  gshmem_uint64_atomic_fetch(&c->swapw, 0);
    DEV_EXPECT(errs, ss == thr * (thr + 1) / 2, "swap values + final %llu want %llu",
               (unsigned long long)ss, (unsigned long long)(thr * (thr + 1) / 2));
}

template <typename T> static void run_ops(int *errs)
{
    T *w = (T *)pe_dev_sym(64);
    gshmem_barrier_all();
    k_ops<T><<<1, 1>>>(w, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "atomic ops");
    gshmem_barrier_all();
    gshmem_free(w);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int *errs = pe_dev_errs_new();
    run_ops<int32_t>(errs);
    run_ops<int64_t>(errs);
    run_ops<uint64_t>(errs);

    counters *c = (counters *)pe_dev_sym(sizeof(counters));
    unsigned long long *sums = NULL;
    CU(cudaMalloc((void **)&sums, 2 * sizeof *sums));
    CU(cudaMemset(sums, 0, 2 * sizeof *sums));
    gshmem_barrier_all();
    k_contend<<<NBLK, NTHR>>>(c, sums, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "contention (per-thread order)");
    k_publish_sums<<<1, 1>>>(c, sums);
    CU_SYNC();
    gshmem_barrier_all();
    k_totals<<<1, 1>>>(c, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "contention totals");
    gshmem_barrier_all();

    CU(cudaFree(sums));
    gshmem_free(c);
    CU(cudaFree(errs));
    printf("pe_dev_amo: OK (PE %d of %d)\n", me, n);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}

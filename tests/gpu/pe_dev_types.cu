/* pe_dev_types: the typed RMA and AMO calls of the device API on every
 * type of impl/gshmem_coll_types.h, generated from its tables, at any
 * number of PEs, on the P2P path or (GSHMEM_DEVICE_QUEUE_ONLY=1) the queue
 * path (point synchronization, signal_op and the half reductions:
 * pe_dev_types_sync.cu).
 * (1) RMA, every RMA type and half, bfloat16: PE me writes to its right
 *     neighbour by p, put, put_nbi, their warp and block forms,
 *     put_signal in its six forms (the data checked in the kernel once the
 *     signal is seen) and iput in its three (strides 2/1, 1/3, -1/1), and
 *     reads from it by g, get in six forms, iget in three (1/2, 2/1,
 *     -1/1); the elements are byte patterns unique to the PE, the region
 *     and the index (every byte of a wide element differs), and every
 *     element of every region is checked, the ones a strided call skips
 *     included;
 * (2) AMOs, every standard, bitwise and extended type: the op sequence at
 *     the right neighbour, each result checked, the final value checked
 *     there; a block's fetch_inc on one counter (each value seen once).
 * Prints "pe_dev_types: OK (PE n of N)". */
#include "pe_dev.h"

#define NE 128        /* elements per region; the RMA kernels' block: 4 warps */

static int me, npes, left_pe, right_pe;
static int *errs;

/* ---- element values: bytes unique to (pe, index), 0xff never --------------------- */

template <typename T> __host__ __device__ T val(int pe, int k)
{
    unsigned char b[sizeof(T)];
    for (unsigned j = 0; j < sizeof(T); j++)
        b[j] = (unsigned char)((pe * 37 + k * 3 + 1 + 31 * (int)j) % 251);
    T v;
    memcpy(&v, b, sizeof v);
    return v;
}
template <typename T> __host__ __device__ T sentinel(void)
{
    T v;
    memset(&v, 0xff, sizeof v);
    return v;
}
/* Compares the bytes of *p (read volatile: data another GPU wrote) with want. */
template <typename T> __device__ bool same(const T *p, T want)
{
    const volatile unsigned char *a = (const volatile unsigned char *)p;
    const unsigned char *b = (const unsigned char *)&want;
    for (unsigned j = 0; j < sizeof(T); j++)
        if (a[j] != b[j])
            return false;
    return true;
}
/* The first (up to) 8 bytes of *p, for messages. */
template <typename T> __host__ __device__ unsigned long long low_bits(const T *p)
{
    unsigned long long v = 0;
    memcpy(&v, (const void *)p, sizeof(T) < 8 ? sizeof(T) : 8);
    return v;
}

template <typename T> __global__ void k_fill(T *p, int n, int pe)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        p[i] = pe < 0 ? sentinel<T>() : val<T>(pe, i);
}

/* ---- (1) RMA -------------------------------------------------------------------- */

/* Forms: 0 thread, 1 thread nbi, 2 warp, 3 warp nbi, 4 block, 5 block nbi
 * (strided: 0, 2, 4). Thread forms by thread 0, warp forms by warp 0. */
#define RMA_OPS(T_, N)                                                                 \
    struct rma_##N {                                                                   \
        typedef T_ T;                                                                  \
        static constexpr const char *name = #N;                                        \
        __device__ static void p(T *d, T v, int pe) { gshmem_##N##_p(d, v, pe); }      \
        __device__ static T g(const T *s, int pe) { return gshmem_##N##_g(s, pe); }    \
        __device__ static void put(T *d, const T *s, size_t n, int pe, int f)          \
        {                                                                              \
            switch (f) {                                                               \
            case 0: gshmem_##N##_put(d, s, n, pe); break;                              \
            case 1: gshmem_##N##_put_nbi(d, s, n, pe); break;                          \
            case 2: gshmemx_##N##_put_warp(d, s, n, pe); break;                        \
            case 3: gshmemx_##N##_put_nbi_warp(d, s, n, pe); break;                    \
            case 4: gshmemx_##N##_put_block(d, s, n, pe); break;                       \
            default: gshmemx_##N##_put_nbi_block(d, s, n, pe); break;                  \
            }                                                                          \
        }                                                                              \
        __device__ static void get(T *d, const T *s, size_t n, int pe, int f)          \
        {                                                                              \
            switch (f) {                                                               \
            case 0: gshmem_##N##_get(d, s, n, pe); break;                              \
            case 1: gshmem_##N##_get_nbi(d, s, n, pe); break;                          \
            case 2: gshmemx_##N##_get_warp(d, s, n, pe); break;                        \
            case 3: gshmemx_##N##_get_nbi_warp(d, s, n, pe); break;                    \
            case 4: gshmemx_##N##_get_block(d, s, n, pe); break;                       \
            default: gshmemx_##N##_get_nbi_block(d, s, n, pe); break;                  \
            }                                                                          \
        }                                                                              \
        __device__ static void put_signal(T *d, const T *s, size_t n, uint64_t *sig,   \
                                          uint64_t v, int op, int pe, int f)           \
        {                                                                              \
            switch (f) {                                                               \
            case 0: gshmem_##N##_put_signal(d, s, n, sig, v, op, pe); break;           \
            case 1: gshmem_##N##_put_signal_nbi(d, s, n, sig, v, op, pe); break;       \
            case 2: gshmemx_##N##_put_signal_warp(d, s, n, sig, v, op, pe); break;     \
            case 3: gshmemx_##N##_put_signal_nbi_warp(d, s, n, sig, v, op, pe); break; \
            case 4: gshmemx_##N##_put_signal_block(d, s, n, sig, v, op, pe); break;    \
            default: gshmemx_##N##_put_signal_nbi_block(d, s, n, sig, v, op, pe); break; \
            }                                                                          \
        }                                                                              \
        __device__ static void iput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,     \
                                    size_t n, int pe, int f)                           \
        {                                                                              \
            if (f == 0)                                                                \
                gshmem_##N##_iput(d, s, dst, sst, n, pe);                              \
            else if (f == 2)                                                           \
                gshmemx_##N##_iput_warp(d, s, dst, sst, n, pe);                        \
            else                                                                       \
                gshmemx_##N##_iput_block(d, s, dst, sst, n, pe);                       \
        }                                                                              \
        __device__ static void iget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,     \
                                    size_t n, int pe, int f)                           \
        {                                                                              \
            if (f == 0)                                                                \
                gshmem_##N##_iget(d, s, dst, sst, n, pe);                              \
            else if (f == 2)                                                           \
                gshmemx_##N##_iget_warp(d, s, dst, sst, n, pe);                        \
            else                                                                       \
                gshmemx_##N##_iget_block(d, s, dst, sst, n, pe);                       \
        }                                                                              \
    };
GSHMEMI_RMA_EACH_TYPE(RMA_OPS)
GSHMEMI_DEV_HALF_EACH_TYPE(RMA_OPS)

/* Regions of NE elements: puts land in P_* of the target's sym, gets in
 * G_* of the caller's got; each reads region r of a source holding
 * val(owner, r * NE + i). */
enum { P_P = 0, P_PUT = 1, P_SIG = 7, P_IPUT = 13, P_REGIONS = 16 };
enum { G_G = 0, G_GET = 1, G_IGET = 7, G_REGIONS = 10 };

__device__ bool form_caller(int f)
{
    return f / 2 == 0 ? threadIdx.x == 0 : f / 2 == 1 ? threadIdx.x < 32 : true;
}

/* A strided call of kind k (thread 0, warp 1, block 2): n elements, the
 * destination starting at element start of its region. */
struct stride_t {
    int dst, sst, n, start;
};
__device__ stride_t iput_spec(int k)
{
    stride_t s[3] = {{2, 1, NE / 2, 0}, {1, 3, NE / 3, 0}, {-1, 1, NE, NE - 1}};
    return s[k];
}
__device__ stride_t iget_spec(int k)
{
    stride_t s[3] = {{1, 2, NE / 2, 0}, {2, 1, NE / 2, 0}, {-1, 1, NE, NE - 1}};
    return s[k];
}
/* The source index of destination element j under s, -1 when none. */
__device__ int strided_src(stride_t s, int j)
{
    int d = j - s.start;
    if (d % s.dst != 0 || d / s.dst < 0 || d / s.dst >= s.n)
        return -1;
    return d / s.dst * s.sst;
}

/* Signal f: SET of 1000 + f (even f), ADD of 7 (odd f) on a zero word. */
__device__ uint64_t sig_want(int f)
{
    return f % 2 == 0 ? 1000u + (unsigned)f : 7u;
}

template <class O> __global__ void k_put(typename O::T *sym, const typename O::T *src,
                                         uint64_t *sig, int pe, int left, int *errs)
{
    typedef typename O::T T;
    int t = threadIdx.x;
    O::p(&sym[P_P * NE + t], src[P_P * NE + t], pe);
    for (int f = 0; f < 6; f++)
        if (form_caller(f)) {
            O::put(sym + (P_PUT + f) * NE, src + (P_PUT + f) * NE, NE, pe, f);
            O::put_signal(sym + (P_SIG + f) * NE, src + (P_SIG + f) * NE, NE, &sig[f],
                          sig_want(f), f % 2 == 0 ? GSHMEM_SIGNAL_SET : GSHMEM_SIGNAL_ADD, pe, f);
        }
    for (int k = 0; k < 3; k++)
        if (form_caller(2 * k)) {
            stride_t s = iput_spec(k);
            O::iput(sym + (P_IPUT + k) * NE + s.start, src + (P_IPUT + k) * NE, s.dst, s.sst,
                    s.n, pe, 2 * k);
        }
    gshmem_quiet();
    /* the left neighbour's signals: its data is there once each is seen */
    if (t == 0)
        for (int f = 0; f < 6; f++) {
            uint64_t *s = &sig[f], want = sig_want(f);
            bool ok = pe_dev_within([&] { return gshmem_signal_fetch(s) == want; });
            DEV_EXPECT(errs, ok, "%s put_signal form %d: the signal is %llu, want %llu",
                       O::name, f, (unsigned long long)gshmem_signal_fetch(s),
                       (unsigned long long)want);
            if (ok)
                (void)gshmem_signal_wait_until(s, GSHMEM_CMP_EQ, want);
        }
    __syncthreads();
    for (int f = 0; f < 6; f++) {
        const T *x = &sym[(P_SIG + f) * NE + t];
        DEV_EXPECT(errs, same(x, val<T>(left, (P_SIG + f) * NE + t)),
                   "%s put_signal form %d element %d: %llx after the signal", O::name, f, t,
                   low_bits(x));
    }
}

template <class O> __global__ void k_check_put(const typename O::T *sym, const uint64_t *sig,
                                               int left, int *errs)
{
    typedef typename O::T T;
    int j = threadIdx.x;
    for (int r = 0; r < P_REGIONS; r++) {
        int k = r < P_IPUT ? j : strided_src(iput_spec(r - P_IPUT), j);
        T want = k < 0 ? sentinel<T>() : val<T>(left, r * NE + k);
        DEV_EXPECT(errs, same(&sym[r * NE + j], want), "%s put region %d element %d: %llx, "
                   "want %llx", O::name, r, j, low_bits(&sym[r * NE + j]), low_bits(&want));
    }
    if (j < 6)
        DEV_EXPECT(errs, sig[j] == sig_want(j), "%s signal %d: %llu", O::name, j,
                   (unsigned long long)sig[j]);
}

template <class O> __global__ void k_get(typename O::T *got, const typename O::T *src, int pe)
{
    int t = threadIdx.x;
    got[G_G * NE + t] = O::g(&src[G_G * NE + t], pe);
    for (int f = 0; f < 6; f++)
        if (form_caller(f))
            O::get(got + (G_GET + f) * NE, src + (G_GET + f) * NE, NE, pe, f);
    for (int k = 0; k < 3; k++)
        if (form_caller(2 * k)) {
            stride_t s = iget_spec(k);
            O::iget(got + (G_IGET + k) * NE + s.start, src + (G_IGET + k) * NE, s.dst, s.sst,
                    s.n, pe, 2 * k);
        }
    gshmem_quiet();
}

template <class O> __global__ void k_check_get(const typename O::T *got, int right, int *errs)
{
    typedef typename O::T T;
    int j = threadIdx.x;
    for (int r = 0; r < G_REGIONS; r++) {
        int k = r < G_IGET ? j : strided_src(iget_spec(r - G_IGET), j);
        T want = k < 0 ? sentinel<T>() : val<T>(right, r * NE + k);
        DEV_EXPECT(errs, same(&got[r * NE + j], want), "%s get region %d element %d: %llx, "
                   "want %llx", O::name, r, j, low_bits(&got[r * NE + j]), low_bits(&want));
    }
}

static void errs_check(const char *type, const char *what)
{
    char m[128];
    snprintf(m, sizeof m, "%s: %s", type, what);
    pe_dev_errs_check(errs, m);
}

template <class O> static void run_rma(void)
{
    typedef typename O::T T;
    T *sym = (T *)pe_dev_sym(P_REGIONS * NE * sizeof(T));
    T *got = (T *)pe_dev_sym(G_REGIONS * NE * sizeof(T));
    T *src = (T *)pe_dev_sym(P_REGIONS * NE * sizeof(T));
    uint64_t *sig = (uint64_t *)pe_dev_sym(8 * sizeof(uint64_t));
    k_fill<T><<<1, NE>>>(sym, P_REGIONS * NE, -1);
    k_fill<T><<<1, NE>>>(got, G_REGIONS * NE, -1);
    k_fill<T><<<1, NE>>>(src, P_REGIONS * NE, me);
    CU_SYNC();
    gshmem_barrier_all();
    k_put<O><<<1, NE>>>(sym, src, sig, right_pe, left_pe, errs);
    CU_SYNC();
    errs_check(O::name, "put_signal data after its signal");
    gshmem_barrier_all();
    k_check_put<O><<<1, NE>>>(sym, sig, left_pe, errs);
    CU_SYNC();
    errs_check(O::name, "puts from the left neighbour");
    k_get<O><<<1, NE>>>(got, src, right_pe);
    CU_SYNC();
    k_check_get<O><<<1, NE>>>(got, right_pe, errs);
    CU_SYNC();
    errs_check(O::name, "gets from the right neighbour");
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(src);
    gshmem_free(got);
    gshmem_free(sym);
}

/* ---- (2) AMOs ------------------------------------------------------------------- */

#define AMO_EXT_OPS(T_, N)                                                             \
    struct amo_ext_##N {                                                               \
        typedef T_ T;                                                                  \
        static constexpr const char *name = #N;                                        \
        __device__ static T fetch(const T *d, int pe) { return gshmem_##N##_atomic_fetch(d, pe); } \
        __device__ static void set(T *d, T v, int pe) { gshmem_##N##_atomic_set(d, v, pe); } \
        __device__ static T swap(T *d, T v, int pe) { return gshmem_##N##_atomic_swap(d, v, pe); } \
    };
#define AMO_STD_OPS(T_, N)                                                             \
    AMO_EXT_OPS(T_, N)                                                                 \
    struct amo_std_##N : amo_ext_##N {                                                 \
        __device__ static T fadd(T *d, T v, int pe)                                    \
        { return gshmem_##N##_atomic_fetch_add(d, v, pe); }                            \
        __device__ static void add(T *d, T v, int pe) { gshmem_##N##_atomic_add(d, v, pe); } \
        __device__ static T cswap(T *d, T c, T v, int pe)                              \
        { return gshmem_##N##_atomic_compare_swap(d, c, v, pe); }                      \
        __device__ static void inc(T *d, int pe) { gshmem_##N##_atomic_inc(d, pe); }   \
        __device__ static T finc(T *d, int pe) { return gshmem_##N##_atomic_fetch_inc(d, pe); } \
    };
#define AMO_BIT_OPS(T_, N)                                                             \
    struct amo_bit_##N : amo_ext_##N {                                                 \
        __device__ static void band(T *d, T v, int pe) { gshmem_##N##_atomic_and(d, v, pe); } \
        __device__ static void bor(T *d, T v, int pe) { gshmem_##N##_atomic_or(d, v, pe); } \
        __device__ static void bxor(T *d, T v, int pe) { gshmem_##N##_atomic_xor(d, v, pe); } \
        __device__ static T fand(T *d, T v, int pe)                                    \
        { return gshmem_##N##_atomic_fetch_and(d, v, pe); }                            \
        __device__ static T fbor(T *d, T v, int pe)                                    \
        { return gshmem_##N##_atomic_fetch_or(d, v, pe); }                             \
        __device__ static T fxor(T *d, T v, int pe)                                    \
        { return gshmem_##N##_atomic_fetch_xor(d, v, pe); }                            \
    };
GSHMEMI_AMO_EACH_STANDARD(AMO_STD_OPS)
GSHMEMI_AMO_EACH_BITWISE(AMO_BIT_OPS)
GSHMEMI_AMO_EACH_EXTENDED(AMO_EXT_OPS)

/* The values a PE's sequences leave (checked at the target). */
template <typename T> __host__ __device__ T amo_final(int pe)
{
    return (T)((T)((T)1 << (8 * sizeof(T) - 2)) + (T)pe);   /* a high bit set */
}
template <typename T> __host__ __device__ T bit_mask(int k, int pe)
{
    return (T)(0x5a0f3cc3a55af00full * (unsigned long long)(2 * k + 1) ^ (unsigned long long)pe);
}
template <typename T> __host__ __device__ T bit_final(int pe)
{
    T w = (T)(bit_mask<T>(0, pe) & bit_mask<T>(1, pe) & bit_mask<T>(2, pe));
    w = (T)(w | bit_mask<T>(3, pe) | bit_mask<T>(4, pe));
    return (T)(w ^ bit_mask<T>(5, pe) ^ bit_mask<T>(6, pe));
}
template <typename T> __host__ __device__ T ext_final(int pe)
{
    return (T)(-2.25e-30 * (pe + 1));
}

#define AMO_EXPECT(cond, what, r)                                                      \
    DEV_EXPECT(errs, cond, "%s %s at PE %d: %llx", O::name, what, pe, low_bits(&(r)))

/* slots[0]: the standard sequence, [1]: the bitwise one, [2]: the block's
 * counter, [3]: the extended one; seen[v]: how often fetch_inc gave v. */
template <class O> __global__ void k_amo_std(typename O::T *slots, int pe, int me, int *seen,
                                             int *errs)
{
    typedef typename O::T T;
    T *x = &slots[0], a = (T)(100 + me), b = (T)7, c = (T)3, d = (T)(50 + me), r;
    if (threadIdx.x == 0) {
        O::set(x, a, pe);
        AMO_EXPECT((r = O::fetch(x, pe)) == a, "set/fetch", r);
        AMO_EXPECT((r = O::fadd(x, b, pe)) == a, "fetch_add", r);
        O::add(x, c, pe);
        O::inc(x, pe);
        AMO_EXPECT((r = O::finc(x, pe)) == (T)(a + b + c + 1), "add/inc/fetch_inc", r);
        AMO_EXPECT((r = O::swap(x, d, pe)) == (T)(a + b + c + 2), "swap", r);
        AMO_EXPECT((r = O::cswap(x, (T)(d + 1), amo_final<T>(me), pe)) == d,
                   "failing compare_swap", r);
        AMO_EXPECT((r = O::fetch(x, pe)) == d, "value after a failing compare_swap", r);
        AMO_EXPECT((r = O::cswap(x, d, amo_final<T>(me), pe)) == d, "compare_swap", r);
        AMO_EXPECT((r = O::fetch(x, pe)) == amo_final<T>(me), "value after compare_swap", r);
    }
    r = O::finc(&slots[2], pe);
    if ((unsigned long long)r < NE)
        atomicAdd(&seen[(unsigned long long)r], 1);
    else
        AMO_EXPECT(false, "the block's fetch_inc", r);
}

template <class O> __global__ void k_amo_bit(typename O::T *slots, int pe, int me, int *errs)
{
    typedef typename O::T T;
    T *x = &slots[1], r, w = bit_mask<T>(0, me);
    O::set(x, w, pe);
    AMO_EXPECT((r = O::fand(x, bit_mask<T>(1, me), pe)) == w, "fetch_and", r);
    w &= bit_mask<T>(1, me);
    O::band(x, bit_mask<T>(2, me), pe);
    w &= bit_mask<T>(2, me);
    AMO_EXPECT((r = O::fbor(x, bit_mask<T>(3, me), pe)) == w, "and/fetch_or", r);
    w |= bit_mask<T>(3, me);
    O::bor(x, bit_mask<T>(4, me), pe);
    w |= bit_mask<T>(4, me);
    AMO_EXPECT((r = O::fxor(x, bit_mask<T>(5, me), pe)) == w, "or/fetch_xor", r);
    w ^= bit_mask<T>(5, me);
    O::bxor(x, bit_mask<T>(6, me), pe);
    w ^= bit_mask<T>(6, me);
    AMO_EXPECT((r = O::fetch(x, pe)) == w, "xor", r);
}

template <class O> __global__ void k_amo_ext(typename O::T *slots, int pe, int me, int *errs)
{
    typedef typename O::T T;
    T *x = &slots[3], a = (T)(1.5 + me), r;
    O::set(x, a, pe);
    AMO_EXPECT((r = O::fetch(x, pe)) == a, "set/fetch", r);
    AMO_EXPECT((r = O::swap(x, ext_final<T>(me), pe)) == a, "swap", r);
    AMO_EXPECT((r = O::fetch(x, pe)) == ext_final<T>(me), "value after swap", r);
}

/* Runs the sequence of kind (1 standard, 2 bitwise, 4 extended) of O at the right
 * neighbour, then checks what the left one left here. */
template <class O, int kind> static void run_amo(void)
{
    typedef typename O::T T;
    T *slots = (T *)pe_dev_sym(4 * sizeof(T)), h[4];
    int *seen = NULL, hs[NE];
    CU(cudaMalloc((void **)&seen, sizeof hs));
    CU(cudaMemset(seen, 0, sizeof hs));
    gshmem_barrier_all();
    if constexpr (kind == 1)
        k_amo_std<O><<<1, NE>>>(slots, right_pe, me, seen, errs);
    else if constexpr (kind == 2)
        k_amo_bit<O><<<1, 1>>>(slots, right_pe, me, errs);
    else
        k_amo_ext<O><<<1, 1>>>(slots, right_pe, me, errs);
    CU_SYNC();
    errs_check(O::name, "AMO results");
    gshmem_barrier_all();
    CU(cudaMemcpy(h, slots, sizeof h, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(hs, seen, sizeof hs, cudaMemcpyDeviceToHost));
    if constexpr (kind == 1) {
        PE_CHECK(h[0] == amo_final<T>(left_pe) && h[2] == (T)NE, "%s: the standard sequence "
                 "left %llx, the counter %llu", O::name, (unsigned long long)h[0],
                 (unsigned long long)h[2]);
        for (int i = 0; i < NE; i++)
            PE_CHECK(hs[i] == 1, "%s: fetch_inc gave %d %d times", O::name, i, hs[i]);
    } else if constexpr (kind == 2) {
        PE_CHECK(h[1] == bit_final<T>(left_pe), "%s: the bitwise sequence left %llx, want %llx",
                 O::name, (unsigned long long)h[1], (unsigned long long)bit_final<T>(left_pe));
    } else {
        PE_CHECK(h[3] == ext_final<T>(left_pe), "%s: the extended sequence left %g", O::name,
                 (double)h[3]);
    }
    gshmem_barrier_all();
    CU(cudaFree(seen));
    gshmem_free(slots);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    pe_dev_ring(&me, &npes, &right_pe, &left_pe);
    errs = pe_dev_errs_new();
#define RUN_RMA(T, N) run_rma<rma_##N>();
    GSHMEMI_RMA_EACH_TYPE(RUN_RMA)
    GSHMEMI_DEV_HALF_EACH_TYPE(RUN_RMA)
#define RUN_AMO_STD(T, N) run_amo<amo_std_##N, 1>();
#define RUN_AMO_BIT(T, N) run_amo<amo_bit_##N, 2>();
#define RUN_AMO_EXT(T, N) run_amo<amo_ext_##N, 4>();
    GSHMEMI_AMO_EACH_STANDARD(RUN_AMO_STD)
    GSHMEMI_AMO_EACH_BITWISE(RUN_AMO_BIT)
    GSHMEMI_AMO_EACH_EXTENDED(RUN_AMO_EXT)
    return pe_dev_finish("pe_dev_types", NULL, 0, errs);
}

/* pe_dev_types_sync: the device API's point synchronization on every wait
 * type of impl/gshmem_coll_types.h (generated from its table),
 * gshmemx_signal_op, and the half and bfloat16 reductions, at any number
 * of PEs, on the P2P path or (GSHMEM_DEVICE_QUEUE_ONLY=1) the queue path.
 * (1) waits, every wait type, NW ivars: before any write, every test form
 *     finds nothing (a set with nothing included: test_all 1, _any
 *     SIZE_MAX, _some 0, and the waits return at once), and an all-ones
 *     ivar compares with the type's signedness; then each PE p's 10 + k
 *     into ivar k at its right neighbour (last k first, fenced), waits for
 *     its own ivars and checks every wait and test form, _vector and
 *     status included, their return values and indices;
 * (2) gshmemx_signal_op at the right neighbour: SET, ADD twice on 100, and
 *     a warp's 32 concurrent ADDs of 1; each PE waits for its own words;
 * (3) half and bfloat16 sum, prod, min, max reductions on WORLD, thread,
 *     warp and block forms, NRED elements, bit for bit against the host's
 *     reference: team order, each step in float, rounded to the type.
 * Prints "pe_dev_types_sync: OK (PE n of N)". */
#include "pe_dev.h"

#define NW 8       /* ivars per wait test */
#define NRED 300   /* elements per half reduction */

static int me, npes, left_pe, right_pe;
static int *errs;

/* ---- (1) waits ---------------------------------------------------------------------- */

#define WAIT_OPS(T_, N)                                                                 \
    struct wait_##N {                                                                   \
        typedef T_ T;                                                                   \
        static constexpr const char *name = #N;                                         \
        __device__ static void p(T *d, T v, int pe) { gshmem_##N##_p(d, v, pe); }       \
        __device__ static void wait_until(T *v, int c, T x) { gshmem_##N##_wait_until(v, c, x); } \
        __device__ static int test(T *v, int c, T x) { return gshmem_##N##_test(v, c, x); } \
        __device__ static void wait_all(T *v, size_t n, const int *st, int c, T x)      \
        { gshmem_##N##_wait_until_all(v, n, st, c, x); }                                \
        __device__ static size_t wait_any(T *v, size_t n, const int *st, int c, T x)    \
        { return gshmem_##N##_wait_until_any(v, n, st, c, x); }                         \
        __device__ static size_t wait_some(T *v, size_t n, size_t *ix, const int *st, int c, T x) \
        { return gshmem_##N##_wait_until_some(v, n, ix, st, c, x); }                    \
        __device__ static void wait_all_v(T *v, size_t n, const int *st, int c, T *x)   \
        { gshmem_##N##_wait_until_all_vector(v, n, st, c, x); }                         \
        __device__ static size_t wait_any_v(T *v, size_t n, const int *st, int c, T *x) \
        { return gshmem_##N##_wait_until_any_vector(v, n, st, c, x); }                  \
        __device__ static size_t wait_some_v(T *v, size_t n, size_t *ix, const int *st, int c, \
                                             T *x)                                      \
        { return gshmem_##N##_wait_until_some_vector(v, n, ix, st, c, x); }             \
        __device__ static int test_all(T *v, size_t n, const int *st, int c, T x)       \
        { return gshmem_##N##_test_all(v, n, st, c, x); }                               \
        __device__ static size_t test_any(T *v, size_t n, const int *st, int c, T x)    \
        { return gshmem_##N##_test_any(v, n, st, c, x); }                               \
        __device__ static size_t test_some(T *v, size_t n, size_t *ix, const int *st, int c, T x) \
        { return gshmem_##N##_test_some(v, n, ix, st, c, x); }                          \
        __device__ static int test_all_v(T *v, size_t n, const int *st, int c, T *x)    \
        { return gshmem_##N##_test_all_vector(v, n, st, c, x); }                        \
        __device__ static size_t test_any_v(T *v, size_t n, const int *st, int c, T *x) \
        { return gshmem_##N##_test_any_vector(v, n, st, c, x); }                        \
        __device__ static size_t test_some_v(T *v, size_t n, size_t *ix, const int *st, int c, \
                                             T *x)                                      \
        { return gshmem_##N##_test_some_vector(v, n, ix, st, c, x); }                   \
    };
GSHMEMI_WAIT_EACH_TYPE(WAIT_OPS)

#define WAIT_EXPECT(cond, what, got)                                                    \
    DEV_EXPECT(errs, cond, "%s %s: %lld", O::name, what, (long long)(got))

/* ivars: NW zeros, then an all-ones word; nothing holds yet. */
template <class O> __global__ void k_wait_before(typename O::T *iv, int *errs)
{
    typedef typename O::T T;
    int none[NW];
    T want[NW];
    size_t ix[NW];
    for (int k = 0; k < NW; k++) {
        none[k] = 1;   /* every ivar excluded */
        want[k] = (T)(10 + k);
    }
    WAIT_EXPECT(O::test(iv, GSHMEM_CMP_EQ, (T)10) == 0, "test before the write", 1);
    WAIT_EXPECT(O::test(iv, GSHMEM_CMP_NE, (T)0) == 0, "test NE 0 of a zero", 1);
    WAIT_EXPECT(O::test_all(iv, NW, NULL, GSHMEM_CMP_GE, (T)10) == 0, "test_all", 1);
    WAIT_EXPECT(O::test_any(iv, NW, NULL, GSHMEM_CMP_GE, (T)10) == SIZE_MAX, "test_any", 1);
    WAIT_EXPECT(O::test_some(iv, NW, ix, NULL, GSHMEM_CMP_GE, (T)10) == 0, "test_some", 1);
    WAIT_EXPECT(O::test_all_v(iv, NW, NULL, GSHMEM_CMP_EQ, want) == 0, "test_all_vector", 1);
    WAIT_EXPECT(O::test_any_v(iv, NW, NULL, GSHMEM_CMP_EQ, want) == SIZE_MAX,
                "test_any_vector", 1);
    WAIT_EXPECT(O::test_some_v(iv, NW, ix, NULL, GSHMEM_CMP_EQ, want) == 0,
                "test_some_vector", 1);
    /* nothing included */
    WAIT_EXPECT(O::test_all(iv, NW, none, GSHMEM_CMP_GE, (T)10) == 1, "test_all, none", 1);
    WAIT_EXPECT(O::test_any(iv, NW, none, GSHMEM_CMP_GE, (T)10) == SIZE_MAX, "test_any, none",
                1);
    WAIT_EXPECT(O::test_some(iv, NW, ix, none, GSHMEM_CMP_GE, (T)10) == 0, "test_some, none",
                1);
    O::wait_all(iv, NW, none, GSHMEM_CMP_GE, (T)10);
    WAIT_EXPECT(O::wait_any(iv, NW, none, GSHMEM_CMP_GE, (T)10) == SIZE_MAX, "wait_any, none",
                1);
    WAIT_EXPECT(O::wait_some(iv, NW, ix, none, GSHMEM_CMP_GE, (T)10) == 0, "wait_some, none", 1);
    /* the all-ones word: below 0 when T is signed, above 1000 when not */
    bool sgn = (T)-1 < (T)1;   /* the all-ones value is -1 or the largest */
    int c = sgn ? GSHMEM_CMP_LT : GSHMEM_CMP_GT;
    T ref = sgn ? (T)0 : (T)1000;
    WAIT_EXPECT(O::test(&iv[NW], c, ref) == 1, "signedness of test", sgn);
    O::wait_until(&iv[NW], c, ref);
    WAIT_EXPECT(O::test(&iv[NW], sgn ? GSHMEM_CMP_GT : GSHMEM_CMP_LT, ref) == 0,
                "signedness of test (opposite)", sgn);
}

/* Each PE writes 10 + k into ivar k at pe, last one first, fenced: once
 * ivars[0] holds, they all do. Then every form on its own ivars. */
template <class O> __global__ void k_wait_after(typename O::T *iv, int pe, int *errs)
{
    typedef typename O::T T;
    int st[NW];
    T want[NW], bad[NW];
    size_t ix[NW];
    for (int k = NW - 1; k >= 0; k--) {
        O::p(&iv[k], (T)(10 + k), pe);
        gshmem_fence();
    }
    gshmem_quiet();
    for (int k = 0; k < NW; k++) {
        st[k] = k < 3;   /* 0, 1, 2 excluded */
        want[k] = bad[k] = (T)(10 + k);
    }
    bad[5] = (T)99;
    bool came = pe_dev_within([&] { return O::test(&iv[0], GSHMEM_CMP_EQ, (T)10) == 1; });
    WAIT_EXPECT(came, "the left neighbour's p of ivar 0 never came", 0);
    if (!came)
        return;
    O::wait_until(&iv[0], GSHMEM_CMP_EQ, (T)10);
    WAIT_EXPECT(O::test(&iv[1], GSHMEM_CMP_EQ, (T)11) == 1, "test EQ", 1);
    WAIT_EXPECT(O::test(&iv[1], GSHMEM_CMP_LE, (T)11) == 1, "test LE", 1);
    WAIT_EXPECT(O::test(&iv[1], GSHMEM_CMP_LT, (T)11) == 0, "test LT", 1);
    WAIT_EXPECT(O::test(&iv[1], GSHMEM_CMP_GT, (T)10) == 1, "test GT", 1);
    WAIT_EXPECT(O::test(&iv[1], GSHMEM_CMP_NE, (T)11) == 0, "test NE", 1);
    O::wait_all(iv, NW, NULL, GSHMEM_CMP_GE, (T)10);
    O::wait_all_v(iv, NW, NULL, GSHMEM_CMP_EQ, want);
    size_t r = O::wait_any(iv, NW, st, GSHMEM_CMP_GE, (T)10);
    WAIT_EXPECT(r == 3, "wait_until_any (0..2 excluded)", r);
    r = O::wait_any_v(iv, NW, st, GSHMEM_CMP_EQ, want);
    WAIT_EXPECT(r == 3, "wait_until_any_vector", r);
    r = O::wait_some(iv, NW, ix, st, GSHMEM_CMP_GE, (T)10);
    WAIT_EXPECT(r == NW - 3 && ix[0] == 3 && ix[NW - 4] == NW - 1, "wait_until_some", r);
    r = O::wait_some_v(iv, NW, ix, st, GSHMEM_CMP_EQ, want);
    WAIT_EXPECT(r == NW - 3 && ix[0] == 3 && ix[NW - 4] == NW - 1, "wait_until_some_vector", r);
    WAIT_EXPECT(O::test_all(iv, NW, NULL, GSHMEM_CMP_GE, (T)10) == 1, "test_all", 0);
    WAIT_EXPECT(O::test_all_v(iv, NW, NULL, GSHMEM_CMP_EQ, bad) == 0, "test_all_vector", 1);
    WAIT_EXPECT(O::test_all_v(iv, NW, NULL, GSHMEM_CMP_EQ, want) == 1, "test_all_vector", 0);
    r = O::test_any(iv, NW, st, GSHMEM_CMP_GE, (T)10);
    WAIT_EXPECT(r == 3, "test_any", r);
    r = O::test_any_v(iv, NW, st, GSHMEM_CMP_GT, bad);   /* none holds: 15 is not above 99 either */
    WAIT_EXPECT(r == SIZE_MAX, "test_any_vector GT", r);
    r = O::test_any_v(iv, NW, st, GSHMEM_CMP_LT, bad);   /* ivar 5 only: 15 < 99 */
    WAIT_EXPECT(r == 5, "test_any_vector LT", r);
    r = O::test_some(iv, NW, ix, NULL, GSHMEM_CMP_GE, (T)12);
    WAIT_EXPECT(r == NW - 2 && ix[0] == 2 && ix[NW - 3] == NW - 1, "test_some", r);
    r = O::test_some_v(iv, NW, ix, NULL, GSHMEM_CMP_EQ, bad);
    WAIT_EXPECT(r == NW - 1 && ix[4] == 4 && ix[5] == 6, "test_some_vector (ivar 5 differs)", r);
}

template <typename T> __global__ void k_wait_init(T *iv)
{
    for (int k = 0; k < NW; k++)
        iv[k] = (T)0;
    iv[NW] = (T)-1;
}

static void errs_check(const char *type, const char *what)
{
    char m[128];
    snprintf(m, sizeof m, "%s: %s", type, what);
    pe_dev_errs_check(errs, m);
}

template <class O> static void run_wait(void)
{
    typedef typename O::T T;
    T *iv = (T *)pe_dev_sym((NW + 1) * sizeof(T));
    k_wait_init<T><<<1, 1>>>(iv);
    CU_SYNC();
    gshmem_barrier_all();
    k_wait_before<O><<<1, 1>>>(iv, errs);
    CU_SYNC();
    errs_check(O::name, "waits before any write");
    gshmem_barrier_all();
    k_wait_after<O><<<1, 1>>>(iv, right_pe, errs);
    CU_SYNC();
    errs_check(O::name, "waits on the left neighbour's writes");
    gshmem_barrier_all();
    gshmem_free(iv);
}

/* ---- (2) signal_op ------------------------------------------------------------------ */

/* s[0]: SET 5 + me; s[1]: 100 (set here first), then ADD 3 twice; s[2]: one
 * ADD of 1 by each of the warp's 32 threads. */
__global__ void k_signal_op(uint64_t *s, int pe, int me, int left, int *errs)
{
    if (threadIdx.x == 0) {
        gshmemx_signal_op(&s[0], 5 + (uint64_t)me, GSHMEM_SIGNAL_SET, pe);
        gshmemx_signal_op(&s[1], 3, GSHMEM_SIGNAL_ADD, pe);
        gshmemx_signal_op(&s[1], 3, GSHMEM_SIGNAL_ADD, pe);
    }
    gshmemx_signal_op(&s[2], 1, GSHMEM_SIGNAL_ADD, pe);
    gshmem_quiet();
    if (threadIdx.x != 0)
        return;
    const uint64_t want[3] = {5 + (uint64_t)left, 106, 32};
    for (int k = 0; k < 3; k++) {
        uint64_t *w = &s[k];
        bool ok = pe_dev_within([&] { return gshmem_signal_fetch(w) >= want[k]; });
        uint64_t v = ok ? gshmem_signal_wait_until(w, GSHMEM_CMP_GE, want[k])
                        : gshmem_signal_fetch(w);
        DEV_EXPECT(errs, v == want[k], "signal_op word %d (SET; ADD on 100; 32 ADDs): %llu, "
                   "want %llu", k, (unsigned long long)v, (unsigned long long)want[k]);
    }
}

static void run_signal_op(void)
{
    uint64_t *s = (uint64_t *)pe_dev_sym(4 * sizeof(uint64_t)), h[4] = {0, 100, 0, 0};
    CU(cudaMemcpy(s, h, sizeof h, cudaMemcpyHostToDevice));
    gshmem_barrier_all();
    k_signal_op<<<1, 32>>>(s, right_pe, me, left_pe, errs);
    CU_SYNC();
    errs_check("uint64", "gshmemx_signal_op");
    gshmem_barrier_all();
    CU(cudaMemcpy(h, s, sizeof h, cudaMemcpyDeviceToHost));
    PE_CHECK(h[0] == 5 + (uint64_t)left_pe && h[1] == 106 && h[2] == 32 && h[3] == 0,
             "signal words after signal_op: %llu %llu %llu %llu", (unsigned long long)h[0],
             (unsigned long long)h[1], (unsigned long long)h[2], (unsigned long long)h[3]);
    gshmem_barrier_all();
    gshmem_free(s);
}

/* ---- (3) half and bfloat16 reductions ------------------------------------------------ */

enum { OP_sum, OP_prod, OP_min, OP_max };

#define HRED_OPS(T_, N, OP)                                                             \
    struct hred_##N##_##OP {                                                            \
        typedef T_ T;                                                                   \
        static constexpr const char *name = #N "_" #OP "_reduce";                       \
        static constexpr int op = OP_##OP;                                              \
        __device__ static int call(T *d, const T *s, size_t n, int form)                \
        {                                                                               \
            gshmem_team_t w = GSHMEM_TEAM_WORLD;                                        \
            return form == 0   ? gshmem_##N##_##OP##_reduce(w, d, s, n)                 \
                   : form == 1 ? gshmemx_##N##_##OP##_reduce_warp(w, d, s, n)           \
                               : gshmemx_##N##_##OP##_reduce_block(w, d, s, n);         \
        }                                                                               \
    };
GSHMEMI_DEV_HALF_REDUCE_EACH(HRED_OPS)

static float tof(__half h) { return __half2float(h); }
static float tof(__nv_bfloat16 h) { return __bfloat162float(h); }
template <typename T> static T fromf(float f);
template <> __half fromf<__half>(float f) { return __float2half_rn(f); }
template <> __nv_bfloat16 fromf<__nv_bfloat16>(float f) { return __float2bfloat16_rn(f); }

/* PE pe's element i: magnitudes 0.6 .. 1.4 (prod stays in range), every
 * third negative (min and max differ from sum's signs), most not exact. */
template <typename T> static T hsrc(int pe, int i)
{
    float v = 0.6f + 0.0131f * (float)(i % 31) + 0.107f * (float)pe;
    return fromf<T>(i % 3 == 0 ? -v : v);
}

/* The host's reference: team order, each step in float, rounded. */
template <typename T> static T href(int op, int i)
{
    T acc = hsrc<T>(0, i);
    for (int pe = 1; pe < npes; pe++) {
        float a = tof(acc), x = tof(hsrc<T>(pe, i));
        float r = op == OP_sum ? a + x : op == OP_prod ? a * x : op == OP_min ? (x < a ? x : a)
                                                                              : (x > a ? x : a);
        acc = fromf<T>(r);
    }
    return acc;
}

template <class O> __global__ void k_hred(typename O::T *d, const typename O::T *s, int form,
                                          int *errs)
{
    int rc = O::call(d, s, NRED, form);
    DEV_EXPECT(errs, rc == 0, "%s form %d returned %d", O::name, form, rc);
}

template <class O> static void run_hred(void)
{
    typedef typename O::T T;
    T *d = (T *)pe_dev_sym(NRED * sizeof(T)), *s = (T *)pe_dev_sym(NRED * sizeof(T));
    T h[NRED];
    for (int i = 0; i < NRED; i++)
        h[i] = hsrc<T>(me, i);
    CU(cudaMemcpy(s, h, sizeof h, cudaMemcpyHostToDevice));
    static const int threads[3] = {1, 32, 128};
    for (int form = 0; form < 3; form++) {
        CU(cudaMemset(d, 0xff, sizeof h));
        gshmem_barrier_all();
        k_hred<O><<<1, threads[form]>>>(d, s, form, errs);
        CU_SYNC();
        errs_check(O::name, "reduction");
        CU(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < NRED; i++) {
            T want = href<T>(O::op, i);
            PE_CHECK(memcmp(&h[i], &want, sizeof want) == 0, "%s form %d element %d: %g, "
                     "want %g (team order, each step rounded)", O::name, form, i, tof(h[i]),
                     tof(want));
        }
    }
    gshmem_barrier_all();
    gshmem_free(s);
    gshmem_free(d);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    pe_dev_ring(&me, &npes, &right_pe, &left_pe);
    errs = pe_dev_errs_new();
#define RUN_WAIT(T, N) run_wait<wait_##N>();
    GSHMEMI_WAIT_EACH_TYPE(RUN_WAIT)
    run_signal_op();
#define RUN_HRED(T, N, OP) run_hred<hred_##N##_##OP>();
    GSHMEMI_DEV_HALF_REDUCE_EACH(RUN_HRED)
    return pe_dev_finish("pe_dev_types_sync", NULL, 0, errs);
}

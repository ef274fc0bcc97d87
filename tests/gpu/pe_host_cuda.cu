/* pe_host_cuda: the HOST collectives and point synchronization of gshmem.h
 * on a CUDA heap (GSHMEM_HEAP=cuda), every value checked: the host writes
 * sources and reads results with its own cudaMemcpy, never through gshmem.
 *  - on WORLD, on a split of every PE (the members' dissemination barrier)
 *    and on the halves (even and odd PEs): broadcastmem from every root,
 *    fcollectmem, collectmem (a different size per PE), alltoallmem,
 *    alltoalls (strided both sides; untouched slots keep their sentinel),
 *    reductions (int32 every op, int64, uint64, double, float; in place too);
 *    on WORLD also at 1.2 MB, past every size threshold of the algorithms;
 *  - point synchronization between ring neighbours: <T>_wait_until and
 *    _test for the four types and every comparison, the set forms (all, any,
 *    some, their _vector forms, status masks) as waits and tests,
 *    signal_wait_until after put-with-signal (SET) and after every PE's ADD
 *    (no quiet before the first wait: progress must deliver the signal);
 *  - no waiting for the user's kernels: a kernel on the legacy default
 *    stream raises a flag and spins until the host answers; the host's
 *    wait_until, test, signal_wait_until and a team sync must all return
 *    while it runs (a copy on the legacy stream would wait for the kernel:
 *    deadlock, caught by the kernel's own 20 s limit);
 *  - a PE that comes to a barrier last and then makes no call for 2 s does
 *    not keep the others in it (its flags leave before it returns).
 * Run by tests/multipe/test_host_cuda.c; prints "pe_host_cuda: OK (PE n)"
 * on every PE; "probe" as in pe_dev.h. */
#include <stdint.h>
#include <time.h>

#include "pe_dev.h"
#include "pe_red.h"

#define N 96          /* int32 per block */
#define NV 8          /* ivars of the set forms */
#define SENT (-7)     /* sentinel in dest slots nobody writes */

static int me, npes;

/* A cudaMemcpy from pageable memory to the device may return before the
 * bytes land (CUDA's "API synchronization behavior"); gshmem reads and
 * writes the heap on streams of its own that are not ordered after the
 * legacy one, so a put right after read the old source (the first
 * broadcast got 0 from the fresh heap at 4 PEs) and a late ivar or signal
 * reset could land over a peer's put. The sync makes the bytes land
 * first. PE_HOST_CUDA_H2D_NOSYNC=1 (diagnostic only) leaves it out. */
static int h2d_nosync = -1;
static void h2d(void *d, const void *h, size_t n)
{
    if (h2d_nosync < 0)
        h2d_nosync = getenv("PE_HOST_CUDA_H2D_NOSYNC") != NULL &&
                     strcmp(getenv("PE_HOST_CUDA_H2D_NOSYNC"), "1") == 0;
    CU(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
    if (!h2d_nosync)
        CU(cudaStreamSynchronize(0));
}
/* Device to host: complete on return. */
static void d2h(void *h, const void *d, size_t n) { CU(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost)); }

static void fill_i32(int32_t *d, int32_t v, size_t n)
{
    int32_t *h = (int32_t *)malloc(n * sizeof *h);
    PE_CHECK(h != NULL, "malloc");
    for (size_t i = 0; i < n; i++)
        h[i] = v;
    h2d(d, h, n * sizeof *h);
    free(h);
}

static int32_t val(int pe, int i) { return (int32_t)(pe * 100003 + i * 7 + 1); }
static int32_t val3(int pe, int j, int i) { return (int32_t)(pe * 1000003 + j * 1009 + i); }

/* The world PE of team PE k. */
static int wpe(gshmem_team_t t, int k)
{
    int pe = gshmem_team_translate_pe(t, k, GSHMEM_TEAM_WORLD);
    PE_CHECK(pe >= 0 && pe < npes, "translate_pe(team %d, %d) = %d", t, k, pe);
    return pe;
}

/* ---- collectives ----------------------------------------------------------- */

static int32_t *src, *dst;   /* symmetric, npes * 4 * N int32 each */
static int32_t *hbuf;        /* host, the same size */
#define BUF_N ((size_t)npes * 4 * N)

static void reset(void)
{
    fill_i32(dst, SENT, BUF_N);
    gshmem_barrier_all();
}

static void coll_broadcast(gshmem_team_t t, const char *tn)
{
    int tn_pes = gshmem_team_n_pes(t);
    for (int root = 0; root < tn_pes; root++) {
        reset();
        for (int i = 0; i < N; i++)
            hbuf[i] = val(me, i);
        h2d(src, hbuf, N * sizeof *hbuf);
        int rc = gshmem_broadcastmem(t, dst, src, N * sizeof(int32_t), root);
        PE_CHECK(rc == 0, "broadcastmem(%s, root %d): %d", tn, root, rc);
        d2h(hbuf, dst, (N + 1) * sizeof *hbuf);
        for (int i = 0; i < N; i++)
            PE_CHECK(hbuf[i] == val(wpe(t, root), i), "broadcast %s root %d [%d] = %d, want %d",
                     tn, root, i, hbuf[i], val(wpe(t, root), i));
        PE_CHECK(hbuf[N] == SENT, "broadcast %s root %d wrote past the end: %d", tn, root,
                 hbuf[N]);
    }
}

static void coll_fcollect_collect(gshmem_team_t t, const char *tn)
{
    int tme = gshmem_team_my_pe(t), tn_pes = gshmem_team_n_pes(t);
    reset();
    for (int i = 0; i < N; i++)
        hbuf[i] = val(me, i);
    h2d(src, hbuf, N * sizeof *hbuf);
    int rc = gshmem_fcollectmem(t, dst, src, N * sizeof(int32_t));
    PE_CHECK(rc == 0, "fcollectmem(%s): %d", tn, rc);
    d2h(hbuf, dst, ((size_t)tn_pes * N + 1) * sizeof *hbuf);
    for (int k = 0; k < tn_pes; k++)
        for (int i = 0; i < N; i++)
            PE_CHECK(hbuf[k * N + i] == val(wpe(t, k), i), "fcollect %s block %d [%d] = %d, "
                     "want %d", tn, k, i, hbuf[k * N + i], val(wpe(t, k), i));
    PE_CHECK(hbuf[tn_pes * N] == SENT, "fcollect %s wrote past the end", tn);

    /* collect: team PE k gives 3 * (k + 1) elements */
    reset();
    int mine = 3 * (tme + 1);
    for (int i = 0; i < mine; i++)
        hbuf[i] = val(me, i);
    h2d(src, hbuf, (size_t)mine * sizeof *hbuf);
    rc = gshmem_collectmem(t, dst, src, (size_t)mine * sizeof(int32_t));
    PE_CHECK(rc == 0, "collectmem(%s): %d", tn, rc);
    size_t total = 3 * (size_t)tn_pes * (tn_pes + 1) / 2;
    d2h(hbuf, dst, (total + 1) * sizeof *hbuf);
    size_t at = 0;
    for (int k = 0; k < tn_pes; k++)
        for (int i = 0; i < 3 * (k + 1); i++, at++)
            PE_CHECK(hbuf[at] == val(wpe(t, k), i), "collect %s block %d [%d] = %d, want %d",
                     tn, k, i, hbuf[at], val(wpe(t, k), i));
    PE_CHECK(hbuf[total] == SENT, "collect %s wrote past the end", tn);
}

static void coll_alltoall(gshmem_team_t t, const char *tn)
{
    int tme = gshmem_team_my_pe(t), tn_pes = gshmem_team_n_pes(t);
    const int n = 5, ds = 2, ss = 3;   /* alltoalls: 5 elements, strides 2 and 3 */

    reset();
    for (int j = 0; j < tn_pes; j++)
        for (int i = 0; i < N; i++)
            hbuf[j * N + i] = val3(me, j, i);
    h2d(src, hbuf, (size_t)tn_pes * N * sizeof *hbuf);
    int rc = gshmem_alltoallmem(t, dst, src, N * sizeof(int32_t));
    PE_CHECK(rc == 0, "alltoallmem(%s): %d", tn, rc);
    d2h(hbuf, dst, ((size_t)tn_pes * N + 1) * sizeof *hbuf);
    for (int k = 0; k < tn_pes; k++)
        for (int i = 0; i < N; i++)
            PE_CHECK(hbuf[k * N + i] == val3(wpe(t, k), tme, i), "alltoall %s block %d [%d] = "
                     "%d, want %d", tn, k, i, hbuf[k * N + i], val3(wpe(t, k), tme, i));
    PE_CHECK(hbuf[tn_pes * N] == SENT, "alltoall %s wrote past the end", tn);

    reset();
    for (int j = 0; j < tn_pes; j++)
        for (int i = 0; i < n * ss; i++)
            hbuf[j * n * ss + i] = val3(me, j, i);
    h2d(src, hbuf, (size_t)tn_pes * n * ss * sizeof *hbuf);
    rc = gshmem_alltoalls(t, dst, src, ds, ss, sizeof(int32_t), n);
    PE_CHECK(rc == 0, "alltoalls(%s): %d", tn, rc);
    size_t span = (size_t)tn_pes * n * ds;
    d2h(hbuf, dst, span * sizeof *hbuf);
    for (size_t x = 0; x < span; x++) {
        /* dest[(k * n + i) * ds] = k's source[(tme * n + i) * ss] = val3(k, tme, i * ss) */
        int k = (int)(x / ((size_t)n * ds)), e = (int)(x % ((size_t)n * ds));
        int32_t want = e % ds ? SENT : val3(wpe(t, k), tme, (e / ds) * ss);
        PE_CHECK(hbuf[x] == want, "alltoalls %s dest[%zu] = %d, want %d", tn, x, hbuf[x], want);
    }
}

/* One reduction of T on team t, checked against the host's combination in
 * team order; in place when inplace. v(pe, i): PE pe's element i. */
#define RED_CHECK(T, NAME, OP, COMB, V, inplace)                                      \
    do {                                                                                   \
        int tn_pes_ = gshmem_team_n_pes(t);                                                \
        T *s_ = (T *)src, *d_ = inplace ? (T *)src : (T *)dst;                             \
        T h_[N], w_[N];                                                                    \
        reset();                                                                           \
        for (int i = 0; i < N; i++)                                                        \
            h_[i] = (T)(V(me, i));                                                         \
        h2d(s_, h_, sizeof h_);                                                            \
        int rc_ = gshmem_##NAME##_##OP##_reduce(t, d_, s_, N);                             \
        PE_CHECK(rc_ == 0, #NAME "_" #OP "_reduce(%s): %d", tn, rc_);                     \
        for (int i = 0; i < N; i++) {                                                      \
            T a = (T)(V(wpe(t, 0), i));                                                    \
            for (int k = 1; k < tn_pes_; k++) {                                            \
                T x = (T)(V(wpe(t, k), i));                                                \
                a = (T)(COMB(a, x));                                                       \
            }                                                                              \
            w_[i] = a;                                                                     \
        }                                                                                  \
        d2h(h_, d_, sizeof h_);                                                            \
        for (int i = 0; i < N; i++)                                                        \
            PE_CHECK(h_[i] == w_[i], #NAME "_" #OP "_reduce(%s%s) [%d] = %.17g, want %.17g", \
                     tn, inplace ? ", in place" : "", i, (double)h_[i], (double)w_[i]);   \
    } while (0)

#define V_I(pe, i) ((pe) * 37 - (i) * 11 + ((i) % 5) * (pe))
#define V_SMALL(pe, i) (((pe) + (i)) % 3 + 1)
#define V_BITS(pe, i) (0x5a5a5a5a5a5a5a5aull >> ((pe) + (i) % 7) ^ ((uint64_t)(i) << (pe)))
#define V_D(pe, i) ((double)((pe) * 3 - (i)) * 0.5)

static void coll_reduce(gshmem_team_t t, const char *tn)
{
    RED_CHECK(int32_t, int32, sum, C_SUM, V_I, 0);
    RED_CHECK(int32_t, int32, prod, C_PROD, V_SMALL, 0);
    RED_CHECK(int32_t, int32, min, C_MIN, V_I, 0);
    RED_CHECK(int32_t, int32, max, C_MAX, V_I, 1);
    RED_CHECK(int32_t, int32, and, C_AND, V_BITS, 0);
    RED_CHECK(int32_t, int32, or, C_OR, V_BITS, 0);
    RED_CHECK(int32_t, int32, xor, C_XOR, V_BITS, 1);
    RED_CHECK(int64_t, int64, sum, C_SUM, V_I, 0);
    RED_CHECK(uint64_t, uint64, xor, C_XOR, V_BITS, 0);
    RED_CHECK(uint64_t, uint64, or, C_OR, V_BITS, 1);
    RED_CHECK(double, double, sum, C_SUM, V_D, 0);
    RED_CHECK(double, double, min, C_MIN, V_D, 0);
    RED_CHECK(float, float, max, C_MAX, V_D, 1);
    RED_CHECK(float, float, prod, C_PROD, V_SMALL, 0);
}

/* Large sizes on WORLD, past every threshold of the host algorithms
 * (broadcast's trees and scatter + allgather, reduce-scatter + allgather,
 * fcollect's large blocks): broadcast from the last PE, int32 sum, fcollect. */
#define BIG ((size_t)300007)
static void coll_big(void)
{
    int32_t *bs = (int32_t *)gshmem_malloc(BIG * sizeof(int32_t));
    int32_t *bd = (int32_t *)gshmem_malloc(BIG * sizeof(int32_t));
    int32_t *h = (int32_t *)malloc(BIG * sizeof(int32_t));
    PE_CHECK(bs != NULL && bd != NULL && h != NULL, "big buffers");
    for (size_t i = 0; i < BIG; i++)
        h[i] = val(me, (int)i);
    h2d(bs, h, BIG * sizeof *h);
    gshmem_barrier_all();
    PE_CHECK(gshmem_broadcastmem(GSHMEM_TEAM_WORLD, bd, bs, BIG * sizeof *h, npes - 1) == 0,
             "big broadcastmem");
    d2h(h, bd, BIG * sizeof *h);
    for (size_t i = 0; i < BIG; i++)
        PE_CHECK(h[i] == val(npes - 1, (int)i), "big broadcast [%zu] = %d", i, h[i]);
    PE_CHECK(gshmem_int32_sum_reduce(GSHMEM_TEAM_WORLD, bd, bs, BIG) == 0, "big sum_reduce");
    d2h(h, bd, BIG * sizeof *h);
    for (size_t i = 0; i < BIG; i++) {
        int32_t want = 0;
        for (int k = 0; k < npes; k++)
            want = (int32_t)((uint32_t)want + (uint32_t)val(k, (int)i));
        PE_CHECK(h[i] == want, "big sum_reduce [%zu] = %d, want %d", i, h[i], want);
    }
    size_t blk = BIG / (size_t)npes;
    PE_CHECK(gshmem_fcollectmem(GSHMEM_TEAM_WORLD, bd, bs, blk * sizeof *h) == 0, "big fcollect");
    d2h(h, bd, blk * (size_t)npes * sizeof *h);
    for (size_t i = 0; i < blk * (size_t)npes; i++)
        PE_CHECK(h[i] == val((int)(i / blk), (int)(i % blk)), "big fcollect [%zu] = %d", i,
                 h[i]);
    free(h);
    gshmem_free(bd);
    gshmem_free(bs);
}

static void collectives(void)
{
    gshmem_team_t all = GSHMEM_TEAM_INVALID, half = GSHMEM_TEAM_INVALID;
    int rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &all);
    PE_CHECK(rc == 0 && all != GSHMEM_TEAM_INVALID, "split of every PE: %d", rc);
    int parity = me % 2;
    for (int p = 0; p < 2; p++) {   /* even PEs, then odd PEs: both splits on every PE */
        gshmem_team_t tp = GSHMEM_TEAM_INVALID;
        rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, p, 2, (npes - p + 1) / 2, NULL, 0,
                                       &tp);
        PE_CHECK(rc == 0 && (tp != GSHMEM_TEAM_INVALID) == (p == parity),
                 "split of the %s PEs: %d, team %d", p ? "odd" : "even", rc, tp);
        if (p == parity)
            half = tp;
    }
    struct { gshmem_team_t t; const char *name; } teams[] = {
        {GSHMEM_TEAM_WORLD, "WORLD"}, {all, "every PE (split)"}, {half, "half"}};
    for (int k = 0; k < 3; k++) {
        gshmem_team_t t = teams[k].t;
        const char *tn = teams[k].name;
        coll_broadcast(t, tn);
        coll_fcollect_collect(t, tn);
        coll_alltoall(t, tn);
        coll_reduce(t, tn);
        gshmem_barrier_all();   /* the halves run different counts of rounds */
    }
    gshmem_team_destroy(half);
    gshmem_team_destroy(all);
    coll_big();
}

/* ---- point synchronization --------------------------------------------------- */

#define CMP_N 6
static const int cmps[CMP_N] = {GSHMEM_CMP_EQ, GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_GE,
                                GSHMEM_CMP_LT, GSHMEM_CMP_LE};

/* For comparison c and a base value b (>= 1000): the ivar's start z, the
 * value x the left neighbour puts, and a cmp_value v with "z cmp v" false
 * and "x cmp v" true. */
static void cmp_case(int c, long long b, long long *z, long long *x, long long *v)
{
    *z = 0, *x = b;
    switch (cmps[c]) {
    case GSHMEM_CMP_EQ: case GSHMEM_CMP_GE: *v = b; break;
    case GSHMEM_CMP_NE: *v = 0; break;
    case GSHMEM_CMP_GT: *v = b - 1; break;
    case GSHMEM_CMP_LT: *z = b, *x = 0, *v = 1; break;
    default: *z = b, *x = 0, *v = 0; break;   /* LE */
    }
}

/* For every comparison: my ivar of T starts at z; test must be 0 (the
 * barrier keeps the put away); the left neighbour puts x (p, then quiet);
 * wait_until returns; test is 1; the ivar holds x. */
#define SYNC_ONE(T, NAME, ivar)                                                            \
    do {                                                                                   \
        int right_ = (me + 1) % npes, left_ = (me + npes - 1) % npes;                      \
        for (int c = 0; c < CMP_N; c++) {                                                  \
            long long z, x, v, pz, px, pv;                                                 \
            cmp_case(c, 1000 + 10 * left_ + c, &z, &x, &v);   /* what I see */            \
            cmp_case(c, 1000 + 10 * me + c, &pz, &px, &pv);   /* what I put */            \
            T tz = (T)z, got;                                                              \
            h2d(ivar, &tz, sizeof tz);                                                     \
            gshmem_barrier_all();                                                          \
            PE_CHECK(gshmem_##NAME##_test(ivar, cmps[c], (T)v) == 0,                       \
                     #NAME "_test(cmp %d, %lld) true at %lld, before the put", cmps[c], v, z); \
            gshmem_barrier_all();                                                          \
            gshmem_##NAME##_p(ivar, (T)px, right_);                                        \
            gshmem_quiet();                                                                \
            gshmem_##NAME##_wait_until(ivar, cmps[c], (T)v);                               \
            PE_CHECK(gshmem_##NAME##_test(ivar, cmps[c], (T)v) == 1,                       \
                     #NAME "_test(cmp %d, %lld) false after wait_until", cmps[c], v);     \
            d2h(&got, ivar, sizeof got);                                                   \
            PE_CHECK(got == (T)x, #NAME " ivar after cmp %d: %lld, want %lld", cmps[c],     \
                     (long long)got, x);                                                   \
            gshmem_barrier_all();                                                          \
        }                                                                                  \
    } while (0)

static void sync_scalar(void *ivar)
{
    SYNC_ONE(int32_t, int32, (int32_t *)ivar);
    SYNC_ONE(int64_t, int64, (int64_t *)ivar);
    SYNC_ONE(uint32_t, uint32, (uint32_t *)ivar);
    SYNC_ONE(uint64_t, uint64, (uint64_t *)ivar);
}

/* Set forms on NV uint64 ivars: the left neighbour sets the odd ones to
 * i + 1; evens stay 0. */
static void sync_set(uint64_t *ivars)
{
    int right = (me + 1) % npes;
    uint64_t zero[NV] = {0}, ones[NV], vals[NV];
    int odd_only[NV], none[NV];
    size_t idx[NV];
    for (int i = 0; i < NV; i++) {
        ones[i] = 1;
        vals[i] = (uint64_t)i + 1;
        odd_only[i] = i % 2 == 0;   /* status: non-zero excludes */
        none[i] = 1;
    }
    h2d(ivars, zero, sizeof zero);
    gshmem_barrier_all();
    PE_CHECK(gshmem_uint64_test_any(ivars, NV, NULL, GSHMEM_CMP_GE, 1) == SIZE_MAX,
             "test_any true before the puts");
    PE_CHECK(gshmem_uint64_test_all(ivars, NV, odd_only, GSHMEM_CMP_GE, 1) == 0,
             "test_all true before the puts");
    PE_CHECK(gshmem_uint64_test_some(ivars, NV, idx, NULL, GSHMEM_CMP_NE, 0) == 0,
             "test_some found some before the puts");
    PE_CHECK(gshmem_uint64_test_all(ivars, NV, none, GSHMEM_CMP_EQ, 5) == 1,
             "test_all with every ivar excluded is not 1");
    gshmem_barrier_all();
    for (int i = 1; i < NV; i += 2)
        gshmem_uint64_p(&ivars[i], (uint64_t)i + 1, right);
    gshmem_quiet();
    gshmem_uint64_wait_until_all(ivars, NV, odd_only, GSHMEM_CMP_GE, 1);
    size_t a = gshmem_uint64_wait_until_any(ivars, NV, NULL, GSHMEM_CMP_NE, 0);
    PE_CHECK(a < NV && a % 2 == 1, "wait_until_any returned %zu (want an odd index)", a);
    size_t n = gshmem_uint64_wait_until_some(ivars, NV, idx, NULL, GSHMEM_CMP_GT, 0);
    PE_CHECK(n == NV / 2, "wait_until_some: %zu indices, want %d", n, NV / 2);
    for (size_t k = 0; k < n; k++)
        PE_CHECK(idx[k] == 2 * k + 1, "wait_until_some index %zu = %zu", k, idx[k]);
    gshmem_uint64_wait_until_all_vector(ivars, NV, odd_only, GSHMEM_CMP_EQ, vals);
    a = gshmem_uint64_wait_until_any_vector(ivars, NV, odd_only, GSHMEM_CMP_EQ, vals);
    PE_CHECK(a < NV && a % 2 == 1, "wait_until_any_vector returned %zu", a);
    n = gshmem_uint64_wait_until_some_vector(ivars, NV, idx, NULL, GSHMEM_CMP_EQ, vals);
    PE_CHECK(n == NV / 2, "wait_until_some_vector: %zu indices, want %d", n, NV / 2);
    PE_CHECK(gshmem_uint64_test_all(ivars, NV, NULL, GSHMEM_CMP_GE, 1) == 0,
             "test_all true with the evens still 0");
    PE_CHECK(gshmem_uint64_test_all_vector(ivars, NV, odd_only, GSHMEM_CMP_EQ, vals) == 1,
             "test_all_vector over the odds false");
    PE_CHECK(gshmem_uint64_test_any_vector(ivars, NV, NULL, GSHMEM_CMP_LT, ones) % 2 == 0,
             "test_any_vector(< 1) did not find an even");
    n = gshmem_uint64_test_some_vector(ivars, NV, idx, NULL, GSHMEM_CMP_LT, ones);
    PE_CHECK(n == NV / 2 && idx[0] == 0, "test_some_vector(< 1): %zu, first %zu", n, idx[0]);
    gshmem_barrier_all();
}

/* put-with-signal to the right neighbour, then everybody ADDs 1 at PE 0. */
static void sync_signal(uint64_t *sig, int32_t *data)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t z = 0;
    h2d(sig, &z, sizeof z);
    fill_i32(data, SENT, N);
    gshmem_barrier_all();
    for (int i = 0; i < N; i++)
        hbuf[i] = val(me, i);
    h2d(src, hbuf, N * sizeof *hbuf);
    gshmem_putmem_signal(data, src, N * sizeof(int32_t), sig, 77 + (uint64_t)me,
                         GSHMEM_SIGNAL_SET, right);
    uint64_t v = gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, 77 + (uint64_t)left);
    PE_CHECK(v == 77 + (uint64_t)left, "signal_wait_until returned %llu", (unsigned long long)v);
    d2h(hbuf, data, N * sizeof *hbuf);
    for (int i = 0; i < N; i++)
        PE_CHECK(hbuf[i] == val(left, i), "data before its signal: [%d] = %d, want %d", i,
                 hbuf[i], val(left, i));
    gshmem_quiet();
    gshmem_barrier_all();
    h2d(sig, &z, sizeof z);
    gshmem_barrier_all();
    gshmem_putmem_signal(data, src, 0, sig, 1, GSHMEM_SIGNAL_ADD, 0);   /* no data */
    gshmem_quiet();
    if (me == 0) {
        v = gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)npes);
        PE_CHECK(v == (uint64_t)npes, "signal after %d ADDs: %llu", npes, (unsigned long long)v);
        PE_CHECK(gshmem_signal_fetch(sig) == (uint64_t)npes, "signal_fetch");
    }
    gshmem_barrier_all();
}

/* ---- no waiting for the user's kernels ---------------------------------------- */

/* Raises *flag, then spins until *answer is non-zero (20 s limit: *out = 2). */
__global__ void k_raise_and_wait(int32_t *flag, volatile int32_t *answer, int *out)
{
    *(volatile int32_t *)flag = 1;
    __threadfence_system();
    long long start = clock64(), limit = 20LL * 1000 * 1000 * 1000;   /* ~20 s at >= 1 GHz */
    while (*answer == 0) {
        if (clock64() - start > limit) {
            *out = 2;
            return;
        }
    }
    *out = 1;
}

static void kernel_alive(int32_t *flag, int32_t *answer, uint64_t *sig)
{
    int *out = pe_dev_errs_new(), h = 0;
    int32_t z = 0, one = 1;
    uint64_t s = 5;
    cudaStream_t ns;
    CU(cudaStreamCreateWithFlags(&ns, cudaStreamNonBlocking));
    h2d(flag, &z, sizeof z);
    h2d(answer, &z, sizeof z);
    h2d(sig, &s, sizeof s);
    gshmem_barrier_all();
    gshmem_team_t all = GSHMEM_TEAM_INVALID;
    int rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &all);
    PE_CHECK(rc == 0, "split: %d", rc);
    k_raise_and_wait<<<1, 1>>>(flag, answer, out);   /* the legacy default stream */
    CU(cudaGetLastError());
    gshmem_int32_wait_until(flag, GSHMEM_CMP_EQ, 1);
    PE_CHECK(gshmem_int32_test(flag, GSHMEM_CMP_EQ, 1) == 1, "test while the kernel runs");
    PE_CHECK(gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, 5) == 5, "signal_wait_until");
    rc = gshmem_team_sync(all);   /* polls this PE's team words on the heap */
    PE_CHECK(rc == 0, "team_sync while the kernel runs: %d", rc);
    CU(cudaMemcpyAsync(answer, &one, sizeof one, cudaMemcpyHostToDevice, ns));
    CU(cudaStreamSynchronize(ns));
    CU_SYNC();
    CU(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    PE_CHECK(h == 1, "the kernel %s", h == 2 ? "timed out: a host call waited for it"
                                             : "did not finish");
    gshmem_team_destroy(all);
    CU(cudaStreamDestroy(ns));
    CU(cudaFree(out));
    gshmem_barrier_all();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A PE whose barrier waits are all met at once (the others came first)
 * still sends its flags before it returns: PE 0 comes 200 ms late, then
 * makes no gshmem call for 2 s; the others must leave the barrier long
 * before that (p2p kept the last flags in its batch until the next
 * progress or quiet: they left only at PE 0's next barrier). */
static void barrier_late_then_silent(void)
{
    struct timespec late = {0, 200 * 1000 * 1000}, silent = {2, 0};
    gshmem_barrier_all();
    if (me == 0) {
        nanosleep(&late, NULL);
        gshmem_barrier_all();
        nanosleep(&silent, NULL);
    } else {
        double t0 = now_s();
        gshmem_barrier_all();
        double dt = now_s() - t0;
        PE_CHECK(dt < 1.5, "the barrier took %.2f s: PE 0's flags waited for its next gshmem "
                 "call", dt);
    }
    gshmem_barrier_all();
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();

    src = (int32_t *)pe_dev_sym(BUF_N * sizeof(int32_t));
    dst = (int32_t *)pe_dev_sym(BUF_N * sizeof(int32_t));
    uint64_t *words = (uint64_t *)pe_dev_sym(4 * NV * sizeof(uint64_t));
    int32_t *data = (int32_t *)pe_dev_sym(N * sizeof(int32_t));
    hbuf = (int32_t *)malloc(BUF_N * sizeof(int32_t));
    PE_CHECK(hbuf != NULL, "malloc");
    struct cudaPointerAttributes pa;
    CU(cudaPointerGetAttributes(&pa, src));
    PE_CHECK(pa.type == cudaMemoryTypeDevice, "the heap is not device memory (type %d): run "
             "with GSHMEM_HEAP=cuda", (int)pa.type);

    collectives();
    sync_scalar(&words[0]);
    sync_set(&words[NV]);
    sync_signal(&words[2 * NV], data);
    kernel_alive((int32_t *)&words[3 * NV], (int32_t *)&words[3 * NV + 1],
                 &words[3 * NV + 2]);
    barrier_late_then_silent();

    free(hbuf);
    gshmem_free(data);
    gshmem_free(words);
    gshmem_free(dst);
    gshmem_free(src);
    printf("pe_host_cuda: OK (PE %d of %d)\n", me, npes);
    gshmem_finalize();
    return 0;
}

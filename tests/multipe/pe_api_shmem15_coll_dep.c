/* pe_api_shmem15_coll_dep: OpenSHMEM 1.5's deprecated active-set
 * collectives through shmem.h, values checked: shmem_barrier, shmem_sync
 * (the active-set form, and the C11 team form by the same name),
 * broadcast32/64 (every root; the root's dest stays as it was),
 * collect32/64 (sizes differ per PE), fcollect32/64, alltoall32/64,
 * alltoalls32/64 (strides 2 and 3) and every shmem_<T>_<op>_to_all, on
 * every active set of the list below that fits the job: the whole job,
 * stride 2, a set that does not start at PE 0, a set of one PE. PEs outside
 * a set stay idle, and their buffers untouched. pSync arrays (a global and
 * two heap ones) are reused: barrier and sync on one pSync call after
 * call, the data collectives alternate two, the reductions of a type share
 * one call after call; each holds SHMEM_SYNC_VALUE everywhere after each
 * set. With a mode argument: one misuse, which must end the job. Prints
 * "pe_api_shmem15_coll_dep: OK" on PE 0. */
#include <complex.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pe_check.h"

#define CHECK PE_CHECK
#define NB 256          /* elements of each data buffer per PE of the job */
#define NRED 9          /* elements of each reduction */
#define SENT32 0xdeadbeefu
#define SENT64 0xfeedfacecafef00dull

static int me, npes;
static long psync_g[SHMEM_SYNC_SIZE];   /* a global: symmetric too */
static long *psync_h, *psync_b;          /* heap: data collectives, barriers */
static uint32_t *s32, *d32;
static uint64_t *s64, *d64;
static int *box;
static unsigned char *rsrc, *rdst, *rwrk;

typedef struct aset {
    int start, log_stride, size;
} aset_t;

static int stride_of(const aset_t *a)
{
    return 1 << a->log_stride;
}

static int pe_of(const aset_t *a, int k)
{
    return a->start + k * stride_of(a);
}

/* This PE's place in a, or -1. */
static int idx_of(const aset_t *a, int pe)
{
    int k = pe - a->start;
    return k >= 0 && k % stride_of(a) == 0 && k / stride_of(a) < a->size ? k / stride_of(a)
                                                                         : -1;
}

static long *dsync(int k)   /* the data collectives' pSync, alternating */
{
    return k % 2 ? psync_h : psync_g;
}

static uint64_t pat(int pe, int b, int j)
{
    return (uint64_t)(pe * 1000003 + b * 1009 + j * 7 + 1) * 0x9e3779b1ull;
}

static void fill_sentinels(void)
{
    for (int i = 0; i < NB * npes; i++) {
        d32[i] = SENT32;
        d64[i] = SENT64;
    }
    memset(box, 0, 3 * (size_t)npes * sizeof(int));
    memset(rdst, 0xa5, NRED * 16);
}

/* ---- barrier and sync: 3 rounds each on the same pSync ------------------------- */
static void test_barrier_sync(const aset_t *a, int k)
{
    int next = pe_of(a, (k + 1) % a->size), prev = pe_of(a, (k + a->size - 1) % a->size);
    for (int use_sync = 0; use_sync < 2; use_sync++) {
        memset(box, 0, 3 * (size_t)npes * sizeof(int));
        shmem_barrier(a->start, a->log_stride, a->size, psync_b);   /* box is clear */
        for (int r = 0; r < 3; r++) {
            shmem_int_p(&box[r * npes + me], 100 * r + me + 1, next);
            if (use_sync) {
                shmem_quiet();
                shmem_sync(a->start, a->log_stride, a->size, psync_b);
            } else {
                shmem_barrier(a->start, a->log_stride, a->size, psync_b);
            }
            CHECK(box[r * npes + prev] == 100 * r + prev + 1, "%s round %d on set (%d, %d, "
                  "%d): box %d from PE %d", use_sync ? "shmem_sync" : "shmem_barrier", r,
                  a->start, a->log_stride, a->size, box[r * npes + prev], prev);
        }
    }
}

/* ---- broadcast, collect, fcollect, alltoall(s) of B-bit elements ---------------- */
#define DATA_TESTS(B)                                                                 \
    static void sent##B(void)                                                         \
    {                                                                                 \
        for (int i = 0; i < NB * npes; i++)                                           \
            d##B[i] = (uint##B##_t)SENT##B;                                           \
    }                                                                                 \
    static void test_broadcast##B(const aset_t *a, int k, int *call)                  \
    {                                                                                 \
        enum { N = 7 };                                                               \
        for (int root = 0; root < a->size; root++) {                                  \
            for (int j = 0; j < N; j++)                                               \
                s##B[j] = (uint##B##_t)pat(me, root, j);                              \
            sent##B();                                                                \
            shmem_barrier(a->start, a->log_stride, a->size, psync_b);                 \
            shmem_broadcast##B(d##B, s##B, N, root, a->start, a->log_stride, a->size, \
                               dsync((*call)++));                                     \
            for (int j = 0; j < N + 1; j++) {                                         \
                uint64_t want = k == root || j == N ? SENT##B                         \
                                                    : pat(pe_of(a, root), root, j);   \
                CHECK(d##B[j] == (uint##B##_t)want, "shmem_broadcast" #B " root %d of "  \
                      "set (%d, %d, %d): element %d is %#llx, want %#llx", root, a->start, \
                      a->log_stride, a->size, j, (unsigned long long)d##B[j],         \
                      (unsigned long long)(uint##B##_t)want);                         \
            }                                                                         \
            shmem_barrier(a->start, a->log_stride, a->size, psync_b);                 \
        }                                                                             \
    }                                                                                 \
    static void test_collect##B(const aset_t *a, int k, int *call)                    \
    {                                                                                 \
        for (int fixed = 0; fixed < 2; fixed++) {                                     \
            int n = fixed ? 3 : k + 1, at = 0;                                        \
            for (int j = 0; j < n; j++)                                               \
                s##B[j] = (uint##B##_t)pat(me, 50 + fixed, j);                        \
            sent##B();                                                                \
            shmem_barrier(a->start, a->log_stride, a->size, psync_b);                 \
            if (fixed)                                                                \
                shmem_fcollect##B(d##B, s##B, (size_t)n, a->start, a->log_stride, a->size, \
                                  dsync((*call)++));                                  \
            else                                                                      \
                shmem_collect##B(d##B, s##B, (size_t)n, a->start, a->log_stride, a->size, \
                                 dsync((*call)++));                                   \
            for (int m = 0; m < a->size; m++)                                         \
                for (int j = 0; j < (fixed ? 3 : m + 1); j++, at++)                   \
                    CHECK(d##B[at] == (uint##B##_t)pat(pe_of(a, m), 50 + fixed, j),   \
                          "shmem_%scollect" #B " on set (%d, %d, %d): element %d of PE %d", \
                          fixed ? "f" : "", a->start, a->log_stride, a->size, j, pe_of(a, m)); \
            CHECK(d##B[at] == (uint##B##_t)SENT##B, "shmem_%scollect" #B ": wrote past %d", \
                  fixed ? "f" : "", at);                                              \
            shmem_barrier(a->start, a->log_stride, a->size, psync_b);                 \
        }                                                                             \
    }                                                                                 \
    /* Block l of source (for member l), element j: pat(me, l, j). */                 \
    static void test_alltoall##B(const aset_t *a, int k, int *call)                   \
    {                                                                                 \
        enum { N = 2 };                                                               \
        for (int strided = 0; strided < 2; strided++) {                               \
            ptrdiff_t dst = strided ? 2 : 1, sst = strided ? 3 : 1;                   \
            for (int l = 0; l < a->size; l++)                                         \
                for (int j = 0; j < N; j++)                                           \
                    s##B[(l * N + j) * sst] = (uint##B##_t)pat(me, l, j);             \
            sent##B();                                                                \
            shmem_barrier(a->start, a->log_stride, a->size, psync_b);                 \
            if (strided)                                                              \
                shmem_alltoalls##B(d##B, s##B, dst, sst, N, a->start, a->log_stride,  \
                                   a->size, dsync((*call)++));                        \
            else                                                                      \
                shmem_alltoall##B(d##B, s##B, N, a->start, a->log_stride, a->size,    \
                                  dsync((*call)++));                                  \
            for (int i = 0; i < a->size * N * (int)dst; i++) {                        \
                int m = i / (N * (int)dst), j = (i / (int)dst) % N;                   \
                uint##B##_t want = i % dst ? (uint##B##_t)SENT##B                     \
                                           : (uint##B##_t)pat(pe_of(a, m), k, j);     \
                CHECK(d##B[i] == want, "shmem_alltoall%s" #B " on set (%d, %d, %d): "  \
                      "element %d is %#llx, want %#llx", strided ? "s" : "", a->start,  \
                      a->log_stride, a->size, i, (unsigned long long)d##B[i],         \
                      (unsigned long long)want);                                      \
            }                                                                         \
            shmem_barrier(a->start, a->log_stride, a->size, psync_b);                 \
        }                                                                             \
    }
DATA_TESTS(32)
DATA_TESTS(64)

/* ---- reductions: every type and op, one pSync call after call --------------------- */
/* Input opi (0 sum, 1 prod, 2 min, 3 max, 4 and, 5 or, 6 xor) of PE pe at i:
 * small integers, exact in every type, products that fit a short. */
static long red_in(int opi, int pe, int i)
{
    switch (opi) {
    case 0: return (pe % 5) * 3 - 4 + i;
    case 1: return ((pe + i) % 2 + 1) * (i % 3 == 0 ? -1 : 1);
    case 2: case 3: return (pe * 7 + i * 3) % 11 - 5;
    default: return (0x5a ^ (pe * 37 + i * 11)) & 0x7f;
    }
}
#define IN_REAL(T, opi, pe, i) ((T)red_in(opi, pe, i))
#define IN_COMPLEX(T, opi, pe, i) ((T)(red_in(opi, pe, i) + red_in(1, pe, i + 1 + (opi)) * I))
/* The serial combination of opi for each kind of type. */
#define COMB_ARITH(opi, r, x) ((opi) == 0 ? (r) + (x) : (r) * (x))
#define COMB_REAL(opi, r, x)                                                          \
    ((opi) < 2 ? COMB_ARITH(opi, r, x) : (opi) == 2 ? ((x) < (r) ? (x) : (r))        \
                                                    : ((x) > (r) ? (x) : (r)))
#define COMB_INT(opi, r, x)                                                           \
    ((opi) < 4 ? COMB_REAL(opi, r, x) : (opi) == 4 ? (r) & (x) : (opi) == 5 ? (r) | (x) \
                                                                            : (r) ^ (x))

/* One op of T on a, in place for the odd ops; IN the inputs, C the
 * combination. */
#define RED_ONE(T, S, OP, opi, IN, C)                                                 \
    do {                                                                              \
        T *src = (T *)(void *)rsrc, *out = (opi) % 2 ? src : (T *)(void *)rdst;       \
        for (int i = 0; i < NRED; i++)                                                \
            src[i] = IN(T, opi, me, i);                                               \
        shmem_##S##_##OP##_to_all(out, src, NRED, a->start, a->log_stride, a->size,   \
                                  (T *)(void *)rwrk, psync_h);                        \
        for (int i = 0; i < NRED; i++) {                                              \
            T r = IN(T, opi, pe_of(a, 0), i);                                         \
            for (int m = 1; m < a->size; m++)                                         \
                r = (T)(C(opi, r, IN(T, opi, pe_of(a, m), i)));                       \
            CHECK(out[i] == r, "shmem_" #S "_" #OP "_to_all on set (%d, %d, %d): element " \
                  "%d is %Lg, want %Lg", a->start, a->log_stride, a->size, i,          \
                  (long double)creal(out[i]), (long double)creal(r));                 \
        }                                                                             \
    } while (0);
#define RED_OPS_ARITH(T, S, IN, C) RED_ONE(T, S, sum, 0, IN, C) RED_ONE(T, S, prod, 1, IN, C)
#define RED_OPS_REAL(T, S, IN, C)                                                     \
    RED_OPS_ARITH(T, S, IN, C) RED_ONE(T, S, min, 2, IN, C) RED_ONE(T, S, max, 3, IN, C)
#define RED_OPS_INT(T, S, IN, C)                                                      \
    RED_OPS_REAL(T, S, IN, C) RED_ONE(T, S, and, 4, IN, C) RED_ONE(T, S, or, 5, IN, C) \
    RED_ONE(T, S, xor, 6, IN, C)
/* Every op of KIND on T. */
#define RED_TEST(KIND, T, S, IN)                                                      \
    static void red_##S(const aset_t *a)                                              \
    {                                                                                 \
        RED_OPS_##KIND(T, S, IN, COMB_##KIND)                                         \
    }
RED_TEST(INT, short, short, IN_REAL)
RED_TEST(INT, int, int, IN_REAL)
RED_TEST(INT, long, long, IN_REAL)
RED_TEST(INT, long long, longlong, IN_REAL)
RED_TEST(REAL, float, float, IN_REAL)
RED_TEST(REAL, double, double, IN_REAL)
RED_TEST(REAL, long double, longdouble, IN_REAL)
RED_TEST(ARITH, float _Complex, complexf, IN_COMPLEX)
RED_TEST(ARITH, double _Complex, complexd, IN_COMPLEX)

static void test_reductions(const aset_t *a)
{
    red_short(a);
    red_int(a);
    red_long(a);
    red_longlong(a);
    red_float(a);
    red_double(a);
    red_longdouble(a);
    red_complexf(a);
    red_complexd(a);
}

/* ---- one set: members test, the others wait; then everyone checks -------------- */
static void check_psync_clear(const aset_t *a)
{
    const long *arrays[] = {psync_g, psync_h, psync_b};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
            CHECK(arrays[p][i] == SHMEM_SYNC_VALUE, "after set (%d, %d, %d): pSync %d word %d "
                  "is %ld (want SHMEM_SYNC_VALUE)", a->start, a->log_stride, a->size, p, i,
                  arrays[p][i]);
}

static void test_set(const aset_t *a)
{
    int k = idx_of(a, me), call = 0;
    fill_sentinels();
    shmem_barrier_all();
    if (k >= 0) {
        test_barrier_sync(a, k);
        test_broadcast32(a, k, &call);
        test_broadcast64(a, k, &call);
        test_collect32(a, k, &call);
        test_collect64(a, k, &call);
        test_alltoall32(a, k, &call);
        test_alltoall64(a, k, &call);
        test_reductions(a);
    }
    shmem_barrier_all();
    if (k < 0) {   /* idle: nothing of the set's landed here */
        for (int i = 0; i < NB * npes; i++)
            CHECK(d32[i] == SENT32 && d64[i] == SENT64, "PE %d outside set (%d, %d, %d): "
                  "element %d written", me, a->start, a->log_stride, a->size, i);
        for (int i = 0; i < 3 * npes; i++)
            CHECK(box[i] == 0, "PE %d outside set: box %d written", me, i);
        for (int i = 0; i < NRED * 16; i++)
            CHECK(rdst[i] == 0xa5, "PE %d outside set: reduction byte %d written", me, i);
    }
    check_psync_clear(a);
    shmem_barrier_all();
}

/* ---- misuse: each ends the job with a message naming the call and values -------- */
/* 0: mode is unknown; else the misuse went on. */
static int misuse(const char *mode)
{
    long stack_psync[SHMEM_SYNC_SIZE] = {0};
    int iw[16] = {0};
    if (strcmp(mode, "bad_stride") == 0) {
        shmem_barrier(0, -1, npes, psync_b);
    } else if (strcmp(mode, "bad_size") == 0) {
        shmem_long_sum_to_all((long *)rdst, (long *)rsrc, 2, 0, 0, npes + 1, (long *)rwrk,
                              psync_h);
    } else if (strcmp(mode, "zero_size") == 0) {
        shmem_broadcast64(d64, s64, 1, 0, 0, 0, 0, psync_h);
    } else if (strcmp(mode, "bad_last") == 0) {   /* PEs 1, 3, 5 of 4 */
        shmem_fcollect32(d32, s32, 1, 1, 1, 3, psync_h);
    } else if (strcmp(mode, "nonmember") == 0) {  /* PEs 0, 2: odd PEs call too */
        shmem_collect64(d64, s64, 1, 0, 1, 2, psync_h);
        shmem_barrier_all();                      /* the members: odd PEs ended the job */
    } else if (strcmp(mode, "bad_root") == 0) {
        shmem_broadcast32(d32, s32, 1, npes, 0, 0, npes, psync_h);
    } else if (strcmp(mode, "null_psync") == 0) {
        shmem_sync(0, 0, npes, NULL);
    } else if (strcmp(mode, "stack_psync") == 0) {
        fprintf(stderr, "stack=%p\n", (void *)stack_psync);
        shmem_alltoall32(d32, s32, 1, 0, 0, npes, stack_psync);
    } else if (strcmp(mode, "bad_strides") == 0) {
        shmem_alltoalls64(d64, s64, 0, 1, 1, 0, 0, npes, psync_h);
    } else if (strcmp(mode, "neg_nreduce") == 0) {
        shmem_int_sum_to_all(iw, iw, -1, 0, 0, npes, iw, psync_h);
    } else {
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    psync_h = shmem_malloc(SHMEM_SYNC_SIZE * sizeof(long));
    psync_b = shmem_malloc(SHMEM_BARRIER_SYNC_SIZE * sizeof(long));
    s32 = shmem_malloc(NB * (size_t)npes * sizeof(uint32_t));
    d32 = shmem_malloc(NB * (size_t)npes * sizeof(uint32_t));
    s64 = shmem_malloc(NB * (size_t)npes * sizeof(uint64_t));
    d64 = shmem_malloc(NB * (size_t)npes * sizeof(uint64_t));
    box = shmem_malloc(3 * (size_t)npes * sizeof(int));
    rsrc = shmem_malloc(NRED * 16);
    rdst = shmem_malloc(NRED * 16);
    rwrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * 16 + NRED * 16);
    CHECK(psync_h && psync_b && s32 && d32 && s64 && d64 && box && rsrc && rdst && rwrk,
          "allocation");
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync_h[i] = psync_b[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();   /* every pSync is ready */
    if (argc > 1) {
        int known = misuse(argv[1]);
        fprintf(stderr, "pe_api_shmem15_coll_dep: %s %s\n", known ? "misuse went on:" :
                "unknown mode", argv[1]);
        shmem_finalize();
        return known ? 1 : 2;
    }
    shmem_sync(SHMEM_TEAM_WORLD);   /* the C11 team form of shmem_sync */
    const aset_t sets[] = {
        {0, 0, npes},                       /* the whole job */
        {0, 1, (npes + 1) / 2},             /* stride 2 from PE 0 (one PE at 2 PEs) */
        {1, 0, npes - 1},                   /* from PE 1 */
        {1, 1, npes / 2},                   /* stride 2 from PE 1 */
        {npes - 1, 0, 1},                   /* one PE */
        {0, 2, 1},                          /* one PE, stride 4 */
    };
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
        test_set(&sets[s]);
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_shmem15_coll_dep: OK (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}

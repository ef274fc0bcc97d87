/* pe_ofi_cuda: the ofi transport serving a CUDA heap through its active-message
 * path (active messages through host bounce buffers, applied by each
 * target; src/transports/ofi/ofi_am_source.c), through the public host API. The
 * heap is device memory, so this program fills and checks it with
 * cudaMemcpy, found at run time (dlsym: libgshmem brings the CUDA runtime
 * in CUDA builds), so it builds everywhere. Modes (argv[1]):
 *   probe       exit 0 when gshmem has CUDA and a GPU is visible, else 77
 *               with the reason
 *   probe-host  exit 0 when gshmem has the staging path (CUDA build), 77 if not
 *   cuda        GSHMEM_HEAP=cuda (set by the driver): whatever path ofi picks
 *   cuda-stage  the same with the staging path forced
 *   host-stage  a host heap with the staging path forced: the protocol
 *               without a GPU ("device" buffers are then host memory)
 *   host-kill   host-stage, every PE streams multi-MiB nbi puts to the
 *               next PE with quiets, and PE 1 raises SIGKILL after a few
 *               rounds, between its puts and its quiet: the others are
 *               then waiting for its acknowledgements (the driver checks
 *               that the job ends with a message, never hangs)
 * Checks: puts from host and device buffers to every PE (self too),
 * blocking and nbi + quiet; gets into host and device buffers, blocking and
 * nbi; multi-MiB puts and gets (chunked); every AMO on every type; fetch_add
 * contention on PE 0 (exact total, all fetched values distinct); put with
 * signal ordering (1 MiB then a signal ADD, the target polls the signal
 * with atomic_fetch and then checks the data; many rounds); rows put one
 * by one to strided places (as the DLRM queue path does), one put twice;
 * a lone nbi put that arrives without a quiet. Prints
 * "pe_ofi_cuda: OK" on every PE, and timings on PE 0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gshmem.h"
#include "pe_check.h"

extern int gshmemi_ofi_force_am;
#pragma weak gshmemi_ofi_force_am

#define SLOT ((64u << 10) + 1000u)          /* more than one chunk, not a multiple */
#define LARGE ((3u << 20) + 12345u)         /* several MiB: many chunks */
#define SIG_DATA (1u << 20)
#define N_CONTEND 2000
#define N_ROUNDS 24
#define MAX_PES 16

typedef int (*cuda_memcpy_t)(void *, const void *, size_t, int);
typedef int (*cuda_malloc_t)(void **, size_t);
typedef int (*cuda_free_t)(void *);
typedef int (*cuda_count_t)(int *);
typedef int (*cuda_sync_t)(void);

static struct {
    cuda_memcpy_t memcpy;
    cuda_malloc_t malloc;
    cuda_free_t free;
    cuda_count_t count;
    cuda_sync_t sync;
} cu;
static int use_cuda;   /* the heap and "device" buffers are GPU memory */
static int me, npes;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void cuda_find(void)
{
    cu.memcpy = (cuda_memcpy_t)dlsym(RTLD_DEFAULT, "cudaMemcpy");
    cu.malloc = (cuda_malloc_t)dlsym(RTLD_DEFAULT, "cudaMalloc");
    cu.free = (cuda_free_t)dlsym(RTLD_DEFAULT, "cudaFree");
    cu.count = (cuda_count_t)dlsym(RTLD_DEFAULT, "cudaGetDeviceCount");
    cu.sync = (cuda_sync_t)dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize");
}

static int probe(int host)
{
    cuda_find();
    if (&gshmemi_ofi_force_am == NULL || cu.memcpy == NULL) {
        printf("pe_ofi_cuda: SKIP: gshmem was built without CUDA (no active-message path)\n");
        return 77;
    }
    int n = 0;
    if (!host && (cu.count(&n) != 0 || n == 0)) {
        printf("pe_ofi_cuda: SKIP: no CUDA device is visible (cudaGetDeviceCount)\n");
        return 77;
    }
    printf("pe_ofi_cuda: probe: active-message path built in%s\n", host ? "" : ", CUDA device present");
    return 0;
}

/* Copies between host memory and heap/"device" memory, either kind. A
 * cudaMemcpy from pageable memory may return before its DMA lands; gshmem
 * reads device sources on its own streams (README: host calls on device
 * memory), so the copy is waited for, as a program must. */
/* Host heap: a plain byte loop that ThreadSanitizer does not instrument
 * (scripts/tsan-am.sh). The heap bytes were written by the target's thread
 * for a peer, ordered before this read by the peer's message, which TSan
 * cannot see; through memcpy it reports every word of a multi-MiB copy and
 * took minutes for one copy. */
__attribute__((no_sanitize("thread"))) static void host_copy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
}

static void dcopy(void *dst, const void *src, size_t n)
{
    if (!use_cuda) {
        host_copy(dst, src, n);
        return;
    }
    int e = cu.memcpy(dst, src, n, 4 /* cudaMemcpyDefault */);
    if (e == 0)
        e = cu.sync();
    PE_CHECK(e == 0, "cudaMemcpy of %zu bytes %p -> %p: error %d", n, src, dst, e);
}

static void *dalloc(size_t n)
{
    void *p = NULL;
    if (!use_cuda)
        p = malloc(n);
    else
        PE_CHECK(cu.malloc(&p, n) == 0, "cudaMalloc of %zu bytes", n);
    PE_CHECK(p != NULL, "allocation of %zu bytes", n);
    return p;
}

static void dfree(void *p)
{
    if (use_cuda)
        cu.free(p);
    else
        free(p);
}

static uint32_t pattern(int writer, int target, size_t j, int round)
{
    return ((uint32_t)writer << 24) ^ ((uint32_t)target << 16) ^ (uint32_t)(j * 2654435761u) ^
           (uint32_t)(round * 77 + 1);
}

static void fill(uint32_t *buf, size_t bytes, int w, int t, int round)
{
    for (size_t j = 0; j < bytes / 4; j++)
        buf[j] = pattern(w, t, j, round);
}

/* Host buffer hbuf (bytes) holds what writer w put for target t in round. */
static void expect(const uint32_t *hbuf, size_t bytes, int w, int t, int round,
                   const char *what)
{
    for (size_t j = 0; j < bytes / 4; j++)
        PE_CHECK(hbuf[j] == pattern(w, t, j, round), "%s (writer %d, target %d, round %d): "
                 "word %zu is 0x%08x, expected 0x%08x", what, w, t, round, j, hbuf[j],
                 pattern(w, t, j, round));
}

/* Puts from host buffers (blocking) and device buffers (nbi: odd targets
 * from a cudaMalloc'd buffer, even ones from this PE's heap), then check
 * what landed here with a local copy. */
static void test_puts(unsigned char *a, unsigned char *b, uint32_t *h)
{
    unsigned char *dsrc = dalloc(SLOT), *hsrc_heap = gshmem_malloc(SLOT);
    PE_CHECK(hsrc_heap != NULL, "gshmem_malloc(%u)", SLOT);
    for (int k = 0; k < npes; k++) {
        int t = (me + k) % npes;
        fill(h, SLOT, me, t, 0);
        gshmem_putmem(a + (size_t)me * SLOT, h, SLOT, t);
        fill(h, SLOT, me, t, 1);
        dcopy(t % 2 ? (void *)dsrc : (void *)hsrc_heap, h, SLOT);
        gshmem_putmem_nbi(b + (size_t)me * SLOT, t % 2 ? (void *)dsrc : (void *)hsrc_heap,
                          SLOT, t);
        gshmem_quiet();   /* the source buffer is reused for the next target */
    }
    gshmem_barrier_all();
    for (int w = 0; w < npes; w++) {
        dcopy(h, a + (size_t)w * SLOT, SLOT);
        expect(h, SLOT, w, me, 0, "blocking put from host memory");
        dcopy(h, b + (size_t)w * SLOT, SLOT);
        expect(h, SLOT, w, me, 1, "put_nbi from device memory");
    }
    dfree(dsrc);
    gshmem_barrier_all();
    gshmem_free(hsrc_heap);
}

/* Gets into host and device buffers, blocking and nbi. */
static void test_gets(unsigned char *a, unsigned char *b, uint32_t *h)
{
    unsigned char *dbuf = dalloc((size_t)SLOT * npes);
    uint32_t *hall = calloc(npes, SLOT);
    PE_CHECK(hall != NULL, "calloc");
    for (int t = 0; t < npes; t++) {
        memset(h, 0, SLOT);
        gshmem_getmem(h, a + (size_t)me * SLOT, SLOT, t);
        expect(h, SLOT, me, t, 0, "blocking get into host memory");
        gshmem_getmem(dbuf, b + (size_t)me * SLOT, SLOT, t);
        dcopy(h, dbuf, SLOT);
        expect(h, SLOT, me, t, 1, "blocking get into device memory");
    }
    for (int t = 0; t < npes; t++) {
        gshmem_getmem_nbi((char *)hall + (size_t)t * SLOT, a + (size_t)me * SLOT, SLOT, t);
        gshmem_getmem_nbi(dbuf + (size_t)t * SLOT, b + (size_t)me * SLOT, SLOT, t);
    }
    gshmem_quiet();
    for (int t = 0; t < npes; t++) {
        expect((uint32_t *)((char *)hall + (size_t)t * SLOT), SLOT, me, t, 0,
               "get_nbi into host memory");
        dcopy(h, dbuf + (size_t)t * SLOT, SLOT);
        expect(h, SLOT, me, t, 1, "get_nbi into device memory");
    }
    dfree(dbuf);
    free(hall);
    gshmem_barrier_all();
}

/* Multi-MiB put to every PE, checked here, then got back. */
static void test_large(unsigned char *l)
{
    uint32_t *h = malloc(LARGE);
    PE_CHECK(h != NULL, "malloc(%u)", LARGE);
    double t0 = now_s();
    for (int k = 0; k < npes; k++) {
        int t = (me + k) % npes;
        fill(h, LARGE, me, t, 2);
        gshmem_putmem(l + (size_t)me * LARGE, h, LARGE, t);
    }
    gshmem_quiet();
    double dt = now_s() - t0;
    gshmem_barrier_all();
    for (int w = 0; w < npes; w++) {
        dcopy(h, l + (size_t)w * LARGE, LARGE);
        expect(h, LARGE, w, me, 2, "large put");
    }
    double t1 = now_s();
    int t = (me + 1) % npes;
    memset(h, 0, LARGE);
    gshmem_getmem(h, l + (size_t)me * LARGE, LARGE, t);
    double dg = now_s() - t1;
    expect(h, LARGE, me, t, 2, "large get");
    if (me == 0)
        printf("pe_ofi_cuda: timing: %d puts of %u bytes + quiet in %.1f ms (%.0f MB/s), one "
               "get of %u bytes in %.1f ms (%.0f MB/s)\n", npes, LARGE, dt * 1e3,
               npes * (double)LARGE / dt / 1e6, LARGE, dg * 1e3, LARGE / dg / 1e6);
    free(h);
    gshmem_barrier_all();
}

#define AMO_SEQ(T, N, FMT, A, B, C, D, E)                                                \
    static void amo_##N(T *x, int pe)                                                     \
    {                                                                                     \
        T a = (A), b = (B), c = (C), d = (D), e = (E), r;                                 \
        gshmem_##N##_atomic_set(x, a, pe);                                                \
        r = gshmem_##N##_atomic_fetch(x, pe);                                             \
        PE_CHECK(r == a, #N " set/fetch at PE %d: " FMT ", expected " FMT, pe, r, a);     \
        r = gshmem_##N##_atomic_fetch_add(x, b, pe);                                      \
        PE_CHECK(r == a, #N " fetch_add at PE %d: " FMT ", expected " FMT, pe, r, a);     \
        gshmem_##N##_atomic_add(x, c, pe);                                                \
        gshmem_##N##_atomic_inc(x, pe);                                                   \
        r = gshmem_##N##_atomic_fetch_inc(x, pe);                                         \
        PE_CHECK(r == (T)(a + b + c + 1), #N " fetch_inc at PE %d: " FMT ", expected " FMT, \
                 pe, r, (T)(a + b + c + 1));                                              \
        r = gshmem_##N##_atomic_swap(x, d, pe);                                           \
        PE_CHECK(r == (T)(a + b + c + 2), #N " swap at PE %d: " FMT ", expected " FMT, pe, \
                 r, (T)(a + b + c + 2));                                                  \
        r = gshmem_##N##_atomic_compare_swap(x, (T)(d + 1), e, pe);                       \
        PE_CHECK(r == d, #N " failing cswap at PE %d: " FMT ", expected " FMT, pe, r, d); \
        r = gshmem_##N##_atomic_compare_swap(x, d, e, pe);                                \
        PE_CHECK(r == d, #N " cswap at PE %d: " FMT ", expected " FMT, pe, r, d);         \
        r = gshmem_##N##_atomic_fetch(x, pe);                                             \
        PE_CHECK(r == e, #N " after cswap at PE %d: " FMT ", expected " FMT, pe, r, e);   \
        T g = 0;                                                                          \
        gshmem_getmem(&g, x, sizeof g, pe);                                               \
        PE_CHECK(g == e, #N " by get at PE %d: " FMT ", expected " FMT, pe, g, e);        \
    }
AMO_SEQ(int32_t, int32, "%" PRId32, -5 - me, -2000000000, 7, 123456, -1)
AMO_SEQ(int64_t, int64, "%" PRId64, -((int64_t)1 << 40), 3, -9, INT64_MAX - 3, INT64_MIN + 1)
AMO_SEQ(uint64_t, uint64, "%" PRIu64, 0x8123456789abcdefull, 1ull << 33, 5, 42, UINT64_MAX)

static void test_amo_ops(void)
{
    int32_t *x32 = gshmem_calloc(npes, sizeof(int32_t));
    int64_t *x64 = gshmem_calloc(npes, sizeof(int64_t));
    uint64_t *xu = gshmem_calloc(npes, sizeof(uint64_t));
    PE_CHECK(x32 && x64 && xu, "gshmem_calloc");
    for (int k = 0; k < npes; k++) {
        int t = (me + k) % npes;
        amo_int32(&x32[me], t);
        amo_int64(&x64[me], t);
        amo_uint64(&xu[me], t);
    }
    gshmem_barrier_all();
    gshmem_free(xu);
    gshmem_free(x64);
    gshmem_free(x32);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every PE fetch_adds N_CONTEND times on PE 0's counter; the fetched values
 * of all PEs, gathered on PE 0, are exactly 0 .. n*N_CONTEND-1. */
static void test_contention(void)
{
    uint64_t *ctr = gshmem_calloc(4, sizeof(uint64_t));
    uint64_t *seen = gshmem_calloc((size_t)npes * N_CONTEND, sizeof(uint64_t));
    uint64_t *mine = malloc(N_CONTEND * sizeof(uint64_t));
    PE_CHECK(ctr && seen && mine, "allocation");
    gshmem_barrier_all();
    double t0 = now_s();
    for (int i = 0; i < N_CONTEND; i++) {
        mine[i] = gshmem_uint64_atomic_fetch_add(&ctr[0], 1, 0);
        PE_CHECK(i == 0 || mine[i] > mine[i - 1], "fetch_add %d returned %" PRIu64 " after %"
                 PRIu64, i, mine[i], mine[i - 1]);
        if (i % 4 == 0)
            gshmem_int32_atomic_add((int32_t *)&ctr[1], 2, 0);
    }
    double dt = now_s() - t0;
    gshmem_putmem(seen + (size_t)me * N_CONTEND, mine, N_CONTEND * sizeof(uint64_t), 0);
    gshmem_barrier_all();
    uint64_t total = (uint64_t)npes * N_CONTEND;
    uint64_t v = gshmem_uint64_atomic_fetch(&ctr[0], 0);
    PE_CHECK(v == total, "counter at PE 0 is %" PRIu64 ", expected %" PRIu64, v, total);
    int32_t v32 = gshmem_int32_atomic_fetch((int32_t *)&ctr[1], 0);
    PE_CHECK(v32 == npes * (N_CONTEND / 4) * 2, "int32 counter %" PRId32 ", expected %d", v32,
             npes * (N_CONTEND / 4) * 2);
    if (me == 0) {
        uint64_t *all = malloc(total * sizeof(uint64_t));
        PE_CHECK(all != NULL, "malloc");
        dcopy(all, seen, total * sizeof(uint64_t));
        qsort(all, total, sizeof(uint64_t), cmp_u64);
        for (uint64_t i = 0; i < total; i++)
            PE_CHECK(all[i] == i, "fetched values: sorted[%" PRIu64 "] = %" PRIu64
                     " (a value seen twice or missing)", i, all[i]);
        free(all);
        printf("pe_ofi_cuda: timing: %d fetch_adds (+%d adds) to PE 0 from each of %d PEs: "
               "%.1f us per AMO on PE 0\n", N_CONTEND, N_CONTEND / 4, npes,
               dt * 1e6 / (N_CONTEND * 1.25));
    }
    free(mine);
    gshmem_barrier_all();
    gshmem_free(seen);
    gshmem_free(ctr);
}

/* Wait until the local signal word reaches want (AMO fetch to self). */
static void sig_wait(uint64_t *sig, uint64_t want, const char *what)
{
    double t0 = now_s();
    for (;;) {
        uint64_t v = gshmem_uint64_atomic_fetch(sig, me);
        if (v >= want) {
            PE_CHECK(v == want, "%s: signal %" PRIu64 ", expected %" PRIu64, what, v, want);
            return;
        }
        PE_CHECK(now_s() - t0 < 60, "%s: signal stuck at %" PRIu64 ", waiting for %" PRIu64,
                 what, v, want);
    }
}

/* Round r: put SIG_DATA bytes + signal ADD 1 to the right neighbour; it
 * waits for the signal, checks the data, and acknowledges with a SET on
 * our ack word (so the next round's data never overwrites unchecked data).
 * Blocking and nbi forms alternate; then a few rounds to this PE itself. */
static void test_signal(void)
{
    unsigned char *data = gshmem_malloc(SIG_DATA);
    uint64_t *sig = gshmem_calloc(2, sizeof(uint64_t));   /* [0] data signal, [1] ack */
    uint32_t *h = malloc(SIG_DATA), *c = malloc(SIG_DATA);
    PE_CHECK(data && sig && h && c, "allocation");
    gshmem_barrier_all();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    double t0 = now_s();
    for (int r = 0; r < N_ROUNDS; r++) {
        fill(h, SIG_DATA, me, right, 100 + r);
        if (r % 2)
            gshmem_putmem_signal_nbi(data, h, SIG_DATA, &sig[0], 1, GSHMEM_SIGNAL_ADD, right);
        else
            gshmem_putmem_signal(data, h, SIG_DATA, &sig[0], 1, GSHMEM_SIGNAL_ADD, right);
        sig_wait(&sig[0], (uint64_t)r + 1, "put_signal from the left");
        dcopy(c, data, SIG_DATA);
        expect(c, SIG_DATA, left, me, 100 + r, "data before its signal");
        gshmem_uint64_atomic_set(&sig[1], (uint64_t)r + 1, left);
        sig_wait(&sig[1], (uint64_t)r + 1, "ack from the right");
        if (r % 2)
            gshmem_quiet();   /* the nbi source buffer is reused next round */
    }
    double dt = now_s() - t0;
    gshmem_barrier_all();
    for (int r = 0; r < 4; r++) {   /* to this PE: data through the heap copy, signal by AMO */
        fill(h, SIG_DATA / 4, me, me, 200 + r);
        gshmem_putmem_signal(data, h, SIG_DATA / 4, &sig[0], (uint64_t)r + 1000,
                             GSHMEM_SIGNAL_SET, me);
        sig_wait(&sig[0], (uint64_t)r + 1000, "put_signal to self");
        dcopy(c, data, SIG_DATA / 4);
        expect(c, SIG_DATA / 4, me, me, 200 + r, "self data before its signal");
    }
    if (me == 0)
        printf("pe_ofi_cuda: timing: %d put_signal rounds of %u bytes (put, signal, check, "
               "ack) in %.1f ms (%.2f ms per round)\n", N_ROUNDS, SIG_DATA, dt * 1e3,
               dt * 1e3 / N_ROUNDS);
    free(h);
    free(c);
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(data);
}

/* Rows as the DLRM queue path sends them: ROWS rows of ROW_LEN bytes from
 * one contiguous device buffer to strided places at every PE (ROW_STRIDE
 * apart: the target applies each run as one 2D copy), each row its own
 * nbi put, then one row put twice (the second must win), then quiet. */
#define ROWS 300
#define ROW_LEN 1040u                      /* not a multiple of 16: padded records */
#define ROW_STRIDE 4096u
static void test_rows(unsigned char *r)
{
    size_t region = (size_t)ROWS * ROW_STRIDE;
    uint32_t *h = malloc(region);
    PE_CHECK(h != NULL, "allocation");
    unsigned char *src = dalloc((size_t)ROWS * ROW_LEN);
    memset(h, 0xee, region);
    for (int w = 0; w < npes; w++)
        dcopy(r + (size_t)w * region, h, region);
    gshmem_barrier_all();
    for (int t = 0; t < npes; t++) {
        fill(h, (size_t)ROWS * ROW_LEN, me, t, 7);
        dcopy(src, h, (size_t)ROWS * ROW_LEN);
        unsigned char *dst = r + (size_t)me * region;
        for (int i = 0; i < ROWS; i++)
            gshmem_putmem_nbi(dst + (size_t)i * ROW_STRIDE, src + (size_t)i * ROW_LEN, ROW_LEN,
                              t);
        /* row 5 again with row 6's data: applied after the first */
        gshmem_putmem_nbi(dst + 5u * ROW_STRIDE, src + 6u * ROW_LEN, ROW_LEN, t);
        gshmem_quiet();   /* src is rewritten for the next target */
    }
    gshmem_barrier_all();
    uint32_t *want = malloc((size_t)ROWS * ROW_LEN);
    PE_CHECK(want != NULL, "allocation");
    for (int w = 0; w < npes; w++) {
        dcopy(h, r + (size_t)w * region, region);
        fill(want, (size_t)ROWS * ROW_LEN, w, me, 7);
        for (int i = 0; i < ROWS; i++) {
            const uint32_t *got = (const uint32_t *)((const char *)h + (size_t)i * ROW_STRIDE);
            const uint32_t *exp = want + (size_t)(i == 5 ? 6 : i) * (ROW_LEN / 4);
            for (size_t j = 0; j < ROW_LEN / 4; j++)
                PE_CHECK(got[j] == exp[j], "row %d from PE %d: word %zu is 0x%08x, expected "
                         "0x%08x", i, w, j, got[j], exp[j]);
            const uint32_t *gap = got + ROW_LEN / 4;
            PE_CHECK(i == ROWS - 1 || gap[0] == 0xeeeeeeeeu,
                     "row %d from PE %d: the gap after it was written (0x%08x)", i, w, gap[0]);
        }
    }
    free(want);
    dfree(src);
    free(h);
    gshmem_barrier_all();
}

/* An nbi put followed by nothing that completes it (no quiet, fence or
 * other request) still arrives: PE 0 puts a word to PE 1 and waits for
 * PE 1's answer; PE 1 waits for the word, then answers the same way. */
static void poll_word(const uint64_t *w, uint64_t want, const char *what)
{
    uint64_t v = 0;
    double t0 = now_s();
    for (;;) {
        dcopy(&v, w, sizeof v);
        if (v == want)
            return;
        PE_CHECK(now_s() - t0 < 10.0, "%s: word is %" PRIu64 " after 10 s, expected %" PRIu64
                 " (an nbi put never sent without a quiet)", what, v, want);
    }
}

static void test_lone_put(void)
{
    uint64_t *w = gshmem_calloc(2, sizeof(uint64_t));
    PE_CHECK(w != NULL, "allocation");
    gshmem_barrier_all();
    static uint64_t one = 0x1234, two = 0x5678;   /* host source, read at once */
    if (me == 0) {
        gshmem_putmem_nbi(&w[0], &one, sizeof one, 1);
        poll_word(&w[1], two, "PE 0 waiting for PE 1's answer");
    } else if (me == 1) {
        poll_word(&w[0], one, "PE 1 waiting for PE 0's lone put");
        gshmem_putmem_nbi(&w[1], &two, sizeof two, 0);
    }
    gshmem_barrier_all();
    gshmem_free(w);
}

/* host-kill: rounds of LARGE-byte nbi puts to the next PE, each followed
 * by a quiet; PE 1 dies between its puts and its quiet in round 3. */
static void test_kill(unsigned char *l)
{
    int next = (me + 1) % npes;
    unsigned char *src = malloc(LARGE);
    PE_CHECK(src != NULL, "allocation");
    memset(src, me + 1, LARGE);
    gshmem_barrier_all();
    for (int round = 0;; round++) {
        for (int k = 0; k < 4; k++)
            gshmem_putmem_nbi(l + (size_t)me * LARGE, src, LARGE, next);
        if (me == 1 && round == 3) {
            printf("pe_ofi_cuda: PE 1 raises SIGKILL in round %d\n", round);
            fflush(stdout);
            raise(SIGKILL);
        }
        gshmem_quiet();
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "cuda";
    if (strcmp(mode, "probe") == 0 || strcmp(mode, "probe-host") == 0)
        return probe(strcmp(mode, "probe-host") == 0);
    cuda_find();
    PE_CHECK(&gshmemi_ofi_force_am != NULL && cu.memcpy != NULL,
             "gshmem was built without CUDA: run the probe first");
    int kill_mode = strcmp(mode, "host-kill") == 0;
    use_cuda = strcmp(mode, "host-stage") != 0 && !kill_mode;
    if (strcmp(mode, "cuda") != 0)
        gshmemi_ofi_force_am = 1;
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    PE_CHECK(npes <= MAX_PES, "at most %d PEs", MAX_PES);
    unsigned char *a = gshmem_malloc((size_t)SLOT * npes);
    unsigned char *b = gshmem_malloc((size_t)SLOT * npes);
    unsigned char *l = gshmem_malloc((size_t)LARGE * npes);
    uint32_t *h = malloc(SLOT);
    PE_CHECK(a && b && l && h, "allocation");
    if (kill_mode) {
        test_kill(l);
        return 1;   /* not reached: the launcher ends the job */
    }
    test_puts(a, b, h);
    test_gets(a, b, h);
    test_large(l);
    unsigned char *r = gshmem_malloc((size_t)ROWS * ROW_STRIDE * npes);
    PE_CHECK(r != NULL, "allocation");
    test_rows(r);
    gshmem_free(r);
    if (npes > 1)
        test_lone_put();
    test_amo_ops();
    test_contention();
    test_signal();
    free(h);
    gshmem_free(l);
    gshmem_free(b);
    gshmem_free(a);
    gshmem_finalize();
    printf("pe_ofi_cuda: OK (PE %d of %d, %s)\n", me, npes, mode);
    return 0;
}

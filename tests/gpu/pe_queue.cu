/* pe_queue: the device API's queue path (device producer + proxy engine).
 * Run by tests/multipe/test_queue.c under gshmemrun with GSHMEM_HEAP=cuda
 * GSHMEM_TRANSPORTS=p2p GSHMEM_DEVICE_QUEUE_ONLY=1: every remote device
 * call becomes a queue entry that this PE's engine issues through p2p.
 *
 *   pe_queue [ops]  puts (thread, warp, block; blocking and nbi) from many
 *                   blocks, small puts of 1..64 bytes from unaligned
 *                   sources (the slot payloads), gets and g, p, every AMO with contention (exact
 *                   totals, fetched values distinct across all PEs),
 *                   put-with-signal litmus from all blocks (3 forms) and a
 *                   fence litmus, many rounds, zero violations; quiet;
 *                   back-pressure (3k entries from one block into one 1024-slot
 *                   ring); latencies and rate (PE 0 alone on the GPU; the
 *                   rate's same-word puts checked in order at PE 1)
 *   pe_queue rma    the puts, gets and back-pressure of ops, no AMO (what
 *                   compute-sanitizer can run: see run_rma)
 *   pe_queue amo1   ops' atomics from PE 0 only, every one to PE 1 (PE 1
 *                   and the others wait in a barrier: no user kernel runs
 *                   beside the kernels that apply them); totals and fetched
 *                   values checked. What compute-sanitizer can run of the
 *                   AMOs over ofi (see run_amo1)
 *   pe_queue bad    PE 0 posts a raw PUT whose range crosses the heap's end:
 *                   the engine logs it and sets the status the device sees
 *                   (gshmemx_queue_status); PE 1's last heap bytes unchanged
 *   pe_queue drain  nbi puts posted by a kernel that ends right before the
 *                   engine is stopped (what finalize does first) all arrive
 *   pe_queue exit   with an aggregator (its service thread) running, the
 *                   puts and gets of ops, a barrier, then a few hundred nbi
 *                   puts posted by a kernel (not quieted: in the rings and
 *                   in flight), then exit(0)
 *                   without gshmem_finalize: the library's exit handler
 *                   stops its threads before the CUDA runtime's own exit
 *                   handler; run over ofi (GSHMEM_DISABLE_P2P=1
 *                   GSHMEM_TRANSPORTS=ofi: active messages, rail threads),
 *                   every PE must exit 0 with no "driver shutting down"
 * Prints "pe_queue: OK (PE n)" per PE; "probe" as in pe_dev.h. */
#include <algorithm>
#include <time.h>
#include <vector>

#include "pe_dev.h"
#include "gshmem_agg.h"

extern "C" {
void gshmemi_engine_stop(void);   /* src/api/core/core.h: finalize's first step */
}

#define NB 16
#define NT 128
#define SLICE 2048   /* int64 per block */
#define ROUNDS 20
#define AMO_IT 1
#define CAS_IT 4
#define CAS_B 4     /* blocks whose thread 0 runs a CAS loop */
#define BP_PER 24    /* nbi p's per thread of the back-pressure block (3k > 1024 slots) */

struct sym {
    int64_t data[NB][SLICE];       /* written by the left PE */
    int64_t src[NB][SLICE];
    int64_t got[NB][SLICE];
    int64_t pw[NB * NT];           /* thread p's */
    uint64_t sig[NB], ack[NB], flag[NB];
    int64_t counter;
    int32_t counter32;
    uint64_t ucounter, cas_counter, swapw, setw;
    int64_t fetched[NB * 32 * AMO_IT];
    uint64_t bp[NT];
};

__host__ __device__ static inline int64_t pat(int pe, int r, int b, int i)
{
    return ((int64_t)pe << 48) ^ ((int64_t)r << 32) ^ ((int64_t)b << 20) ^ i;
}

/* ---- puts, p, quiet ------------------------------------------------------- */
__global__ void k_put(sym *s, int right)
{
    int b = blockIdx.x, t = threadIdx.x, me = gshmem_my_pe();
    for (int i = t; i < SLICE; i += NT)
        s->src[b][i] = pat(me, 0, b, i);
    __syncthreads();
    int64_t *d = s->data[b], *src = s->src[b];
    int q = SLICE / 4, w = t / 32, per = q / (NT / 32);
    gshmemx_putmem_nbi_block(d, src, q * 8, right);                       /* quarter 1 */
    gshmemx_putmem_block(d + q, src + q, q * 8, right);                   /* quarter 2 */
    gshmemx_putmem_warp(d + 2 * q + w * per, src + 2 * q + w * per, per * 8, right);
    gshmemx_putmem_nbi_warp(d + 3 * q + w * per, src + 3 * q + w * per, per * 8 / 2, right);
    gshmem_int64_put_nbi(d + 3 * q + w * per + per / 2 + t % 32 * (per / 64),
                         src + 3 * q + w * per + per / 2 + t % 32 * (per / 64), per / 64,
                         right);
    gshmem_int64_p(&s->pw[b * NT + t], pat(me, 1, b, t), right);
    gshmem_quiet();
}

/* ---- small puts: 1..64 bytes from any byte offset (the payload path) -------- */
#define SMALL_T 32     /* threads per block that put */
#define SMALL_R 8      /* puts per thread: chunk t * SMALL_R + r, 64 bytes each */
__host__ __device__ static inline void small_shape(int t, int r, int *off, int *n)
{
    *off = (t + 3 * r) % 8;
    *n = 1 + (t * 8 + r * 5) % (64 - *off);
}

/* Each put copies bytes [off, off + n) of a 64-byte chunk of src[b] to the
 * same place in the right PE's got[b], blocking and nbi in turn. */
__global__ void k_small(sym *s, int right)
{
    int b = blockIdx.x, t = threadIdx.x;
    if (t >= SMALL_T)
        return;
    for (int r = 0; r < SMALL_R; r++) {
        int off, n;
        small_shape(t, r, &off, &n);
        size_t at = (size_t)(t * SMALL_R + r) * 64 + off;
        char *d = (char *)s->got[b] + at;
        const char *src = (const char *)s->src[b] + at;
        if (r % 2)
            gshmem_putmem_nbi(d, src, n, right);
        else
            gshmem_putmem(d, src, n, right);
    }
    gshmem_quiet();
}

static void check_small(sym *s, int left)
{
    std::vector<int64_t> h((size_t)NB * SLICE), want(SLICE);
    CU(cudaMemcpy(h.data(), s->got, h.size() * 8, cudaMemcpyDeviceToHost));
    for (int b = 0; b < NB; b++) {
        for (int i = 0; i < SLICE; i++)
            want[i] = pat(left, 0, b, i);
        for (int t = 0; t < SMALL_T; t++)
            for (int r = 0; r < SMALL_R; r++) {
                int off, n;
                small_shape(t, r, &off, &n);
                size_t at = (size_t)(t * SMALL_R + r) * 64 + off;
                PE_CHECK(memcmp((const char *)&h[(size_t)b * SLICE] + at,
                                (const char *)want.data() + at, (size_t)n) == 0,
                         "small put block %d thread %d round %d (%d bytes at byte %zu): "
                         "wrong bytes", b, t, r, n, at);
            }
    }
}

/* ---- gets and g ------------------------------------------------------------ */
__global__ void k_get(sym *s, int right, int *errs)
{
    int b = blockIdx.x, t = threadIdx.x;
    gshmemx_getmem_block(s->got[b], s->src[b], SLICE / 2 * 8, right);
    if (t == 0) {
        gshmem_getmem_nbi(s->got[b] + SLICE / 2, s->src[b] + SLICE / 2, SLICE / 2 * 8, right);
        gshmem_quiet();
    }
    __syncthreads();
    for (int i = t; i < SLICE; i += NT)
        DEV_EXPECT(errs, s->got[b][i] == pat(right, 0, b, i), "get block %d elem %d: %llx", b,
                   i, (unsigned long long)s->got[b][i]);
    if (t >= 32)
        return;   /* g: one warp per block (each one a blocking round trip) */
    int64_t v = gshmem_int64_g(&s->pw[b * NT + t], right);
    DEV_EXPECT(errs, v == pat(gshmem_my_pe(), 1, b, t), "g block %d thread %d: %llx", b, t,
               (unsigned long long)v);
    int32_t v32 = gshmem_int32_g((const int32_t *)&s->src[b][t], right);
    DEV_EXPECT(errs, v32 == (int32_t)pat(right, 0, b, t), "int32 g %d/%d: %d", b, t, v32);
    double d = gshmem_double_g((const double *)&s->src[b][t + 32], right);
    int64_t bits = pat(right, 0, b, t + 32);
    DEV_EXPECT(errs, __double_as_longlong(d) == bits, "double g %d/%d", b, t);
}

/* ---- atomics ------------------------------------------------------------------ */
/* Fetching AMOs: the first warp of each block (each one is a blocking
 * engine round trip); non-fetching ones: every thread. */
#define AMO_FT 32
/* home: the PE of counter and counter32; right: of the others */
__global__ void k_amo(sym *s, int right, int home, int *errs)
{
    int b = blockIdx.x, t = threadIdx.x, me = gshmem_my_pe();
    for (int k = 0; k < AMO_IT; k++) {
        gshmem_int32_atomic_add(&s->counter32, 1, home);
        gshmem_uint64_atomic_inc(&s->ucounter, right);
        if (t >= AMO_FT)
            continue;
        int ft = b * AMO_FT + t;
        s->fetched[ft * AMO_IT + k] = gshmem_int64_atomic_fetch_add(&s->counter, 1, home);
        (void)gshmem_uint64_atomic_fetch_inc(&s->ucounter, right);
        uint64_t prev = gshmem_uint64_atomic_swap(&s->swapw, ((uint64_t)me << 32) | ft, right);
        DEV_EXPECT(errs, prev == 0 || (prev >> 32) < (uint64_t)gshmem_n_pes(), "swap got %llx",
                   (unsigned long long)prev);
    }
    if (t == 0 && b < CAS_B) {
        for (int k = 0; k < CAS_IT; k++) {
            uint64_t old = gshmem_uint64_atomic_fetch(&s->cas_counter, right);
            for (;;) {
                uint64_t seen = gshmem_uint64_atomic_compare_swap(&s->cas_counter, old, old + 1,
                                                                  right);
                if (seen == old)
                    break;
                old = seen;
            }
        }
        gshmem_uint64_atomic_set(&s->setw, 0x5e7, right);
    }
    gshmem_quiet();
}

/* ---- put-with-signal litmus (3 forms) and fence litmus ------------------------- */
__global__ void k_litmus(sym *s, int variant, int left, int right, int *errs)
{
    int b = blockIdx.x, t = threadIdx.x, me = gshmem_my_pe();
    /* sig and ack are zeroed before each variant */
    for (int r = 0; r < ROUNDS; r++) {
        int rr = variant * 1000 + r;
        for (int i = t; i < SLICE; i += NT)
            s->src[b][i] = pat(me, rr, b, i);
        __syncthreads();
        if (variant == 0) {
            gshmemx_putmem_signal_nbi_block(s->data[b], s->src[b], SLICE * 8, &s->sig[b], 1,
                                            GSHMEM_SIGNAL_ADD, right);
        } else if (variant == 1) {
            if (t == 0)
                gshmem_putmem_signal(s->data[b], s->src[b], SLICE * 8, &s->sig[b],
                                     (uint64_t)r + 1, GSHMEM_SIGNAL_SET, right);
        } else if (variant == 2) {
            int w = t / 32, per = SLICE / (NT / 32);
            gshmemx_putmem_signal_warp(s->data[b] + w * per, s->src[b] + w * per, per * 8,
                                       &s->sig[b], 1, GSHMEM_SIGNAL_ADD, right);
        } else if (t == 0) {   /* fence litmus: data, fence, flag */
            gshmem_putmem_nbi(s->data[b], s->src[b], SLICE * 8, right);
            gshmem_fence();
            gshmem_uint64_p(&s->sig[b], (uint64_t)r + 1, right);
        }
        uint64_t want = (uint64_t)(r + 1) * (variant == 2 ? NT / 32 : 1);
        if (t == 0)
            gshmem_signal_wait_until(&s->sig[b], GSHMEM_CMP_GE, want);
        __syncthreads();
        for (int i = t; i < SLICE; i += NT)
            DEV_EXPECT(errs, s->data[b][i] == pat(left, rr, b, i),
                       "variant %d round %d block %d elem %d: %llx, want %llx (signal before "
                       "data)", variant, r, b, i, (unsigned long long)s->data[b][i],
                       (unsigned long long)pat(left, rr, b, i));
        __syncthreads();
        if (t == 0) {
            gshmem_uint64_atomic_inc(&s->ack[b], left);
            gshmem_uint64_wait_until(&s->ack[b], GSHMEM_CMP_GE, (uint64_t)r + 1);
        }
        __syncthreads();
    }
}

/* ---- back-pressure: one block, 3k entries into one ring of 1024 ------------------ */
__global__ void k_bp(sym *s, int right)
{
    for (int i = 0; i < BP_PER; i++)
        gshmem_uint64_p(&s->bp[threadIdx.x], (uint64_t)i, right);
    gshmem_quiet();
}

/* ---- latency: one thread, n blocking calls of each kind ---------------------------- */
__device__ static inline unsigned long long gtime(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void k_lat(sym *s, int right, int n, unsigned long long *ns)
{
    unsigned long long t0 = gtime();
    for (int i = 0; i < n; i++)
        (void)gshmem_int64_g(&s->pw[0], right);
    unsigned long long t1 = gtime();
    for (int i = 0; i < n; i++)
        gshmem_putmem(&s->got[0][0], &s->src[0][0], 8, right);
    unsigned long long t2 = gtime();
    for (int i = 0; i < n; i++)
        (void)gshmem_int64_atomic_fetch_add(&s->got[0][1], 1, right);
    unsigned long long t3 = gtime();
    for (int i = 0; i < n; i++) {
        gshmem_int64_p(&s->got[0][2], i, right);
        gshmem_quiet();
    }
    unsigned long long t4 = gtime();
    ns[0] = t1 - t0;
    ns[1] = t2 - t1;
    ns[2] = t3 - t2;
    ns[3] = t4 - t3;
}

/* nbi rate: every thread of NB blocks posts n p's, then quiet. */
__global__ void k_rate(sym *s, int right, int n)
{
    for (int i = 0; i < n; i++)
        gshmem_int64_p(&s->pw[blockIdx.x * NT + threadIdx.x], i, right);
    gshmem_quiet();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int me, npes, left, right;

/* Zero sig/ack/flag on every PE between the litmus variants. */
static void reset_flags(sym *s)
{
    gshmem_barrier_all();
    CU(cudaMemset(s->sig, 0, sizeof s->sig));
    CU(cudaMemset(s->ack, 0, sizeof s->ack));
    CU(cudaDeviceSynchronize());
    gshmem_barrier_all();
}

static void check_puts(sym *s)
{
    std::vector<int64_t> h((size_t)NB * SLICE), pw(NB * NT);
    CU(cudaMemcpy(h.data(), s->data, h.size() * 8, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(pw.data(), s->pw, pw.size() * 8, cudaMemcpyDeviceToHost));
    for (int b = 0; b < NB; b++)
        for (int i = 0; i < SLICE; i++)
            PE_CHECK(h[(size_t)b * SLICE + i] == pat(left, 0, b, i), "put block %d elem %d: "
                     "%llx, want %llx", b, i, (unsigned long long)h[(size_t)b * SLICE + i],
                     (unsigned long long)pat(left, 0, b, i));
    for (int i = 0; i < NB * NT; i++)
        PE_CHECK(pw[i] == pat(left, 1, i / NT, i % NT), "p %d: %llx", i,
                 (unsigned long long)pw[i]);
}

static void check_amos(sym *s)
{
    const size_t per = (size_t)NB * AMO_FT * AMO_IT;   /* fetch-adds per PE */
    const uint64_t total = per * npes, total32 = (uint64_t)NB * NT * AMO_IT * npes;
    int64_t counter;
    int32_t counter32;
    uint64_t w[3];
    CU(cudaMemcpy(&counter, &s->counter, 8, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(&counter32, &s->counter32, 4, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(w, &s->ucounter, sizeof w, cudaMemcpyDeviceToHost));   /* ucounter, cas, swap */
    uint64_t setw;
    CU(cudaMemcpy(&setw, &s->setw, 8, cudaMemcpyDeviceToHost));
    if (me == 0)
        PE_CHECK(counter == (int64_t)total && counter32 == (int32_t)total32, "PE 0 counters "
                 "%lld / %d, want %llu / %llu", (long long)counter, counter32,
                 (unsigned long long)total, (unsigned long long)total32);
    uint64_t uwant = (uint64_t)NB * NT * AMO_IT + per;
    PE_CHECK(w[0] == uwant, "ucounter %llu, want %llu", (unsigned long long)w[0],
             (unsigned long long)uwant);
    PE_CHECK(w[1] == (uint64_t)CAS_B * CAS_IT, "CAS counter %llu, want %d",
             (unsigned long long)w[1], CAS_B * CAS_IT);
    PE_CHECK(setw == 0x5e7, "set word %llx", (unsigned long long)setw);
    if (me != 0)
        return;
    /* every PE's fetched values: together exactly 0 .. total-1 */
    std::vector<int64_t> all(total);
    for (int pe = 0; pe < npes; pe++)
        gshmem_getmem(&all[pe * per], s->fetched, per * 8, pe);
    std::sort(all.begin(), all.end());
    for (uint64_t i = 0; i < total; i++)
        PE_CHECK(all[i] == (int64_t)i, "sorted fetched value %llu is %lld (duplicate or gap)",
                 (unsigned long long)i, (long long)all[i]);
}

/* amo1: PE 0's k_amo to PE 1 alone. compute-sanitizer runs one kernel at
 * a time per process: a fetching AMO waits in PE 0's kernel for PE 1's
 * target to apply it (a kernel in PE 1's process, where no user kernel
 * runs now). Over the engine with P2P peers PE 0's own engine launches
 * that kernel, behind the waiting one: ofi only under the tool. */
static void run_amo1(sym *s, int *errs)
{
    const size_t per = (size_t)NB * AMO_FT * AMO_IT;
    gshmem_barrier_all();
    if (me == 0) {
        k_amo<<<NB, NT>>>(s, 1, 1, errs);
        CU_SYNC();
        pe_dev_errs_check(errs, "amo1");
        std::vector<int64_t> f(per);
        CU(cudaMemcpy(f.data(), s->fetched, per * 8, cudaMemcpyDeviceToHost));
        std::sort(f.begin(), f.end());
        for (size_t i = 0; i < per; i++)
            PE_CHECK(f[i] == (int64_t)i, "amo1: sorted fetched value %zu is %lld (duplicate or "
                     "gap)", i, (long long)f[i]);
    }
    gshmem_barrier_all();
    if (me == 1) {
        int64_t counter;
        int32_t counter32;
        uint64_t w[3], setw;
        CU(cudaMemcpy(&counter, &s->counter, 8, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(&counter32, &s->counter32, 4, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(w, &s->ucounter, sizeof w, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(&setw, &s->setw, 8, cudaMemcpyDeviceToHost));
        uint64_t uwant = (uint64_t)NB * NT * AMO_IT + per;
        PE_CHECK(counter == (int64_t)per && counter32 == NB * NT * AMO_IT && w[0] == uwant &&
                 w[1] == (uint64_t)CAS_B * CAS_IT && (w[2] >> 32) == 0 && setw == 0x5e7,
                 "amo1 at PE 1: counter %lld (want %zu), counter32 %d (want %d), ucounter %llu "
                 "(want %llu), CAS %llu (want %d), swap word %llx (PE 0's), set %llx (want 5e7)",
                 (long long)counter, per, counter32, NB * NT * AMO_IT,
                 (unsigned long long)w[0], (unsigned long long)uwant,
                 (unsigned long long)w[1], CAS_B * CAS_IT, (unsigned long long)w[2],
                 (unsigned long long)setw);
    }
    printf("pe_queue: PE %d: amo1 passed\n", me);
}

static double t_phase;
static void phase(const char *what)
{
    printf("pe_queue: PE %d: %s passed (%.2f s)\n", me, what, now_s() - t_phase);
    t_phase = now_s();
}

static void run_bp(sym *s)
{
    gshmem_barrier_all();
    k_bp<<<1, NT>>>(s, right);
    CU_SYNC();
    gshmem_barrier_all();
    std::vector<uint64_t> bp(NT);
    CU(cudaMemcpy(bp.data(), s->bp, NT * 8, cudaMemcpyDeviceToHost));
    for (int t = 0; t < NT; t++)
        PE_CHECK(bp[t] == BP_PER - 1, "back-pressure word %d: %llu", t,
                 (unsigned long long)bp[t]);
    phase("back-pressure");
}

static void run_puts_gets(sym *s, int *errs)
{
    t_phase = now_s();
    k_put<<<NB, NT>>>(s, right);
    CU_SYNC();
    gshmem_barrier_all();
    check_puts(s);
    phase("puts");
    k_get<<<NB, NT>>>(s, right, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "gets");
    phase("gets");
    gshmem_barrier_all();   /* every got[] checked before the left PE writes it */
    k_small<<<NB, NT>>>(s, right);
    CU_SYNC();
    gshmem_barrier_all();
    check_small(s, left);
    phase("small puts");
}

/* puts, gets and back-pressure: what needs no AMO (the "rma" mode, for
 * compute-sanitizer, which runs one kernel at a time: an AMO kernel that
 * the engine or a target launches would wait for the kernel that waits
 * for it) */
static void run_rma(sym *s, int *errs)
{
    run_puts_gets(s, errs);
    run_bp(s);
}

static void run_ops(sym *s, int *errs)
{
    run_puts_gets(s, errs);
    gshmem_barrier_all();
    k_amo<<<NB, NT>>>(s, right, 0, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "atomics");
    gshmem_barrier_all();
    check_amos(s);
    phase("atomics");
    for (int v = 0; v < 4; v++) {
        reset_flags(s);
        double t0 = now_s();
        k_litmus<<<NB, NT>>>(s, v, left, right, errs);
        CU_SYNC();
        pe_dev_errs_check(errs, "litmus");
        printf("pe_queue: PE %d: litmus variant %d: %d rounds x %d blocks, 0 violations, "
               "%.2f s\n", me, v, ROUNDS, NB, now_s() - t0);
    }
    run_bp(s);
}

static void run_perf(sym *s)
{
    const int n = 2000, rate_n = 64;
    unsigned long long *ns;
    CU(cudaMallocManaged((void **)&ns, 4 * sizeof *ns));
    gshmem_barrier_all();
    if (me == 0) {   /* alone on the GPU: the others wait in the barrier */
        k_lat<<<1, 1>>>(s, right, n, ns);
        CU_SYNC();
        double t0 = now_s();
        k_rate<<<NB, NT>>>(s, right, rate_n);
        CU_SYNC();
        double dt = now_s() - t0;
        const char *tp = getenv("GSHMEM_TRANSPORTS"), *prov = getenv("GSHMEM_OFI_PROVIDER");
        printf("pe_queue: perf (PE 0 -> %d, %d PEs, queue path over %s%s%s): g %.2f us, blocking "
               "putmem(8 B) %.2f us, fetch_add %.2f us, p+quiet %.2f us; nbi p rate %.2f M/s "
               "(%d threads x %d)\n", right, npes, tp ? tp : "auto", prov ? " " : "",
               prov ? prov : "", ns[0] / 1e3 / n, ns[1] / 1e3 / n,
               ns[2] / 1e3 / n, ns[3] / 1e3 / n, (double)NB * NT * rate_n / dt / 1e6,
               NB * NT, rate_n);
    }
    gshmem_barrier_all();
    if (me == 1) {   /* each thread's word holds its last p: same-word puts kept their order */
        std::vector<int64_t> pw(NB * NT);
        CU(cudaMemcpy(pw.data(), s->pw, pw.size() * 8, cudaMemcpyDeviceToHost));
        for (int i = 0; i < NB * NT; i++)
            PE_CHECK(pw[i] == rate_n - 1, "rate: thread %d's word is %lld after %d p's to it, "
                     "want %d (a later put applied before an earlier one)", i, (long long)pw[i],
                     rate_n, rate_n - 1);
    }
    CU(cudaFree(ns));
}

/* ---- bad: a raw PUT across the heap's end ---------------------------------------- */
/* The state this TU got from init (internal, test only). */
__global__ void k_heap_end(uint64_t *size, uint64_t *last)
{
    *size = gshmemi_dstate.heap_size;
    *last = *(const uint64_t *)(gshmemi_dstate.heap_base + gshmemi_dstate.heap_size - 8);
}

/* Posts raw entries w[0..n) (n <= 2) on this block's ring without any
 * check and without waiting (what no API call can do: the engine's
 * validation is what is tested); 0 and the first index in *idx_p, or the
 * engine's error, or GSHMEM_ERR_NOT_SUPPORTED when no engine runs. */
__device__ int devq_post_raw(const gshmemi_wqe_t *w, uint32_t n, uint64_t *idx_p)
#if defined(GSHMEMI_DEV_PASS)
{
    const gshmemi_queue_t *q = (const gshmemi_queue_t *)gshmemi_dstate.channels;
    if (q == NULL)
        return GSHMEM_ERR_NOT_SUPPORTED;
    return gshmemi_ring_post(&q->ch.rings[gshmemi_devq_channel(q)], w, n, NULL, idx_p);
}
#else
    ;
#endif

__global__ void k_bad(sym *s, int *status)
{
    gshmemi_wqe_t w;
    w.laddr = (uint64_t)(uintptr_t)s->src;
    w.roff = gshmemi_dstate.heap_size - 8;
    w.value = 16;
    w.ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_PUT, 0, 0, 1);
    uint64_t idx;
    int rc = devq_post_raw(&w, 1, &idx);
    unsigned long long t0 = gtime();
    int st = 0;
    while (rc == 0 && (st = gshmemx_queue_status()) == 0 && gtime() - t0 < 20000000000ull)
        __nanosleep(1000);
    status[0] = rc;
    status[1] = st;
}

static void run_bad(sym *s)
{
    uint64_t *hv;   /* [0] heap size, [1] last word before, [2] after */
    CU(cudaMallocManaged((void **)&hv, 4 * sizeof *hv));
    CU(cudaMemset(s->src, 0xab, sizeof s->src));
    k_heap_end<<<1, 1>>>(&hv[0], &hv[1]);
    CU_SYNC();
    gshmem_barrier_all();
    if (me == 0) {
        int *st;
        CU(cudaMallocManaged((void **)&st, 2 * sizeof *st));
        printf("pe_queue: posting a raw PUT at offset %llu, 16 bytes (heap %llu)\n",
               (unsigned long long)hv[0] - 8, (unsigned long long)hv[0]);
        k_bad<<<1, 1>>>(s, st);
        CU_SYNC();
        PE_CHECK(st[0] == 0 && st[1] == GSHMEM_ERR_OUT_OF_HEAP, "post %d, queue status %d, "
                 "want %d", st[0], st[1], GSHMEM_ERR_OUT_OF_HEAP);
        printf("pe_queue: device saw queue status %d\n", st[1]);
        CU(cudaFree(st));
    }
    gshmem_barrier_all();
    k_heap_end<<<1, 1>>>(&hv[0], &hv[2]);
    CU_SYNC();
    PE_CHECK(hv[1] == hv[2] && hv[2] != 0xababababababababull, "the heap's last word changed "
             "(%llx -> %llx): the malformed entry was executed", (unsigned long long)hv[1],
             (unsigned long long)hv[2]);
    CU(cudaFree(hv));
}

/* ---- drain ------------------------------------------------------------------------- */
__global__ void k_drain(sym *s, int right)
{
    int b = blockIdx.x, t = threadIdx.x;
    for (int i = t; i < SLICE; i += NT)
        gshmem_int64_p(&s->data[b][i], pat(gshmem_my_pe(), 9, b, i), right);
}

static void run_drain(sym *s)
{
    k_drain<<<NB, NT>>>(s, right);
    CU_SYNC();
    gshmemi_engine_stop();   /* finalize's first step: drain and stop */
    gshmem_barrier_all();
    std::vector<int64_t> h((size_t)NB * SLICE);
    CU(cudaMemcpy(h.data(), s->data, h.size() * 8, cudaMemcpyDeviceToHost));
    for (int b = 0; b < NB; b++)
        for (int i = 0; i < SLICE; i++)
            PE_CHECK(h[(size_t)b * SLICE + i] == pat(left, 9, b, i), "drain: block %d elem %d "
                     "missing: %llx", b, i, (unsigned long long)h[(size_t)b * SLICE + i]);
}

/* ---- exit without gshmem_finalize ------------------------------------------------ */
/* A few entries per block, far fewer than the rings hold: the kernel never
 * waits for ring space, so it ends even when the right PE exits first and
 * stops acknowledging (a kernel cannot be interrupted; the engine can). */
__global__ void k_tail(sym *s, int right)
{
    int b = blockIdx.x, t = threadIdx.x;
    if (t < 32)
        gshmem_int64_p(&s->data[b][t], pat(gshmem_my_pe(), 9, b, t), right);
    if (t == 0)
        gshmem_putmem_nbi(s->got[b], s->src[b], SLICE * 8, right);
}

static void run_exit(sym *s, int *errs)
{
    gshmem_agg_attr_t a;
    gshmem_agg_t *agg = NULL;
    gshmem_agg_attr_init(&a);
    a.buf_bytes = 4096;
    a.bufs_per_pe = 2;
    int rc = gshmem_agg_create(&a, &agg);   /* never destroyed: its thread runs at exit */
    PE_CHECK(rc == 0, "gshmem_agg_create: %s", gshmem_strerror(rc));
    run_puts_gets(s, errs);
    gshmem_barrier_all();   /* no PE leaves while another's kernel needs it */
    k_tail<<<NB, NT>>>(s, right);   /* posted, not quieted */
    CU_SYNC();
    printf("pe_queue: PE %d: exit(0) without gshmem_finalize\n", me);
    exit(0);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    const char *mode = argc > 1 ? argv[1] : "ops";
    setvbuf(stdout, NULL, _IOLBF, 0);
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    PE_CHECK(npes >= 2, "needs 2 PEs or more");
    int *errs = pe_dev_errs_new();
    sym *s = (sym *)pe_dev_sym(sizeof(sym));
    gshmem_barrier_all();
    if (strcmp(mode, "ops") == 0) {
        run_ops(s, errs);
        run_perf(s);
    } else if (strcmp(mode, "rma") == 0) {
        run_rma(s, errs);
    } else if (strcmp(mode, "amo1") == 0) {
        run_amo1(s, errs);
    } else if (strcmp(mode, "bad") == 0) {
        run_bad(s);
    } else if (strcmp(mode, "drain") == 0) {
        run_drain(s);
    } else if (strcmp(mode, "exit") == 0) {
        run_exit(s, errs);
    } else {
        PE_CHECK(0, "unknown mode %s", mode);
    }
    gshmem_barrier_all();
    printf("pe_queue: OK (PE %d)\n", me);
    gshmem_free(s);
    CU(cudaFree(errs));
    gshmem_finalize();
    return 0;
}

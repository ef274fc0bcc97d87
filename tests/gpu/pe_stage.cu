/* pe_stage: tile-granular synchronization (include/gshmem_stage.h) on the GPU.
 *
 * A producer kernel writes PX x PY tiles (each after a pseudo-random delay
 * of up to 20 us, so tiles finish out of order) and posts each; a consumer
 * kernel of CX x PY tiles reads, for each of its tiles, every producer tile
 * of the same row, waiting per tile through the stage's policy, and checks
 * every value against the run's expected value. The producer's output is
 * poisoned (NaN) before each run, and the values change from run to run,
 * so a read before the post, or a stale cached line, is counted as a
 * violation. Every tile must be taken exactly once per run.
 *
 *   pe_stage local POLICY MODE [RUNS [OPTS]]   1 PE (gshmemrun -n 1)
 *     POLICY: tile | row | strided | user
 *     MODE:   guard   producer on a high-priority stream, guard kernel and
 *                     consumer on a low-priority one (the producer tiles are
 *                     handed out in a shuffled order from a table);
 *             pdl     one stream, consumer by programmatic dependent launch;
 *             noguard consumer launched FIRST on its own stream, no guard
 *                     (allowed: both grids fit on the GPU together, which
 *                     the program checks with gshmem_stage_guard_needed);
 *             guard_on as guard, the guard waiting with
 *                     gshmem_stage_launch_guard_on on the producer's tile
 *                     counter (ctl[0]) for this run's first tile;
 *             nowait  control: the consumer does not wait; the run must see
 *                     violations (proves the check can fail).
 *     OPTS: sym    semaphores in the symmetric heap (system-scope path);
 *           ahead  the consumer reads each row in order with
 *                  gshmem_stage_wait_ahead (batched polls) instead of
 *                  gshmem_stage_wait per tile ("sym,ahead": both).
 *   pe_stage remote POLICY [RUNS [ahead]]   2 PEs: the producer runs on PE 0 and puts
 *     each tile into PE 1's symmetric buffer (gshmemx_putmem_nbi_block), then
 *     posts PE 1's semaphore (gshmem_stage_post_pe); the consumer runs on PE 1.
 *   pe_stage timeout   a consumer waits for a tile nobody posts, with a 0.5 s
 *     limit: it must report the tile and trap (exit 3), not hang.
 *   pe_stage guard_on   1 PE: a consumer behind gshmem_stage_launch_guard_on
 *     starts only once a word another kernel counts up reached the value
 *     (crossing 2^32: a 64-bit compare); without the guard it starts before
 *     (control); a NULL word, and a stage without a start word, are refused.
 *   pe_stage guard_on_timeout   the guard on a word nobody changes, 0.5 s
 *     limit: it must report the word and trap (exit 3).
 * Prints "pe_stage: OK (PE n of N)" per PE on success. */
#include "pe_dev.h"
#include "gshmem_stage.h"

/* A stage call that must succeed: its status and sentence (the library
 * logged the cause). */
#define ST(call)                                                                     \
    do {                                                                             \
        int rc_ = (call);                                                            \
        PE_CHECK(rc_ == GSHMEM_SUCCESS, "%s: %s (%d)", #call, gshmem_strerror(rc_), rc_); \
    } while (0)

#define PX 12      /* producer tiles per row */
#define PY 8       /* rows (producer and consumer) */
#define CX 6       /* consumer tiles per row */
#define TILE 1024  /* floats per tile */
#define NT 128     /* threads per block */
#define MAX_DELAY_NS 20000u

__host__ __device__ static inline float val(uint64_t epoch, uint32_t lin, uint32_t i)
{
    return (float)(((uint32_t)epoch * 131u + lin * 7919u + i) % 65521u) + 1.0f;
}

__host__ __device__ static inline uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__device__ static void spin_ns(uint64_t ns)
{
    uint64_t t0 = gshmemi_stage_now_ns();
    while (gshmemi_stage_now_ns() - t0 < ns) {
    }
}

/* dst_pe < 0: write data locally and post; else put the tile (staged in
 * src, symmetric) into dst_pe's data and post dst_pe's semaphore. */
__global__ void k_produce(gshmem_stage_t ps, float *data, float *src, int dst_pe,
                          unsigned *taken)
{
    gshmem_stage_tile_t t = gshmem_stage_tile(ps);
    uint32_t lin = gshmem_stage_tile_index(ps.grid, t);
    if (threadIdx.x == 0) {
        atomicAdd(&taken[lin], 1u);
        spin_ns(mix32(lin * 977u + (uint32_t)ps.epoch) % MAX_DELAY_NS);
    }
    __syncthreads();
    float *d = (dst_pe < 0 ? data : src) + (size_t)lin * TILE;
    for (uint32_t i = threadIdx.x; i < TILE; i += NT)
        d[i] = val(ps.epoch, lin, i);
    if (dst_pe < 0) {
        gshmem_stage_post(ps, t);
    } else {
        __syncthreads();
        gshmemx_putmem_nbi_block(data + (size_t)lin * TILE, d, TILE * sizeof(float), dst_pe);
        gshmem_stage_post_pe(ps, t, dst_pe);
    }
}

/* ahead: read the row's tiles in order, waiting with gshmem_stage_wait_ahead
 * (one poll per batch of complete tiles); else each consumer of a row
 * starts at a different producer tile and waits per tile. */
__global__ void k_consume(gshmem_stage_t cs, gshmem_stage_t ps, const float *data, int nowait,
                          int ahead, unsigned *taken, unsigned long long *viol, float *out)
{
    gshmem_stage_tile_t c = gshmem_stage_tile(cs);
    uint32_t clin = gshmem_stage_tile_index(cs.grid, c);
    if (threadIdx.x == 0)
        atomicAdd(&taken[clin], 1u);
    uint32_t last = GSHMEM_STAGE_NO_SEM, ready = 0;
    unsigned long long bad = 0;
    float acc = 0.f;
    for (uint32_t k = 0; k < ps.grid.x; k++) {
        gshmem_stage_tile_t p = {ahead ? k : (c.x * 2u + k) % ps.grid.x, c.y};
        if (!nowait && ahead && k >= ready)
            ready = k + gshmem_stage_wait_ahead(ps, p, ps.grid.x - k);
        else if (!nowait && !ahead)
            gshmem_stage_wait(ps, p, &last);
        uint32_t plin = gshmem_stage_tile_index(ps.grid, p);
        const float *d = data + (size_t)plin * TILE;
        for (uint32_t i = threadIdx.x; i < TILE; i += NT) {
            float v = d[i];
            if (!(v == val(ps.epoch, plin, i))) {
                if (bad == 0 && !nowait)
                    printf("pe_stage: run %llu: consumer tile (%u,%u) read producer tile "
                           "(%u,%u)[%u] = %g, expected %g\n", (unsigned long long)ps.epoch, c.x,
                           c.y, p.x, p.y, i, v, val(ps.epoch, plin, i));
                bad++;
            }
            acc += v;
        }
    }
    if (bad)
        atomicAdd(viol, bad);
    out[clin * NT + threadIdx.x] = acc;
}

/* ---- host ---------------------------------------------------------------------------- */

typedef struct tables {
    uint32_t sem[PX * PY], expected[PX * PY], order[PX * PY];
} tables_t;

/* POLICY by name; user: groups of 3 consecutive tiles of a row. */
static gshmem_stage_policy_t make_policy(const char *name, tables_t *tb)
{
    gshmem_stage_policy_t p;
    memset(&p, 0, sizeof p);
    if (strcmp(name, "tile") == 0) {
        p.kind = GSHMEM_STAGE_PER_TILE;
    } else if (strcmp(name, "row") == 0) {
        p.kind = GSHMEM_STAGE_PER_ROW;
    } else if (strcmp(name, "strided") == 0) {
        p.kind = GSHMEM_STAGE_STRIDED;
        p.stride = 4;
    } else if (strcmp(name, "user") == 0) {
        p.kind = GSHMEM_STAGE_USER;
        for (uint32_t y = 0; y < PY; y++)
            for (uint32_t x = 0; x < PX; x++)
                tb->sem[y * PX + x] = y * (PX / 3) + x / 3;
        p.n_user_sems = PY * (PX / 3);
        for (uint32_t s = 0; s < p.n_user_sems; s++)
            tb->expected[s] = 3;
        p.user_sem = tb->sem;
        p.user_expected = tb->expected;
    } else {
        PE_CHECK(0, "unknown policy '%s' (tile, row, strided, user)", name);
    }
    return p;
}

/* A fixed shuffle of the producer tiles (the same on every PE). */
static void shuffle_order(tables_t *tb)
{
    for (uint32_t i = 0; i < PX * PY; i++)
        tb->order[i] = i;
    for (uint32_t i = PX * PY - 1; i > 0; i--) {
        uint32_t j = mix32(i * 2654435761u) % (i + 1), t = tb->order[i];
        tb->order[i] = tb->order[j];
        tb->order[j] = t;
    }
}

typedef struct bufs {
    unsigned *ptaken, *ctaken;
    unsigned long long *viol;
    float *out;
} bufs_t;

static bufs_t bufs_new(void)
{
    bufs_t b;
    CU(cudaMalloc((void **)&b.ptaken, PX * PY * sizeof(unsigned)));
    CU(cudaMalloc((void **)&b.ctaken, CX * PY * sizeof(unsigned)));
    CU(cudaMalloc((void **)&b.viol, sizeof(unsigned long long)));
    CU(cudaMalloc((void **)&b.out, CX * PY * NT * sizeof(float)));
    CU(cudaMemset(b.ptaken, 0, PX * PY * sizeof(unsigned)));
    CU(cudaMemset(b.ctaken, 0, CX * PY * sizeof(unsigned)));
    CU(cudaMemset(b.viol, 0, sizeof(unsigned long long)));
    return b;
}

/* Each tile of the kernels that ran here taken exactly runs times; returns
 * the violation count. */
static unsigned long long bufs_check(bufs_t *b, int runs, int prod_here, int cons_here)
{
    unsigned hp[PX * PY], hc[CX * PY];
    unsigned long long v = 0;
    CU(cudaMemcpy(hp, b->ptaken, sizeof hp, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(hc, b->ctaken, sizeof hc, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(&v, b->viol, sizeof v, cudaMemcpyDeviceToHost));
    for (int i = 0; i < PX * PY && prod_here; i++)
        PE_CHECK(hp[i] == (unsigned)runs, "producer tile %d taken %u times in %d runs", i, hp[i],
                 runs);
    for (int i = 0; i < CX * PY && cons_here; i++)
        PE_CHECK(hc[i] == (unsigned)runs, "consumer tile %d taken %u times in %d runs", i, hc[i],
                 runs);
    cudaFree(b->ptaken);
    cudaFree(b->ctaken);
    cudaFree(b->viol);
    cudaFree(b->out);
    return v;
}

static void run_local(const char *pol, const char *mode, int runs, int sym, int ahead)
{
    tables_t tb;
    gshmem_stage_policy_t p = make_policy(pol, &tb);
    int guard_on = strcmp(mode, "guard_on") == 0;
    int guard = guard_on || strcmp(mode, "guard") == 0, pdl = strcmp(mode, "pdl") == 0;
    int noguard = strcmp(mode, "noguard") == 0, nowait = strcmp(mode, "nowait") == 0;
    PE_CHECK(guard || pdl || noguard || nowait, "unknown mode '%s'", mode);
    shuffle_order(&tb);
    gshmem_stage_t ps, cs;
    uint32_t pflags = GSHMEM_STAGE_COUNTER | (sym ? GSHMEM_STAGE_SYMMETRIC : 0) |
                      (pdl ? GSHMEM_STAGE_RELEASE_DEPENDENTS : 0);
    ST(gshmem_stage_create(&ps, PX, PY, &p, pdl ? GSHMEM_STAGE_ROW_MAJOR
                           : GSHMEM_STAGE_ORDER_TABLE, tb.order, pflags));
    ST(gshmem_stage_create(&cs, CX, PY, NULL, GSHMEM_STAGE_ROW_MAJOR, NULL,
                           GSHMEM_STAGE_COUNTER));
    size_t bytes = (size_t)PX * PY * TILE * sizeof(float);
    float *data = NULL;
    if (sym)
        data = (float *)pe_dev_sym(bytes);
    else
        CU(cudaMalloc((void **)&data, bytes));
    bufs_t b = bufs_new();
    if (noguard) {
        int dev = 0, nsm = 0, pb = 0, cb = 0;
        CU(cudaGetDevice(&dev));
        CU(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
        CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pb, k_produce, NT, 0));
        CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cb, k_consume, NT, 0));
        PE_CHECK(!gshmem_stage_guard_needed(PX * PY, pb, CX * PY, cb, nsm),
                 "noguard needs both grids co-resident: %d + %d blocks, %d / %d per SM, %d SMs",
                 PX * PY, CX * PY, pb, cb, nsm);
    }
    int lo = 0, hi = 0;
    CU(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t s1, s2;
    cudaEvent_t done;
    CU(cudaStreamCreateWithPriority(&s1, cudaStreamNonBlocking, hi));
    CU(cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, lo));
    CU(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CU(cudaEventRecord(done, s2));
    for (int r = 0; r < runs; r++) {
        gshmem_stage_begin(&ps);
        gshmem_stage_begin(&cs);
        CU(cudaStreamWaitEvent(s1, done, 0));
        CU(cudaMemsetAsync(data, 0xff, bytes, s1));   /* NaN: never an expected value */
        if (noguard) {
            /* make the poison land before the consumer can start reading */
            cudaEvent_t poisoned;
            CU(cudaEventCreateWithFlags(&poisoned, cudaEventDisableTiming));
            CU(cudaEventRecord(poisoned, s1));
            CU(cudaStreamWaitEvent(s2, poisoned, 0));
            CU(cudaEventDestroy(poisoned));
            k_consume<<<CX * PY, NT, 0, s2>>>(cs, ps, data, 0, ahead, b.ctaken, b.viol, b.out);
            k_produce<<<PX * PY, NT, 0, s1>>>(ps, data, NULL, -1, b.ptaken);
        } else if (pdl) {
            k_produce<<<PX * PY, NT, 0, s1>>>(ps, data, NULL, -1, b.ptaken);
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute attr;
            gshmem_stage_pdl_config(&cfg, &attr, dim3(CX * PY), dim3(NT), 0, s1);
            CU(cudaLaunchKernelEx(&cfg, k_consume, cs, ps, (const float *)data, 0, ahead,
                                  b.ctaken, b.viol, b.out));
            CU(cudaEventRecord(done, s1));
            continue;
        } else {
            k_produce<<<PX * PY, NT, 0, s1>>>(ps, data, NULL, -1, b.ptaken);
            if (guard_on)   /* the counter: run e takes [(e - 1) n, e n) */
                ST(gshmem_stage_launch_guard_on(ps.ctl, (ps.epoch - 1) * PX * PY + 1,
                                                ps.timeout_ns, s2));
            else
                ST(gshmem_stage_launch_guard(&ps, s2));
            k_consume<<<CX * PY, NT, 0, s2>>>(cs, ps, data, nowait, ahead, b.ctaken, b.viol, b.out);
        }
        CU(cudaEventRecord(done, s2));
    }
    CU_SYNC();
    unsigned long long v = bufs_check(&b, runs, 1, 1);
    printf("pe_stage: local policy %s mode %s%s%s: %d runs, %u producer and %u consumer tiles "
           "each, %llu early or stale reads\n", pol, mode, sym ? " symmetric" : "",
           ahead ? " wait_ahead" : "", runs, PX * PY, CX * PY, v);
    if (nowait)
        PE_CHECK(v > 0, "control run without waits saw no early read: the check cannot fail");
    else
        PE_CHECK(v == 0, "%llu values were read before their tile was posted", v);
    CU(cudaStreamDestroy(s1));
    CU(cudaStreamDestroy(s2));
    CU(cudaEventDestroy(done));
    if (sym)
        gshmem_free(data);
    else
        cudaFree(data);
    gshmem_stage_destroy(&cs);
    gshmem_stage_destroy(&ps);
}

static void run_remote(const char *pol, int runs, int ahead)
{
    int me = gshmem_my_pe();
    PE_CHECK(gshmem_n_pes() == 2, "remote mode runs on 2 PEs, not %d", gshmem_n_pes());
    tables_t tb;
    gshmem_stage_policy_t p = make_policy(pol, &tb);
    shuffle_order(&tb);
    gshmem_stage_t ps, cs;
    ST(gshmem_stage_create(&ps, PX, PY, &p, GSHMEM_STAGE_ORDER_TABLE, tb.order,
                           GSHMEM_STAGE_COUNTER | GSHMEM_STAGE_SYMMETRIC));
    ST(gshmem_stage_create(&cs, CX, PY, NULL, GSHMEM_STAGE_ROW_MAJOR, NULL,
                           GSHMEM_STAGE_COUNTER));
    size_t bytes = (size_t)PX * PY * TILE * sizeof(float);
    float *data = (float *)pe_dev_sym(bytes), *src = (float *)pe_dev_sym(bytes);
    bufs_t b = bufs_new();
    for (int r = 0; r < runs; r++) {
        gshmem_stage_begin(&ps);
        gshmem_stage_begin(&cs);
        if (me == 1) {
            CU(cudaMemset(data, 0xff, bytes));
            CU(cudaDeviceSynchronize());
        }
        gshmem_barrier_all();
        if (me == 0)
            k_produce<<<PX * PY, NT>>>(ps, data, src, 1, b.ptaken);
        else
            k_consume<<<CX * PY, NT>>>(cs, ps, data, 0, ahead, b.ctaken, b.viol, b.out);
        CU_SYNC();
        gshmem_barrier_all();
    }
    unsigned long long v = bufs_check(&b, runs, me == 0, me == 1);
    /* the device's PCI bus id shows whether the two PEs shared one GPU */
    int dev = -1;
    char bus[32] = "?";
    CU(cudaGetDevice(&dev));
    CU(cudaDeviceGetPCIBusId(bus, (int)sizeof bus, dev));
    printf("pe_stage: remote policy %s%s: PE %d ran the %s on device %d (%s), %d runs, %llu "
           "early or stale reads\n", pol, ahead ? " wait_ahead" : "", me,
           me == 0 ? "producer" : "consumer", dev, bus, runs, v);
    PE_CHECK(v == 0, "%llu values were read before their tile was posted", v);
    gshmem_free(src);
    gshmem_free(data);
    gshmem_stage_destroy(&cs);
    gshmem_stage_destroy(&ps);
}

static void run_timeout(void)
{
    gshmem_stage_t ps, cs;
    ST(gshmem_stage_create(&ps, PX, PY, NULL, GSHMEM_STAGE_ROW_MAJOR, NULL, 0));
    ST(gshmem_stage_create(&cs, CX, PY, NULL, GSHMEM_STAGE_ROW_MAJOR, NULL, 0));
    ps.timeout_ns = 500000000ull;
    gshmem_stage_begin(&ps);
    gshmem_stage_begin(&cs);
    float *data = NULL;
    CU(cudaMalloc((void **)&data, (size_t)PX * PY * TILE * sizeof(float)));
    bufs_t b = bufs_new();
    k_consume<<<1, NT>>>(cs, ps, data, 0, 0, b.ctaken, b.viol, b.out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("pe_stage: timeout: the waiting kernel ended with %s\n", cudaGetErrorName(e));
    fflush(stdout);
    exit(e == cudaSuccess ? 1 : 3);
}

/* ---- gshmem_stage_launch_guard_on on a word of its own ---------------------------- */

#define GW_BASE 0xfffffffeull     /* the word starts 2 below 2^32 ... */
#define GW_TARGET 0x100000002ull  /* ... and the guard waits for it to pass 2^32 */
#define GW_BUMPS 4                /* GW_BASE + GW_BUMPS == GW_TARGET */

/* One thread: after delay_ns, adds 1 to *word GW_BUMPS times, 2 ms apart. */
__global__ void k_bump(unsigned long long *word, uint64_t delay_ns)
{
    spin_ns(delay_ns);
    for (int i = 0; i < GW_BUMPS; i++) {
        spin_ns(2000000);
        atomicAdd(word, 1ull);
    }
}

/* One thread: the word's value when this kernel ran. */
__global__ void k_peek(const unsigned long long *word, unsigned long long *seen)
{
    *seen = *(const volatile unsigned long long *)word;
}

static void run_guard_on(void)
{
    unsigned long long *word = NULL, *seen = NULL, h = 0;
    cudaStream_t s1, s2;
    CU(cudaMalloc((void **)&word, sizeof h));
    CU(cudaMalloc((void **)&seen, sizeof h));
    CU(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CU(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    /* Both kernels run once before any guard waits: under CUDA's lazy
     * loading a kernel is loaded at its first launch, and that load may wait
     * for running kernels, here the guard that waits for k_bump (seen on the
     * GPU machine: the guard timed out with the word untouched). */
    k_bump<<<1, 1, 0, s1>>>(seen, 0);
    k_peek<<<1, 1, 0, s2>>>(seen, seen);
    CU_SYNC();
    for (int guarded = 1; guarded >= 0; guarded--) {
        h = GW_BASE;
        CU(cudaMemcpy(word, &h, sizeof h, cudaMemcpyHostToDevice));
        CU(cudaMemset(seen, 0, sizeof h));
        CU(cudaDeviceSynchronize());   /* on the legacy stream: s1 and s2 do not wait for it */
        if (guarded)
            ST(gshmem_stage_launch_guard_on((const uint64_t *)word, GW_TARGET, 10000000000ull,
                                            s2));
        k_peek<<<1, 1, 0, s2>>>(word, seen);
        k_bump<<<1, 1, 0, s1>>>(word, 50000000ull);   /* 50 ms before the first bump */
        CU_SYNC();
        CU(cudaMemcpy(&h, seen, sizeof h, cudaMemcpyDeviceToHost));
        printf("pe_stage: guard_on: %s consumer saw the word at %#llx (target %#llx)\n",
               guarded ? "guarded" : "unguarded", h, GW_TARGET);
        if (guarded)
            PE_CHECK(h >= GW_TARGET, "the consumer behind the guard saw %#llx < %#llx", h,
                     GW_TARGET);
        else
            PE_CHECK(h < GW_TARGET, "control: the unguarded consumer saw %#llx, not the value "
                     "before the bumps: this test cannot tell a guard that waits", h);
    }
    gshmem_stage_t zero;
    memset(&zero, 0, sizeof zero);
    PE_CHECK(gshmem_stage_launch_guard_on(NULL, 1, 1000, s2) == GSHMEM_ERR_INVALID_ARG,
             "a NULL word was not refused");
    PE_CHECK(gshmem_stage_launch_guard(&zero, s2) == GSHMEM_ERR_INVALID_ARG,
             "a stage without a start word was not refused");
    CU_SYNC();   /* nothing launched, nothing left behind */
    CU(cudaStreamDestroy(s1));
    CU(cudaStreamDestroy(s2));
    cudaFree(word);
    cudaFree(seen);
}

static void run_guard_on_timeout(void)
{
    uint64_t *word = NULL;
    CU(cudaMalloc((void **)&word, sizeof *word));
    CU(cudaMemset(word, 0, sizeof *word));
    ST(gshmem_stage_launch_guard_on(word, 1, 500000000ull, 0));
    cudaError_t e = cudaDeviceSynchronize();
    printf("pe_stage: guard_on_timeout: the guard ended with %s\n", cudaGetErrorName(e));
    fflush(stdout);
    exit(e == cudaSuccess ? 1 : 3);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK(argc >= 2, "usage: pe_stage local POLICY MODE [RUNS [OPTS]] | remote POLICY "
             "[RUNS [OPTS]] | timeout | guard_on | guard_on_timeout (OPTS: sym, ahead, "
             "sym,ahead)");
    if (strcmp(argv[1], "timeout") == 0)
        run_timeout();
    if (strcmp(argv[1], "guard_on_timeout") == 0)
        run_guard_on_timeout();
    PE_CHECK_INIT();
    if (strcmp(argv[1], "local") == 0) {
        PE_CHECK(argc >= 4, "usage: pe_stage local POLICY MODE [RUNS [OPTS]]");
        int runs = argc >= 5 ? atoi(argv[4]) : 300;
        PE_CHECK(runs > 0, "RUNS must be positive");
        const char *opt = argc >= 6 ? argv[5] : "";
        run_local(argv[2], argv[3], runs, strstr(opt, "sym") != NULL,
                  strstr(opt, "ahead") != NULL);
    } else if (strcmp(argv[1], "guard_on") == 0) {
        run_guard_on();
    } else if (strcmp(argv[1], "remote") == 0) {
        PE_CHECK(argc >= 3, "usage: pe_stage remote POLICY [RUNS [ahead]]");
        int runs = argc >= 4 ? atoi(argv[3]) : 100;
        PE_CHECK(runs > 0, "RUNS must be positive");
        run_remote(argv[2], runs, argc >= 5 && strstr(argv[4], "ahead") != NULL);
    } else {
        PE_CHECK(0, "unknown mode '%s'", argv[1]);
    }
    gshmem_barrier_all();
    printf("pe_stage: OK (PE %d of %d)\n", gshmem_my_pe(), gshmem_n_pes());
    gshmem_finalize();
    return 0;
}

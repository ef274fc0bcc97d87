/* gshmem-stage-mlp: the two dependent GEMMs of a tensor-parallel MLP, one
 * PE's share: H = GELU(X W1), Y = H W2, with X [M, h], W1 [h, 4h/tp],
 * W2 [4h/tp, h] (GPT-3: h = 12288, tp = 8), fp16 with fp32 accumulation,
 * M = batch x sequence. Both GEMMs are gshmem's own kernel
 * (stage_gemm.cuh). Timed in one run, on the same inputs:
 *   stream        GEMM1 then GEMM2 on one stream (the kernel boundary);
 *   pdl_boundary  the same with programmatic dependent launch, GEMM2
 *                 waiting for GEMM1's completion (griddepcontrol.wait);
 *   serial_counter, serial_post, serial_<policy>  diagnostics, in plain
 *                 stream order so that nothing overlaps: tiles from the
 *                 stage counter only; GEMM1 posting (row policy) and GEMM2
 *                 not waiting; then the staged kernels with posts and waits:
 *                 what the hand-out, the posts and the waits cost by
 *                 themselves;
 *   pdl_<policy>  tile-granular: GEMM2 launched by PDL once every GEMM1
 *                 block started, each GEMM2 block waiting for the GEMM1
 *                 tiles its k-tiles read (gshmem_stage_wait_ahead);
 *   guard_<policy> the same with GEMM2 on a second, lower-priority stream
 *                 behind the launch guard (skipped when both grids fit on
 *                 the GPU together);
 * policy: tile (per tile), row (whole row of H), strided (stride 4), user
 * (table: groups of 4 consecutive tiles). Every mode runs with every tile
 * configuration (BMxBNxBK, pipeline stages; -t picks one). Each mode is
 * checked before it is timed: H and Y poisoned, one run, both compared bit
 * for bit with the
 * stream run (itself checked against a plain fp32 reference on sampled
 * rows). Times: CUDA events around each iteration, the modes interleaved
 * round by round, median of -n.
 * cuBLAS (loaded at run time) times each GEMM alone for the TFLOP/s line.
 *
 *   gshmem-stage-mlp [-m M[,M...]] [-n iters] [-w warmup] [-t all|CONFIG]
 *                    [-H hidden] [-P tp] [-o raw.csv]
 * The CSV (appended; header when new) has one row per M and mode:
 *   M,config,mode,guard,median_us,min_us,mean_us,iters,check
 */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <algorithm>
#include <vector>

#include "stage_gemm.cuh"
#include "cublas_ref.h"
#include "stage_check.cuh"

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "gshmem-stage-mlp: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorString(e_));                                              \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

/* A gshmem call that returns a status (the library logged the cause). */
#define SCK(call)                                                                         \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_ != GSHMEM_SUCCESS) {                                                      \
            fprintf(stderr, "gshmem-stage-mlp: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                    gshmem_strerror(rc_));                                                \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

enum launch_kind { L_STREAM, L_PDL_BOUNDARY, L_SERIAL_COUNTER, L_SERIAL_POST, L_SERIAL_STAGE,
                   L_PDL_STAGE, L_GUARD };
static const char *const policy_names[] = {"tile", "row", "strided", "user"};

typedef struct prob {
    int M, K1, N1, N2;
    __half *X, *W1, *W2, *H, *Y, *H0, *Y0;
    cudaStream_t s1, s2;
    int nsm;
} prob_t;

/* ---- data, checks, reference ---------------------------------------------------------- */

__device__ __forceinline__ uint32_t mlp_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* uniform in [-scale, scale) */
__global__ void fill_kernel(__half *p, size_t n, uint32_t seed, float scale)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = mlp_mix(mlp_mix(seed) ^ (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9e3779b9u);
        p[i] = __float2half_rn(((float)(h >> 8) * (1.f / 8388608.f) - 1.f) * scale);
    }
}

/* fp32 reference of rows[] of act(A B), compared with got. */
__global__ void ref_kernel(const __half *A, const __half *B, const __half *got, const int *rows,
                           int nrows, int N, int K, int gelu, unsigned long long *bad)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nrows * N)
        return;
    int r = rows[idx / N], n = idx % N;
    float s = 0.f;
    for (int k = 0; k < K; k++)
        s += __half2float(A[(size_t)r * K + k]) * __half2float(B[(size_t)k * N + n]);
    if (gelu)
        s = stage_gelu(s);
    float g = __half2float(got[(size_t)r * N + n]);
    if (!(fabsf(g - s) <= 0.02f + 0.02f * fabsf(s)))
        atomicAdd(bad, 1ull);
}

static unsigned long long *g_bad;

/* One thread sleeps ns: the host queues an iteration meanwhile. */
__global__ void delay_kernel(unsigned ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

static unsigned long long count_diff(const __half *a, const __half *b, size_t n)
{
    unsigned long long h = 0;
    CK(cudaMemset(g_bad, 0, sizeof h));
    stage_count_diff_kernel<unsigned short><<<1024, 256>>>((const unsigned short *)a,
                                                           (const unsigned short *)b, n, g_bad);
    CK(cudaMemcpy(&h, g_bad, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

/* Sampled rows of H and Y against the fp32 reference (Y from the H computed). */
static unsigned long long check_reference(const prob_t *p)
{
    int nr = p->M < 16 ? p->M : 16, rows[16];
    for (int i = 0; i < nr; i++)
        rows[i] = (int)((long long)i * p->M / nr);
    int *drows = NULL;
    unsigned long long h = 0;
    CK(cudaMalloc((void **)&drows, sizeof rows));
    CK(cudaMemcpy(drows, rows, sizeof rows, cudaMemcpyHostToDevice));
    CK(cudaMemset(g_bad, 0, sizeof h));
    ref_kernel<<<(nr * p->N1 + 255) / 256, 256>>>(p->X, p->W1, p->H, drows, nr, p->N1, p->K1, 1,
                                                 g_bad);
    ref_kernel<<<(nr * p->N2 + 255) / 256, 256>>>(p->H, p->W2, p->Y, drows, nr, p->N2, p->N1, 0,
                                                 g_bad);
    CK(cudaMemcpy(&h, g_bad, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(drows));
    return h;
}

/* ---- one tile configuration ------------------------------------------------------------ */

typedef struct stage_tables {
    std::vector<uint32_t> sem, expected;
} stage_tables_t;

/* Producer policy k on a grid of gx x gy tiles (user: groups of 4). */
static gshmem_stage_policy_t make_policy(int k, uint32_t gx, uint32_t gy, stage_tables_t *t)
{
    gshmem_stage_policy_t p;
    memset(&p, 0, sizeof p);
    p.kind = k == 0 ? GSHMEM_STAGE_PER_TILE : k == 1 ? GSHMEM_STAGE_PER_ROW
           : k == 2 ? GSHMEM_STAGE_STRIDED : GSHMEM_STAGE_USER;
    p.stride = 4;
    if (k == 3) {
        uint32_t per_row = (gx + 3) / 4;
        t->sem.resize((size_t)gx * gy);
        t->expected.assign((size_t)per_row * gy, 0);
        for (uint32_t y = 0; y < gy; y++)
            for (uint32_t x = 0; x < gx; x++) {
                uint32_t s = y * per_row + x / 4;
                t->sem[y * gx + x] = s;
                t->expected[s]++;
            }
        p.n_user_sems = per_row * gy;
        p.user_sem = t->sem.data();
        p.user_expected = t->expected.data();
    }
    return p;
}

template <class C>
struct mlp_cfg {
    static constexpr int BM = C::BM, BN = C::BN;

    static void prepare(void)
    {
        CK((stage_gemm_prepare<C, true, SYNC_NONE>()));
        CK((stage_gemm_prepare<C, true, SYNC_PRIMARY>()));
        CK((stage_gemm_prepare<C, true, SYNC_PRODUCER>()));
        CK((stage_gemm_prepare<C, false, SYNC_NONE>()));
        CK((stage_gemm_prepare<C, false, SYNC_SECONDARY>()));
        CK((stage_gemm_prepare<C, false, SYNC_CONSUMER>()));
        CK((stage_gemm_prepare<C, true, SYNC_COUNTER>()));
        CK((stage_gemm_prepare<C, false, SYNC_COUNTER>()));
    }

    static int mt(const prob_t *p) { return (p->M + BM - 1) / BM; }

    static stage_gemm_args_t a1(const prob_t *p)
    {
        stage_gemm_args_t a = {p->X, p->W1, p->H, p->M, p->N1, p->K1, 0};
        return a;
    }

    static stage_gemm_args_t a2(const prob_t *p)
    {
        stage_gemm_args_t a = {p->H, p->W2, p->Y, p->M, p->N2, p->N1, BN};
        return a;
    }

    static int guard_needed(const prob_t *p)
    {
        int pb = 0, cb = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &pb, stage_gemm_kernel<C, true, SYNC_PRODUCER>, C::THREADS, C::SMEM));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &cb, stage_gemm_kernel<C, false, SYNC_CONSUMER>, C::THREADS, C::SMEM));
        return gshmem_stage_guard_needed((p->N1 / BN) * mt(p), pb, (p->N2 / BN) * mt(p), cb,
                                         p->nsm);
    }

    static void gemm1_alone(const prob_t *p)
    {
        gshmem_stage_t z;
        memset(&z, 0, sizeof z);
        stage_gemm_kernel<C, true, SYNC_NONE>
            <<<(p->N1 / BN) * mt(p), C::THREADS, C::SMEM, p->s1>>>(a1(p), z, z);
    }

    static void gemm2_alone(const prob_t *p)
    {
        gshmem_stage_t z;
        memset(&z, 0, sizeof z);
        stage_gemm_kernel<C, false, SYNC_NONE>
            <<<(p->N2 / BN) * mt(p), C::THREADS, C::SMEM, p->s1>>>(a2(p), z, z);
    }

    /* One iteration of a mode between events e0 (s1) and e1. */
    static void launch(const prob_t *p, int kind, gshmem_stage_t *ps, gshmem_stage_t *cs,
                       int guard, cudaEvent_t e0, cudaEvent_t e1, cudaEvent_t done)
    {
        gshmem_stage_t z;
        memset(&z, 0, sizeof z);
        const int n1 = (p->N1 / BN) * mt(p), n2 = (p->N2 / BN) * mt(p);
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        gshmem_stage_pdl_config(&cfg, &attr, dim3(n2), dim3(C::THREADS), C::SMEM, p->s1);
        switch (kind) {
        case L_STREAM:
            CK(cudaEventRecord(e0, p->s1));
            gemm1_alone(p);
            gemm2_alone(p);
            CK(cudaEventRecord(e1, p->s1));
            break;
        case L_PDL_BOUNDARY:
            CK(cudaEventRecord(e0, p->s1));
            stage_gemm_kernel<C, true, SYNC_PRIMARY>
                <<<n1, C::THREADS, C::SMEM, p->s1>>>(a1(p), z, z);
            CK(cudaLaunchKernelEx(&cfg, stage_gemm_kernel<C, false, SYNC_SECONDARY>, a2(p),
                                  z, z));
            CK(cudaEventRecord(e1, p->s1));
            break;
        case L_SERIAL_COUNTER:
            gshmem_stage_begin(ps);
            gshmem_stage_begin(cs);
            CK(cudaEventRecord(e0, p->s1));
            stage_gemm_kernel<C, true, SYNC_COUNTER>
                <<<n1, C::THREADS, C::SMEM, p->s1>>>(a1(p), *ps, z);
            stage_gemm_kernel<C, false, SYNC_COUNTER>
                <<<n2, C::THREADS, C::SMEM, p->s1>>>(a2(p), *cs, z);
            CK(cudaEventRecord(e1, p->s1));
            break;
        case L_SERIAL_POST:
            gshmem_stage_begin(ps);
            gshmem_stage_begin(cs);
            CK(cudaEventRecord(e0, p->s1));
            stage_gemm_kernel<C, true, SYNC_PRODUCER>
                <<<n1, C::THREADS, C::SMEM, p->s1>>>(a1(p), *ps, z);
            stage_gemm_kernel<C, false, SYNC_COUNTER>
                <<<n2, C::THREADS, C::SMEM, p->s1>>>(a2(p), *cs, z);
            CK(cudaEventRecord(e1, p->s1));
            break;
        case L_SERIAL_STAGE:
            gshmem_stage_begin(ps);
            gshmem_stage_begin(cs);
            CK(cudaEventRecord(e0, p->s1));
            stage_gemm_kernel<C, true, SYNC_PRODUCER>
                <<<n1, C::THREADS, C::SMEM, p->s1>>>(a1(p), *ps, z);
            stage_gemm_kernel<C, false, SYNC_CONSUMER>
                <<<n2, C::THREADS, C::SMEM, p->s1>>>(a2(p), *cs, *ps);
            CK(cudaEventRecord(e1, p->s1));
            break;
        case L_PDL_STAGE:
            gshmem_stage_begin(ps);
            gshmem_stage_begin(cs);
            CK(cudaEventRecord(e0, p->s1));
            stage_gemm_kernel<C, true, SYNC_PRODUCER>
                <<<n1, C::THREADS, C::SMEM, p->s1>>>(a1(p), *ps, z);
            CK(cudaLaunchKernelEx(&cfg, stage_gemm_kernel<C, false, SYNC_CONSUMER>, a2(p),
                                  *cs, *ps));
            CK(cudaEventRecord(e1, p->s1));
            break;
        default: /* L_GUARD */
            gshmem_stage_begin(ps);
            gshmem_stage_begin(cs);
            CK(cudaStreamWaitEvent(p->s1, done, 0));   /* H free: last GEMM2 done */
            CK(cudaEventRecord(e0, p->s1));
            stage_gemm_kernel<C, true, SYNC_PRODUCER>
                <<<n1, C::THREADS, C::SMEM, p->s1>>>(a1(p), *ps, z);
            if (guard)
                SCK(gshmem_stage_launch_guard(ps, p->s2));
            stage_gemm_kernel<C, false, SYNC_CONSUMER>
                <<<n2, C::THREADS, C::SMEM, p->s2>>>(a2(p), *cs, *ps);
            CK(cudaEventRecord(e1, p->s2));
            CK(cudaEventRecord(done, p->s2));
            break;
        }
        CK(cudaGetLastError());
    }
};

/* ---- timing ----------------------------------------------------------------------------- */

typedef struct stats {
    double median, min, mean;
} stats_t;

static stats_t stats_of(std::vector<double> v)
{
    stats_t s = {0, 0, 0};
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.min = v[0];
    for (double x : v)
        s.mean += x / n;
    return s;
}

/* Runs fn(e0, e1) warmup + iters times; per-iteration microseconds. */
template <class F>
static stats_t time_it(int iters, int warmup, F fn)
{
    std::vector<cudaEvent_t> e0(iters), e1(iters);
    cudaEvent_t w0, w1;
    CK(cudaEventCreate(&w0));
    CK(cudaEventCreate(&w1));
    for (int i = 0; i < iters; i++) {
        CK(cudaEventCreate(&e0[i]));
        CK(cudaEventCreate(&e1[i]));
    }
    for (int i = 0; i < warmup; i++)
        fn(w0, w1);
    for (int i = 0; i < iters; i++)
        fn(e0[i], e1[i]);
    CK(cudaDeviceSynchronize());
    std::vector<double> us(iters);
    for (int i = 0; i < iters; i++) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0[i], e1[i]));
        us[i] = ms * 1000.0;
        CK(cudaEventDestroy(e0[i]));
        CK(cudaEventDestroy(e1[i]));
    }
    CK(cudaEventDestroy(w0));
    CK(cudaEventDestroy(w1));
    return stats_of(us);
}

typedef struct opts {
    std::vector<int> Ms;
    int iters, warmup, hidden, tp;
    const char *tile, *csv;
} opts_t;

static FILE *g_csv;

static void csv_row(int M, const char *cfg, const char *mode, int guard, stats_t s, int iters,
                    const char *check)
{
    if (g_csv == NULL)
        return;
    fprintf(g_csv, "%d,%s,%s,%d,%.2f,%.2f,%.2f,%d,%s\n", M, cfg, mode, guard, s.median, s.min,
            s.mean, iters, check);
    fflush(g_csv);
}

/* Poisons H and Y (NaN) and waits: the streams of the modes do not order
 * with the legacy stream that cudaMemset uses. */
static void poison_outputs(const prob_t *p)
{
    CK(cudaMemsetAsync(p->H, 0xff, (size_t)p->M * p->N1 * 2, p->s1));
    CK(cudaMemsetAsync(p->Y, 0xff, (size_t)p->M * p->N2 * 2, p->s1));
    CK(cudaDeviceSynchronize());
}

/* Every mode of one M with tile configuration C. */
template <class C>
static void run_all(prob_t *p, const opts_t *o, const char *cfg)
{
    typedef mlp_cfg<C> R;
    R::prepare();
    cudaEvent_t done, s0, s1e;
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CK(cudaEventCreate(&s0));
    CK(cudaEventCreate(&s1e));
    CK(cudaEventRecord(done, p->s2));
    size_t nh = (size_t)p->M * p->N1, ny = (size_t)p->M * p->N2;

    /* the reference run (stream order), checked against fp32 on sampled rows */
    poison_outputs(p);
    R::launch(p, L_STREAM, NULL, NULL, 0, s0, s1e, done);
    CK(cudaDeviceSynchronize());
    unsigned long long bad = check_reference(p);
    printf("M %d, tiles %s: reference check of H and Y on sampled rows: %llu wrong\n", p->M,
           cfg, bad);
    if (bad != 0) {
        fprintf(stderr, "gshmem-stage-mlp: M %d, tiles %s: the GEMM kernel is wrong (%llu "
                "values off)\n", p->M, cfg, bad);
        exit(1);
    }
    CK(cudaMemcpy(p->H0, p->H, nh * 2, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(p->Y0, p->Y, ny * 2, cudaMemcpyDeviceToDevice));
    /* a device-to-device cudaMemcpy may return before it is done, and the
     * poison of the next check goes to another stream */
    CK(cudaDeviceSynchronize());

    int guard = R::guard_needed(p);
    const int mt = R::mt(p);
    enum { NM = 13 };
    int kinds[NM], pols[NM], n = 0;
    kinds[n] = L_STREAM, pols[n++] = -1;
    kinds[n] = L_PDL_BOUNDARY, pols[n++] = -1;
    kinds[n] = L_SERIAL_COUNTER, pols[n++] = 0;
    kinds[n] = L_SERIAL_POST, pols[n++] = 1;
    kinds[n] = L_SERIAL_STAGE, pols[n++] = 1;
    for (int k = 0; k < 4; k++)   /* PDL first: no consumer block can starve a producer */
        kinds[n] = L_PDL_STAGE, pols[n++] = k;
    for (int k = 0; k < 4; k++)
        kinds[n] = L_GUARD, pols[n++] = k;
    char names[NM][32];
    stage_tables_t tb[NM];
    gshmem_stage_t ps[NM], cs[NM];
    int ok[NM];
    memset(ps, 0, sizeof ps);
    memset(cs, 0, sizeof cs);
    /* stages, then the check of every mode: poisoned H and Y, one run,
     * bitwise equal to the reference run */
    for (int i = 0; i < n; i++) {
        int staged = kinds[i] >= L_SERIAL_COUNTER;
        snprintf(names[i], sizeof names[i], "%s%s",
                 kinds[i] == L_STREAM ? "stream" : kinds[i] == L_PDL_BOUNDARY ? "pdl_boundary"
                 : kinds[i] == L_SERIAL_COUNTER ? "serial_counter"
                 : kinds[i] == L_SERIAL_POST ? "serial_post"
                 : kinds[i] == L_SERIAL_STAGE ? "serial_" : kinds[i] == L_PDL_STAGE ? "pdl_"
                 : "guard_", kinds[i] >= L_SERIAL_STAGE ? policy_names[pols[i]] : "");
        if (staged) {
            gshmem_stage_policy_t pol = make_policy(pols[i], p->N1 / C::BN, mt, &tb[i]);
            uint32_t fl = GSHMEM_STAGE_COUNTER |
                          (kinds[i] == L_PDL_STAGE ? GSHMEM_STAGE_RELEASE_DEPENDENTS : 0);
            if (gshmem_stage_create(&ps[i], p->N1 / C::BN, mt, &pol, GSHMEM_STAGE_ROW_MAJOR,
                                    NULL, fl) != GSHMEM_SUCCESS ||
                gshmem_stage_create(&cs[i], p->N2 / C::BN, mt, NULL, GSHMEM_STAGE_ROW_MAJOR,
                                    NULL, GSHMEM_STAGE_COUNTER) != GSHMEM_SUCCESS)
                exit(1);   /* the library logged why */
            ps[i].timeout_ns = 5000000000ull;   /* a lost post fails the run in 5 s */
        }
        poison_outputs(p);
        R::launch(p, kinds[i], &ps[i], &cs[i], guard, s0, s1e, done);
        CK(cudaDeviceSynchronize());
        unsigned long long dh = count_diff(p->H, p->H0, nh), dy = count_diff(p->Y, p->Y0, ny);
        ok[i] = dh == 0 && dy == 0;
        if (!ok[i])
            printf("%s: FAILED: %llu of H, %llu of Y differ from the stream run\n", names[i],
                   dh, dy);
    }
    /* timing, interleaved: each round runs every mode once, starting at a
     * rotating mode, so clocks and temperature drift alike for all; a
     * short sleep kernel first lets the host queue the whole iteration
     * before the GPU reaches the first event */
    const int rounds = o->warmup + o->iters;
    std::vector<std::vector<cudaEvent_t>> ev0(n), ev1(n);
    std::vector<std::vector<double>> us(n);
    for (int i = 0; i < n; i++) {
        ev0[i].resize(rounds);
        ev1[i].resize(rounds);
        for (int r = 0; r < rounds; r++) {
            CK(cudaEventCreate(&ev0[i][r]));
            CK(cudaEventCreate(&ev1[i][r]));
        }
    }
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < n; j++) {
            int i = (j + r) % n;
            if (!ok[i])
                continue;
            delay_kernel<<<1, 1, 0, p->s1>>>(20000);
            R::launch(p, kinds[i], &ps[i], &cs[i], guard, ev0[i][r], ev1[i][r], done);
            CK(cudaDeviceSynchronize());
        }
    double base = 0;
    printf("%-16s %10s %10s %10s  %s\n", "mode", "median_us", "min_us", "vs_stream", "check");
    for (int i = 0; i < n; i++) {
        stats_t st = {0, 0, 0};
        if (ok[i]) {
            for (int r = o->warmup; r < rounds; r++) {
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, ev0[i][r], ev1[i][r]));
                us[i].push_back(ms * 1000.0);
            }
            st = stats_of(us[i]);
        }
        if (kinds[i] == L_STREAM)
            base = st.median;
        printf("%-16s %10.1f %10.1f %9.3fx  %s\n", names[i], st.median, st.min,
               ok[i] && base > 0 ? base / st.median : 0.0, ok[i] ? "ok" : "FAILED");
        csv_row(p->M, cfg, names[i], kinds[i] == L_GUARD ? guard : 0, st, o->iters,
                ok[i] ? "ok" : "FAILED");
        for (int r = 0; r < rounds; r++) {
            CK(cudaEventDestroy(ev0[i][r]));
            CK(cudaEventDestroy(ev1[i][r]));
        }
        if (kinds[i] >= L_SERIAL_COUNTER) {
            gshmem_stage_destroy(&cs[i]);
            gshmem_stage_destroy(&ps[i]);
        }
    }
    printf("guard kernel: %s (grids %d + %d blocks)\n", guard ? "used" : "skipped (co-resident)",
           (p->N1 / C::BN) * mt, (p->N2 / C::BN) * mt);

    /* each GEMM alone */
    stats_t g1 = time_it(o->iters, o->warmup, [&](cudaEvent_t a, cudaEvent_t b) {
        CK(cudaEventRecord(a, p->s1));
        R::gemm1_alone(p);
        CK(cudaEventRecord(b, p->s1));
    });
    stats_t g2 = time_it(o->iters, o->warmup, [&](cudaEvent_t a, cudaEvent_t b) {
        CK(cudaEventRecord(a, p->s1));
        R::gemm2_alone(p);
        CK(cudaEventRecord(b, p->s1));
    });
    csv_row(p->M, cfg, "gemm1_ours", 0, g1, o->iters, "ok");
    csv_row(p->M, cfg, "gemm2_ours", 0, g2, o->iters, "ok");
    double f1 = 2.0 * p->M * p->N1 * p->K1, f2 = 2.0 * p->M * p->N2 * p->N1;
    printf("gshmem GEMM1 %.1f us = %.1f TFLOP/s, GEMM2 %.1f us = %.1f TFLOP/s\n\n", g1.median,
           f1 / g1.median * 1e-6, g2.median, f2 / g2.median * 1e-6);
    CK(cudaEventDestroy(done));
    CK(cudaEventDestroy(s0));
    CK(cudaEventDestroy(s1e));
}

/* cuBLAS: each GEMM alone and the pair (without GELU), same shapes. */
static void run_cublas(prob_t *p, const opts_t *o)
{
    cublas_ref_t cb;
    if (cublas_ref_open(&cb, p->s1) != 0)
        return;
    size_t nh = (size_t)p->M * p->N1, ny = (size_t)p->M * p->N2;
    __half *Hc = NULL, *Yc = NULL;
    CK(cudaMalloc((void **)&Hc, nh * 2));
    CK(cudaMalloc((void **)&Yc, ny * 2));
    int err = 0;
    stats_t c1 = time_it(o->iters, o->warmup, [&](cudaEvent_t a, cudaEvent_t b) {
        CK(cudaEventRecord(a, p->s1));
        err |= cublas_ref_gemm(&cb, p->X, p->W1, Hc, p->M, p->N1, p->K1);
        CK(cudaEventRecord(b, p->s1));
    });
    stats_t c2 = time_it(o->iters, o->warmup, [&](cudaEvent_t a, cudaEvent_t b) {
        CK(cudaEventRecord(a, p->s1));
        err |= cublas_ref_gemm(&cb, Hc, p->W2, Yc, p->M, p->N2, p->N1);
        CK(cudaEventRecord(b, p->s1));
    });
    stats_t cp = time_it(o->iters, o->warmup, [&](cudaEvent_t a, cudaEvent_t b) {
        CK(cudaEventRecord(a, p->s1));
        err |= cublas_ref_gemm(&cb, p->X, p->W1, Hc, p->M, p->N1, p->K1);
        err |= cublas_ref_gemm(&cb, Hc, p->W2, Yc, p->M, p->N2, p->N1);
        CK(cudaEventRecord(b, p->s1));
    });
    const char *ck = err ? "FAILED" : "ok";
    csv_row(p->M, "cublas", "gemm1_cublas", 0, c1, o->iters, ck);
    csv_row(p->M, "cublas", "gemm2_cublas", 0, c2, o->iters, ck);
    csv_row(p->M, "cublas", "cublas_pair", 0, cp, o->iters, ck);
    double f1 = 2.0 * p->M * p->N1 * p->K1, f2 = 2.0 * p->M * p->N2 * p->N1;
    printf("cuBLAS GEMM1 %.1f us = %.1f TFLOP/s, GEMM2 %.1f us = %.1f TFLOP/s, both (no GELU) "
           "%.1f us%s\n", c1.median, f1 / c1.median * 1e-6, c2.median, f2 / c2.median * 1e-6,
           cp.median, err ? " (cuBLAS reported errors)" : "");
    CK(cudaFree(Hc));
    CK(cudaFree(Yc));
    cublas_ref_close(&cb);
}

/* The tile configurations: BMxBNxBK/stages. */
typedef stage_gemm_cfg<128, 128, 32, 4> cfg_a;
typedef stage_gemm_cfg<128, 128, 64, 3> cfg_b;
typedef stage_gemm_cfg<64, 128, 64, 3> cfg_c;
typedef stage_gemm_cfg<64, 64, 64, 3> cfg_d;
static const char *const cfg_names[] = {"128x128x32s4", "128x128x64s3", "64x128x64s3",
                                        "64x64x64s3"};

static void run_m(int M, const opts_t *o)
{
    prob_t p;
    memset(&p, 0, sizeof p);
    p.M = M;
    p.K1 = o->hidden;
    p.N1 = 4 * o->hidden / o->tp;
    p.N2 = o->hidden;
    int dev = 0, lo = 0, hi = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&p.nsm, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK(cudaStreamCreateWithPriority(&p.s1, cudaStreamNonBlocking, hi));   /* producer */
    CK(cudaStreamCreateWithPriority(&p.s2, cudaStreamNonBlocking, lo));   /* consumer */
    if (p.N1 % 128 != 0 || p.N2 % 128 != 0 || p.K1 % 64 != 0) {
        fprintf(stderr, "gshmem-stage-mlp: hidden %d / tp %d gives N1 %d, N2 %d, K %d: need "
                "multiples of 128, 128, 64\n", o->hidden, o->tp, p.N1, p.N2, p.K1);
        exit(1);
    }
    size_t nx = (size_t)M * p.K1, nw1 = (size_t)p.K1 * p.N1, nw2 = (size_t)p.N1 * p.N2;
    size_t nh = (size_t)M * p.N1, ny = (size_t)M * p.N2;
    CK(cudaMalloc((void **)&p.X, nx * 2));
    CK(cudaMalloc((void **)&p.W1, nw1 * 2));
    CK(cudaMalloc((void **)&p.W2, nw2 * 2));
    CK(cudaMalloc((void **)&p.H, nh * 2));
    CK(cudaMalloc((void **)&p.Y, ny * 2));
    CK(cudaMalloc((void **)&p.H0, nh * 2));
    CK(cudaMalloc((void **)&p.Y0, ny * 2));
    /* unit-variance products: U(-1,1) inputs, weights scaled by 3 / sqrt(K) */
    fill_kernel<<<2048, 256>>>(p.X, nx, 11u + M, 1.f);
    fill_kernel<<<2048, 256>>>(p.W1, nw1, 12u, 3.f / sqrtf((float)p.K1));
    fill_kernel<<<2048, 256>>>(p.W2, nw2, 13u, 3.f / sqrtf((float)p.N1));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("M %d (X [%d,%d], W1 [%d,%d], W2 [%d,%d]), %d SMs\n", M, M, p.K1, p.K1, p.N1, p.N1,
           p.N2, p.nsm);
    int any = 0;
    for (int c = 0; c < 4; c++) {
        if (strcmp(o->tile, "all") != 0 && strcmp(o->tile, cfg_names[c]) != 0)
            continue;
        any = 1;
        printf("-- M %d, tiles %s --\n", M, cfg_names[c]);
        switch (c) {
        case 0: run_all<cfg_a>(&p, o, cfg_names[c]); break;
        case 1: run_all<cfg_b>(&p, o, cfg_names[c]); break;
        case 2: run_all<cfg_c>(&p, o, cfg_names[c]); break;
        default: run_all<cfg_d>(&p, o, cfg_names[c]); break;
        }
    }
    if (!any) {
        fprintf(stderr, "gshmem-stage-mlp: -t %s: use all, %s, %s, %s or %s\n", o->tile,
                cfg_names[0], cfg_names[1], cfg_names[2], cfg_names[3]);
        exit(1);
    }
    run_cublas(&p, o);
    cudaFree(p.X);
    cudaFree(p.W1);
    cudaFree(p.W2);
    cudaFree(p.H);
    cudaFree(p.Y);
    cudaFree(p.H0);
    cudaFree(p.Y0);
    CK(cudaStreamDestroy(p.s1));
    CK(cudaStreamDestroy(p.s2));
}

int main(int argc, char **argv)
{
    opts_t o;
    o.iters = 30;
    o.warmup = 5;
    o.hidden = 12288;
    o.tp = 8;
    o.tile = "all";
    o.csv = NULL;
    int c;
    while ((c = getopt(argc, argv, "m:n:w:t:H:P:o:h")) != -1) {
        switch (c) {
        case 'm':
            for (char *s = optarg; *s;) {
                char *end = NULL;
                long v = strtol(s, &end, 10);
                if (end == s || v < 1 || v > 65536) {
                    fprintf(stderr, "gshmem-stage-mlp: -m %s: sizes 1..65536, comma-separated\n",
                            optarg);
                    return 1;
                }
                o.Ms.push_back((int)v);
                s = *end == ',' ? end + 1 : end;
            }
            break;
        case 'n': o.iters = atoi(optarg); break;
        case 'w': o.warmup = atoi(optarg); break;
        case 't': o.tile = optarg; break;
        case 'H': o.hidden = atoi(optarg); break;
        case 'P': o.tp = atoi(optarg); break;
        case 'o': o.csv = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-m M[,M...]] [-n iters] [-w warmup] "
                    "[-t all|CONFIG] [-H hidden] [-P tp] [-o raw.csv]\n", argv[0]);
            return c == 'h' ? 0 : 1;
        }
    }
    if (o.iters < 20) {
        fprintf(stderr, "gshmem-stage-mlp: -n %d raised to 20 (medians of at least 20)\n",
                o.iters);
        o.iters = 20;
    }
    if (o.warmup < 0 || o.hidden <= 0 || o.tp <= 0) {
        fprintf(stderr, "gshmem-stage-mlp: bad -w, -H or -P\n");
        return 1;
    }
    if (o.Ms.empty())
        o.Ms = {1, 64, 256, 512, 1024, 2048};
    if (o.csv != NULL) {
        int fresh = access(o.csv, F_OK) != 0;
        g_csv = fopen(o.csv, "a");
        if (g_csv == NULL) {
            perror(o.csv);
            return 1;
        }
        if (fresh)
            fprintf(g_csv, "M,config,mode,guard,median_us,min_us,mean_us,iters,check\n");
    }
    CK(cudaMalloc((void **)&g_bad, sizeof(unsigned long long)));
    for (int M : o.Ms)
        run_m(M, &o);
    if (g_csv != NULL)
        fclose(g_csv);
    return 0;
}

/* gshmem-stage-dlrm: DLRM's feature interaction consuming the fused
 * embedding + All-to-All output (apps/dlrm/dlrm_fused.h) slice by slice.
 *
 * Per PE q: F[b] = out[b] seen as [T, D] (one pooled row per global table,
 * dlrm-contract.md's layout), and the interaction Z[b] = the dot products
 * F[b][i] . F[b][j] for i < j, stored [B/P][T (T - 1) / 2] (pair (i, j) at
 * i T - i (i + 1) / 2 + j - i - 1), fp32.
 *
 * Timed in one run on the same inputs (events around both kernels, the max
 * over PEs per iteration, the median over iterations):
 *   boundary   the fused kernel (its own full grid, table-major work order)
 *              waits for every incoming slice itself, the interaction kernel
 *              follows on the stream (a kernel boundary);
 *   per_slice  both kernels at once on the GPU: the fused kernel, ending
 *              when this PE's own slices are sent (DLRM_FUSED_NO_WAIT), on
 *              a high-priority stream with its full grid or one block less
 *              per SM (an interaction block fits beside the full grid, more
 *              beside the smaller one: pooling is DRAM-bound, the
 *              interaction shared-memory-bound); the interaction kernel
 *              on a second stream behind a launch guard, its work items
 *              (1 to 8 samples of one slice x two blocks of 32 tables) taken
 *              from the stage's counter in the order their inputs arrive
 *              (arrival_order), each waiting only for that slice of the PEs
 *              owning its tables, through a stage view of the fused
 *              kernel's ready signals (gshmem_stage_wrap: semaphore s * G + g
 *              holds the run number once slice g from PE s is in place).
 *              The split (the fused kernel's work order, table or slice;
 *              k = its maximum, or one less; the L1 / shared memory
 *              preference both kernels launch with) is tuned per case:
 *              every candidate is checked, then timed 1 + TUNE_ITERS
 *              iterations; the fastest is timed against boundary (-O / -k
 *              narrow the candidates). boundary keeps the default
 *              preference.
 * Deadlock freedom: see launch_per_slice.
 * Checked first: output and Z poisoned on every PE, one run of boundary and
 * of every per_slice candidate, Z bitwise equal to boundary's and sampled
 * entries equal to a double precision dot product on the host.
 *
 *   gshmemrun -n P gshmem-stage-dlrm [-t tables/PE[,..]] [-b batch[,..]] [-d dim]
 *       [-r rows/table] [-l lmax] [-s slice rows] [-n iters] [-w warmup] [-o raw.csv]
 *       [-k fused blocks/SM] [-O table|slice]
 * Defaults: BENCHMARKS.md's G set (dim 256, 1e5 rows, Lmax 128, batch
 * 512..8192, 32..256 tables per PE). Needs GSHMEM_HEAP=cuda. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <string>
#include <vector>

#include "app_stats.h"
#include "dlrm_fused.h"
#include "dlrm_gen.h"
#include "dlrm_inputs.h"
#include "gshmem.h"
#include "gshmem_stage.h"
#include "stage_check.cuh"

#define DCK(call)                                                                        \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "gshmem-stage-dlrm: PE %d: %s:%d: %s: %s\n", gshmem_my_pe(), \
                    __FILE__, __LINE__, #call, cudaGetErrorString(e_));                  \
            gshmem_global_exit(1);                                                       \
        }                                                                                \
    } while (0)

/* A gshmem call that returns a status (the library logged the cause). */
#define GCK(call)                                                                        \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        if (rc_ != GSHMEM_SUCCESS) {                                                     \
            fprintf(stderr, "gshmem-stage-dlrm: PE %d: %s:%d: %s: %s\n", gshmem_my_pe(), \
                    __FILE__, __LINE__, #call, gshmem_strerror(rc_));                    \
            gshmem_global_exit(1);                                                       \
        }                                                                                \
    } while (0)

#define TT 32      /* tables per interaction tile side */
#define KC 64      /* dim chunk in shared memory */
#define KP 68      /* row pitch in shared memory: rows 16-byte aligned (cp.async) */
#define IBLK 128   /* interaction threads per block */
/* Blocks per SM the interaction kernel is compiled for: 32 registers a
 * thread, 4096 a block, which is what three fused blocks (256 threads x 80
 * registers) leave of an SM's 65536: one interaction block fits beside the
 * fused kernel's full grid. */
#define IMINB 16

typedef struct interact_args {
    const float *out;     /* [Bp][T * D] */
    float *z;             /* [Bp][T (T - 1) / 2] */
    int64_t T, Bp;
    int D, rows, P, nt, pairs, sub, subs;   /* sub: samples per work item */
} interact_args_t;

/* The PE owning global table t (dlrm_plan.h's split). */
__host__ __device__ static inline int owner_of(int64_t t, int64_t T, int P)
{
    int s = 0;
    while (s + 1 < P && dlrm_tstart(T, P, s + 1) <= t)
        s++;
    return s;
}

/* Pair number -> table blocks (ti, tj), ti <= tj. */
__host__ __device__ static inline void pair_decode(int pair, int nt, int *ti_p, int *tj_p)
{
    int ti = 0;
    while (pair >= nt - ti) {
        pair -= nt - ti;
        ti++;
    }
    *ti_p = ti;
    *tj_p = ti + pair;
}

/* The PEs owning the tables of block tb: [*lo_p, *hi_p] (contiguous). */
__host__ __device__ static inline void block_owners(int tb, int64_t T, int P, int *lo_p, int *hi_p)
{
    const int64_t t0 = (int64_t)tb * TT, t1 = t0 + TT < T ? t0 + TT : T;
    *lo_p = owner_of(t0, T, P);
    *hi_p = owner_of(t1 - 1, T, P);
}

/* 16 bytes global -> shared without registers, through L2 only (.cg: the
 * rows were written by other GPUs and this GPU's fused kernel); zeros
 * when !valid. */
__device__ __forceinline__ void copy16_async(float *dst, const float *src, bool valid)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src),
                 "r"(valid ? 16 : 0)
                 : "memory");
}

/* Work item (x, slice y) of the interaction stage, x = sub * pairs + pair:
 * samples [sub * a.sub, (sub + 1) * a.sub) of slice y, the dot products of
 * table block ti with block tj. With wait != 0 it first waits for slice y
 * of every PE owning a table of either block (the only columns it reads),
 * through the view sig of the ready signals. Thread t computes rows
 * t / 8 and t / 8 + 16 against columns t % 8 + 8 q (q < 4) of the 32 x 32
 * block (conflict-free shared reads at pitch KP); every product is summed
 * over d in order (fma), the same in every mode, so Z is bitwise the same.
 * The chunks (one sample, KC dims) are double-buffered with cp.async. */
__global__ void __launch_bounds__(IBLK, IMINB) interact_kernel(interact_args_t a,
                                                               gshmem_stage_t self,
                                                               gshmem_stage_t sig, int wait)
{
    __shared__ __align__(16) float buf[2][2][TT * KP];   /* [buffer][block i / j][row * KP + col] */
    const gshmem_stage_tile_t w = gshmem_stage_tile(self);
    const int g = (int)w.y, sub = (int)w.x / a.pairs;
    int ti, tj;
    pair_decode((int)w.x % a.pairs, a.nt, &ti, &tj);
    if (wait) {
        int ilo, ihi, jlo, jhi;   /* ilo <= jlo, ihi <= jhi since ti <= tj */
        block_owners(ti, a.T, a.P, &ilo, &ihi);
        block_owners(tj, a.T, a.P, &jlo, &jhi);
        uint32_t last = GSHMEM_STAGE_NO_SEM;
        for (int s = ilo; s <= jhi; s++) {
            if (s > ihi && s < jlo)
                continue;
            gshmem_stage_tile_t t = {(uint32_t)g, (uint32_t)s};
            gshmem_stage_wait(sig, t, &last);
        }
    }
    const int tid = threadIdx.x, i0 = tid >> 3, jl = tid & 7;
    const int64_t b0 = (int64_t)g * a.rows + (int64_t)sub * a.sub, ld = a.T * a.D;
    int n = a.sub;   /* samples of this item */
    if (a.rows - sub * a.sub < n)
        n = a.rows - sub * a.sub;
    if (a.Bp - b0 < n)
        n = (int)(a.Bp - b0);
    /* Copies: this thread moves quad column cq of rows r0 + 8 u (u < 4) of
     * both blocks' [TT][KC] chunk; mi / mj: which of those rows exist. */
    const int r0 = tid >> 4, cq = (tid & 15) * 4, D = a.D, nc = (D + KC - 1) / KC;
    const float *gi0 = a.out + b0 * ld + ((int64_t)ti * TT + r0) * D + cq;
    const float *gj0 = a.out + b0 * ld + ((int64_t)tj * TT + r0) * D + cq;
    unsigned mi = 0, mj = 0;
    for (int u = 0; u < 4; u++) {
        mi |= (unsigned)((int64_t)ti * TT + r0 + 8 * u < a.T) << u;
        mj |= (unsigned)((int64_t)tj * TT + r0 + 8 * u < a.T) << u;
    }
    /* chunk (k, cc): sample b0 + k, dims cc * KC ... into buffer k * nc + cc & 1 */
    auto issue = [&](int k, int cc) {
        const int64_t off = k * ld + cc * KC;
        const unsigned cv = cc * KC + cq < D ? 0xfu : 0u;
        float *di = buf[(k * nc + cc) & 1][0] + r0 * KP + cq;
        float *dj = buf[(k * nc + cc) & 1][1] + r0 * KP + cq;
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const bool oi = (mi & cv) >> u & 1u, oj = (mj & cv) >> u & 1u;
            copy16_async(di + 8 * u * KP, oi ? gi0 + off + 8 * u * D : a.out, oi);
            copy16_async(dj + 8 * u * KP, oj ? gj0 + off + 8 * u * D : a.out, oj);
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
    };
    if (n > 0)
        issue(0, 0);
    for (int k = 0; k < n; k++) {
        float acc[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
        for (int cc = 0; cc < nc; cc++) {
            const int nk = cc + 1 < nc ? k : k + 1, ncc = cc + 1 < nc ? cc + 1 : 0;
            if (nk < n) {   /* the next chunk's copy runs during this one's use */
                issue(nk, ncc);
                asm volatile("cp.async.wait_group 1;" ::: "memory");
            } else {
                asm volatile("cp.async.wait_group 0;" ::: "memory");
            }
            __syncthreads();   /* this chunk in place for every thread */
            const float *pi = buf[(k * nc + cc) & 1][0] + i0 * KP;
            const float *pj = buf[(k * nc + cc) & 1][1] + jl * KP;
#pragma unroll 4
            for (int c = 0; c < KC; c++) {
                const float x0 = pi[c], x1 = pi[16 * KP + c];
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const float y = pj[8 * q * KP + c];
                    acc[0][q] += x0 * y;
                    acc[1][q] += x1 * y;
                }
            }
            __syncthreads();   /* this chunk used up: its buffer is refilled two chunks on */
        }
        const int64_t b = b0 + k, np = a.T * (a.T - 1) / 2;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t gi = (int64_t)ti * TT + i0 + 16 * h;
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const int64_t gj = (int64_t)tj * TT + jl + 8 * q;
                if (gi < gj && gj < a.T)
                    a.z[b * np + gi * a.T - gi * (gi + 1) / 2 + gj - gi - 1] = acc[h][q];
            }
        }
    }
}

typedef struct opts {
    std::vector<long> tpp, batch;
    int dim, lmax, slice, iters, warmup, per_sm, order;
    long rows;
    const char *csv;
} opts_t;

enum { MODE_BOUNDARY = 0, MODE_PER_SLICE = 1, MODE_FUSED_ONLY = 2 };
#define TUNE_ITERS 3   /* timed iterations per per_slice candidate (after one warm-up) */

/* per_slice's split of the GPU: the fused kernel's work order (DLRM_ORDER_*),
 * its blocks per SM (its own maximum: the full grid of dlrm_fused_create)
 * and the L1 / shared memory preference both kernels launch with (one for
 * both: an SM whose resident fused blocks were placed with little shared
 * memory cannot take an interaction block, and a launch with another
 * preference may add a device-side synchronization point). boundary
 * launches with the default (none), as every other program does. */
enum { CACHE_NONE = 0, CACHE_EQUAL = 1, CACHE_SHARED = 2 };
static const cudaFuncCache cache_pref[3] = {cudaFuncCachePreferNone, cudaFuncCachePreferEqual,
                                            cudaFuncCachePreferShared};
static const char *const cache_name[3] = {"none", "equal", "shared"};
typedef struct split {
    int order, per_sm, cache;
} split_t;

typedef struct run {
    dlrm_part_t p;
    dlrm_fused_t f[2];        /* by work order: [DLRM_ORDER_TABLE] (boundary's), [DLRM_ORDER_SLICE] */
    int full_grid[2];         /* the grids dlrm_fused_create chose */
    float *W, *out, *stage, *z, *z0;
    int64_t *off, *idx, *wrow;
    size_t zn;
    interact_args_t ia;
    gshmem_stage_t ib, is;    /* interaction: boundary (row-major), per_slice (arrival order) */
    gshmem_stage_t sig[2];    /* wait-only views of f[o]'s ready signals */
    int sms, fused_per_sm, inter_per_sm;
    cudaStream_t s, s2;       /* s: high priority (fused, and boundary's whole run) */
    cudaEvent_t fork, join;
} run_t;

static void launch_boundary(run_t *r, int fused_only)
{
    if (dlrm_fused_launch(&r->f[DLRM_ORDER_TABLE], 0, r->s) == 0)
        gshmem_global_exit(1);
    if (fused_only)
        return;
    gshmem_stage_begin(&r->ib);
    interact_kernel<<<gshmem_stage_n_tiles(r->ib.grid), IBLK, 0, r->s>>>(
        r->ia, r->ib, r->sig[DLRM_ORDER_TABLE], 0);
    DCK(cudaGetLastError());
}

/* per_slice: the fused kernel (sp.per_sm blocks per SM, sp.order) on s and
 * the interaction kernel on s2 at the same time; s waits for s2 at the end.
 *
 * Why it cannot deadlock, whatever the two grids:
 * 1. A fused kernel never waits (DLRM_FUSED_NO_WAIT; P2P sends are stores,
 *    a fence and a signal store, see one_case's P2P check): its warps take
 *    items from a counter until none is left, so once one of its blocks is
 *    resident, that block alone finishes every item and sends every slice
 *    of the PE; blocks placed later find no work and exit.
 * 2. Interaction blocks only wait for slices (bounded) and never for each
 *    other; each one exits once the slices it needs arrived.
 * 3. The guard on s2 holds this PE's interaction kernel until the fused
 *    kernel of this run completed an item (its completion counter of item
 *    0's slice moved past the previous run's total), so a fused block is
 *    resident before any interaction block can take a slot: waiting
 *    interaction blocks can never keep the producer off the GPU. The
 *    guard is skipped only when gshmem_stage_guard_needed says both grids
 *    fit on the GPU at once (then nothing can be kept off).
 * 4. Across PEs: PE q's consumers wait for fused kernels of other PEs,
 *    which by 1 and 3 complete on their own GPUs without waiting for
 *    anything on q. So every slice arrives, every interaction block ends,
 *    and the fused blocks that were not resident yet get slots and exit.
 * The queue path is excluded on purpose: its signals are applied by a
 * one-thread kernel on the destination GPU, which interaction blocks
 * waiting for those very signals could keep off the GPU. */
static void launch_per_slice(run_t *r, split_t sp)
{
    dlrm_fused_t *f = &r->f[sp.order];
    const int grid = sp.per_sm >= r->fused_per_sm ? r->full_grid[sp.order] : sp.per_sm * r->sms;
    DCK(cudaEventRecord(r->fork, r->s));   /* s2's work after what s holds (poison, e0) */
    DCK(cudaStreamWaitEvent(r->s2, r->fork, 0));
    f->grid = grid;
    const uint64_t e = dlrm_fused_launch(f, DLRM_FUSED_NO_WAIT, r->s);
    f->grid = r->full_grid[sp.order];
    if (e == 0)
        gshmem_global_exit(1);
    gshmem_stage_begin(&r->is);
    gshmem_stage_t sig = r->sig[sp.order];
    sig.epoch = e;   /* the view waits for this run's signals */
    const uint32_t n = gshmem_stage_n_tiles(r->is.grid);
    if (dlrm_n_items(&f->a.p) > 0 &&
        gshmem_stage_guard_needed((uint32_t)grid, (uint32_t)r->fused_per_sm, n,
                                  (uint32_t)r->inter_per_sm, (uint32_t)r->sms)) {
        /* the guard waits until the completion counter of item 0's slice
         * passed the previous runs' totals: a warp of this run finished an
         * item, so a fused block is resident. The counter is the fused
         * kernel's unsigned long long (atomicAdd's type), the same 64-bit
         * unsigned word as the guard's uint64_t. */
        const dlrm_item_t it = dlrm_item_decode(&f->a.p, f->a.sched, f->a.order, 0);
        const uint64_t per_run = (uint64_t)dlrm_slice_items(&f->a.p, it.g);
        const unsigned long long *cnt = f->a.cnt + (int64_t)it.q * f->a.p.G + it.g;
        GCK(gshmem_stage_launch_guard_on((const uint64_t *)cnt, (e - 1) * per_run + 1,
                                         r->is.timeout_ns, r->s2));
    }
    interact_kernel<<<n, IBLK, 0, r->s2>>>(r->ia, r->is, sig, 1);
    DCK(cudaGetLastError());
    DCK(cudaEventRecord(r->join, r->s2));
    DCK(cudaStreamWaitEvent(r->s, r->join, 0));
}

static void launch(run_t *r, int mode, split_t sp)
{
    DCK(cudaDeviceSetCacheConfig(cache_pref[mode == MODE_PER_SLICE ? sp.cache : CACHE_NONE]));
    if (mode == MODE_PER_SLICE)
        launch_per_slice(r, sp);
    else
        launch_boundary(r, mode == MODE_FUSED_ONLY);
}

/* One iteration between barriers; returns microseconds on this PE. */
static double timed(run_t *r, int mode, split_t sp, cudaEvent_t e0, cudaEvent_t e1)
{
    DCK(cudaStreamSynchronize(r->s));
    gshmem_barrier_all();   /* every PE consumed the last run's output */
    DCK(cudaEventRecord(e0, r->s));
    launch(r, mode, sp);
    DCK(cudaEventRecord(e1, r->s));
    DCK(cudaEventSynchronize(e1));
    float ms = 0;
    DCK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e3;
}

/* Median over iterations of the max over PEs (collective). */
static double median_run(run_t *r, int mode, split_t sp, int warmup, int iters, cudaEvent_t e0,
                         cudaEvent_t e1)
{
    std::vector<double> t;
    for (int it = 0; it < warmup + iters; it++) {
        double us = timed(r, mode, sp, e0, e1);
        if (it >= warmup)
            t.push_back(us);
    }
    return app_median_of_max(t.data(), (int)t.size());
}

static unsigned long long *g_bad;

/* Poisoned outputs everywhere, one run, Z copied to zref (or compared). */
static unsigned long long check_run(run_t *r, int mode, split_t sp, float *zref, int compare)
{
    const dlrm_part_t *p = &r->p;
    DCK(cudaMemsetAsync(r->out, 0xff, sizeof(float) * (size_t)(p->Bp * p->T * p->D), r->s));
    DCK(cudaMemsetAsync(r->z, 0xff, sizeof(float) * r->zn, r->s));
    DCK(cudaStreamSynchronize(r->s));
    gshmem_barrier_all();
    launch(r, mode, sp);
    DCK(cudaStreamSynchronize(r->s));
    unsigned long long h = 0;
    if (compare) {
        DCK(cudaMemset(g_bad, 0, sizeof h));
        stage_count_diff_kernel<unsigned><<<1024, 256>>>((const unsigned *)r->z,
                                                         (const unsigned *)zref, r->zn, g_bad);
        DCK(cudaMemcpy(&h, g_bad, sizeof h, cudaMemcpyDeviceToHost));
    } else {
        DCK(cudaMemcpy(zref, r->z, sizeof(float) * r->zn, cudaMemcpyDeviceToDevice));
        DCK(cudaDeviceSynchronize());   /* D2D copies may return early; r->s is another stream */
    }
    gshmem_barrier_all();
    return h;
}

/* Z of two samples against double dot products of the output rows. */
static int check_host(run_t *r)
{
    const dlrm_part_t *p = &r->p;
    const int64_t T = p->T, np = T * (T - 1) / 2;
    std::vector<float> f((size_t)(T * p->D)), z((size_t)np);
    int64_t smp[2] = {0, p->Bp - 1};
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        DCK(cudaMemcpy(f.data(), r->out + smp[k] * T * p->D, f.size() * 4,
                       cudaMemcpyDeviceToHost));
        DCK(cudaMemcpy(z.data(), r->z + smp[k] * np, z.size() * 4, cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < T; i++)
            for (int64_t j = i + 1; j < T; j++) {
                double s = 0, m = 0;
                for (int d = 0; d < p->D; d++) {
                    s += (double)f[i * p->D + d] * f[j * p->D + d];
                    m += fabs((double)f[i * p->D + d] * f[j * p->D + d]);
                }
                float got = z[i * T - i * (i + 1) / 2 + j - i - 1];
                if (!(fabs(got - s) <= 1e-5 * m + 1e-6) && bad++ < 3)
                    fprintf(stderr, "gshmem-stage-dlrm: PE %d: sample %lld pair (%lld,%lld): "
                            "%.7g, expected %.7g\n", p->me, (long long)smp[k], (long long)i,
                            (long long)j, got, s);
            }
    }
    return bad;
}

/* per_slice's work order on this PE: the interaction's work items (x, g),
 * as linear tiles g * nx + x, sorted by when their inputs arrive: first
 * the latest phase in which a PE owning a table of the item's blocks
 * sends to this PE (PE s sends to me in the phase ph with
 * dlrm_phase_dest(sched, P, s, ph) == me: under the aware schedule the
 * PE before me first, myself last), then the slice (slices complete in
 * order within a phase), then x. */
static std::vector<uint32_t> arrival_order(const run_t *r, int sched)
{
    const dlrm_part_t *p = &r->p;
    const interact_args_t *a = &r->ia;
    std::vector<int> phase_of((size_t)p->P, 0), late((size_t)a->pairs, 0);
    for (int s = 0; s < p->P; s++)
        for (int ph = 0; ph < p->P; ph++)
            if (dlrm_phase_dest(sched, p->P, s, ph) == p->me)
                phase_of[(size_t)s] = ph;
    for (int pr = 0; pr < a->pairs; pr++) {
        int ti, tj, ilo, ihi, jlo, jhi;
        pair_decode(pr, a->nt, &ti, &tj);
        block_owners(ti, p->T, p->P, &ilo, &ihi);
        block_owners(tj, p->T, p->P, &jlo, &jhi);
        for (int s = ilo; s <= jhi; s++)
            if ((s <= ihi || s >= jlo) && phase_of[(size_t)s] > late[(size_t)pr])
                late[(size_t)pr] = phase_of[(size_t)s];
    }
    const uint32_t nx = (uint32_t)(a->subs * a->pairs);
    std::vector<uint32_t> t;
    t.reserve((size_t)nx * (size_t)p->G);
    for (int ph = 0; ph < p->P; ph++)
        for (uint32_t g = 0; g < (uint32_t)p->G; g++)
            for (uint32_t x = 0; x < nx; x++)
                if (late[x % (uint32_t)a->pairs] == ph)
                    t.push_back(g * nx + x);
    return t;
}

static void one_case(long tpp, long batch, const opts_t *o, FILE *csv)
{
    const int P = gshmem_n_pes(), me = gshmem_my_pe();
    dlrm_case_t c;
    memset(&c, 0, sizeof c);
    snprintf(c.set, sizeof c.set, "G");
    c.tables = tpp * P;
    c.rows = o->rows;
    c.dim = o->dim;
    c.batch = batch;
    c.lmax = o->lmax;
    c.slice_rows = o->slice;
    c.sched = DLRM_SCHED_AWARE;
    c.order = DLRM_ORDER_TABLE;
    c.dtype = DLRM_F32;
    if (batch % P != 0 || o->dim % 4 != 0) {
        if (me == 0)
            fprintf(stderr, "gshmem-stage-dlrm: batch %ld must divide by %d PEs, dim %d by 4\n",
                    batch, P, o->dim);
        gshmem_global_exit(1);
    }
    run_t r;
    memset(&r, 0, sizeof r);
    r.p = dlrm_part_make(&c, P, me);
    const dlrm_part_t *p = &r.p;
    {   /* the fused kernel's stream first among pending blocks */
        int lo = 0, hi = 0;
        DCK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
        DCK(cudaStreamCreateWithPriority(&r.s, cudaStreamNonBlocking, hi));
        DCK(cudaStreamCreateWithPriority(&r.s2, cudaStreamNonBlocking, lo));
        DCK(cudaEventCreateWithFlags(&r.fork, cudaEventDisableTiming));
        DCK(cudaEventCreateWithFlags(&r.join, cudaEventDisableTiming));
    }

    /* inputs: the generator's CSR on the host, weights on the GPU */
    dlrm_inputs_t in;
    dlrm_local_t loc;
    char why[256];
    dlrm_inputs_gen(&in, &c, 1);
    if (dlrm_local_build(&loc, &in, p->t0, p->tn, why, sizeof why) != 0) {
        fprintf(stderr, "gshmem-stage-dlrm: PE %d: %s\n", me, why);
        gshmem_global_exit(1);
    }
    size_t off_n = (size_t)(p->tn * (p->B + 1));
    DCK(cudaMalloc((void **)&r.off, off_n * 8));
    DCK(cudaMalloc((void **)&r.idx, (size_t)(loc.nnz > 0 ? loc.nnz : 1) * 8));
    DCK(cudaMalloc((void **)&r.wrow, (size_t)(p->tn + 1) * 8));
    DCK(cudaMalloc((void **)&r.W, (size_t)loc.wrow[p->tn] * p->D * 4));
    DCK(cudaMemcpy(r.off, loc.off, off_n * 8, cudaMemcpyHostToDevice));
    DCK(cudaMemcpy(r.idx, loc.idx, (size_t)loc.nnz * 8, cudaMemcpyHostToDevice));
    DCK(cudaMemcpy(r.wrow, loc.wrow, (size_t)(p->tn + 1) * 8, cudaMemcpyHostToDevice));
    for (int64_t t = 0; t < p->tn; t++)
        dlrm_gen_w_kernel<float><<<1024, 256, 0, r.s>>>(r.W + loc.wrow[t] * p->D, p->t0 + t,
                                                        loc.wrow[t + 1] - loc.wrow[t], p->D,
                                                        in.seeds);
    /* the device, not r.s: the pageable cudaMemcpys above (legacy stream) may
     * return before their DMA lands, and r.s / r.s2 are non-blocking */
    DCK(cudaDeviceSynchronize());
    dlrm_local_free(&loc);
    const size_t out_b = sizeof(float) * (size_t)(p->Bp * p->T * p->D);
    const size_t st_b = sizeof(float) * (size_t)(p->B * p->tn * p->D);
    r.out = (float *)gshmem_align(256, out_b);
    r.stage = (float *)gshmem_align(256, st_b);
    if (r.out == NULL || r.stage == NULL) {
        if (me == 0)
            fprintf(stderr, "gshmem-stage-dlrm: symmetric heap too small for %zu + %zu bytes "
                    "(raise GSHMEM_SYMMETRIC_SIZE)\n", out_b, st_b);
        gshmem_global_exit(1);
    }
    for (int q = 0; q < P; q++)
        if (q != me && gshmem_ptr(r.out, q) == NULL) {
            fprintf(stderr, "gshmem-stage-dlrm: PE %d: PE %d is not reachable by load/store "
                    "(P2P): per_slice runs both kernels at once, and the queue path's signal "
                    "kernel could be kept off the GPU by waiting consumers "
                    "(GSHMEM_TRANSPORTS=p2p on one node)\n", me, q);
            gshmem_global_exit(1);
        }
    /* one fused kernel per work order: table (boundary's, with its own grid,
     * and a per_slice candidate), slice (per_slice: slices complete in turn) */
    for (int ord = 0; ord < 2; ord++) {
        if (dlrm_fused_create(&r.f[ord], p, DLRM_F32, c.sched, ord, r.W, r.off, r.idx, r.wrow,
                              r.out, r.stage, why, sizeof why) != 0) {
            fprintf(stderr, "gshmem-stage-dlrm: PE %d: %s\n", me, why);
            gshmem_global_exit(1);
        }
        r.full_grid[ord] = r.f[ord].grid;
    }
    {
        int dev = 0;
        DCK(cudaGetDevice(&dev));
        DCK(cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, dev));
        /* under the default preference: the API counts the preference set last */
        DCK(cudaDeviceSetCacheConfig(cudaFuncCachePreferNone));
        DCK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.inter_per_sm, interact_kernel, IBLK,
                                                          0));
        r.fused_per_sm = (r.full_grid[0] + 1) / r.sms;   /* create's grid: resident - 1 */
        if (r.fused_per_sm < 1)
            r.fused_per_sm = 1;
    }
    r.zn = (size_t)p->Bp * (size_t)(p->T * (p->T - 1) / 2);
    DCK(cudaMalloc((void **)&r.z, r.zn * 4));
    DCK(cudaMalloc((void **)&r.z0, r.zn * 4));
    r.ia.out = r.out;
    r.ia.z = r.z;
    r.ia.T = p->T;
    r.ia.Bp = p->Bp;
    r.ia.D = p->D;
    r.ia.rows = p->rows;
    r.ia.P = P;
    r.ia.nt = (int)((p->T + TT - 1) / TT);
    r.ia.pairs = r.ia.nt * (r.ia.nt + 1) / 2;
    /* samples per work item: the most (of 8, 4, 2, 1) that still gives 8
     * items per SM, so small cases spread over the GPU (both modes) */
    r.ia.sub = 8;
    while (r.ia.sub > 1 && (int64_t)p->G * ((p->rows + r.ia.sub - 1) / r.ia.sub) *
                                   r.ia.pairs < 8 * (int64_t)r.sms)
        r.ia.sub /= 2;
    r.ia.subs = (p->rows + r.ia.sub - 1) / r.ia.sub;
    /* the interaction stages: boundary row-major (slice-major), per_slice in
     * arrival order; a wait-only view of each fused kernel's signals */
    {
        const std::vector<uint32_t> ord = arrival_order(&r, c.sched);
        const uint32_t nx = (uint32_t)(r.ia.subs * r.ia.pairs);
        GCK(gshmem_stage_create(&r.ib, nx, (uint32_t)p->G, NULL, GSHMEM_STAGE_ROW_MAJOR, NULL,
                                GSHMEM_STAGE_COUNTER));
        GCK(gshmem_stage_create(&r.is, nx, (uint32_t)p->G, NULL, GSHMEM_STAGE_ORDER_TABLE,
                                ord.data(), GSHMEM_STAGE_COUNTER));
        for (int k = 0; k < 2; k++)
            GCK(gshmem_stage_wrap(&r.sig[k], r.f[k].sig, (uint32_t)p->G, (uint32_t)P, NULL,
                                  GSHMEM_STAGE_SYMMETRIC));
    }

    /* per_slice candidates (-O, -k narrow them): cache preference x work
     * order x fused blocks per SM: the full grid, and one block less per SM
     * where the preference leaves shared memory for more interaction blocks
     * (fewer fused blocks than that only slowed the pooling down, without
     * gain, in the first runs) */
    std::vector<split_t> cand;
    for (int ca = CACHE_NONE; ca <= CACHE_SHARED; ca++)
        for (int ord = 0; ord < 2; ord++)
            for (int k = r.fused_per_sm; k >= 1 && k >= r.fused_per_sm - (ca != CACHE_NONE);
                 k--)
                if ((o->order < 0 || o->order == ord) && (o->per_sm <= 0 || o->per_sm == k))
                    cand.push_back(split_t{ord, k, ca});
    if (cand.empty())
        cand.push_back(split_t{o->order < 0 ? DLRM_ORDER_SLICE : o->order,
                               o->per_sm < r.fused_per_sm ? o->per_sm : r.fused_per_sm,
                               CACHE_SHARED});
    const split_t none = {DLRM_ORDER_TABLE, 0, CACHE_NONE};

    /* checks: boundary against the host, every candidate bitwise against it */
    unsigned long long d1 = check_run(&r, MODE_BOUNDARY, none, r.z0, 0), d2 = 0;
    int hb = check_host(&r);
    for (size_t k = 0; k < cand.size(); k++)
        d2 += check_run(&r, MODE_PER_SLICE, cand[k], r.z0, 1);
    int bad = d1 != 0 || d2 != 0 || hb != 0, allbad = 0;
    {   /* every PE decides the same: time only when every PE checked out */
        std::vector<int> all((size_t)P);
        app_allgather_host(all.data(), &bad, sizeof bad);
        for (int q = 0; q < P; q++)
            allbad |= all[q];
    }
    cudaEvent_t e0, e1;
    DCK(cudaEventCreate(&e0));
    DCK(cudaEventCreate(&e1));
    /* tuning: each candidate 1 + TUNE_ITERS iterations (the same choice on
     * every PE: medians of maxima); the fused kernel alone, for reference */
    std::vector<double> tune(cand.size(), 0.0);
    size_t best = 0;
    double mf = 0;
    if (!allbad) {
        for (size_t k = 0; k < cand.size(); k++) {
            tune[k] = median_run(&r, MODE_PER_SLICE, cand[k], 1, TUNE_ITERS, e0, e1);
            if (tune[k] < tune[best])
                best = k;
        }
        mf = median_run(&r, MODE_FUSED_ONLY, none, 1, TUNE_ITERS, e0, e1);
    }
    const split_t sp = cand[best];
    /* timing: the modes alternate, iteration by iteration */
    std::vector<double> tb, tp;
    for (int it = 0; it < o->warmup + o->iters && !allbad; it++) {
        double a = timed(&r, MODE_BOUNDARY, none, e0, e1);
        double b = timed(&r, MODE_PER_SLICE, sp, e0, e1);
        if (it >= o->warmup) {
            tb.push_back(a);
            tp.push_back(b);
        }
    }
    double mb = 0, mp = 0;
    if (!allbad) {
        mb = app_median_of_max(tb.data(), (int)tb.size());
        mp = app_median_of_max(tp.data(), (int)tp.size());
    }
    if (me == 0) {
        static const char *oname[2] = {"table", "slice"};
        std::string tl;
        for (size_t k = 0; k < cand.size(); k++) {
            char b[80];
            snprintf(b, sizeof b, "%s%s/%s/%d:%.1f", k ? ";" : "", cache_name[cand[k].cache],
                     oname[cand[k].order], cand[k].per_sm, tune[k]);
            tl += b;
        }
        printf("G tables/PE %ld batch %ld (P %d, T %lld, D %d, slices %lld x %d rows): "
               "boundary %.1f us, per_slice %.1f us (cache %s, fused %s order, %d of %d blocks/SM; "
               "interaction %d blocks/SM alone, %d samples/item), gain %.1f%% %s; fused alone "
               "%.1f us; tuning %s\n", tpp, batch, P, (long long)p->T, p->D, (long long)p->G,
               p->rows, mb, mp, cache_name[sp.cache], oname[sp.order], sp.per_sm,
               r.fused_per_sm, r.inter_per_sm, r.ia.sub,
               allbad ? 0.0 : 100.0 * (mb - mp) / mb, allbad ? "CHECK FAILED" : "check ok", mf,
               tl.c_str());
        if (csv != NULL) {
            fprintf(csv, "%d,%ld,%ld,%lld,%d,%d,%.2f,%.2f,%s,%.2f,%s,%s,%d,%d,%s\n", P, tpp,
                    batch, (long long)p->T, p->D, p->rows, mb, mp, allbad ? "FAILED" : "ok", mf,
                    cache_name[sp.cache], oname[sp.order], sp.per_sm, r.ia.sub, tl.c_str());
            fflush(csv);
        }
    }
    if (bad)
        fprintf(stderr, "gshmem-stage-dlrm: PE %d: Z of per_slice differs from boundary's in "
                "%llu values (%zu candidates), %d host mismatches\n", me, d1 + d2,
                cand.size(), hb);
    DCK(cudaEventDestroy(e0));
    DCK(cudaEventDestroy(e1));
    gshmem_stage_destroy(&r.ib);
    gshmem_stage_destroy(&r.is);
    dlrm_fused_destroy(&r.f[1]);
    dlrm_fused_destroy(&r.f[0]);
    gshmem_free(r.stage);
    gshmem_free(r.out);
    cudaFree(r.z);
    cudaFree(r.z0);
    cudaFree(r.W);
    cudaFree(r.off);
    cudaFree(r.idx);
    cudaFree(r.wrow);
    DCK(cudaEventDestroy(r.fork));
    DCK(cudaEventDestroy(r.join));
    DCK(cudaStreamDestroy(r.s2));
    DCK(cudaStreamDestroy(r.s));
    dlrm_inputs_close(&in);
}

static int parse_list(const char *s, std::vector<long> *v)
{
    v->clear();
    while (*s) {
        char *end = NULL;
        long x = strtol(s, &end, 10);
        if (end == s || x <= 0)
            return -1;
        v->push_back(x);
        s = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
            return -1;
    }
    return v->empty() ? -1 : 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    o.tpp = {32, 64, 128, 256};
    o.batch = {512, 1024, 2048, 4096, 8192};
    o.dim = 256, o.lmax = 128, o.slice = 32, o.iters = 20, o.warmup = 3;
    o.per_sm = 0, o.order = -1;
    o.rows = 100000;
    o.csv = NULL;
    int ch, bad = 0;
    while ((ch = getopt(argc, argv, "t:b:d:r:l:s:n:w:o:k:O:")) != -1) {
        switch (ch) {
        case 't': bad |= parse_list(optarg, &o.tpp); break;
        case 'b': bad |= parse_list(optarg, &o.batch); break;
        case 'd': o.dim = atoi(optarg); break;
        case 'r': o.rows = atol(optarg); break;
        case 'l': o.lmax = atoi(optarg); break;
        case 's': o.slice = atoi(optarg); break;
        case 'n': o.iters = atoi(optarg); break;
        case 'w': o.warmup = atoi(optarg); break;
        case 'o': o.csv = optarg; break;
        case 'k': o.per_sm = atoi(optarg); bad |= o.per_sm <= 0; break;
        case 'O':
            o.order = strcmp(optarg, "table") == 0 ? DLRM_ORDER_TABLE
                      : strcmp(optarg, "slice") == 0 ? DLRM_ORDER_SLICE : -2;
            bad |= o.order == -2;
            break;
        default: bad = 1;
        }
    }
    if (bad || o.dim <= 0 || o.rows <= 0 || o.lmax <= 0 || o.slice <= 0 || o.warmup < 0) {
        fprintf(stderr, "usage: gshmemrun -n P %s [-t tables/PE,..] [-b batch,..] [-d dim] "
                "[-r rows] [-l lmax] [-s slice_rows] [-n iters] [-w warmup] [-o raw.csv] "
                "[-k fused blocks/SM] [-O table|slice]\n",
                argv[0]);
        return 1;
    }
    if (o.iters < 20)
        o.iters = 20;   /* medians of at least 20 */
    if (gshmem_init() != 0) {
        fprintf(stderr, "gshmem-stage-dlrm: gshmem_init failed (GSHMEM_HEAP=cuda?)\n");
        return 1;
    }
    DCK(cudaMalloc((void **)&g_bad, sizeof(unsigned long long)));
    FILE *csv = NULL;
    if (gshmem_my_pe() == 0 && o.csv != NULL) {
        int fresh = access(o.csv, F_OK) != 0;
        csv = fopen(o.csv, "a");
        if (csv != NULL && fresh)
            fprintf(csv, "P,tables_per_pe,batch,T,dim,slice_rows,boundary_us,per_slice_us,check,"
                    "fused_alone_us,per_slice_cache,per_slice_order,per_slice_fused_blocks_per_sm,"
                    "samples_per_item,tuning_us\n");
    }
    for (long b : o.batch)
        for (long t : o.tpp)
            one_case(t, b, &o, csv);
    if (csv != NULL)
        fclose(csv);
    gshmem_finalize();
    return 0;
}

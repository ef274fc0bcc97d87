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
 *   boundary   the fused kernel waits for every incoming slice itself, the
 *              interaction kernel follows on the stream (a kernel boundary);
 *   per_slice  the fused kernel ends when this PE's own slices are sent
 *              (DLRM_FUSED_NO_WAIT); the interaction kernel takes work in
 *              slice order from a tile counter (gshmem_stage_tile) and waits
 *              only for the P slices its samples need, through a stage view
 *              of the fused kernel's ready signals (gshmem_stage_wrap:
 *              semaphore s * G + g holds the run number once slice g from
 *              PE s is in place).
 * Checked first: output and Z poisoned on every PE, one run of each mode,
 * Z bitwise equal between the modes and sampled entries equal to a double
 * precision dot product on the host.
 *
 *   gshmemrun -n P gshmem-stage-dlrm [-t tables/PE[,..]] [-b batch[,..]] [-d dim]
 *       [-r rows/table] [-l lmax] [-s slice rows] [-n iters] [-w warmup] [-o raw.csv]
 * Defaults: BENCHMARKS.md's G set (dim 256, 1e5 rows, Lmax 128, batch
 * 512..8192, 32..256 tables per PE). Needs GSHMEM_HEAP=cuda. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

#define TT 32    /* tables per interaction tile side */
#define SUB 8    /* samples per work item */
#define KC 64    /* dim chunk in shared memory */

typedef struct interact_args {
    const float *out;     /* [Bp][T * D] */
    float *z;             /* [Bp][T (T - 1) / 2] */
    int64_t T, Bp;
    int D, rows, P, nt, pairs, subs;
} interact_args_t;

/* Work item (tile x, slice y) of the interaction stage: x = sub * pairs +
 * pair. Waits (wait != 0) for the P slices y through the signal view. */
__global__ void __launch_bounds__(256) interact_kernel(interact_args_t a, gshmem_stage_t self,
                                                       gshmem_stage_t sig, int wait)
{
    __shared__ float fi[TT][KC + 1], fj[TT][KC + 1];
    gshmem_stage_tile_t w = gshmem_stage_tile(self);
    const int g = (int)w.y, sub = (int)w.x / a.pairs;
    int pair = (int)w.x % a.pairs, ti = 0;
    while (pair >= a.nt - ti) {   /* pair -> (ti, tj), ti <= tj */
        pair -= a.nt - ti;
        ti++;
    }
    const int tj = ti + pair;
    if (wait) {
        uint32_t last = GSHMEM_STAGE_NO_SEM;
        for (int s = 0; s < a.P; s++) {
            gshmem_stage_tile_t t = {(uint32_t)g, (uint32_t)s};
            gshmem_stage_wait(sig, t, &last);
        }
    }
    const int tid = threadIdx.x, i = tid / 8, j0 = (tid % 8) * 4;
    const int64_t ld = a.T * a.D;
    for (int k = 0; k < SUB; k++) {
        const int64_t b = (int64_t)g * a.rows + sub * SUB + k;
        if (sub * SUB + k >= a.rows || b >= a.Bp)
            break;
        const float *f = a.out + b * ld;
        float acc[4] = {0.f, 0.f, 0.f, 0.f};
        for (int d0 = 0; d0 < a.D; d0 += KC) {
            for (int e = tid; e < TT * KC; e += 256) {
                int r = e / KC, c = e % KC;
                int64_t ri = (int64_t)ti * TT + r, rj = (int64_t)tj * TT + r;
                fi[r][c] = ri < a.T && d0 + c < a.D ? f[ri * a.D + d0 + c] : 0.f;
                fj[r][c] = rj < a.T && d0 + c < a.D ? f[rj * a.D + d0 + c] : 0.f;
            }
            __syncthreads();
#pragma unroll 8
            for (int c = 0; c < KC; c++) {
                float x = fi[i][c];
#pragma unroll
                for (int q = 0; q < 4; q++)
                    acc[q] += x * fj[j0 + q][c];
            }
            __syncthreads();
        }
        const int64_t gi = (int64_t)ti * TT + i;
        for (int q = 0; q < 4; q++) {
            const int64_t gj = (int64_t)tj * TT + j0 + q;
            if (gi < gj && gj < a.T)
                a.z[b * (a.T * (a.T - 1) / 2) + gi * a.T - gi * (gi + 1) / 2 + gj - gi - 1] =
                    acc[q];
        }
    }
}

template <int Unused = 0>
__global__ void weights_kernel(float *w, int64_t t, int64_t rows, int D, dlrm_seeds_t s)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < rows * D;
         e += (int64_t)gridDim.x * blockDim.x)
        w[e] = dlrm_gen_w(s, t, e / D, D, (int)(e % D));
}

typedef struct opts {
    std::vector<long> tpp, batch;
    int dim, lmax, slice, iters, warmup;
    long rows;
    const char *csv;
} opts_t;

typedef struct run {
    dlrm_part_t p;
    dlrm_fused_t f;
    float *W, *out, *stage, *z, *z0;
    int64_t *off, *idx, *wrow;
    size_t zn;
    interact_args_t ia;
    gshmem_stage_t is, sig;
    cudaStream_t s;
} run_t;

static void launch(run_t *r, int per_slice)
{
    uint64_t e = dlrm_fused_launch(&r->f, per_slice ? DLRM_FUSED_NO_WAIT : 0, r->s);
    if (e == 0)
        gshmem_global_exit(1);
    gshmem_stage_begin(&r->is);
    r->sig.epoch = e;   /* the view waits for this run's signals */
    interact_kernel<<<r->is.grid.x * r->is.grid.y, 256, 0, r->s>>>(r->ia, r->is, r->sig,
                                                                  per_slice);
    DCK(cudaGetLastError());
}

/* One iteration between barriers; returns microseconds on this PE. */
static double timed(run_t *r, int per_slice, cudaEvent_t e0, cudaEvent_t e1)
{
    DCK(cudaStreamSynchronize(r->s));
    gshmem_barrier_all();   /* every PE consumed the last run's output */
    DCK(cudaEventRecord(e0, r->s));
    launch(r, per_slice);
    DCK(cudaEventRecord(e1, r->s));
    DCK(cudaEventSynchronize(e1));
    float ms = 0;
    DCK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e3;
}

static unsigned long long *g_bad;

/* Poisoned outputs everywhere, one run, Z copied to zref (or compared). */
static unsigned long long check_run(run_t *r, int per_slice, float *zref, int compare)
{
    const dlrm_part_t *p = &r->p;
    DCK(cudaMemsetAsync(r->out, 0xff, sizeof(float) * (size_t)(p->Bp * p->T * p->D), r->s));
    DCK(cudaMemsetAsync(r->z, 0xff, sizeof(float) * r->zn, r->s));
    DCK(cudaStreamSynchronize(r->s));
    gshmem_barrier_all();
    launch(r, per_slice);
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
    DCK(cudaStreamCreateWithFlags(&r.s, cudaStreamNonBlocking));

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
        weights_kernel<<<1024, 256, 0, r.s>>>(r.W + loc.wrow[t] * p->D, p->t0 + t,
                                              loc.wrow[t + 1] - loc.wrow[t], p->D, in.seeds);
    DCK(cudaStreamSynchronize(r.s));
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
    if (dlrm_fused_create(&r.f, p, DLRM_F32, c.sched, c.order, r.W, r.off, r.idx, r.wrow, r.out,
                          r.stage, why, sizeof why) != 0) {
        fprintf(stderr, "gshmem-stage-dlrm: PE %d: %s\n", me, why);
        gshmem_global_exit(1);
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
    r.ia.subs = (p->rows + SUB - 1) / SUB;
    /* the interaction stage: slice-major work items; the signal view */
    if (gshmem_stage_create(&r.is, (uint32_t)(r.ia.subs * r.ia.pairs), (uint32_t)p->G, NULL,
                            GSHMEM_STAGE_ROW_MAJOR, NULL, GSHMEM_STAGE_COUNTER) != 0 ||
        gshmem_stage_wrap(&r.sig, r.f.sig, (uint32_t)p->G, (uint32_t)P, NULL,
                          GSHMEM_STAGE_SYMMETRIC) != 0)
        gshmem_global_exit(1);

    /* checks */
    unsigned long long d1 = check_run(&r, 0, r.z0, 0);
    int hb = check_host(&r);
    unsigned long long d2 = check_run(&r, 1, r.z0, 1);
    int bad = d1 != 0 || d2 != 0 || hb != 0, allbad = 0;
    {   /* every PE decides the same: time only when every PE checked out */
        std::vector<int> all((size_t)P);
        app_allgather_host(all.data(), &bad, sizeof bad);
        for (int q = 0; q < P; q++)
            allbad |= all[q];
    }
    /* timing: the modes alternate, iteration by iteration */
    cudaEvent_t e0, e1;
    DCK(cudaEventCreate(&e0));
    DCK(cudaEventCreate(&e1));
    std::vector<double> tb, tp;
    for (int it = 0; it < o->warmup + o->iters && !allbad; it++) {
        double a = timed(&r, 0, e0, e1), b = timed(&r, 1, e0, e1);
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
        printf("G tables/PE %ld batch %ld (P %d, T %lld, D %d, slices %lld x %d rows): "
               "boundary %.1f us, per_slice %.1f us, gain %.1f%% %s\n", tpp, batch, P,
               (long long)p->T, p->D, (long long)p->G, p->rows, mb, mp,
               allbad ? 0.0 : 100.0 * (mb - mp) / mb, allbad ? "CHECK FAILED" : "check ok");
        if (csv != NULL) {
            fprintf(csv, "%d,%ld,%ld,%lld,%d,%d,%.2f,%.2f,%s\n", P, tpp, batch,
                    (long long)p->T, p->D, p->rows, mb, mp, allbad ? "FAILED" : "ok");
            fflush(csv);
        }
    }
    if (bad)
        fprintf(stderr, "gshmem-stage-dlrm: PE %d: Z differs between modes in %llu / %llu "
                "values, %d host mismatches\n", me, d1, d2, hb);
    DCK(cudaEventDestroy(e0));
    DCK(cudaEventDestroy(e1));
    gshmem_stage_destroy(&r.is);
    dlrm_fused_destroy(&r.f);
    gshmem_free(r.stage);
    gshmem_free(r.out);
    cudaFree(r.z);
    cudaFree(r.z0);
    cudaFree(r.W);
    cudaFree(r.off);
    cudaFree(r.idx);
    cudaFree(r.wrow);
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
    o.rows = 100000;
    o.csv = NULL;
    int ch, bad = 0;
    while ((ch = getopt(argc, argv, "t:b:d:r:l:s:n:w:o:")) != -1) {
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
        default: bad = 1;
        }
    }
    if (bad || o.dim <= 0 || o.rows <= 0 || o.lmax <= 0 || o.slice <= 0 || o.warmup < 0) {
        fprintf(stderr, "usage: gshmemrun -n P %s [-t tables/PE,..] [-b batch,..] [-d dim] "
                "[-r rows] [-l lmax] [-s slice_rows] [-n iters] [-w warmup] [-o raw.csv]\n",
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
            fprintf(csv, "P,tables_per_pe,batch,T,dim,slice_rows,boundary_us,per_slice_us,check\n");
    }
    for (long b : o.batch)
        for (long t : o.tpp)
            one_case(t, b, &o, csv);
    if (csv != NULL)
        fclose(csv);
    gshmem_finalize();
    return 0;
}

/* dlrm_plan.h: what one benchmark case is, how its tables and samples are
 * split over the PEs, and the fused kernel's work decomposition (slices,
 * work items, the destination schedule). Header-only and plain C, shared
 * by the CPU-PE code, the CUDA kernels and the driver, so that every
 * backend decomposes and signals the work the same way.
 *
 * Split: PE p owns the global tables [tstart(p), tstart(p) + tcount(p)):
 * T / P each, the first T % P PEs one more. Samples: PE q's output holds
 * the global samples [q * B/P, (q+1) * B/P) (B must be divisible by P).
 *
 * Slices: the pooled rows a PE s produces for a destination q (B/P samples
 * x tcount(s) tables) are cut into G = ceil((B/P) / rows) slices of `rows`
 * consecutive samples; slice i of pair (s, q) covers q's local samples
 * [i*rows, min(B/P, (i+1)*rows)) and q's output columns
 * [tstart(s)*D, (tstart(s)+tcount(s))*D). A work item is one local table
 * x `crows` consecutive samples of one destination (crows divides rows, so
 * an item lies in one slice): crows bags, pooled by one worker (a GPU
 * warp, a CPU thread). crows: --item-rows, or by default the largest
 * divisor of rows whose bags gather at most DLRM_ITEM_BYTES; then smaller
 * still while there are fewer than 4 items per worker (small cases would
 * otherwise leave most warps idle). A slice is complete when its
 * tcount(s) x ceil(len / crows) items are.
 *
 * Item order (per source PE): destination phases in the schedule's order
 * (aware: (me+1)%P, (me+2)%P, ..., me -- remote destinations first, the
 * local one last; oblivious: 0, 1, ..., P-1 on every PE); inside a phase,
 * order "table" walks table-major (all slices of table 0, then table 1:
 * concurrent workers share a table, which helps the cache) and order
 * "slice" walks slice-major (a slice completes as soon as possible). */
#ifndef DLRM_PLAN_H
#define DLRM_PLAN_H

#include <stdint.h>

#if defined(__CUDACC__)
#define DLRM_PHD __host__ __device__ __forceinline__
#else
#define DLRM_PHD static inline
#endif

typedef enum { DLRM_MODE_BASELINE = 0, DLRM_MODE_FUSED = 1, DLRM_MODE_COMPUTE_ONLY = 2,
               DLRM_N_MODES = 3 } dlrm_mode_t;
typedef enum { DLRM_F32 = 0, DLRM_F16 = 1, DLRM_BF16 = 2 } dlrm_dtype_t;
typedef enum { DLRM_SCHED_AWARE = 0, DLRM_SCHED_OBLIVIOUS = 1 } dlrm_sched_t;
typedef enum { DLRM_ORDER_TABLE = 0, DLRM_ORDER_SLICE = 1 } dlrm_order_t;

/* One benchmark case (a row of the result table). */
typedef struct dlrm_case {
    char set[8];        /* W, S, G, N, tiny, custom, file */
    int64_t tables;     /* T, global */
    int64_t rows;       /* rows per table (generator; the file gives its own) */
    int dim;            /* D, a multiple of 4 */
    int64_t batch;      /* B, global, divisible by P */
    int lmax;           /* bag lengths uniform in [1, lmax], or lmax when fixed */
    int fixed_l;
    int slice_rows;     /* samples per slice */
    int item_rows;      /* samples per work item (0: automatic) */
    dlrm_sched_t sched;
    dlrm_order_t order;
    dlrm_dtype_t dtype;
} dlrm_case_t;

/* One PE's view of a case. */
typedef struct dlrm_part {
    int P, me;
    int64_t T, B, Bp;   /* tables, global batch, samples per PE (B / P) */
    int D;
    int64_t t0, tn;     /* my tables: [t0, t0 + tn) */
    int64_t tmax;       /* the most tables any PE owns (padding of the baseline's all-to-all) */
    int rows;           /* samples per slice */
    int64_t G;          /* slices per (source, destination) pair */
    int crows;          /* samples per work item (divides rows) */
    int64_t K;          /* work items per (destination, table): ceil(Bp / crows) */
} dlrm_part_t;

DLRM_PHD int64_t dlrm_tstart(int64_t T, int P, int p)
{
    return (int64_t)p * (T / P) + (p < T % P ? p : T % P);
}

DLRM_PHD int64_t dlrm_tcount(int64_t T, int P, int p)
{
    return T / P + (p < T % P ? 1 : 0);
}

DLRM_PHD dlrm_part_t dlrm_part_make(const dlrm_case_t *c, int P, int me)
{
    dlrm_part_t p;
    p.P = P;
    p.me = me;
    p.T = c->tables;
    p.B = c->batch;
    p.Bp = c->batch / P;
    p.D = c->dim;
    p.t0 = dlrm_tstart(c->tables, P, me);
    p.tn = dlrm_tcount(c->tables, P, me);
    p.tmax = dlrm_tcount(c->tables, P, 0);
    p.rows = c->slice_rows;
    p.G = (p.Bp + c->slice_rows - 1) / c->slice_rows;
    p.crows = c->slice_rows;
    p.K = p.G;
    return p;
}

/* Destination of phase ph (0..P-1) on PE me. */
DLRM_PHD int dlrm_phase_dest(int sched, int P, int me, int ph)
{
    return sched == DLRM_SCHED_AWARE ? (me + 1 + ph) % P : ph;
}

/* Work items of one source PE: P * tn * K. */
DLRM_PHD int64_t dlrm_n_items(const dlrm_part_t *p)
{
    return (int64_t)p->P * p->tn * p->K;
}

/* Bytes of weights one work item should gather at most (auto item size):
 * an item is the unit a warp takes at once, so its time is the tail of the
 * kernel (warps that take the last items finish last); smaller items cost
 * one counter fetch and one completion count each. 64 KiB: the best of
 * the sizes tried on one H200 (compute_only at P = 1, 2026-11-27): set G's
 * one-bag items (64.5 KiB) 6 % faster than two-bag ones at B = 1024 and
 * 2048, 2.7 % at 8192; W (16 KiB bags) 2 bags 2.8 % faster than 8; S
 * (4 KiB bags) 8 bags 1.9 % faster than 16 (192 KiB before). */
#define DLRM_ITEM_BYTES (64.0 * 1024)

/* Largest divisor of rows that is <= c (c >= 1). */
DLRM_PHD int dlrm_rows_divisor_le(int rows, int c)
{
    if (c >= rows)
        return rows;
    while (c > 1 && rows % c != 0)
        c--;
    return c < 1 ? 1 : c;
}

/* Sets crows (and K): item_rows > 0 asks for that many samples per item
 * (rounded down to a divisor of rows); 0: as many as keep an item under
 * DLRM_ITEM_BYTES (bag_bytes: the mean bag's weight bytes). Either way
 * crows then shrinks until there are at least 4 items per worker. */
DLRM_PHD void dlrm_part_set_items(dlrm_part_t *p, int64_t workers, double bag_bytes,
                                  int item_rows)
{
    int c = p->rows;
    if (item_rows > 0) {
        c = dlrm_rows_divisor_le(p->rows, item_rows);
    } else {
        while (c > 1 && (double)c * bag_bytes > DLRM_ITEM_BYTES)
            c = dlrm_rows_divisor_le(p->rows, c - 1);
    }
    while (c > 1 && (int64_t)p->P * p->tn * ((p->Bp + c - 1) / c) < 4 * workers)
        c = dlrm_rows_divisor_le(p->rows, c - 1);
    p->crows = c;
    p->K = (p->Bp + c - 1) / c;
}

typedef struct dlrm_item {
    int q;          /* destination PE */
    int64_t t;      /* local table (0..tn-1) */
    int64_t b0;     /* first of q's local samples */
    int n;          /* samples (bags) */
    int64_t g;      /* the slice it belongs to */
} dlrm_item_t;

DLRM_PHD dlrm_item_t dlrm_item_decode(const dlrm_part_t *p, int sched, int order, int64_t i)
{
    dlrm_item_t it;
    int64_t per_phase = p->tn * p->K, rem = i % per_phase, k;
    it.q = dlrm_phase_dest(sched, p->P, p->me, (int)(i / per_phase));
    if (order == DLRM_ORDER_TABLE) {
        it.t = rem / p->K;
        k = rem % p->K;
    } else {
        k = rem / p->tn;
        it.t = rem % p->tn;
    }
    it.b0 = k * p->crows;
    it.n = (int)(p->Bp - it.b0 < p->crows ? p->Bp - it.b0 : p->crows);
    it.g = it.b0 / p->rows;
    return it;
}

/* Samples in slice g (the last one may be short). */
DLRM_PHD int dlrm_slice_len(const dlrm_part_t *p, int64_t g)
{
    int64_t left = p->Bp - g * p->rows;
    return (int)(left < p->rows ? left : p->rows);
}

/* Work items that make slice g: completions its counter sees per epoch. */
DLRM_PHD int64_t dlrm_slice_items(const dlrm_part_t *p, int64_t g)
{
    return p->tn * ((dlrm_slice_len(p, g) + p->crows - 1) / p->crows);
}

/* Bag order of the baseline's embedding kernel: bag j of tn * B. */
DLRM_PHD void dlrm_bag_decode(int order, int64_t tn, int64_t B, int64_t j, int64_t *t_p,
                              int64_t *b_p)
{
    if (order == DLRM_ORDER_TABLE) {
        *t_p = j / B;
        *b_p = j % B;
    } else {
        *b_p = j / tn;
        *t_p = j % tn;
    }
}

#endif /* DLRM_PLAN_H */

/* sar_gpu_kernels.cuh: the kernels of sar_gpu.cu, in launch order. One
 * device state (sar_dev_t) carries what only the GPU knows between them.
 * Errors: an index-phase error (invalid input somewhere, output too small)
 * is seen identically by every PE, which all set `skip` and leave out every
 * later phase (signals included, so the counters still agree). A later
 * error (a full receive area) is local: `stop` skips this PE's reduce while
 * the protocol goes on, and the done messages tell every PE. */
#ifndef SAR_GPU_KERNELS_CUH
#define SAR_GPU_KERNELS_CUH

#include <stdint.h>
#include "gshmem_device.h"
#include "sar_internal.h"
#include "sar_coal.cuh"

typedef struct sar_dev {
    uint64_t epoch;
    uint64_t want[3];      /* signal values awaited so far: index, recv, done */
    int32_t skip, stop, broken;
    int64_t n;             /* input rows this call */
    int64_t bad_pos;       /* first invalid position (INT64_MAX: none) */
    sar_msg_t err;         /* first error seen: what sar_finish reports */
    sar_msg_t mine;        /* this PE's index-phase message */
    sar_msg_t owner[SAR_MAX_PES];   /* this PE's send-phase message to each owner */
    sar_msg_t done;        /* this PE's done message */
    int64_t u, U, R;       /* unique rows here, output rows, rows received */
    int64_t ucnt[SAR_MAX_PES];      /* each PE's unique rows */
    int64_t bpos[SAR_MAX_PES + 1];  /* owner boundaries in the sorted unique indices */
    int64_t sbeg[SAR_MAX_PES];      /* shared ordinal at each boundary */
    int64_t base[SAR_MAX_PES];      /* reserved slots at each owner */
    int64_t segbase[SAR_MAX_PES], segcnt[SAR_MAX_PES];   /* received from each PE */
    int64_t excl, to_owner_rows, reduced;
} sar_dev_t;

typedef struct sar_peers {
    float **out, **recv;
    int64_t **rkey, **gidx;
} sar_peers_t;

typedef struct sar_kargs {
    sar_dev_t *d;
    sar_sym_t *sym;        /* local symmetric address (the device API maps it) */
    sar_peers_t peers;
    int me, np, dim, owner_route;
    int64_t n_rows, chunk, stride, recv_cap, out_cap;
    uint64_t timeout_ns;
} sar_kargs_t;

#define SAR_FOR(i, n)                                                            \
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);    \
         i += (int64_t)gridDim.x * blockDim.x)

__device__ static inline uint64_t sar_now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* New call: epoch, cleared per-call state, nnz (from memory for the
 * graph-capturable form). */
__global__ static void sar_k_begin(sar_kargs_t a, int64_t nnz, const int64_t *nnz_dev)
{
    sar_dev_t *d = a.d;
    d->epoch++;
    d->skip = d->stop = 0;
    d->bad_pos = INT64_MAX;
    d->u = d->U = d->R = 0;
    d->excl = d->to_owner_rows = d->reduced = 0;
    memset(&d->err, 0, sizeof d->err);
    d->mine = d->err;
    d->mine.epoch = d->epoch;
    int64_t n = nnz_dev != NULL ? *nnz_dev : nnz;
    d->n = n;
    if (n < 0 || n > a.stride) {
        d->mine.err = SAR_ERR_INDEX;
        d->mine.err_pe = a.me;
        d->mine.err_pos = -1;
        d->mine.err_val = n;
        d->n = 0;
    }
}

/* Sort input: invalid indices become absent (key n_rows) and the first one
 * is remembered; positions past n are padding. */
__global__ static void sar_k_prep(sar_kargs_t a, const int64_t *idx, int64_t ncap,
                                  uint64_t *k, int32_t *pos)
{
    int64_t n = a.d->n;
    SAR_FOR(i, ncap) {
        uint64_t key = (uint64_t)a.n_rows;
        if (i < n) {
            int64_t v = idx[i];
            if (v >= 0 && v < a.n_rows)
                key = (uint64_t)v;
            else
                atomicMin((unsigned long long *)&a.d->bad_pos, (unsigned long long)i);
        }
        k[i] = key;
        pos[i] = (int32_t)i;
    }
}

__global__ static void sar_k_index_msg(sar_kargs_t a, const int64_t *idx)
{
    sar_dev_t *d = a.d;
    if (d->mine.err == 0 && d->bad_pos != INT64_MAX) {
        d->mine.err = SAR_ERR_INDEX;
        d->mine.err_pe = a.me;
        d->mine.err_pos = d->bad_pos;
        d->mine.err_val = idx[d->bad_pos];
    }
    if (d->mine.err != 0)
        d->u = 0;   /* an invalid input sends no index */
    d->mine.a = d->u;
}

/* Index phase: my unique indices into slot me of every PE's gidx. */
__global__ static void sar_k_bcast_keys(sar_kargs_t a, const int64_t *ukeys)
{
    int64_t u = a.d->u;
    SAR_FOR(j, u) {
        int64_t k = ukeys[j];
        for (int i = 1; i <= a.np; i++)
            a.peers.gidx[(a.me + i) % a.np][a.me * a.stride + j] = k;
    }
    __threadfence_system();   /* peers' stores done before the signal kernel */
}

/* Thread p: this phase's message into slot me at PE p, then +1 on the
 * phase's signal there (gshmem_putmem_signal: the signal after the data;
 * rows stored by earlier kernels of the stream are complete by then). */
__global__ static void sar_k_signal(sar_kargs_t a, int phase)
{
    sar_dev_t *d = a.d;
    int p = threadIdx.x;
    if (p >= a.np || (phase > 0 && d->skip))
        return;
    sar_msg_t *slot, *src;
    uint64_t *sig;
    if (phase == 0) {
        slot = &a.sym->idx_msg[a.me], src = &d->mine, sig = &a.sym->sig_idx;
    } else if (phase == 1) {
        slot = &a.sym->recv_msg[a.me], src = &d->owner[p], sig = &a.sym->sig_recv;
    } else {
        slot = &a.sym->done_msg[a.me], src = &d->done, sig = &a.sym->sig_done;
    }
    gshmem_putmem_signal(slot, src, sizeof *src, sig, 1, GSHMEM_SIGNAL_ADD, p);
}

/* Bounded wait for every PE's signal of a phase, then its messages. */
__global__ static void sar_k_wait(sar_kargs_t a, int phase)
{
    sar_dev_t *d = a.d;
    if ((phase > 0 && d->skip) || d->broken)
        return;
    uint64_t *sig = phase == 0 ? &a.sym->sig_idx : phase == 1 ? &a.sym->sig_recv
                                                              : &a.sym->sig_done;
    const sar_msg_t *msgs = phase == 0 ? a.sym->idx_msg : phase == 1 ? a.sym->recv_msg
                                                                    : a.sym->done_msg;
    uint64_t want = (d->want[phase] += (uint64_t)a.np), v, t0 = sar_now_ns();
    while ((v = gshmem_signal_fetch(sig)) < want) {
        if (sar_now_ns() - t0 > a.timeout_ns) {
            d->err = sar_msg_t{d->epoch, 0, 0, SAR_ERR_TIMEOUT, a.me, phase,
                               (int64_t)(v - (want - (uint64_t)a.np))};
            d->broken = d->skip = 1;
            return;
        }
        __nanosleep(200);
    }
    sar_msg_t e;
    memset(&e, 0, sizeof e);
    for (int p = 0; p < a.np && e.err == 0; p++) {
        sar_msg_t m = msgs[p];
        if (m.epoch != d->epoch)
            e = sar_msg_t{d->epoch, 0, 0, SAR_ERR_PROTOCOL, a.me, p, (int64_t)m.epoch};
        else if (m.err != 0)
            e = m;
        if (phase == 0)
            d->ucnt[p] = m.a;
        if (phase == 1) {
            d->segbase[p] = m.a;
            d->segcnt[p] = m.b;
        }
    }
    if (phase == 1) {
        /* Every sender reserved before signalling: the count is final.
         * Reset before this PE's done signal, which every PE awaits before
         * its next call (and fetch-add). */
        d->R = *(volatile int64_t *)&a.sym->recv_ctr;
        *(volatile int64_t *)&a.sym->recv_ctr = 0;
    }
    if (e.err != 0) {
        if (d->err.err == 0)
            d->err = e;
        if (phase == 0)
            d->skip = 1;   /* every PE saw the same messages */
        else
            d->stop = 1;
    }
    if (phase == 1) {
        d->done = d->err;
        d->done.epoch = d->epoch;
    }
}

/* Union: how many PEs hold each index, and presence flags for the scan. */
__global__ static void sar_k_count(sar_kargs_t a, const int64_t *gidx, int32_t *cnt,
                                   int32_t *pres)
{
    const sar_dev_t *d = a.d;
    if (d->skip)
        return;
    SAR_FOR(t, (int64_t)a.np * a.stride) {
        int64_t p = t / a.stride, j = t - p * a.stride;
        if (j < d->ucnt[p]) {
            int64_t k = gidx[t];
            atomicAdd(&cnt[k], 1);
            pres[k] = 1;
        }
    }
}

__global__ static void sar_k_total(sar_kargs_t a, const int32_t *pres, const int32_t *upos)
{
    sar_dev_t *d = a.d;
    if (d->skip)
        return;
    d->U = (int64_t)upos[a.n_rows - 1] + pres[a.n_rows - 1];
    if (d->U > a.out_cap) {   /* every PE computes the same U */
        d->err = sar_msg_t{d->epoch, 0, 0, SAR_ERR_CAPACITY, a.me, -1, d->U};
        d->skip = 1;
    }
}

__global__ static void sar_k_out_idx(sar_kargs_t a, const int32_t *pres, const int32_t *upos,
                                     int64_t *out_idx)
{
    if (a.d->skip)
        return;
    SAR_FOR(k, a.n_rows)
        if (pres[k])
            out_idx[upos[k]] = k;
}

/* sh[j] = 1 when my unique row j goes through its owner. */
__global__ static void sar_k_shared(sar_kargs_t a, const int64_t *ukeys, const int32_t *cnt,
                                    int32_t *sh, int64_t ncap)
{
    const sar_dev_t *d = a.d;
    int64_t u = d->skip ? 0 : d->u;
    SAR_FOR(j, ncap + 1)
        sh[j] = j < u && (a.owner_route || cnt[ukeys[j]] > 1);
}

/* Thread q: my rows' range for owner q (binary search), one fetch-add on
 * q's counter for their slots, the message that tells q where they are. */
__global__ static void sar_k_reserve(sar_kargs_t a, const int64_t *ukeys, const int32_t *sidx)
{
    sar_dev_t *d = a.d;
    int q = threadIdx.x;
    if (d->skip)
        return;
    if (q <= a.np) {
        int64_t lo = 0, hi = d->u, key = (int64_t)q * a.chunk;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (ukeys[mid] < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        d->bpos[q] = q == a.np ? d->u : lo;
    }
    __syncthreads();
    if (q >= a.np)
        return;
    int64_t beg = sidx[d->bpos[q]], cnt = sidx[d->bpos[q + 1]] - beg, base = 0;
    if (cnt > 0)
        base = gshmem_int64_atomic_fetch_add(&a.sym->recv_ctr, cnt, q);
    sar_msg_t m = {d->epoch, base, cnt, 0, 0, 0, 0};
    if (base + cnt > a.recv_cap) {
        m = sar_msg_t{d->epoch, base, 0, SAR_ERR_CAPACITY, q, q, base + cnt};
        d->stop = 1;
    }
    d->owner[q] = m;
    d->base[q] = base;
    d->sbeg[q] = beg;
    if (q != a.me && m.err == 0)
        atomicAdd((unsigned long long *)&d->to_owner_rows, (unsigned long long)cnt);
    if (q == 0)
        d->excl = d->u - sidx[d->u];
}

/* Warp per unique row: the sum of its input rows, stored into every PE's
 * output (a row no other PE holds) or into its owner's receive area. */
__global__ static void __launch_bounds__(256) sar_k_send(
    sar_kargs_t a, const float *val, const int64_t *ukeys, sar_coal_view cv,
    const int32_t *sh, const int32_t *sidx, const int32_t *upos)
{
    __shared__ float *dst[8][SAR_MAX_PES];
    const sar_dev_t *d = a.d;
    if (d->skip)
        return;
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int64_t u = d->u, nw = (int64_t)gridDim.x * 8;
    for (int64_t j = blockIdx.x * 8 + w; j < u; j += nw) {
        int64_t k = ukeys[j];
        int nd = 0;
        if (!sh[j]) {
            nd = a.np;
            for (int i = lane; i < a.np; i += 32)   /* own output last */
                dst[w][i] = a.peers.out[(a.me + 1 + i) % a.np] + (size_t)upos[k] * a.dim;
        } else {
            int q = (int)(k / a.chunk);
            if (d->owner[q].err == 0) {
                int64_t slot = d->base[q] + sidx[j] - d->sbeg[q];
                nd = 1;
                if (lane == 0) {
                    dst[w][0] = a.peers.recv[q] + (size_t)slot * a.dim;
                    a.peers.rkey[q][slot] = k;
                }
            }
        }
        __syncwarp();
        const float *src;
        const int32_t *pos;
        int r0, r1;
        sar_run_src(cv, j, val, &src, &pos, &r0, &r1);
        sar_row_sum(src, a.dim, pos, r0, r1, dst[w], nd, lane);
        __syncwarp();
    }
    __threadfence_system();
}

/* Owner: map[sender][index - lo] = receive slot (undo = 1: back to -1). */
__global__ static void sar_k_map(sar_kargs_t a, const int64_t *rkey, int32_t *map, int undo)
{
    const sar_dev_t *d = a.d;
    if (d->skip || d->stop)
        return;
    int64_t lo = (int64_t)a.me * a.chunk;
    SAR_FOR(r, d->R) {
        int p = 0;
        while (p < a.np - 1 && !(r >= d->segbase[p] && r < d->segbase[p] + d->segcnt[p]))
            p++;
        map[(size_t)p * a.chunk + (rkey[r] - lo)] = undo ? -1 : (int32_t)r;
    }
}

/* Owner, warp per received row: the row of the lowest sender of an index
 * leads; its warp sums the index's rows in sender order and stores the sum
 * into every PE's output. */
__global__ static void __launch_bounds__(256) sar_k_reduce(
    sar_kargs_t a, const int64_t *rkey, const float *rval, const int32_t *map,
    const int32_t *upos)
{
    __shared__ float *dst[8][SAR_MAX_PES];
    __shared__ int32_t rows[8][SAR_MAX_PES];
    sar_dev_t *d = a.d;
    if (d->skip || d->stop)
        return;
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int64_t lo = (int64_t)a.me * a.chunk, R = d->R, nw = (int64_t)gridDim.x * 8;
    for (int64_t r = blockIdx.x * 8 + w; r < R; r += nw) {
        int64_t l = rkey[r] - lo;
        const int32_t *col = map + l;   /* map[p * chunk + l] */
        int lead = 1, nr = 0;
        for (int p = 0; p < a.np; p++) {
            int32_t s = col[(size_t)p * a.chunk];
            if (s >= 0) {
                if (nr == 0)
                    lead = s == (int32_t)r;
                if (lane == 0)
                    rows[w][nr] = s;
                nr++;
            }
        }
        if (!lead)
            continue;
        for (int i = lane; i < a.np; i += 32)
            dst[w][i] = a.peers.out[(a.me + 1 + i) % a.np] + (size_t)upos[lo + l] * a.dim;
        if (lane == 0)
            atomicAdd((unsigned long long *)&d->reduced, 1ull);
        __syncwarp();
        sar_row_sum(rval, a.dim, rows[w], 0, nr, dst[w], a.np, lane);
        __syncwarp();
    }
    __threadfence_system();
}

#endif /* SAR_GPU_KERNELS_CUH */

/* dlrm_fused.cu: the fused kernel (see dlrm_fused.h for the contract). */
#include "dlrm_fused.h"

#include <stdio.h>
#include <stdlib.h>

#include "dlrm_pool.cuh"
#include "gshmem_device.h"

static __device__ __forceinline__ unsigned long long dlrm_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The slice (q, g) of n rows is complete: lane 0 of the finishing warp
 * hands it over. Not inlined: one copy for every kernel instance. */
static __device__ __noinline__ void dlrm_send_slice(const dlrm_fused_args_t &a, int q, int64_t g,
                                                   int n, int queue)
{
    const dlrm_part_t &p = a.p;
    const unsigned long long t_start = a.trace ? dlrm_globaltimer() : 0;
    const int pe = a.compute_only ? p.me : q;
    uint64_t *sig = a.sig + (a.compute_only ? q : p.me) * p.G + g;
    if (!queue) {
        /* the rows are stored already (zero copy); fence + signal */
        gshmem_putmem_signal_nbi(a.out, a.out, 0, sig, a.epoch, GSHMEM_SIGNAL_SET, pe);
    } else {
        const size_t seg = sizeof(float) * (size_t)(p.tn * p.D);
        for (int r = 0; r < n; r++) {
            const int64_t b = g * p.rows + r;
            float *dst = a.out + b * p.T * p.D + p.t0 * p.D;
            const float *src = a.stage + ((int64_t)q * p.Bp + b) * p.tn * p.D;
            if (r < n - 1) {
                gshmem_putmem_nbi(dst, src, seg, q);
            } else {
                gshmem_fence();   /* the rows before the last one and its signal */
                gshmem_putmem_signal_nbi(dst, src, seg, sig, a.epoch, GSHMEM_SIGNAL_SET, q);
            }
        }
    }
    if (a.trace) {
        dlrm_slice_trace_t *tr = a.trace + (int64_t)q * p.G + g;
        tr->t_start = t_start;
        tr->t_end = dlrm_globaltimer();
        tr->bytes = (long long)n * p.tn * p.D * (long long)sizeof(float);
    }
}

/* Spins until word j of sig reaches the epoch (an acquire load, as
 * dlrm_slice_ready), backing off from 32 ns to cap_ns; false once
 * timeout_ns passed since start (the caller names what it waited for). */
static __device__ __forceinline__ bool dlrm_spin_until(const dlrm_fused_args_t &a,
                                                       const uint64_t *sig, int64_t j,
                                                       unsigned long long start, unsigned cap_ns)
{
    unsigned ns = 32;
    while (!dlrm_slice_ready(sig, 1, 0, j, a.epoch)) {
        if (dlrm_globaltimer() - start > a.timeout_ns)
            return false;
        __nanosleep(ns);
        ns = ns < cap_ns ? 2 * ns : ns;
    }
    return true;
}

/* The consumer's wait inside the kernel: thread k of the grid waits on
 * signals k, k + n_threads, ...; a slice missing after timeout_ns is named. */
static __device__ __noinline__ void dlrm_wait_incoming(const dlrm_fused_args_t &a)
{
    const dlrm_part_t &p = a.p;
    const int64_t n = (int64_t)p.P * p.G;
    const int64_t k0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t nt = (int64_t)gridDim.x * blockDim.x;
    const unsigned long long start = dlrm_globaltimer();
    for (int64_t j = k0; j < n; j += nt) {
        if (!dlrm_spin_until(a, a.sig, j, start, 1024)) {
            printf("gshmem-dlrm: PE %d: fused kernel: slice %lld from PE %lld never "
                   "signalled (signal %llu, epoch %llu) after %llu s\n", p.me,
                   (long long)(j % p.G), (long long)(j / p.G),
                   (unsigned long long)*(volatile uint64_t *)(a.sig + j),
                   (unsigned long long)a.epoch, a.timeout_ns / 1000000000ull);
            __trap();
        }
    }
}

/* DLRM_FUSED_HANDSHAKE: block 0 tells every peer this PE is ready for
 * the launch's epoch (its stream got here: its output's consumers are
 * done). */
static __device__ __noinline__ void dlrm_publish_ready(const dlrm_fused_args_t &a)
{
    const dlrm_part_t &p = a.p;
    for (int q = threadIdx.x; q < p.P; q += blockDim.x)
        if (q != p.me)
            gshmem_putmem_signal_nbi(a.ready, a.ready, 0, a.ready + p.me, a.epoch,
                                     GSHMEM_SIGNAL_SET, q);
}

/* DLRM_FUSED_HANDSHAKE: lane 0 waits until PE q is ready for this epoch
 * (an acquire load: nothing of the warp's for q goes out before); a PE
 * that never gets there is named after timeout_ns. */
static __device__ __noinline__ void dlrm_wait_ready(const dlrm_fused_args_t &a, int q)
{
    if (!dlrm_spin_until(a, a.ready, q, dlrm_globaltimer(), 256)) {
        printf("gshmem-dlrm: PE %d: fused kernel: PE %d never started epoch %llu (its "
               "handshake signal is at %llu) after %llu s\n", a.p.me, q,
               (unsigned long long)a.epoch, (unsigned long long)*(volatile uint64_t *)(a.ready + q),
               a.timeout_ns / 1000000000ull);
        __trap();
    }
}

/* Where item it's pooled rows go: the destination's output (local, or a
 * P2P peer's: zero copy), or the staging buffer (compute_only, queue
 * path). *ld_p: the row stride in floats. */
static __device__ __forceinline__ float *dlrm_item_dst(const dlrm_fused_args_t &a,
                                                       const dlrm_item_t &it, int64_t *ld_p,
                                                       int *queue_p, int *remote_p)
{
    const dlrm_part_t &p = a.p;
    float *peer = a.compute_only ? NULL
                  : it.q == p.me ? a.out : (float *)gshmem_ptr(a.out, it.q);
    *remote_p = peer != NULL && it.q != p.me;
    *queue_p = peer == NULL && !a.compute_only;
    if (peer != NULL) {
        *ld_p = p.T * p.D;
        return peer + it.b0 * p.T * p.D + (p.t0 + it.t) * p.D;
    }
    *ld_p = p.tn * p.D;
    return a.stage + ((int64_t)it.q * p.Bp + it.b0) * p.tn * p.D + it.t * p.D;
}

/* After the warp stored item i's rows: lane 0 counts the item in its
 * slice; the warp that completes the slice sends it. Not inlined: nothing
 * of the caller's is live across it, and one copy serves every instance. */
static __device__ __noinline__ void dlrm_item_done(const dlrm_fused_args_t &a, int64_t i)
{
    const dlrm_part_t &p = a.p;
    const dlrm_item_t it = dlrm_item_decode(&p, a.sched, a.order, i);
    int64_t ld;
    int queue, remote;
    (void)dlrm_item_dst(a, it, &ld, &queue, &remote);
    if (remote)
        __threadfence_system();   /* this warp's stores to the peer */
    else
        __threadfence();
    unsigned long long done = atomicAdd(a.cnt + (int64_t)it.q * p.G + it.g, 1ull) + 1ull;
    if (done == a.epoch * (unsigned long long)dlrm_slice_items(&p, it.g)) {
        __threadfence_system();   /* every warp's rows of the slice before the send */
        dlrm_send_slice(a, it.q, it.g, dlrm_slice_len(&p, it.g), queue);
    }
}

/* The arguments are __grid_constant__: read in place, where a by-value
 * struct whose address the helpers take (const &) was first copied to each
 * thread's stack, and every read of it in the loop was a local load (in the
 * pool-probe comparison: the compute_only kernel 8 % slower at B = 512). */
template <typename W, int LPR, int VPL, int U, bool GEN>
__global__ void __launch_bounds__(DLRM_BLOCK, DLRM_MIN_BLOCKS(VPL))
    dlrm_fused_kernel(const __grid_constant__ dlrm_fused_args_t a)
{
    const dlrm_part_t &p = a.p;
    const int lane = threadIdx.x & 31;
    const unsigned long long n_items = (unsigned long long)dlrm_n_items(&p);
    int ready_q = p.me;   /* handshake: the last peer seen ready (items come phase by phase) */
    if (a.trace_t0 != NULL && lane == 0)
        atomicMin(a.trace_t0, dlrm_globaltimer());
    if (a.handshake && blockIdx.x == 0)
        dlrm_publish_ready(a);
    for (;;) {
        unsigned long long i = 0;
        if (lane == 0)
            i = atomicAdd(a.next, 1ull) - a.next_base;
        i = __shfl_sync(DLRM_FULL, i, 0);
        if (i >= n_items)
            break;
        {   /* pool the item's rows (only these values stay live in the loop) */
            const dlrm_item_t it = dlrm_item_decode(&p, a.sched, a.order, (int64_t)i);
            if (a.handshake && it.q != ready_q && it.q != p.me && !a.compute_only) {
                if (lane == 0)
                    dlrm_wait_ready(a, it.q);
                __syncwarp();
                ready_q = it.q;
            }
            int64_t ld64;
            int queue, remote;
            float *dst = dlrm_item_dst(a, it, &ld64, &queue, &remote);
            const int ld = (int)ld64;
            const W *tab = reinterpret_cast<const W *>(a.weights) + a.wrow[it.t] * p.D;
            const int64_t *o = a.off + it.t * (p.B + 1) + (int64_t)it.q * p.Bp + it.b0;
            const int64_t *o_end = o + it.n;
            if (a.fault && i == 0) {   /* --fault: one row left unwritten (tests the checks) */
                o++;
                dst += ld;
            }
            for (; o < o_end; o++, dst += ld)
                dlrm_pool_row<W, LPR, VPL, U, GEN>(tab, p.D, a.idx, o[0], o[1], lane, dst);
        }
        __syncwarp();
        if (lane == 0)
            dlrm_item_done(a, (int64_t)i);
        __syncwarp();
    }
    if (a.wait)
        dlrm_wait_incoming(a);
}

template <typename W, int LPR, int VPL, int U, bool GEN> struct dlrm_fused_k {
    static const void *fn() { return (const void *)dlrm_fused_kernel<W, LPR, VPL, U, GEN>; }
};

/* ---- host side -------------------------------------------------------------------- */

extern "C" int dlrm_fused_create(dlrm_fused_t *f, const dlrm_part_t *p, int dtype, int sched,
                                 int order, const void *weights, const int64_t *off,
                                 const int64_t *idx, const int64_t *wrow, float *out,
                                 float *stage, char *why, size_t whylen)
{
    memset(f, 0, sizeof *f);
    dlrm_fused_args_t &a = f->a;
    a.p = *p;
    a.weights = weights;
    a.off = off;
    a.idx = idx;
    a.wrow = wrow;
    a.out = out;
    a.stage = stage;
    a.sched = sched;
    a.order = order;
    const char *env = getenv("GSHMEM_TIMEOUT");
    a.timeout_ns = (unsigned long long)(env && atoi(env) > 0 ? atoi(env) : 60) * 1000000000ull;
    f->dtype = dtype;
    f->block = DLRM_BLOCK;
    /* one block less than resident: room for gshmem's one-thread kernels */
    f->grid = dlrm_resident_grid(dlrm_pick<dlrm_fused_k>(dtype, p->D), 1);
    dlrm_part_set_items(&a.p, (int64_t)f->grid * (DLRM_BLOCK / 32), 0.0, 0);
    const size_t nsig = (size_t)(p->P * p->G);
    a.sig = (uint64_t *)gshmem_calloc(nsig + (size_t)p->P, sizeof(uint64_t));   /* collective */
    f->sig = a.sig;
    if (a.sig == NULL) {
        snprintf(why, whylen, "symmetric heap too small for %zu slice and %d handshake signals",
                 nsig, p->P);
        return -1;
    }
    a.ready = f->ready = a.sig + nsig;
    cudaError_t e = cudaMalloc(&a.cnt, nsig * sizeof(unsigned long long));
    if (e == cudaSuccess)
        e = cudaMalloc(&a.next, sizeof(unsigned long long));
    if (e == cudaSuccess)
        e = cudaMemset(a.cnt, 0, nsig * sizeof(unsigned long long));
    if (e == cudaSuccess)
        e = cudaMemset(a.next, 0, sizeof(unsigned long long));
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();   /* counters zeroed before any launch */
    if (e != cudaSuccess) {
        snprintf(why, whylen, "slice and work counters: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

extern "C" void dlrm_fused_set_items(dlrm_fused_t *f, double bag_bytes, int item_rows)
{
    f->a.p.crows = f->a.p.rows;
    dlrm_part_set_items(&f->a.p, (int64_t)f->grid * (DLRM_BLOCK / 32), bag_bytes, item_rows);
}

extern "C" uint64_t dlrm_fused_launch(dlrm_fused_t *f, int flags, cudaStream_t stream)
{
    dlrm_fused_args_t a = f->a;
    a.epoch = ++f->epoch;
    a.compute_only = (flags & DLRM_FUSED_COMPUTE_ONLY) != 0;
    a.wait = (flags & DLRM_FUSED_NO_WAIT) == 0;
    a.handshake = (flags & DLRM_FUSED_HANDSHAKE) != 0;
    void *args[] = {&a};
    cudaError_t e = cudaLaunchKernel(dlrm_pick<dlrm_fused_k>(f->dtype, a.p.D), dim3(f->grid),
                                     dim3(f->block), args, 0, stream);
    if (e != cudaSuccess) {
        fprintf(stderr, "gshmem-dlrm: PE %d: fused kernel launch (grid %d x %d): %s\n", a.p.me,
                f->grid, f->block, cudaGetErrorString(e));
        return 0;
    }
    /* every warp of the grid takes items until one fails: the launch leaves
     * the counter at next_base + items + warps (no reset between launches) */
    f->a.next_base += (unsigned long long)dlrm_n_items(&a.p) +
                      (unsigned long long)f->grid * (unsigned long long)(f->block / 32);
    return a.epoch;
}

extern "C" void dlrm_fused_destroy(dlrm_fused_t *f)
{
    cudaDeviceSynchronize();
    if (f->a.sig != NULL)
        gshmem_free(f->a.sig);
    cudaFree(f->a.cnt);
    cudaFree(f->a.next);
    memset(f, 0, sizeof *f);
}

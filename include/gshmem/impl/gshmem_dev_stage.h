/* gshmem_dev_stage.h: the inline bodies of gshmem_stage.h, which includes
 * this file last (never include it on its own); contracts are there.
 * - the policy and order maps and the guard decision: plain C for any
 *   compiler, __host__ __device__ under nvcc (CPU unit tests and kernels
 *   run the same code);
 * - the block-level device functions (nvcc only): take a tile, post, wait,
 *   and the spin loop the library's launch guard kernel also runs
 *   (src/api/stage/stage_guard.cu). The host functions are in libgshmem
 *   (src/api/stage).
 * Device misuse (a tile position outside the run, post_pe on a stage that
 * is not symmetric) and a wait past s.timeout_ns print what and where,
 * then trap.
 * Memory scope: semaphores of a local stage use GPU-scope fences, atomics
 * and acquire loads; those of a symmetric stage system scope (a peer GPU
 * or the proxy engine may update them).
 */
#ifndef GSHMEMI_DEV_STAGE_H
#define GSHMEMI_DEV_STAGE_H

#ifndef GSHMEM_STAGE_H
#error "include gshmem_stage.h (impl/gshmem_dev_stage.h holds its bodies)"
#endif

/* ---- policy and order maps (host and device) -------------------------------- */

#ifdef __cplusplus
extern "C" {
#endif

GSHMEM_STAGE_HD uint32_t gshmem_stage_n_tiles(gshmem_stage_grid_t g)
{
    return g.x * g.y;
}

GSHMEM_STAGE_HD uint32_t gshmem_stage_tile_index(gshmem_stage_grid_t g, gshmem_stage_tile_t t)
{
    return t.y * g.x + t.x;
}

GSHMEM_STAGE_HD uint32_t gshmem_stage_policy_n_sems(const gshmem_stage_policy_t *p,
                                                    gshmem_stage_grid_t g)
{
    switch (p->kind) {
    case GSHMEM_STAGE_PER_TILE: return g.x * g.y;
    case GSHMEM_STAGE_PER_ROW: return g.y;
    case GSHMEM_STAGE_STRIDED:
        return (p->stride >= 1 && p->stride <= g.x) ? g.y * p->stride : 0;
    case GSHMEM_STAGE_USER: return p->n_user_sems;
    default: return 0;
    }
}

GSHMEM_STAGE_HD uint32_t gshmem_stage_policy_sem(const gshmem_stage_policy_t *p,
                                                 gshmem_stage_grid_t g, gshmem_stage_tile_t t)
{
    switch (p->kind) {
    case GSHMEM_STAGE_PER_ROW: return t.y;
    case GSHMEM_STAGE_STRIDED: return t.y * p->stride + t.x % p->stride;
    case GSHMEM_STAGE_USER: return p->user_sem[t.y * g.x + t.x];
    default: return t.y * g.x + t.x;
    }
}

GSHMEM_STAGE_HD uint32_t gshmem_stage_policy_expected(const gshmem_stage_policy_t *p,
                                                      gshmem_stage_grid_t g, uint32_t sem)
{
    switch (p->kind) {
    case GSHMEM_STAGE_PER_ROW: return g.x;
    case GSHMEM_STAGE_STRIDED: {
        uint32_t r = sem % p->stride;   /* tiles x = r, r + stride, ... < g.x */
        return (g.x - r + p->stride - 1) / p->stride;
    }
    case GSHMEM_STAGE_USER: return p->user_expected[sem];
    default: return 1;
    }
}

GSHMEM_STAGE_HD gshmem_stage_tile_t gshmem_stage_order_tile(int order, const uint32_t *table,
                                                            gshmem_stage_grid_t g,
                                                            uint32_t pos)
{
    gshmem_stage_tile_t t;
    uint32_t lin;
    switch (order) {
    case GSHMEM_STAGE_COL_MAJOR:
        t.x = pos / g.y;
        t.y = pos % g.y;
        return t;
    case GSHMEM_STAGE_ORDER_TABLE: lin = table[pos]; break;
    default: lin = pos; break;
    }
    t.x = lin % g.x;
    t.y = lin / g.x;
    return t;
}

GSHMEM_STAGE_HD int gshmem_stage_guard_needed(uint32_t prod_blocks, uint32_t prod_per_sm,
                                              uint32_t cons_blocks, uint32_t cons_per_sm,
                                              uint32_t n_sms)
{
    if (prod_per_sm == 0 || cons_per_sm == 0 || n_sms == 0)
        return 1;
    /* prod_blocks / (prod_per_sm n) + cons_blocks / (cons_per_sm n) <= 1 */
    uint64_t lhs = (uint64_t)prod_blocks * cons_per_sm + (uint64_t)cons_blocks * prod_per_sm;
    uint64_t rhs = (uint64_t)prod_per_sm * cons_per_sm * n_sms;
    return lhs > rhs;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- device part (nvcc) ------------------------------------------------------- */

#if defined(__CUDACC__)
#include <stdio.h>
#include "gshmem_device.h"

__device__ __forceinline__ unsigned gshmemi_stage_tid(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ uint64_t gshmemi_stage_now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ uint64_t gshmemi_stage_ld_acquire(const uint64_t *p, bool sys)
{
    if (sys)
        return gshmemi_atomic_load_acquire_u64(p);
    uint64_t v;
    asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __noinline__ void gshmemi_stage_fail_wait(const char *call, uint32_t sem,
                                                            gshmem_stage_tile_t t,
                                                            unsigned long long v,
                                                            unsigned long long target,
                                                            unsigned long long epoch,
                                                            double sec)
{
    printf("gshmem: %s: block %u: tile (%u,%u) semaphore %u holds %llu, run %llu needs %llu; "
           "no post for %.1f s (producer not running, posting too few tiles, or a run number "
           "that is not the producer's)\n", call,
           blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z), t.x, t.y, sem, v,
           epoch, target, sec);
    __trap();
}

static __device__ __noinline__ void gshmemi_stage_fail_tile(unsigned long long pos, uint32_t n,
                                                            unsigned long long epoch)
{
    printf("gshmem: gshmem_stage_tile: block %u took position %lld of run %llu, which has %u "
           "tiles (launch grid.x * grid.y blocks per run, each calling gshmem_stage_tile "
           "once, and gshmem_stage_begin before each run)\n",
           blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z), (long long)pos,
           epoch, n);
    __trap();
}

static __device__ __noinline__ void gshmemi_stage_fail_local(void)
{
    printf("gshmem: gshmem_stage_post_pe: block %u: the stage is not GSHMEM_STAGE_SYMMETRIC "
           "(its semaphores are not in the symmetric heap)\n",
           blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
    __trap();
}

/* One thread: spins until *w >= target, bounded by timeout_ns (also the
 * body of the launch guard kernel, src/api/stage/stage_guard.cu). */
__device__ __forceinline__ void gshmemi_stage_spin(const char *call, const uint64_t *w,
                                                   uint64_t target, bool sys,
                                                   uint64_t timeout_ns, uint64_t epoch,
                                                   uint32_t sem, gshmem_stage_tile_t t)
{
    uint64_t v = gshmemi_stage_ld_acquire(w, sys);
    if (v >= target)
        return;
    uint64_t t0 = gshmemi_stage_now_ns();
    uint32_t backoff = 0;
    for (uint32_t i = 1;; i++) {
        /* 64 ns growing to 2 us (include/gshmem/ring/port.h): hundreds of waiting blocks
         * polling one semaphore must not crowd the L2 slice that holds it */
        gshmemi_backoff(&backoff);
        v = gshmemi_stage_ld_acquire(w, sys);
        if (v >= target)
            return;
        if ((i & 63u) == 0) {
            uint64_t dt = gshmemi_stage_now_ns() - t0;
            if (dt > timeout_ns)
                gshmemi_stage_fail_wait(call, sem, t, v, target, epoch, dt * 1e-9);
        }
    }
}

/* The stage's own policy as a C++ policy type. */
struct gshmemi_stage_builtin {
    const gshmem_stage_policy_t *p;
    __device__ __forceinline__ uint32_t sem(gshmem_stage_grid_t g, gshmem_stage_tile_t t) const
    {
        return gshmem_stage_policy_sem(p, g, t);
    }
    __device__ __forceinline__ uint32_t expected(gshmem_stage_grid_t g, uint32_t s) const
    {
        return gshmem_stage_policy_expected(p, g, s);
    }
};

__device__ __forceinline__ gshmem_stage_tile_t gshmem_stage_tile(const gshmem_stage_t &s)
{
    __shared__ uint32_t gshmemi_stage_pos;
    const uint32_t n = s.grid.x * s.grid.y;
    if (gshmemi_stage_tid() == 0) {
        uint64_t pos;
        if (s.flags & GSHMEM_STAGE_COUNTER) {
            /* The counter only grows: run e takes values [(e-1) n, e n). */
            pos = atomicAdd((unsigned long long *)&s.ctl[0], 1ull);
            if (s.epoch == 0)
                gshmemi_stage_fail_tile(pos, n, 0);
            pos -= (s.epoch - 1) * n;
        } else {
            pos = blockIdx.x + (uint64_t)gridDim.x * (blockIdx.y + (uint64_t)gridDim.y * blockIdx.z);
        }
        if (pos >= n)
            gshmemi_stage_fail_tile(pos, n, s.epoch);
        if (pos == 0)
            gshmemi_atomic_store_release_u64(&s.ctl[1], s.epoch);
        gshmemi_stage_pos = (uint32_t)pos;
    }
    __syncthreads();
    uint32_t pos = gshmemi_stage_pos;
    __syncthreads();   /* the next call may overwrite the shared word */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (s.flags & GSHMEM_STAGE_RELEASE_DEPENDENTS)
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    return gshmem_stage_order_tile(s.order, s.order_table, s.grid, pos);
}

template <class P>
__device__ __forceinline__ void gshmem_stage_post(const gshmem_stage_t &s, const P &p,
                                                  gshmem_stage_tile_t t)
{
    __syncthreads();
    if (gshmemi_stage_tid() == 0) {
        uint64_t *w = &s.sems[p.sem(s.grid, t)];
        if (s.flags & GSHMEM_STAGE_SYMMETRIC) {
            __threadfence_system();
            (void)gshmemi_atomic_fetch_add_relaxed_u64(w, 1);
        } else {
            __threadfence();
            atomicAdd((unsigned long long *)w, 1ull);
        }
    }
}

__device__ __forceinline__ void gshmem_stage_post(const gshmem_stage_t &s, gshmem_stage_tile_t t)
{
    gshmem_stage_post(s, gshmemi_stage_builtin{&s.policy}, t);
}

template <class P>
__device__ __forceinline__ void gshmem_stage_post_pe(const gshmem_stage_t &s, const P &p,
                                                     gshmem_stage_tile_t t, int pe)
{
    __syncthreads();
    if (gshmemi_stage_tid() == 0) {
        if (!(s.flags & GSHMEM_STAGE_SYMMETRIC))
            gshmemi_stage_fail_local();
        gshmem_fence();
        gshmem_uint64_atomic_add(&s.sems[p.sem(s.grid, t)], 1, pe);
    }
}

__device__ __forceinline__ void gshmem_stage_post_pe(const gshmem_stage_t &s,
                                                     gshmem_stage_tile_t t, int pe)
{
    gshmem_stage_post_pe(s, gshmemi_stage_builtin{&s.policy}, t, pe);
}

template <class P>
__device__ __forceinline__ uint32_t gshmem_stage_wait(const gshmem_stage_t &s, const P &p,
                                                      gshmem_stage_tile_t t)
{
    uint32_t sem = p.sem(s.grid, t);
    if (gshmemi_stage_tid() == 0)
        gshmemi_stage_spin("gshmem_stage_wait", &s.sems[sem],
                           (uint64_t)p.expected(s.grid, sem) * s.epoch,
                           (s.flags & GSHMEM_STAGE_SYMMETRIC) != 0, s.timeout_ns, s.epoch, sem,
                           t);
    __syncthreads();
    return sem;
}

__device__ __forceinline__ uint32_t gshmem_stage_wait(const gshmem_stage_t &s,
                                                      gshmem_stage_tile_t t)
{
    return gshmem_stage_wait(s, gshmemi_stage_builtin{&s.policy}, t);
}

/* Skips the wait (and its barrier) when t maps to *last_sem. */
__device__ __forceinline__ void gshmem_stage_wait(const gshmem_stage_t &s, gshmem_stage_tile_t t,
                                                  uint32_t *last_sem)
{
    if (gshmem_stage_policy_sem(&s.policy, s.grid, t) != *last_sem)
        *last_sem = gshmem_stage_wait(s, t);
}

/* One barrier round per batch of complete tiles instead of one per tile:
 * thread 0 waits for t, then every thread polls some of t + 1 .. t + n - 1
 * and the first incomplete one is the shared minimum. */
__device__ __forceinline__ uint32_t gshmem_stage_wait_ahead(const gshmem_stage_t &s,
                                                            gshmem_stage_tile_t t, uint32_t n)
{
    __shared__ uint32_t gshmemi_stage_first_missing;
    const bool sys = (s.flags & GSHMEM_STAGE_SYMMETRIC) != 0;
    const unsigned tid = gshmemi_stage_tid(), nthr = blockDim.x * blockDim.y * blockDim.z;
    const uint32_t sem_t = gshmem_stage_policy_sem(&s.policy, s.grid, t);
    if (tid == 0) {
        gshmemi_stage_spin("gshmem_stage_wait_ahead", &s.sems[sem_t],
                           (uint64_t)gshmem_stage_policy_expected(&s.policy, s.grid, sem_t) *
                               s.epoch, sys, s.timeout_ns, s.epoch, sem_t, t);
        gshmemi_stage_first_missing = n > 1 ? n : 1;
    }
    __syncthreads();
    for (uint32_t i = 1 + tid; i < n; i += nthr) {
        gshmem_stage_tile_t u = {t.x + i, t.y};
        uint32_t sem = gshmem_stage_policy_sem(&s.policy, s.grid, u);
        if (sem == sem_t)
            continue;   /* the same semaphore as t's: complete */
        uint64_t want = (uint64_t)gshmem_stage_policy_expected(&s.policy, s.grid, sem) * s.epoch;
        if (gshmemi_stage_ld_acquire(&s.sems[sem], sys) < want)
            atomicMin(&gshmemi_stage_first_missing, i);
    }
    __syncthreads();
    uint32_t r = gshmemi_stage_first_missing;
    __syncthreads();   /* the next call may overwrite the shared word */
    return r;
}

#endif /* __CUDACC__ */

#endif /* GSHMEMI_DEV_STAGE_H */

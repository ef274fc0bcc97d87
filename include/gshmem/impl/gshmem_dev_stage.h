/* gshmem_dev_stage.h: the CUDA parts of gshmem_stage.h (included by it
 * under nvcc only): host functions that allocate a stage and launch the
 * guard, and the block-level device functions (take a tile, post, wait).
 *
 * Device contracts (every function is called by all threads of a block,
 * with the same arguments, at a point every thread reaches):
 * - gshmem_stage_tile(s): this block's tile. With GSHMEM_STAGE_COUNTER the
 *   block's first thread takes the next position from the stage's counter,
 *   so a run must launch exactly grid.x * grid.y blocks that call it once
 *   each (a position outside the run reports and traps). The block at
 *   position 0 marks the run as started (the launch guard waits for it).
 * - gshmem_stage_post(s, t): block barrier (every thread's stores of tile
 *   t issued), then one thread: release fence and add 1 to t's semaphore.
 *   gshmem_stage_post_pe(s, t, pe): the same on PE pe's semaphore of a
 *   GSHMEM_STAGE_SYMMETRIC stage, after gshmem_fence (so puts to pe and
 *   stores through gshmem_ptr issued before are delivered first).
 * - gshmem_stage_wait(s, t): one thread spins with acquire loads until t's
 *   semaphore holds epoch * expected, then a block barrier; afterwards every
 *   thread sees what the producers wrote before posting. Returns the
 *   semaphore. The form with last_sem skips the wait when t maps to the
 *   semaphore waited for last (start with GSHMEM_STAGE_NO_SEM).
 *   gshmem_stage_wait_ahead(s, t, n): waits for t, then learns with one
 *   parallel poll how many of t .. t + n - 1 (along the row) are complete.
 *   A wait
 *   longer than s.timeout_ns prints the tile, the semaphore and its value
 *   and traps: a missing producer never hangs the GPU silently.
 * - User policies in C++: any type P with
 *     uint32_t sem(gshmem_stage_grid_t, gshmem_stage_tile_t) const;
 *     uint32_t expected(gshmem_stage_grid_t, uint32_t sem) const;
 *   given to gshmem_stage_post / gshmem_stage_wait instead of the stage's
 *   own policy (the stage must then hold at least as many semaphores).
 * Memory scope: semaphores of a local stage use GPU-scope fences, atomics
 * and acquire loads; those of a symmetric stage system scope (a peer GPU
 * or the proxy engine may update them).
 */
#ifndef GSHMEMI_DEV_STAGE_H
#define GSHMEMI_DEV_STAGE_H

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include "gshmem_device.h"

#define GSHMEM_STAGE_NO_SEM 0xffffffffu

/* ---- host part ------------------------------------------------------------------ */

/* Default wait limit: GSHMEM_TIMEOUT seconds (the runtime's own limit for
 * waiting on a peer) when set to a positive number, else 60 s. */
static inline uint64_t gshmemi_stage_default_timeout_ns(void)
{
    const char *v = getenv("GSHMEM_TIMEOUT");
    double sec = 60.0;
    if (v != NULL) {
        char *end = NULL;
        double d = strtod(v, &end);
        if (end != v && *end == '\0' && d > 0)
            sec = d;
    }
    return (uint64_t)(sec * 1e9);
}

static inline int gshmemi_stage_fail(const char *what, cudaError_t e)
{
    fprintf(stderr, "gshmem_stage_create: %s%s%s\n", what, e == cudaSuccess ? "" : ": ",
            e == cudaSuccess ? "" : cudaGetErrorString(e));
    return -1;
}

/* A device copy of n host words (NULL for n == 0 or src NULL). */
static inline int gshmemi_stage_upload(const uint32_t *src, size_t n, const uint32_t **dst_p)
{
    uint32_t *d = NULL;
    *dst_p = NULL;
    if (src == NULL || n == 0)
        return 0;
    cudaError_t e = cudaMalloc((void **)&d, n * sizeof(uint32_t));
    if (e == cudaSuccess)
        e = cudaMemcpy(d, src, n * sizeof(uint32_t), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cudaFree(d);
        return gshmemi_stage_fail("copying a policy or order table to the GPU", e);
    }
    *dst_p = d;
    return 0;
}

/* Frees what gshmem_stage_create allocated (collective for a symmetric
 * stage: gshmem_free). Safe on a zeroed or half-built stage. */
static inline void gshmem_stage_destroy(gshmem_stage_t *s)
{
    if (s->sems != NULL) {
        if (s->flags & GSHMEM_STAGE_SYMMETRIC)
            gshmem_free(s->sems);
        else
            cudaFree(s->sems);
    }
    cudaFree(s->ctl);
    cudaFree((void *)s->policy.user_sem);
    cudaFree((void *)s->policy.user_expected);
    cudaFree((void *)s->order_table);
    memset(s, 0, sizeof *s);
}

/* The start of gshmem_stage_create and _wrap: *s zeroed with its tile grid;
 * returns the policy to use (per tile when policy is NULL). */
static inline gshmem_stage_policy_t gshmemi_stage_reset(gshmem_stage_t *s, uint32_t tiles_x,
                                                        uint32_t tiles_y,
                                                        const gshmem_stage_policy_t *policy)
{
    gshmem_stage_policy_t p;
    memset(&p, 0, sizeof p);
    if (policy != NULL)
        p = *policy;
    memset(s, 0, sizeof *s);
    s->grid.x = tiles_x;
    s->grid.y = tiles_y;
    return p;
}

/* A stage of tiles_x x tiles_y tiles. policy NULL: per tile. USER tables
 * and order_table are host arrays, checked (gshmem_stage_check) and copied
 * to the GPU. flags: GSHMEM_STAGE_*. Semaphores and counters start at 0,
 * the run number at 0 (gshmem_stage_begin before the first run), all of it
 * on the GPU when create returns (any stream may use the stage). Returns
 * 0, or -1 with the problem printed (stage left zeroed). */
static inline int gshmem_stage_create(gshmem_stage_t *s, uint32_t tiles_x, uint32_t tiles_y,
                                      const gshmem_stage_policy_t *policy, int order,
                                      const uint32_t *order_table, uint32_t flags)
{
    char err[256];
    gshmem_stage_policy_t p = gshmemi_stage_reset(s, tiles_x, tiles_y, policy);
    if (gshmem_stage_check(s->grid, &p, order, order_table, err, sizeof err) != 0)
        return gshmemi_stage_fail(err, cudaSuccess);
    s->order = order;
    s->flags = flags;
    s->policy = p;
    s->policy.user_sem = NULL;
    s->policy.user_expected = NULL;
    s->n_sems = gshmem_stage_policy_n_sems(&p, s->grid);
    s->timeout_ns = gshmemi_stage_default_timeout_ns();
    size_t bytes = (size_t)s->n_sems * sizeof(uint64_t);
    cudaError_t e = cudaSuccess;
    if (flags & GSHMEM_STAGE_SYMMETRIC) {
        s->sems = (uint64_t *)gshmem_calloc(s->n_sems, sizeof(uint64_t));
        cudaPointerAttributes a;
        if (s->sems == NULL || cudaPointerGetAttributes(&a, s->sems) != cudaSuccess ||
            a.type != cudaMemoryTypeDevice) {
            (void)cudaGetLastError();
            snprintf(err, sizeof err, "%u symmetric semaphores: gshmem_calloc gave %p, not GPU "
                     "memory (gshmem_init with GSHMEM_HEAP=cuda first)", s->n_sems,
                     (void *)s->sems);
            gshmem_stage_destroy(s);
            return gshmemi_stage_fail(err, cudaSuccess);
        }
    } else {
        e = cudaMalloc((void **)&s->sems, bytes);
        if (e == cudaSuccess)
            e = cudaMemset(s->sems, 0, bytes);
    }
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&s->ctl, 2 * sizeof(uint64_t));
    if (e == cudaSuccess)
        e = cudaMemset(s->ctl, 0, 2 * sizeof(uint64_t));
    if (e != cudaSuccess) {
        gshmem_stage_destroy(s);
        return gshmemi_stage_fail("allocating semaphores and counters", e);
    }
    size_t n_tiles = (size_t)tiles_x * tiles_y;
    if ((p.kind == GSHMEM_STAGE_USER &&
         (gshmemi_stage_upload(p.user_sem, n_tiles, &s->policy.user_sem) != 0 ||
          gshmemi_stage_upload(p.user_expected, p.n_user_sems, &s->policy.user_expected) != 0)) ||
        (order == GSHMEM_STAGE_ORDER_TABLE &&
         gshmemi_stage_upload(order_table, n_tiles, &s->order_table) != 0)) {
        gshmem_stage_destroy(s);
        return -1;
    }
    /* the memsets and the pageable copies went on the legacy stream, which
     * does not order the non-blocking streams the stage's kernels may use:
     * everything is in place when create returns */
    e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) {
        gshmem_stage_destroy(s);
        return gshmemi_stage_fail("waiting for the semaphores' initialization", e);
    }
    return 0;
}

/* A wait-only stage over semaphores that exist already, e.g. another
 * component's per-tile signals that hold the run number (expected 1 per
 * run, as a semaphore SET to the run number by its producer), in device
 * memory or the symmetric heap (GSHMEM_STAGE_SYMMETRIC: system-scope
 * loads). Built-in policies only (policy NULL: per tile), no tile counter:
 * nothing is allocated and gshmem_stage_destroy must not be called. Set
 * s->epoch to the run to wait for. Returns 0, or -1 with the problem
 * printed. */
static inline int gshmem_stage_wrap(gshmem_stage_t *s, uint64_t *sems, uint32_t tiles_x,
                                    uint32_t tiles_y, const gshmem_stage_policy_t *policy,
                                    uint32_t flags)
{
    char err[256];
    gshmem_stage_policy_t p = gshmemi_stage_reset(s, tiles_x, tiles_y, policy);
    if (p.kind == GSHMEM_STAGE_USER || (flags & GSHMEM_STAGE_COUNTER) || sems == NULL) {
        fprintf(stderr, "gshmem_stage_wrap: needs semaphores (got %p), a built-in policy "
                "(got kind %d) and no GSHMEM_STAGE_COUNTER\n", (void *)sems, p.kind);
        return -1;
    }
    if (gshmem_stage_check(s->grid, &p, GSHMEM_STAGE_ROW_MAJOR, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "gshmem_stage_wrap: %s\n", err);
        return -1;
    }
    s->policy = p;
    s->flags = flags;
    s->sems = sems;
    s->n_sems = gshmem_stage_policy_n_sems(&p, s->grid);
    s->timeout_ns = gshmemi_stage_default_timeout_ns();
    return 0;
}

/* Starts the next run: returns its number (1, 2, ...). Pass the stage to
 * this run's kernels after the call (kernels take it by value). */
static inline uint64_t gshmem_stage_begin(gshmem_stage_t *s)
{
    return ++s->epoch;
}

/* ---- device part ------------------------------------------------------------------ */

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

/* One thread: spins until *w >= target, bounded by timeout_ns. */
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

/* For a consumer that reads producer tiles t, t + 1, ... t + n - 1 of one
 * row in that order: waits for tile t like gshmem_stage_wait, then polls
 * the other n - 1 in parallel (one acquire load per thread) and returns how
 * many consecutive tiles from t on are complete (1 .. n). The caller reads
 * them without further waits and calls again at the first tile past them:
 * one barrier round per batch of complete tiles instead of one per tile. */
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

/* ---- launch guard ------------------------------------------------------------------ */

/* One thread: waits until *word >= value as gshmem_stage_wait waits
 * (gshmemi_stage_spin: system-scope acquire loads, the same back-off, the
 * same timeout report). of_stage: word is a stage's start word and value
 * its run (the report names the producer's first tile); else any word,
 * which the report shows as semaphore 0 and value as the run it needs. */
template <int Unused = 0>
__global__ void gshmemi_stage_guard_kernel(const uint64_t *word, uint64_t value,
                                           uint64_t timeout_ns, int of_stage)
{
    gshmem_stage_tile_t none = {0, 0};
    gshmemi_stage_spin(of_stage ? "gshmem_stage_launch_guard (producer's first tile)"
                                : "gshmem_stage_launch_guard_on (the word as semaphore 0, "
                                  "its value as the run)",
                       word, value, true, timeout_ns, value, 0, none);
}

static inline cudaError_t gshmemi_stage_launch_guard(const uint64_t *word, uint64_t value,
                                                     uint64_t timeout_ns, int of_stage,
                                                     cudaStream_t stream)
{
    if (word == NULL) {
        fprintf(stderr, "%s\n", of_stage ? "gshmem_stage_launch_guard: the producer stage has "
                "no start word (zeroed, destroyed, or a gshmem_stage_wrap view)"
                : "gshmem_stage_launch_guard_on: the word to wait on is NULL");
        return cudaErrorInvalidValue;
    }
    gshmemi_stage_guard_kernel<<<1, 1, 0, stream>>>(word, value, timeout_ns, of_stage);
    return cudaGetLastError();
}

/* Enqueues on stream (the consumer's, just before the consumer) a
 * one-thread kernel that waits until the 64-bit unsigned word *word (GPU
 * memory, or memory the GPU maps) holds at least value: the guard of
 * gshmem_stage_launch_guard on a condition of the producer's own, e.g. a
 * completion counter its blocks add to (the word must only count up). A
 * wait longer than timeout_ns (a stage's timeout_ns) prints the word's
 * value and value, then traps. Returns the launch's error
 * (cudaErrorInvalidValue, printed, for a NULL word).
 * Launch the kernel that moves the word first, or have it loaded (launched
 * once before, or cudaFuncGetAttributes): CUDA's lazy loading loads a
 * kernel at its first launch, and that load may wait for running kernels,
 * the guard included, which then waits out its timeout. */
static inline cudaError_t gshmem_stage_launch_guard_on(const uint64_t *word, uint64_t value,
                                                       uint64_t timeout_ns,
                                                       cudaStream_t stream)
{
    return gshmemi_stage_launch_guard(word, value, timeout_ns, 0, stream);
}

/* Enqueues on stream (the consumer's, just before the consumer) a
 * one-thread kernel that waits until the current run of producer stage
 * prod started its first tile. Returns the launch's error
 * (cudaErrorInvalidValue, printed, for a stage without a start word). */
static inline cudaError_t gshmem_stage_launch_guard(const gshmem_stage_t *prod,
                                                    cudaStream_t stream)
{
    return gshmemi_stage_launch_guard(prod->ctl != NULL ? prod->ctl + 1 : NULL, prod->epoch,
                                      prod->timeout_ns, 1, stream);
}

/* Fills cfg (and its one attribute, attr) for cudaLaunchKernelEx: a launch
 * on stream that may start before the previous kernel of the stream
 * completes (programmatic dependent launch, sm_90), once every block of
 * that kernel started (its stage has GSHMEM_STAGE_RELEASE_DEPENDENTS). */
static inline void gshmem_stage_pdl_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr,
                                           dim3 grid, dim3 block, size_t smem,
                                           cudaStream_t stream)
{
    memset(cfg, 0, sizeof *cfg);
    memset(attr, 0, sizeof *attr);
    attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr->val.programmaticStreamSerializationAllowed = 1;
    cfg->gridDim = grid;
    cfg->blockDim = block;
    cfg->dynamicSmemBytes = smem;
    cfg->stream = stream;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

#endif /* GSHMEMI_DEV_STAGE_H */

/* gshmem_stage.h: tile-granular synchronization of dependent kernels, on one
 * GPU and across PEs.
 *
 * Two dependent kernels normally meet at a kernel boundary: the consumer
 * starts after the producer's last tile, and the producer's last, partial
 * wave leaves SMs idle. A stage instead lets the consumer start while the
 * producer runs and wait only for the producer tiles it reads: every
 * producer tile posts a semaphore in memory when its output is written,
 * every consumer block waits on the semaphores of the tiles it needs.
 *
 * Words used below:
 * - stage: one kernel's tile grid (x tiles along a row, y rows), the order
 *   its blocks take tiles in, and the semaphores its tiles post.
 * - policy: how a stage's tiles map to semaphores, and how many posts a
 *   semaphore gets per run (its expected value):
 *     PER_TILE  one semaphore per tile, expected 1;
 *     PER_ROW   one per row of tiles, expected grid.x (a waiter on any
 *               tile of the row waits for the whole row);
 *     STRIDED   stride semaphores per row: tile (x, y) posts semaphore
 *               y * stride + x % stride (the tiles x, x + stride, x +
 *               2 stride ... of a row, e.g. the Q, K and V column blocks of
 *               a fused QKV projection), expected the number of such tiles;
 *     USER      tables: sem[tile] and expected[sem] (device arrays in a
 *               stage; any grouping the built-in ones do not cover). C++
 *               kernels may also pass their own policy type, see
 *               impl/gshmem_dev_stage.h.
 * - run (epoch): the semaphores only count up. Run e (1, 2, ...) of a
 *   stage is complete for a semaphore once it holds e * expected, so no
 *   kernel has to reset them between runs.
 * - order: the sequence in which tiles are handed to blocks: row-major,
 *   column-major, or a table. With GSHMEM_STAGE_COUNTER a block takes the
 *   next position from an atomic counter when it starts instead of using
 *   blockIdx, so tiles start exactly in that order whatever order the
 *   hardware starts blocks in (a consumer can follow the order in which
 *   its producer finishes tiles).
 * - launch guard: a consumer launched on its own stream may start before
 *   its producer and, if its waiting blocks fill the GPU, keep the
 *   producer from ever running. The guard is a one-thread kernel on the
 *   consumer's stream that waits until the producer's first tile started
 *   (launch it just before the consumer; give the producer's stream the
 *   higher priority so its pending blocks are placed first). It is not
 *   needed when both grids fit on the GPU together
 *   (gshmem_stage_guard_needed), nor when the consumer is launched with
 *   programmatic dependent launch after a producer that releases it once
 *   every producer block has started. gshmem_stage_launch_guard_on is the
 *   same guard on a word of the producer's own (e.g. a counter its blocks
 *   add to once they are resident) for producers that are not stages.
 *
 * Parts of this header (declarations and contracts; the inline bodies are
 * in impl/gshmem_dev_stage.h, the host functions in libgshmem):
 * - plain C (any compiler): the types, the policy and order maps and the
 *   guard decision, inline and __host__ __device__ under nvcc, so the same
 *   code runs in kernels and in CPU unit tests;
 * - host functions (libgshmem): gshmem_stage_check, _create / _destroy
 *   (CUDA builds of the library: they allocate with the CUDA runtime),
 *   _wrap (a wait-only view of semaphores another component owns), _begin;
 *   under nvcc also _launch_guard(_on) and _pdl_config (a consumer launch
 *   by programmatic dependent launch). They return GSHMEM_SUCCESS or a
 *   negative gshmem_status_t (gshmem_strerror), the cause logged once;
 * - device functions (nvcc only): gshmem_stage_tile, gshmem_stage_post,
 *   gshmem_stage_post_pe, gshmem_stage_wait, gshmem_stage_wait_ahead (one
 *   block-wide poll covering every complete tile ahead of a consumer that
 *   reads a row in order).
 *
 * Across PEs: with GSHMEM_STAGE_SYMMETRIC the semaphores live in the
 * symmetric heap (gshmem_stage_create is then collective, GSHMEM_HEAP=cuda),
 * and a producer kernel on one PE posts to another PE's semaphores with
 * gshmem_stage_post_pe after writing the tile there (gshmem puts or stores
 * through gshmem_ptr): the post orders those writes before the signal.
 *
 * Wait limit: a stage's timeout_ns starts at GSHMEM_TIMEOUT seconds (the
 * settings table's value, the runtime's own limit for waiting on a peer;
 * default 60); set the field to change it for one stage.
 */
#ifndef GSHMEM_STAGE_H
#define GSHMEM_STAGE_H

#include <stddef.h>
#include <stdint.h>
#include "gshmem_types.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
#define GSHMEM_STAGE_HD static __host__ __device__ __forceinline__
#else
#define GSHMEM_STAGE_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types ----------------------------------------------------------------- */

typedef struct gshmem_stage_grid {
    uint32_t x, y;   /* tiles per row, rows of tiles */
} gshmem_stage_grid_t;

typedef struct gshmem_stage_tile {
    uint32_t x, y;   /* column and row of a tile in its grid */
} gshmem_stage_tile_t;

enum gshmem_stage_policy_kind {
    GSHMEM_STAGE_PER_TILE = 0,
    GSHMEM_STAGE_PER_ROW = 1,
    GSHMEM_STAGE_STRIDED = 2,
    GSHMEM_STAGE_USER = 3
};

typedef struct gshmem_stage_policy {
    int kind;                      /* enum gshmem_stage_policy_kind */
    uint32_t stride;               /* STRIDED: 1 .. grid.x */
    uint32_t n_user_sems;          /* USER: semaphores */
    const uint32_t *user_sem;      /* USER: [grid.x * grid.y], by linear tile y * grid.x + x */
    const uint32_t *user_expected; /* USER: [n_user_sems], posts per run, >= 1 */
} gshmem_stage_policy_t;

enum gshmem_stage_order {
    GSHMEM_STAGE_ROW_MAJOR = 0,    /* x fastest */
    GSHMEM_STAGE_COL_MAJOR = 1,    /* y fastest */
    GSHMEM_STAGE_ORDER_TABLE = 2   /* table[pos] = linear tile (a permutation) */
};

/* flags of gshmem_stage_create */
#define GSHMEM_STAGE_COUNTER (1u << 0)   /* blocks take tiles from an atomic counter */
#define GSHMEM_STAGE_SYMMETRIC (1u << 1) /* semaphores in the symmetric heap (collective) */
/* gshmem_stage_tile also releases a consumer launched with programmatic
 * dependent launch (griddepcontrol.launch_dependents, sm_90): that grid is
 * placed only once every block of this one started, so its waits can never
 * keep a producer block off the GPU. */
#define GSHMEM_STAGE_RELEASE_DEPENDENTS (1u << 2)

/* "No semaphore waited for yet": the start value of the last_sem of
 * gshmem_stage_wait(s, t, &last_sem). */
#define GSHMEM_STAGE_NO_SEM 0xffffffffu

/* A stage, passed by value to kernels. Fill it with gshmem_stage_create. */
typedef struct gshmem_stage {
    gshmem_stage_grid_t grid;
    gshmem_stage_policy_t policy;  /* USER tables: device copies */
    int order;                     /* enum gshmem_stage_order */
    uint32_t flags;
    const uint32_t *order_table;   /* ORDER_TABLE: device copy, [grid.x * grid.y] */
    uint64_t *sems;                /* [n_sems], device memory or symmetric heap */
    uint32_t n_sems;
    uint32_t reserved0;
    /* ctl[0]: tile counter (COUNTER), ctl[1]: last run whose first tile
     * started (read by the launch guard). Device memory. */
    uint64_t *ctl;
    uint64_t epoch;                /* current run, 1, 2, ... (gshmem_stage_begin) */
    uint64_t timeout_ns;           /* a wait longer than this reports and traps */
} gshmem_stage_t;

/* ---- policy and order maps (host and device) -------------------------------- */

/* Tiles of grid g, and the linear index y * g.x + x of tile t. */
GSHMEM_STAGE_HD uint32_t gshmem_stage_n_tiles(gshmem_stage_grid_t g);
GSHMEM_STAGE_HD uint32_t gshmem_stage_tile_index(gshmem_stage_grid_t g, gshmem_stage_tile_t t);
/* Number of semaphores a policy needs for grid g (0: invalid policy). */
GSHMEM_STAGE_HD uint32_t gshmem_stage_policy_n_sems(const gshmem_stage_policy_t *p,
                                                    gshmem_stage_grid_t g);
/* The semaphore tile t posts (and that a waiter on t waits for). */
GSHMEM_STAGE_HD uint32_t gshmem_stage_policy_sem(const gshmem_stage_policy_t *p,
                                                 gshmem_stage_grid_t g, gshmem_stage_tile_t t);
/* Posts semaphore sem receives per run. */
GSHMEM_STAGE_HD uint32_t gshmem_stage_policy_expected(const gshmem_stage_policy_t *p,
                                                      gshmem_stage_grid_t g, uint32_t sem);
/* The tile at position pos (0 .. n_tiles - 1) of an order; table: the
 * ORDER_TABLE permutation (linear tiles), unused otherwise. */
GSHMEM_STAGE_HD gshmem_stage_tile_t gshmem_stage_order_tile(int order, const uint32_t *table,
                                                            gshmem_stage_grid_t g,
                                                            uint32_t pos);
/* Launch guard decision: 0 when the producer's and the consumer's grids
 * fit on the GPU at the same time (blocks per SM from the occupancy
 * calculator of each kernel alone; their shares of an SM are added, which
 * is what registers, shared memory and thread slots do), so no consumer
 * block can keep a producer block from being placed; 1 otherwise, or when
 * an input is 0 (cannot decide: guard). */
GSHMEM_STAGE_HD int gshmem_stage_guard_needed(uint32_t prod_blocks, uint32_t prod_per_sm,
                                              uint32_t cons_blocks, uint32_t cons_per_sm,
                                              uint32_t n_sms);

/* ---- host functions (libgshmem) ------------------------------------------------ */

/* Checks a policy and an order for grid g, with host copies of the USER /
 * ORDER_TABLE tables (may be NULL when not used): every tile must map to a
 * semaphore below n_sems, every semaphore's expected count must equal the
 * number of tiles mapping to it, a table order must be a permutation.
 * Returns GSHMEM_SUCCESS, or GSHMEM_ERR_INVALID_ARG (GSHMEM_ERR_NOMEM: no
 * host memory for the count) with the first problem written to err (not
 * logged: the caller decides what it is). */
int gshmem_stage_check(gshmem_stage_grid_t g, const gshmem_stage_policy_t *p, int order,
                       const uint32_t *order_table, char *err, size_t errlen);

/* A stage of tiles_x x tiles_y tiles. policy NULL: per tile. USER tables
 * and order_table are host arrays, checked (gshmem_stage_check) and copied
 * to the GPU. flags: GSHMEM_STAGE_*. Semaphores and counters start at 0,
 * the run number at 0 (gshmem_stage_begin before the first run), all of it
 * on the GPU when create returns (any stream may use the stage). Returns
 * GSHMEM_SUCCESS; GSHMEM_ERR_INVALID_ARG (the check failed),
 * GSHMEM_ERR_NOMEM / GSHMEM_ERR_NOT_SUPPORTED (symmetric semaphores: heap
 * full / not GPU memory), GSHMEM_ERR_CUDA or GSHMEM_ERR_CONFIG (an invalid
 * GSHMEM_* setting, before gshmem_init), the cause logged and *s zeroed.
 * CUDA builds of libgshmem only. */
int gshmem_stage_create(gshmem_stage_t *s, uint32_t tiles_x, uint32_t tiles_y,
                        const gshmem_stage_policy_t *policy, int order,
                        const uint32_t *order_table, uint32_t flags);

/* Frees what gshmem_stage_create allocated (collective for a symmetric
 * stage: gshmem_free) and zeroes *s. Safe on a zeroed stage. CUDA builds. */
void gshmem_stage_destroy(gshmem_stage_t *s);

/* A wait-only stage over semaphores that exist already, e.g. another
 * component's per-tile signals that hold the run number (expected 1 per
 * run, as a semaphore SET to the run number by its producer), in device
 * memory or the symmetric heap (GSHMEM_STAGE_SYMMETRIC: system-scope
 * loads). Built-in policies only (policy NULL: per tile), no tile counter:
 * nothing is allocated and gshmem_stage_destroy must not be called. Set
 * s->epoch to the run to wait for. Returns GSHMEM_SUCCESS, or
 * GSHMEM_ERR_INVALID_ARG / GSHMEM_ERR_CONFIG with the cause logged. */
int gshmem_stage_wrap(gshmem_stage_t *s, uint64_t *sems, uint32_t tiles_x, uint32_t tiles_y,
                      const gshmem_stage_policy_t *policy, uint32_t flags);

/* Starts the next run: returns its number (1, 2, ...). Pass the stage to
 * this run's kernels after the call (kernels take it by value). */
uint64_t gshmem_stage_begin(gshmem_stage_t *s);

#if defined(__CUDACC__)
/* Enqueues on stream (the consumer's, just before the consumer) a
 * one-thread kernel that waits until the current run of producer stage
 * prod started its first tile. Returns GSHMEM_SUCCESS,
 * GSHMEM_ERR_INVALID_ARG for a stage without a start word (zeroed,
 * destroyed, or a gshmem_stage_wrap view) or GSHMEM_ERR_CUDA for a failed
 * launch, the cause logged. */
int gshmem_stage_launch_guard(const gshmem_stage_t *prod, cudaStream_t stream);

/* The guard of gshmem_stage_launch_guard on a condition of the producer's
 * own: a one-thread kernel on stream that waits until the 64-bit unsigned
 * word *word (GPU memory, or memory the GPU maps) holds at least value,
 * e.g. a completion counter its blocks add to (the word must only count
 * up). A wait longer than timeout_ns (a stage's timeout_ns) prints the
 * word's value and value, then traps. Returns as gshmem_stage_launch_guard
 * (GSHMEM_ERR_INVALID_ARG for a NULL word).
 * Launch the kernel that moves the word first, or have it loaded (launched
 * once before, or cudaFuncGetAttributes): CUDA's lazy loading loads a
 * kernel at its first launch, and that load may wait for running kernels,
 * the guard included, which then waits out its timeout. */
int gshmem_stage_launch_guard_on(const uint64_t *word, uint64_t value, uint64_t timeout_ns,
                                 cudaStream_t stream);

/* Fills cfg (and its one attribute, attr) for cudaLaunchKernelEx: a launch
 * on stream that may start before the previous kernel of the stream
 * completes (programmatic dependent launch, sm_90), once every block of
 * that kernel started (its stage has GSHMEM_STAGE_RELEASE_DEPENDENTS). */
void gshmem_stage_pdl_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, dim3 grid,
                             dim3 block, size_t smem, cudaStream_t stream);
#endif /* __CUDACC__ */

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- device functions (nvcc) ----------------------------------------------------
 * Every one is called by all threads of a block, with the same arguments,
 * at a point every thread reaches.
 * - gshmem_stage_tile(s): this block's tile. With GSHMEM_STAGE_COUNTER the
 *   block's first thread takes the next position from the stage's counter,
 *   so a run must launch exactly grid.x * grid.y blocks that call it once
 *   each (a position outside the run reports and traps). The block at
 *   position 0 marks the run as started (the launch guard waits for it).
 * - gshmem_stage_post(s, t): block barrier (every thread's stores of tile
 *   t issued), then one thread: release fence and add 1 to t's semaphore.
 *   gshmem_stage_post_pe(s, t, pe): the same on PE pe's semaphore of a
 *   GSHMEM_STAGE_SYMMETRIC stage, after gshmem_fence (so puts to pe and
 *   stores through gshmem_ptr issued before are delivered first); on a
 *   stage that is not symmetric it reports and traps.
 * - gshmem_stage_wait(s, t): one thread spins with acquire loads until t's
 *   semaphore holds epoch * expected, then a block barrier; afterwards every
 *   thread sees what the producers wrote before posting. Returns the
 *   semaphore. The form with last_sem skips the wait (and its barrier) when
 *   t maps to the semaphore waited for last (start with
 *   GSHMEM_STAGE_NO_SEM).
 * - gshmem_stage_wait_ahead(s, t, n): for a consumer that reads producer
 *   tiles t, t + 1, ... t + n - 1 of one row in that order: waits for t
 *   like gshmem_stage_wait, then polls the other n - 1 in parallel (one
 *   acquire load per thread) and returns how many consecutive tiles from t
 *   on are complete (1 .. n). The caller reads them without further waits
 *   and calls again at the first tile past them.
 * - A wait longer than s.timeout_ns prints the tile, the semaphore and its
 *   value and traps: a missing producer never hangs the GPU silently.
 * - User policies in C++: any type P with
 *     uint32_t sem(gshmem_stage_grid_t, gshmem_stage_tile_t) const;
 *     uint32_t expected(gshmem_stage_grid_t, uint32_t sem) const;
 *   given to gshmem_stage_post / gshmem_stage_wait instead of the stage's
 *   own policy (the stage must then hold at least as many semaphores). */
#if defined(__CUDACC__)
/* inline: bodies in impl/gshmem_dev_stage.h (the attribute must be on the
 * first declaration of a template) */
#define GSHMEM_STAGE_DEV __device__ __forceinline__

GSHMEM_STAGE_DEV gshmem_stage_tile_t gshmem_stage_tile(const gshmem_stage_t &s);
GSHMEM_STAGE_DEV void gshmem_stage_post(const gshmem_stage_t &s, gshmem_stage_tile_t t);
template <class P>
GSHMEM_STAGE_DEV void gshmem_stage_post(const gshmem_stage_t &s, const P &p,
                                        gshmem_stage_tile_t t);
GSHMEM_STAGE_DEV void gshmem_stage_post_pe(const gshmem_stage_t &s, gshmem_stage_tile_t t,
                                           int pe);
template <class P>
GSHMEM_STAGE_DEV void gshmem_stage_post_pe(const gshmem_stage_t &s, const P &p,
                                           gshmem_stage_tile_t t, int pe);
GSHMEM_STAGE_DEV uint32_t gshmem_stage_wait(const gshmem_stage_t &s, gshmem_stage_tile_t t);
template <class P>
GSHMEM_STAGE_DEV uint32_t gshmem_stage_wait(const gshmem_stage_t &s, const P &p,
                                            gshmem_stage_tile_t t);
GSHMEM_STAGE_DEV void gshmem_stage_wait(const gshmem_stage_t &s, gshmem_stage_tile_t t,
                                        uint32_t *last_sem);
GSHMEM_STAGE_DEV uint32_t gshmem_stage_wait_ahead(const gshmem_stage_t &s,
                                                  gshmem_stage_tile_t t, uint32_t n);
#endif /* __CUDACC__ */

#include "gshmem/impl/gshmem_dev_stage.h"

#endif /* GSHMEM_STAGE_H */

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
 * Parts of this header:
 * - plain C (any compiler): the types, the policy and order maps and the
 *   guard decision, __host__ __device__ under nvcc, so the same code runs
 *   in kernels and in CPU unit tests;
 * - host functions (nvcc only: they allocate with the CUDA runtime):
 *   gshmem_stage_create / _destroy / _begin / _launch_guard(_on), _pdl_config
 *   (a consumer launch by programmatic dependent launch), _wrap (a
 *   wait-only view of semaphores another component owns);
 * - device functions (nvcc only, impl/gshmem_dev_stage.h):
 *   gshmem_stage_tile, gshmem_stage_post, gshmem_stage_post_pe,
 *   gshmem_stage_wait, gshmem_stage_wait_ahead (one block-wide poll
 *   covering every complete tile ahead of a consumer that reads a row in
 *   order).
 *
 * Across PEs: with GSHMEM_STAGE_SYMMETRIC the semaphores live in the
 * symmetric heap (gshmem_stage_create is then collective, GSHMEM_HEAP=cuda),
 * and a producer kernel on one PE posts to another PE's semaphores with
 * gshmem_stage_post_pe after writing the tile there (gshmem puts or stores
 * through gshmem_ptr): the post orders those writes before the signal.
 */
#ifndef GSHMEM_STAGE_H
#define GSHMEM_STAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

/* ---- policy maps (host and device) ------------------------------------------ */

GSHMEM_STAGE_HD uint32_t gshmem_stage_n_tiles(gshmem_stage_grid_t g)
{
    return g.x * g.y;
}

GSHMEM_STAGE_HD uint32_t gshmem_stage_tile_index(gshmem_stage_grid_t g, gshmem_stage_tile_t t)
{
    return t.y * g.x + t.x;
}

/* Number of semaphores a policy needs for grid g (0: invalid policy). */
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

/* The semaphore tile t posts (and that a waiter on t waits for). */
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

/* Posts semaphore sem receives per run. */
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

/* The tile at position pos (0 .. n_tiles - 1) of an order; table: the
 * ORDER_TABLE permutation (linear tiles), unused otherwise. */
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

/* Launch guard decision: 0 when the producer's and the consumer's grids
 * fit on the GPU at the same time (blocks per SM from the occupancy
 * calculator of each kernel alone; their shares of an SM are added, which
 * is what registers, shared memory and thread slots do), so no consumer
 * block can keep a producer block from being placed; 1 otherwise, or when
 * an input is 0 (cannot decide: guard). */
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

/* Host-side check of a policy and an order for grid g, with host copies of
 * the USER / ORDER_TABLE tables (may be NULL when not used). Every tile
 * must map to a semaphore below n_sems, every semaphore's expected count
 * must equal the number of tiles mapping to it, a table order must be a
 * permutation. Returns 0, or -1 with the first problem written to err. */
static inline int gshmem_stage_check(gshmem_stage_grid_t g, const gshmem_stage_policy_t *p,
                                     int order, const uint32_t *order_table, char *err,
                                     size_t errlen)
{
    uint32_t n = g.x * g.y, ns;
    if (g.x == 0 || g.y == 0 || (uint64_t)g.x * g.y > 0x7fffffffu) {
        snprintf(err, errlen, "tile grid %ux%u is empty or too large", g.x, g.y);
        return -1;
    }
    if (p->kind < GSHMEM_STAGE_PER_TILE || p->kind > GSHMEM_STAGE_USER) {
        snprintf(err, errlen, "unknown policy kind %d", p->kind);
        return -1;
    }
    if (p->kind == GSHMEM_STAGE_STRIDED && (p->stride < 1 || p->stride > g.x)) {
        snprintf(err, errlen, "strided policy: stride %u not in 1..%u (tiles per row)",
                 p->stride, g.x);
        return -1;
    }
    if (p->kind == GSHMEM_STAGE_USER &&
        (p->n_user_sems == 0 || p->user_sem == NULL || p->user_expected == NULL)) {
        snprintf(err, errlen, "user policy: n_user_sems %u, user_sem %p, user_expected %p "
                 "(need tables and at least one semaphore)", p->n_user_sems,
                 (const void *)p->user_sem, (const void *)p->user_expected);
        return -1;
    }
    if (order < GSHMEM_STAGE_ROW_MAJOR || order > GSHMEM_STAGE_ORDER_TABLE ||
        (order == GSHMEM_STAGE_ORDER_TABLE && order_table == NULL)) {
        snprintf(err, errlen, "order %d invalid (or ORDER_TABLE without a table)", order);
        return -1;
    }
    ns = gshmem_stage_policy_n_sems(p, g);
    uint32_t *count = (uint32_t *)calloc((size_t)ns + n, sizeof(uint32_t));
    if (count == NULL) {
        snprintf(err, errlen, "out of host memory (%u semaphores)", ns);
        return -1;
    }
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        gshmem_stage_tile_t t = {i % g.x, i / g.x};
        uint32_t s = gshmem_stage_policy_sem(p, g, t);
        if (s >= ns) {
            snprintf(err, errlen, "tile (%u,%u) maps to semaphore %u, not below %u", t.x,
                     t.y, s, ns);
            rc = -1;
        } else {
            count[s]++;
        }
    }
    for (uint32_t s = 0; s < ns && rc == 0; s++) {
        uint32_t e = gshmem_stage_policy_expected(p, g, s);
        if (e != count[s]) {
            snprintf(err, errlen, "semaphore %u expects %u posts per run but %u tiles map "
                     "to it", s, e, count[s]);
            rc = -1;
        }
    }
    for (uint32_t pos = 0; pos < n && rc == 0 && order == GSHMEM_STAGE_ORDER_TABLE; pos++) {
        uint32_t lin = order_table[pos];
        if (lin >= n || count[ns + lin]++ != 0) {
            snprintf(err, errlen, "order table: position %u holds tile %u (%s)", pos, lin,
                     lin >= n ? "out of range" : "repeated");
            rc = -1;
        }
    }
    free(count);
    return rc;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__CUDACC__)
#include "gshmem/impl/gshmem_dev_stage.h"
#endif

#endif /* GSHMEM_STAGE_H */

/* core.h: helpers shared by the files of the host API layer (src/api/core).
 * Internal: the public calls validate their arguments with these, then
 * drive the transports through gshmemi_g. */
#ifndef GSHMEMI_CORE_H
#define GSHMEMI_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "api/gshmemi.h"
#include "api/core/ctx_hooks.h"
#include "engine/proxy.h"

/* Smallest alignment of a symmetric allocation (a cache line). */
#define GSHMEMI_MEM_MIN_ALIGN 64
/* ... on a CUDA heap: what cudaMalloc promises. A warp's 16-byte stores
 * cover 512 bytes; from a 64-byte-aligned address they touch one more
 * 128-byte line, and one block's stores to a peer GPU moved 41.8 GB/s
 * instead of 44.7 (gshmem-perf-dev-map-probe; the heap's reserved areas
 * had left the first allocations 64-byte aligned). */
#define GSHMEMI_MEM_MIN_ALIGN_CUDA 256

/* Every public call but gshmem_init* and gshmem_finalize starts with this. */
#define GSHMEMI_REQUIRE_INIT(call)                                                \
    do {                                                                          \
        if (__builtin_expect(!gshmemi_g.initialized, 0))                          \
            gshmemi_fatal_uninit(call);                                           \
    } while (0)
/* init.c: a call while gshmem is not initialized: fatal naming call and
 * whether it came before gshmem_init or after gshmem_finalize. */
void gshmemi_fatal_uninit(const char *call) __attribute__((noreturn, cold));

/* pe in [0, n_pes) or fatal naming it. Always checked. */
static inline void gshmemi_check_pe(const char *call, int pe)
{
    if (__builtin_expect(pe < 0 || pe >= gshmemi_g.n_pes, 0))
        gshmemi_fatal(call, "invalid PE %d (n_pes %d)", pe, gshmemi_g.n_pes);
}

/* The local buffer of a put or get of n > 0 bytes to or from pe (the
 * source of a put, the dest of a get; what names it) must not be NULL, or
 * fatal naming it. Always checked. */
static inline void gshmemi_check_local(const char *call, const char *what, const void *p,
                                       size_t n, int pe)
{
    if (__builtin_expect(p == NULL, 0))
        gshmemi_fatal(call, "%s is NULL (%zu bytes, PE %d)", what, n, pe);
}

/* [addr, addr+n) must be local symmetric memory (the twin of the remote
 * object): in the heap, or in a symmetric data segment (a global or static
 * variable); what names the argument ("dest", "source", "sig_addr").
 * Returns its offset in the symmetric window; ends the job naming the
 * address otherwise. One range check (the heap) on the hot path, the
 * segments only when it misses (gshmemi_heap_offset). */
uint64_t gshmemi_check_sym(const char *call, const char *what, const void *addr,
                           size_t n);

/* The same, with an alignment requirement (AMOs, signals). */
uint64_t gshmemi_check_sym_aligned(const char *call, const char *what,
                                   const void *addr, size_t n);

/* The transport that carries AMOs to pe (see init.c for the rule). */
static inline gshmemi_transport_t *gshmemi_amo_tp_of(int pe)
{
    return gshmemi_transport_amo(gshmemi_g.amo_tp, gshmemi_g.pe_tp, pe);
}

/* init.c: the engine's stop as finalize does it (the aggregator's service
 * first: it posts into the rings); TESTING: an engine over host channels on
 * the running runtime, whatever the heap (gshmemi_proxy_start_host). */
void gshmemi_engine_stop(void);
int gshmemi_engine_start_host(void);
/* exit.c: an exit without gshmem_finalize stops the library's threads
 * first (before CUDA's own exit handler). register: init, right after the
 * heap (cuda_heap: a CUDA heap was made). began: 1 once that handler ran
 * (a later gshmem_finalize is skipped). */
void gshmemi_exit_register(int cuda_heap);
int gshmemi_exit_began(void);
/* init.c: the heap GSHMEM_HEAP=setting gives (auto, host or cuda, any
 * case): auto is a CUDA heap when built_with_cuda and n_gpus > 0, else a
 * host heap. Pure (gpu_err: why no GPU is seen, may be NULL). Writes
 * *kind_p and the reason for GSHMEM_INFO into why[cap]; another setting
 * is GSHMEM_ERR_CONFIG, logged. */
int gshmemi_heap_kind_choose(const char *setting, int built_with_cuda, int n_gpus,
                             const char *gpu_err, gshmemi_heap_kind_t *kind_p, char *why,
                             size_t cap);

/* A transport call failed inside a public call: fatal naming both. */
void gshmemi_tp_fatal(const char *call, const gshmemi_transport_t *tp, int rc,
                      const char *what, int pe) __attribute__((noreturn));

/* ctx.c: communication contexts. A live context: its team, its options
 * and its instances of the started transports: tps[i] is gshmemi_g.tps[i]
 * on the channel the context opened there (transport.h), so what it
 * issues is completed by its own quiet. The default context issues on the
 * transports themselves (c == NULL below). */
typedef struct gshmemi_ctx {
    uint64_t handle;            /* its handle while live, else 0 (atomic) */
    uint32_t gen;               /* the slot's generation: its next handle's (atomic) */
    gshmem_team_t team;
    long options;
    gshmemi_transport_t tps[GSHMEMI_MAX_TRANSPORTS];
} gshmemi_ctx_t;

/* The live context of handle ctx, NULL for GSHMEM_CTX_DEFAULT; any other
 * handle (GSHMEM_CTX_INVALID, destroyed, not made here) ends the job
 * naming call and the handle. */
gshmemi_ctx_t *gshmemi_ctx_get(const char *call, gshmem_ctx_t ctx);

/* tp, one of gshmemi_g.tps, as context c issues on it. */
static inline gshmemi_transport_t *gshmemi_ctx_tp(gshmemi_ctx_t *c, gshmemi_transport_t *tp)
{
    return c == NULL ? tp : &c->tps[tp - gshmemi_g.tps];
}

/* The context of the generated gshmem_ctx_ forms (C = ctx_: the argument
 * ctx, checked) and of the plain ones (C empty: the default). */
#define GSHMEMI_CTX_OF_(call) NULL
#define GSHMEMI_CTX_OF_ctx_(call) gshmemi_ctx_get((call), ctx)

/* gshmem_finalize: destroy every live context (each quiet first). */
void gshmemi_ctx_destroy_all(const char *call);


/* rma.c: validated put/get on context c (NULL: the default one) used by
 * the typed wrappers, signals and collectives. call names the public call
 * in error messages. */
void gshmemi_rma_put_on(const char *call, gshmemi_ctx_t *c, void *dest, const void *src,
                        size_t n, int pe, int nbi);
void gshmemi_rma_get_on(const char *call, gshmemi_ctx_t *c, void *dest, const void *src,
                        size_t n, int pe, int nbi);
static inline void gshmemi_rma_put(const char *call, void *dest, const void *src, size_t n,
                                   int pe, int nbi)
{
    gshmemi_rma_put_on(call, NULL, dest, src, n, pe, nbi);
}
static inline void gshmemi_rma_get(const char *call, void *dest, const void *src, size_t n,
                                   int pe, int nbi)
{
    gshmemi_rma_get_on(call, NULL, dest, src, n, pe, nbi);
}

/* rma_typed.c: nelems * size without overflow, or fatal naming nelems;
 * the strided put (is_put) or get of gshmem_iputmem/igetmem on c. */
size_t gshmemi_rma_bytes(const char *call, size_t nelems, size_t size);
void gshmemi_rma_strided_on(const char *call, gshmemi_ctx_t *c, int is_put, void *dest,
                            const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
                            size_t nelems, int pe);
static inline void gshmemi_rma_strided(const char *call, int is_put, void *dest,
                                       const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                       size_t elem_size, size_t nelems, int pe)
{
    gshmemi_rma_strided_on(call, NULL, is_put, dest, src, dst, sst, elem_size, nelems, pe);
}

/* signal.c: put-with-signal of n bytes (blocking, or nbi) on c. */
void gshmemi_signal_put(const char *call, gshmemi_ctx_t *c, void *dest, const void *src,
                        size_t n, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                        int nbi);

/* amo.c: one checked AMO on dest (a symmetric word of dt) at pe, through
 * the transport that carries AMOs to pe, on c; call names the public call. */
void gshmemi_amo_on(const char *call, gshmemi_ctx_t *c, gshmemi_amo_op_t op,
                    gshmemi_dtype_t dt, const void *dest, const void *operand,
                    const void *compare, void *result, int pe);
static inline void gshmemi_amo(const char *call, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                               const void *dest, const void *operand, const void *compare,
                               void *result, int pe)
{
    gshmemi_amo_on(call, NULL, op, dt, dest, operand, compare, result, pe);
}

/* order.c: quiet and fence of context c (NULL: the default context, which
 * is what gshmem_quiet, barriers and collectives complete: OpenSHMEM 1.5). */
void gshmemi_quiet_on(const char *call, gshmemi_ctx_t *c);
void gshmemi_fence_on(const char *call, gshmemi_ctx_t *c);
static inline void gshmemi_quiet_all(const char *call)
{
    gshmemi_quiet_on(call, NULL);
}
void gshmemi_barrier_all(const char *call);
void gshmemi_sync_all(const char *call);
/* wait.c: drive every transport's progress (wait loops). */
void gshmemi_progress_all(void);
/* One step of a wait loop (spins: the steps so far in this wait, from 0):
 * progress every few spins, yield after many, and gshmemi_wait_watch. */
void gshmemi_wait_step(unsigned long spins);
/* The watch of a wait, for loops with steps of their own: spins 0 starts
 * a wait; later calls look at the job every few ms and end this PE (fatal,
 * naming what was reported) when the bootstrap noticed a failure or the
 * wait outlasted GSHMEM_TIMEOUT (when set). */
void gshmemi_wait_watch(unsigned long spins);
/* At init, once the node map is known: how soon waits give the core away. */
void gshmemi_wait_setup(const gshmemi_state_t *g);

/* sym_local.c: n bytes of this PE's symmetric memory (sym) read into or
 * written from host memory, whatever the heap: memmove on a host heap, a
 * copy that never waits for the user's kernels on a CUDA heap (the CPU
 * never dereferences it); fatal naming call on failure. */
void gshmemi_sym_read(const char *call, void *dst, const void *sym, size_t n);
void gshmemi_sym_write(const char *call, void *sym, const void *src, size_t n);
/* A 4- or 8-byte word (or any n bytes) for a wait loop: an acquire load
 * on a host heap, gshmemi_sym_read on a CUDA heap. */
void gshmemi_sym_load(const char *call, void *dst, const void *sym, size_t n);
/* One step of a wait loop over local symmetric memory (polls: the reads
 * so far): gshmemi_wait_step on a host heap; on a CUDA heap, where every
 * read is a copy, progress on every step, a short pause after the first
 * few reads, a longer one after many. */
void gshmemi_sym_wait_step(unsigned long polls);
/* Wait until this PE's 64-bit symmetric word *w (a counter that only
 * grows) is at least want: gshmemi_sym_load, then gshmemi_sym_wait_step. */
void gshmemi_sym_wait_ge_u64(const char *call, const uint64_t *w, uint64_t want);

/* mem.c: collective allocation with the consistency check, used by the
 * public calls and by collectives for scratch space. */
enum { GSHMEMI_MEM_MALLOC = 1, GSHMEMI_MEM_CALLOC, GSHMEMI_MEM_ALIGN, GSHMEMI_MEM_SCRATCH,
       GSHMEMI_MEM_FREE, GSHMEMI_MEM_REALLOC, GSHMEMI_MEM_HINTS };
/* op: one of the above (compared across PEs with the sizes); zero: fill
 * the block with zeros. Returns NULL on every PE when the heap is full
 * (logged with the sizes) and for size 0. Ends with a barrier. */
void *gshmemi_mem_alloc(const char *call, int op, size_t size, size_t alignment, int zero);
/* Starts with a barrier, so that no PE still uses the block. */
void gshmemi_mem_free(const char *call, void *ptr);

/* symdata.c: at init, before the heap: the segments this job shares
 * (collective; *n_p = 0 and the reason in g->symdata_why when none).
 * GSHMEM_ERR_CONFIG on every PE when one could not find them. */
int gshmemi_symdata_plan(gshmemi_state_t *g, gshmemi_heap_kind_t kind, gshmemi_seg_t *segs,
                         int *n_p);

/* sync.c: the comparison of wait_until/test; fatal on an invalid cmp. */
int gshmemi_cmp_u64(const char *call, int cmp, uint64_t a, uint64_t b);
int gshmemi_cmp_i64(const char *call, int cmp, int64_t a, int64_t b);
/* 1 when the integer or floating type T is signed (a constant). */
#define GSHMEMI_SIGNED(T) ((T)-1 < (T)1)
/* The comparison of a and b, both of integer type T, with T's signedness. */
#define GSHMEMI_CMP_T(T, call, cmp, a, b)                                             \
    (GSHMEMI_SIGNED(T) ? gshmemi_cmp_i64((call), (cmp), (int64_t)(a), (int64_t)(b))    \
                       : gshmemi_cmp_u64((call), (cmp), (uint64_t)(a), (uint64_t)(b)))

/* team.c: teams. A team on this PE: its members' world PE numbers in team
 * order (ascending), this PE's place, and its slot of the symmetric team
 * area (its handle is the slot number, the same on every member). */
#define GSHMEMI_TEAM_ROUNDS 32   /* dissemination rounds: teams up to 2^32 PEs */
typedef struct gshmemi_team {
    int live;
    int size, my_idx;
    int *pes;                  /* [size]: world PE of each team PE */
    uint64_t *sync;            /* local twin of the ROUNDS barrier counters: the
                                * slot's, or an active set's pSync */
    uint64_t *expected;        /* [ROUNDS] barriers entered on this PE (a slot's
                                * counters only grow); NULL: each wait takes its
                                * count back (pSync returns to 0) */
    uint64_t *xchg;            /* local twin of n_pes exchange words, by world PE */
    int own_pes;               /* an active set's team: pes is this call's own */
    gshmem_team_config_t config;
    long config_mask;
} gshmemi_team_t;
/* Reserve the team area (before init's barrier) and set up WORLD, SHARED
 * and NODE; give it back at finalize. */
int gshmemi_team_setup(gshmemi_state_t *g);
void gshmemi_team_teardown(gshmemi_state_t *g);
/* The live team of handle team, or NULL with an error logged naming call
 * (GSHMEM_TEAM_INVALID, or a handle that is not live). */
gshmemi_team_t *gshmemi_team_get(const char *call, gshmem_team_t team);
/* Barrier among the members: sync without, barrier with a quiet first. */
void gshmemi_team_sync(const char *call, gshmemi_team_t *t);
void gshmemi_team_barrier(const char *call, gshmemi_team_t *t);
/* Every member's v in out[team PE] (collective over t; ends with a sync). */
void gshmemi_team_exchange(const char *call, gshmemi_team_t *t, uint64_t v, uint64_t *out);
/* *t: an active set of size PEs pes[] (this PE is pes[my_idx]) as a team
 * for one call, counting its barriers in pSync (consumed: 0 again when the
 * call returns); see team.c. */
void gshmemi_team_aset_init(gshmemi_team_t *t, int *pes, int size, int my_idx, long *pSync);

/* coll.c: the live team of handle team when this PE is a member, else NULL
 * with the error logged naming call. */
gshmemi_team_t *gshmemi_coll_team(const char *call, gshmem_team_t team);
/* The collectives' bodies on team t (arguments valid; this PE a member):
 * sizes in bytes; broadcast writes the root's own dest only with to_root;
 * collect: same_size (fcollect), else the sizes go round first. */
void gshmemi_coll_broadcast(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                            size_t nbytes, int root, int to_root);
void gshmemi_coll_collect(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                          size_t nbytes, int same_size);
void gshmemi_coll_alltoalls(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                            ptrdiff_t dst, ptrdiff_t sst, size_t elem_size, size_t nelems);

/* coll_aset.c: *t, the team of OpenSHMEM's active set (start, 2^log_stride,
 * size) for one call, counting in pSync, after checking the set, the
 * calling PE's membership and pSync (fatal naming call); gshmemi_aset_end
 * after the call; teardown forgets the kept member lists (finalize). */
void gshmemi_aset_begin(const char *call, int start, int log_stride, int size, long *pSync,
                        gshmemi_team_t *t);
void gshmemi_aset_end(gshmemi_team_t *t);
void gshmemi_aset_teardown(void);

/* ctx.c: destroy the contexts made from team (gshmem_team_destroy). */
void gshmemi_ctx_drop_team(gshmem_team_t team);

#endif /* GSHMEMI_CORE_H */

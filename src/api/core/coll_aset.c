/* coll_aset.c: OpenSHMEM's deprecated active-set collectives: barrier,
 * sync, broadcast32/64, collect32/64, fcollect32/64, alltoall32/64 and
 * alltoalls32/64 (the <T>_<op>_to_all reductions are in reduce.c, on
 * gshmemi_aset_begin below).
 *
 * An active set (PE_start, PE_start + 2^logPE_stride, ..., PE_size PEs)
 * becomes a team for the call (gshmemi_team_aset_init, team.c) and the
 * team collectives' bodies run on it (coll.c, reduce.c): one algorithm per
 * collective, whatever names its PEs.
 * - The data collectives and reductions signal through the collective
 *   state every active set shares (coll_scratch.c: words and buffers per
 *   sender world PE, so sets that share PEs do not mix), not through
 *   pSync. pSync holds the set's barrier counters (barrier, sync, and
 *   collect's size exchange where a small heap left no push room): its
 *   first ceil(log2(PE_size)) words (at most 31 of the SHMEM_*_SYNC_SIZE =
 *   64). Each wait takes its count back, so pSync holds SHMEM_SYNC_VALUE
 *   (0) again when the call returns, as the specification requires; the
 *   same pSync may serve the next call on the same set at once (a PE that
 *   enters it early adds to counters that the others take back in their
 *   next call), on another set once every member of this call has
 *   returned. pWrk is not used: the reductions combine in private memory.
 * - Only the set's members take part; other PEs are not involved.
 * - broadcast: dest on the root is not written (the team form writes it).
 * - The member lists of up to GSHMEMI_ASET_CACHE sets are kept (any
 *   thread); beyond them a call builds its own.
 * - Misuse ends the job with a message naming the call and the values (the
 *   calls return nothing): PE_start < 0, logPE_stride outside [0, 30],
 *   PE_size < 1, a last member beyond the job; a calling PE outside the
 *   set; pSync NULL, not symmetric or not aligned to a long; PE_root
 *   outside [0, PE_size); alltoalls strides below 1; nreduce < 0. Calls
 *   with different values on different members are not detected. */
#include <pthread.h>
#include <stdlib.h>

#include "core.h"

#define GSHMEMI_ASET_CACHE 32

typedef struct gshmemi_aset {
    int start, log_stride, size;
    int *pes;
} gshmemi_aset_t;

static gshmemi_aset_t gshmemi_asets[GSHMEMI_ASET_CACHE];
static int gshmemi_n_asets;
static pthread_mutex_t gshmemi_aset_lock = PTHREAD_MUTEX_INITIALIZER;

static int *gshmemi_aset_new_pes(const char *call, int start, int stride, int size)
{
    int *pes = malloc((size_t)size * sizeof(int));
    if (pes == NULL)
        gshmemi_fatal(call, "out of host memory for an active set of %d PEs", size);
    for (int i = 0; i < size; i++)
        pes[i] = start + i * stride;
    return pes;
}

/* The member list of the set: a kept one (*own_p = 0), or the call's own. */
static int *gshmemi_aset_pes(const char *call, int start, int log_stride, int size, int *own_p)
{
    int *pes = NULL;

    pthread_mutex_lock(&gshmemi_aset_lock);
    for (int i = 0; i < gshmemi_n_asets && pes == NULL; i++) {
        const gshmemi_aset_t *a = &gshmemi_asets[i];
        if (a->start == start && a->log_stride == log_stride && a->size == size)
            pes = a->pes;
    }
    if (pes == NULL && gshmemi_n_asets < GSHMEMI_ASET_CACHE) {
        pes = gshmemi_aset_new_pes(call, start, 1 << log_stride, size);
        gshmemi_asets[gshmemi_n_asets++] = (gshmemi_aset_t){start, log_stride, size, pes};
    }
    pthread_mutex_unlock(&gshmemi_aset_lock);
    *own_p = pes == NULL;
    return pes != NULL ? pes : gshmemi_aset_new_pes(call, start, 1 << log_stride, size);
}

void gshmemi_aset_begin(const char *call, int start, int log_stride, int size, long *pSync,
                        gshmemi_team_t *t)
{
    GSHMEMI_REQUIRE_INIT(call);
    int n = gshmemi_g.n_pes, me = gshmemi_g.my_pe;
    if (start < 0 || log_stride < 0 || log_stride > 30 || size < 1 ||
        (long long)start + ((long long)(size - 1) << log_stride) >= n)
        gshmemi_fatal(call, "PE_start %d, logPE_stride %d, PE_size %d is not an active set of "
                      "the %d PEs (want PE_start >= 0, 0 <= logPE_stride <= 30, PE_size >= 1 "
                      "and PE_start + (PE_size - 1) * 2^logPE_stride < %d)", start, log_stride,
                      size, n, n);
    int stride = 1 << log_stride, k = me - start;
    if (k < 0 || k % stride != 0 || k / stride >= size)
        gshmemi_fatal(call, "PE %d is not in the active set PE_start %d, logPE_stride %d, "
                      "PE_size %d (PEs %d to %d by %d): only its members may call", me, start,
                      log_stride, size, start, start + (size - 1) * stride, stride);
    if (pSync == NULL)
        gshmemi_fatal(call, "pSync is NULL (want a symmetric array of SHMEM_SYNC_SIZE longs "
                      "set to SHMEM_SYNC_VALUE)");
    int rounds = 0;
    for (long d = 1; d < size; d <<= 1)
        rounds++;
    gshmemi_check_sym(call, "pSync", pSync, (size_t)(rounds > 0 ? rounds : 1) * sizeof(long));
    if ((uintptr_t)pSync % sizeof(long) != 0)
        gshmemi_fatal(call, "pSync %p is not aligned to a long", (void *)pSync);
    int own;
    int *pes = gshmemi_aset_pes(call, start, log_stride, size, &own);
    gshmemi_team_aset_init(t, pes, size, k / stride, pSync);
    t->own_pes = own;
}

void gshmemi_aset_end(gshmemi_team_t *t)
{
    if (t->own_pes)
        free(t->pes);
}

void gshmemi_aset_teardown(void)
{
    pthread_mutex_lock(&gshmemi_aset_lock);
    for (int i = 0; i < gshmemi_n_asets; i++)
        free(gshmemi_asets[i].pes);
    gshmemi_n_asets = 0;
    pthread_mutex_unlock(&gshmemi_aset_lock);
}

/* ---- barrier and sync -------------------------------------------------------- */

static void gshmemi_aset_sync(const char *call, int quiet, int start, int log_stride, int size,
                              long *pSync)
{
    gshmemi_team_t t;

    gshmemi_aset_begin(call, start, log_stride, size, pSync, &t);
    if (quiet)
        gshmemi_team_barrier(call, &t);
    else
        gshmemi_team_sync(call, &t);
    gshmemi_aset_end(&t);
}

void gshmem_barrier_aset(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    gshmemi_aset_sync("gshmem_barrier_aset", 1, PE_start, logPE_stride, PE_size, pSync);
}

void gshmem_sync_aset(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    gshmemi_aset_sync("gshmem_sync_aset", 0, PE_start, logPE_stride, PE_size, pSync);
}

/* ---- data: elements of esz (4 or 8) bytes ------------------------------------------- */

static void gshmemi_aset_broadcast(const char *call, size_t esz, void *dest, const void *source,
                                   size_t nelems, int root, int start, int log_stride, int size,
                                   long *pSync)
{
    gshmemi_team_t t;

    gshmemi_aset_begin(call, start, log_stride, size, pSync, &t);
    if (root < 0 || root >= size)
        gshmemi_fatal(call, "PE_root %d is not in [0, PE_size %d)", root, size);
    gshmemi_coll_broadcast(call, &t, dest, source, gshmemi_rma_bytes(call, nelems, esz), root,
                           0);
    gshmemi_aset_end(&t);
}

static void gshmemi_aset_collect(const char *call, size_t esz, int same_size, void *dest,
                                 const void *source, size_t nelems, int start, int log_stride,
                                 int size, long *pSync)
{
    gshmemi_team_t t;

    gshmemi_aset_begin(call, start, log_stride, size, pSync, &t);
    gshmemi_coll_collect(call, &t, dest, source, gshmemi_rma_bytes(call, nelems, esz),
                         same_size);
    gshmemi_aset_end(&t);
}

static void gshmemi_aset_alltoalls(const char *call, size_t esz, void *dest, const void *source,
                                   ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int start,
                                   int log_stride, int size, long *pSync)
{
    gshmemi_team_t t;

    gshmemi_aset_begin(call, start, log_stride, size, pSync, &t);
    if (dst < 1 || sst < 1)
        gshmemi_fatal(call, "dst %td, sst %td (strides must be >= 1)", dst, sst);
    gshmemi_coll_alltoalls(call, &t, dest, source, dst, sst, esz, nelems);
    gshmemi_aset_end(&t);
}

#define GSHMEMI_DEF_ASET_COLLECT(NAME, B, SAME)                                       \
    void gshmem_##NAME##B(void *dest, const void *source, size_t nelems, int PE_start,  \
                          int logPE_stride, int PE_size, long *pSync)                 \
    {                                                                                 \
        gshmemi_aset_collect("gshmem_" #NAME #B, (B) / 8, SAME, dest, source, nelems, \
                             PE_start, logPE_stride, PE_size, pSync);                 \
    }
#define GSHMEMI_DEF_ASET_COLL(B)                                                      \
    void gshmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root, \
                             int PE_start, int logPE_stride, int PE_size, long *pSync) \
    {                                                                                 \
        gshmemi_aset_broadcast("gshmem_broadcast" #B, (B) / 8, dest, source, nelems,  \
                               PE_root, PE_start, logPE_stride, PE_size, pSync);      \
    }                                                                                 \
    GSHMEMI_DEF_ASET_COLLECT(collect, B, 0)                                           \
    GSHMEMI_DEF_ASET_COLLECT(fcollect, B, 1)                                          \
    void gshmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start, \
                            int logPE_stride, int PE_size, long *pSync)               \
    {                                                                                 \
        gshmemi_aset_alltoalls("gshmem_alltoall" #B, (B) / 8, dest, source, 1, 1, nelems, \
                               PE_start, logPE_stride, PE_size, pSync);               \
    }                                                                                 \
    void gshmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t nelems, int PE_start, int logPE_stride, int PE_size, \
                             long *pSync)                                             \
    {                                                                                 \
        gshmemi_aset_alltoalls("gshmem_alltoalls" #B, (B) / 8, dest, source, dst, sst, \
                               nelems, PE_start, logPE_stride, PE_size, pSync);       \
    }

GSHMEMI_DEF_ASET_COLL(32)
GSHMEMI_DEF_ASET_COLL(64)

/* coll_scratch.c: the collectives' per-slot state and the steps the
 * algorithms are made of (coll_alg.h): signal a member, wait for a
 * member's signals, push a few bytes to every member.
 *
 * One symmetric area, reserved at init right after the team area (so at
 * the same offset on every PE), holds for each of the GSHMEM_TEAM_MAX team
 * slots and for the active sets (one more slot, shared by all of them):
 * - n_pes signal words, one per sender world PE. Only that sender adds to
 *   it, by 1 per signal, ordered after the data it announces; a receiver
 *   knows how many signals each collective brings from each member and
 *   counts those it waited for (seen), so nothing is ever reset and a
 *   later team on the slot, or another active set, goes on from the same
 *   counts: the signals between two PEs come in the order both make
 *   their collective calls. A later signal may land before an earlier one
 *   (ofi); both are ordered after the earlier data, so a wait that counts
 *   it lets nothing through early.
 * - the push scratch: per parity and sender world PE, room for one push.
 *   Push k from s to r lands in parity k % 2. s makes push k + 2 only
 *   after a push-all in which it took r's push k + 1, which r made after
 *   taking push k: two buffers are enough, whatever the members do
 *   between their pushes.
 * The push scratch takes at most push_total_max bytes and a sixteenth of
 * the heap; a small heap gets less room per push, or none (push_room 0:
 * the algorithms that need it are not chosen). */
#include <stdlib.h>
#include <string.h>

#include "coll_alg.h"

#define GSHMEMI_COLL_SLOTS (GSHMEM_TEAM_MAX + 1)   /* the teams', then the active sets' */
#define GSHMEMI_COLL_ASET GSHMEM_TEAM_MAX

/* The thresholds: the crossovers of the algorithms measured side by side
 * (one job, interleaved with Open MPI's, medians of 3 runs) at 2, 4 and 8
 * PEs over shm on a 2-core machine; docs/DESIGN.md gives the tables. */
const gshmemi_coll_tune_t gshmemi_coll_tune = {
    .bcast_small_max = 16 << 10,
    .bcast_small_radix = 8,
    .bcast_tree_max = {SIZE_MAX, 128 << 10, SIZE_MAX},
    .bcast_tree_radix = 2,
    .reduce_push_max = {512, 2 << 10, 1 << 10},
    .push_slot_max = 2 << 10,
    .push_total_max = 4 << 20,
};

static gshmemi_coll_state_t gshmemi_coll_states[GSHMEMI_COLL_SLOTS];
static unsigned char *gshmemi_coll_area;   /* local twin of the symmetric area */
static uint64_t *gshmemi_coll_counts;      /* host: every slot's seen, pushed, pulled */
static size_t gshmemi_coll_room;           /* bytes per push */

/* Bytes of one slot's signal words and of its push scratch. */
static size_t gshmemi_coll_sig_bytes(int n_pes)
{
    return ((size_t)n_pes * sizeof(uint64_t) + 63) & ~(size_t)63;
}

static size_t gshmemi_coll_room_of(const gshmemi_state_t *g)
{
    size_t total = gshmemi_coll_tune.push_total_max;
    if (total > g->heap.heap_size / 16)
        total = g->heap.heap_size / 16;
    size_t room = total / GSHMEMI_COLL_SLOTS / (2 * (size_t)g->n_pes) & ~(size_t)63;
    if (room > gshmemi_coll_tune.push_slot_max)
        room = gshmemi_coll_tune.push_slot_max;
    return room;
}

int gshmemi_coll_setup(gshmemi_state_t *g)
{
    size_t n = (size_t)g->n_pes, off;
    gshmemi_coll_room = gshmemi_coll_room_of(g);
    size_t slot = gshmemi_coll_sig_bytes(g->n_pes) + 2 * n * gshmemi_coll_room;
    size_t bytes = GSHMEMI_COLL_SLOTS * slot;

    gshmemi_coll_counts = calloc(GSHMEMI_COLL_SLOTS * 3 * n, sizeof(uint64_t));
    if (gshmemi_coll_counts == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for the collectives' counts of %d "
                      "PEs", g->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    if (gshmemi_alloc_get(g->heap.alloc, bytes, GSHMEMI_MEM_MIN_ALIGN, &off) != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "the collectives' area (%zu bytes: %d slots of "
                      "%zu) does not fit the symmetric heap (GSHMEM_SYMMETRIC_SIZE)", bytes,
                      GSHMEMI_COLL_SLOTS, slot);
        gshmemi_coll_teardown(g);
        return GSHMEM_ERR_NOMEM;
    }
    /* zero since the heap was made, not cleared: peers may be writing
     * (core/init.c) */
    gshmemi_coll_area = (unsigned char *)g->heap.base + off;
    for (int s = 0; s < GSHMEMI_COLL_SLOTS; s++) {
        gshmemi_coll_state_t *st = &gshmemi_coll_states[s];
        unsigned char *base = gshmemi_coll_area + (size_t)s * slot;
        uint64_t *counts = gshmemi_coll_counts + (size_t)s * 3 * n;
        *st = (gshmemi_coll_state_t){.sig = (uint64_t *)(void *)base,
                                     .push = base + gshmemi_coll_sig_bytes(g->n_pes),
                                     .seen = counts, .pushed = counts + n,
                                     .pulled = counts + 2 * n};
    }
    return GSHMEM_SUCCESS;
}

void gshmemi_coll_teardown(gshmemi_state_t *g)
{
    for (int s = 0; s < GSHMEMI_COLL_SLOTS; s++)
        free(gshmemi_coll_states[s].buf);
    memset(gshmemi_coll_states, 0, sizeof gshmemi_coll_states);
    if (gshmemi_coll_area != NULL && g->heap.alloc != NULL)
        (void)gshmemi_alloc_put(g->heap.alloc,
                                (size_t)(gshmemi_coll_area - (unsigned char *)g->heap.base));
    gshmemi_coll_area = NULL;
    free(gshmemi_coll_counts);
    gshmemi_coll_counts = NULL;
}

/* A team's slot: its handle, which is its entry's place among the slot
 * teams (gshmemi_team_get gives &teams[handle]); an active set's team is
 * none of them. */
static int gshmemi_coll_slot_of(const char *call, const gshmemi_team_t *t)
{
    uintptr_t base = (uintptr_t)gshmemi_team_get(call, GSHMEM_TEAM_WORLD), p = (uintptr_t)t;
    if (p >= base && p < base + GSHMEM_TEAM_MAX * sizeof *t && (p - base) % sizeof *t == 0)
        return (int)((p - base) / sizeof *t);
    return GSHMEMI_COLL_ASET;
}

void gshmemi_coll_begin(const char *call, gshmemi_team_t *t, gshmemi_coll_t *c)
{
    c->call = call;
    c->t = t;
    c->st = &gshmemi_coll_states[gshmemi_coll_slot_of(call, t)];
}

size_t gshmemi_coll_push_room(void)
{
    return gshmemi_coll_room;
}

void *gshmemi_coll_buf(gshmemi_coll_t *c, size_t n)
{
    gshmemi_coll_state_t *st = c->st;

    if (n > st->buf_cap) {
        size_t cap = n < 4096 ? 4096 : n;
        free(st->buf);
        st->buf = malloc(cap);
        st->buf_cap = st->buf != NULL ? cap : 0;
        if (st->buf == NULL)
            gshmemi_fatal(c->call, "out of host memory for a %zu-byte collective buffer", n);
    }
    return st->buf;
}

void gshmemi_coll_split(size_t total, size_t unit, int m, int i, size_t *lo_p, size_t *len_p)
{
    size_t units = (total + unit - 1) / unit, per = units / (size_t)m;
    size_t extra = units % (size_t)m, k = (size_t)i;
    size_t lo = (k * per + (k < extra ? k : extra)) * unit;
    size_t hi = lo + (per + (k < extra ? 1 : 0)) * unit;

    *lo_p = lo < total ? lo : total;
    *len_p = (hi < total ? hi : total) - *lo_p;
}

/* ---- steps ----------------------------------------------------------------------- */

/* Every signal to a member goes through put_count of the transport of its
 * AMOs (the one way every add to a word must come, transport.h): with the
 * data when that transport carries the data too, alone (n 0) otherwise. */
static void gshmemi_coll_count(gshmemi_coll_t *c, int pe, uint64_t dst_off, const void *src,
                               size_t n)
{
    gshmemi_state_t *g = &gshmemi_g;
    uint64_t off = (uint64_t)((unsigned char *)&c->st->sig[g->my_pe] -
                              (unsigned char *)g->heap.base);
    gshmemi_transport_t *stp = gshmemi_amo_tp_of(pe);

    int rc = stp->ops->put_count(stp, pe, dst_off, src, n, off);
    if (rc != 0)
        gshmemi_tp_fatal(c->call, stp, rc, "a collective's signal", pe);
}

void gshmemi_coll_signal(gshmemi_coll_t *c, int j)
{
    gshmemi_coll_count(c, c->t->pes[j], 0, NULL, 0);
}

void gshmemi_coll_signal_others(gshmemi_coll_t *c)
{
    gshmemi_quiet_all(c->call);
    for (int i = 1; i < c->t->size; i++)
        gshmemi_coll_signal(c, (c->t->my_idx + i) % c->t->size);
}

/* The data to world PE pe takes another transport than its signals (shm
 * or p2p inside a node, ofi AMOs): the signal waits for a quiet. */
static int gshmemi_coll_split_path(int pe)
{
    return gshmemi_g.pe_tp[pe] != gshmemi_amo_tp_of(pe);
}

void gshmemi_coll_put_signal(gshmemi_coll_t *c, void *dest, const void *src, size_t n, int j)
{
    int pe = c->t->pes[j];

    if (j == c->t->my_idx) {
        gshmemi_rma_put(c->call, dest, src, n, pe, 1);
    } else if (n == 0) {
        gshmemi_coll_count(c, pe, 0, NULL, 0);
    } else if (gshmemi_coll_split_path(pe)) {
        gshmemi_transport_t *dtp = gshmemi_g.pe_tp[pe];
        gshmemi_rma_put(c->call, dest, src, n, pe, 1);
        int rc = dtp->ops->quiet(dtp);
        if (rc != 0)
            gshmemi_tp_fatal(c->call, dtp, rc, "completing the data before a signal", pe);
        gshmemi_coll_count(c, pe, 0, NULL, 0);
    } else {   /* one path: the data and its count together */
        gshmemi_check_local(c->call, "source", src, n, pe);
        gshmemi_coll_count(c, pe, gshmemi_check_sym(c->call, "dest", dest, n), src, n);
    }
}

/* Put and signal every other member, starting after this one: at gives
 * member j's dest and source. On split paths, and on a GPU heap, the puts
 * go first, one quiet, then their signals (a GPU heap as before put_count:
 * over ofi's active messages a 300 KB reduce-scatter block's signal right
 * behind its put was seen before the data, host_cuda::ofi_tcp_n4). */
void gshmemi_coll_put_signal_each(gshmemi_coll_t *c, gshmemi_coll_at_fn *at, void *arg,
                                  size_t n)
{
    gshmemi_team_t *t = c->t;
    int gpu = gshmemi_g.heap.kind != GSHMEMI_HEAP_HOST, split = 0;

    for (int i = 1; i < t->size; i++) {
        int j = (t->my_idx + i) % t->size, pe = t->pes[j];
        void *d;
        const void *src;
        at(c, arg, j, &d, &src);
        if (d == NULL)
            continue;
        if (n > 0 && (gpu || gshmemi_coll_split_path(pe))) {
            gshmemi_rma_put(c->call, d, src, n, pe, 1);
            split = 1;
        } else {
            gshmemi_coll_put_signal(c, d, src, n, j);
        }
    }
    if (!split)
        return;
    gshmemi_quiet_all(c->call);
    for (int i = 1; i < t->size; i++) {
        int j = (t->my_idx + i) % t->size;
        void *d;
        const void *src;
        at(c, arg, j, &d, &src);
        if (d != NULL && (gpu || gshmemi_coll_split_path(t->pes[j])))
            gshmemi_coll_signal(c, j);
    }
}

typedef struct gshmemi_coll_same {
    void *dest;
    const void *src;
} gshmemi_coll_same_t;

static void gshmemi_coll_same_at(gshmemi_coll_t *c, void *arg, int j, void **dest,
                                 const void **src)
{
    const gshmemi_coll_same_t *a = arg;
    (void)c, (void)j;
    *dest = a->dest;
    *src = a->src;
}

void gshmemi_coll_put_signal_others(gshmemi_coll_t *c, void *dest, const void *src, size_t n)
{
    gshmemi_coll_same_t a = {dest, src};
    gshmemi_coll_put_signal_each(c, gshmemi_coll_same_at, &a, n);
}

void gshmemi_coll_wait(gshmemi_coll_t *c, int j, uint64_t k)
{
    int pe = c->t->pes[j];
    uint64_t want = c->st->seen[pe] += k;

    gshmemi_sym_wait_ge_u64(c->call, &c->st->sig[pe], want);
}

void gshmemi_coll_wait_others(gshmemi_coll_t *c)
{
    for (int i = 1; i < c->t->size; i++)
        gshmemi_coll_wait(c, (c->t->my_idx + c->t->size - i) % c->t->size, 1);
}

static unsigned char *gshmemi_coll_push_slot(gshmemi_coll_t *c, uint64_t k, int pe)
{
    size_t i = (size_t)(k & 1) * (size_t)gshmemi_g.n_pes + (size_t)pe;
    return c->st->push + i * gshmemi_coll_room;
}

/* This PE's next push slot at team PE j (push_all counts it after), and src. */
static void gshmemi_coll_push_at(gshmemi_coll_t *c, void *arg, int j, void **dest,
                                 const void **src)
{
    *dest = gshmemi_coll_push_slot(c, c->st->pushed[c->t->pes[j]], gshmemi_g.my_pe);
    *src = arg;
}

void gshmemi_coll_push_to(gshmemi_coll_t *c, int j, const void *src, size_t n)
{
    int pe = c->t->pes[j];
    gshmemi_coll_put_signal(c, gshmemi_coll_push_slot(c, c->st->pushed[pe]++, gshmemi_g.my_pe),
                            src, n, j);
}

int gshmemi_coll_over_network(gshmemi_coll_t *c)
{
    if (gshmemi_g.heap.kind != GSHMEMI_HEAP_HOST)
        return 0;
    for (int j = 0; j < c->t->size; j++)
        if (gshmemi_coll_peer_ptr(c, j, c->st->sig) == NULL)
            return 1;
    return 0;
}

void gshmemi_coll_push_all(gshmemi_coll_t *c, const void *src, size_t n)
{
    gshmemi_coll_put_signal_each(c, gshmemi_coll_push_at, (void *)src, n);
    for (int i = 1; i < c->t->size; i++)
        c->st->pushed[c->t->pes[(c->t->my_idx + i) % c->t->size]]++;
}

const void *gshmemi_coll_push_take(gshmemi_coll_t *c, int j, size_t n, void *out)
{
    int pe = c->t->pes[j];

    gshmemi_coll_wait(c, j, 1);
    const unsigned char *p = gshmemi_coll_push_slot(c, c->st->pulled[pe]++, pe);
    if (gshmemi_g.heap.kind == GSHMEMI_HEAP_HOST)
        return p;
    gshmemi_sym_read(c->call, out, p, n);
    return out;
}

const void *gshmemi_coll_peer_ptr(gshmemi_coll_t *c, int j, const void *sym)
{
    gshmemi_state_t *g = &gshmemi_g;
    int pe = c->t->pes[j];
    uint64_t off;

    if (g->heap.kind != GSHMEMI_HEAP_HOST)
        return NULL;
    if (pe == g->my_pe)
        return sym;
    if (!gshmemi_heap_offset(&g->heap, sym, 1, &off))
        return NULL;
    gshmemi_transport_t *tp = g->pe_tp[pe];
    return tp->ops->ptr(tp, pe, off);
}

/* team.c: teams (OpenSHMEM 1.5): WORLD, SHARED and NODE, split_strided,
 * split_2d, translate_pe, get_config, sync, destroy.
 *
 * A team handle is a slot number in [0, GSHMEM_TEAM_MAX), the same on
 * every member: WORLD 0, SHARED 1, NODE 2. Each slot owns a piece of the
 * symmetric team area, reserved from the heap at init (before anything
 * else is allocated, so at the same offset everywhere): GSHMEMI_TEAM_ROUNDS
 * barrier flags and n_pes exchange words (one per world PE); one more
 * piece serves the active sets (below).
 * - sync (every team, WORLD included: gshmem_sync_all): a dissemination
 *   barrier over the members only: in round r of its k-th barrier on the
 *   team, team PE i sets flag r of team PE i + 2^r to k (the transport's
 *   flag_set: non-blocking, no acknowledgement) and waits until its own
 *   flag r reaches k. Each flag has one writer per team and its values
 *   only grow. When a PE leaves a barrier every flag meant for it has
 *   landed, so when it destroys the team its flags and counts go back to 0
 *   for the slot's next team (whose members signal it only after it joined
 *   their split).
 * - exchange (split, collectmem): each member puts one word into every
 *   member's exchange word of its world PE, barrier, read, sync.
 * - an active set (OpenSHMEM's deprecated collectives, coll_aset.c) is a
 *   team outside the slots for one call: its barrier counters are the
 *   caller's pSync, consumed (each wait takes its one back, so pSync is 0
 *   again when the call returns), and its exchange words the extra piece
 *   of the area, shared by every active set: a PE writes only its own
 *   word, and only after every reader of its previous one has left that
 *   call (each exchange ends with a sync).
 * - a split picks the lowest slot free on every parent member (an AND of
 *   the members' free masks, exchanged over the parent), so one slot never
 *   serves two live teams of one PE; teams of one split that do not share
 *   members (the rows of split_2d) share a slot. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "base/util/thread.h"   /* GSHMEMI_TSAN_BARRIER_* */
#include "coll_alg.h"
#include "device_state.h"

static gshmemi_team_t gshmemi_teams[GSHMEM_TEAM_MAX];
/* Barriers entered per slot and round on this PE (see above). */
static uint64_t gshmemi_team_expected[GSHMEM_TEAM_MAX][GSHMEMI_TEAM_ROUNDS];
static uint64_t *gshmemi_team_area;   /* local twin of the whole area */
static size_t gshmemi_team_slot_words;
/* The barriers' signals go on a channel of their own on every transport:
 * the quiet before a barrier completes the program's operations, not the
 * previous barrier's signals (their acknowledgements are still on the way
 * when it returns). */
static gshmemi_transport_t gshmemi_team_sync_tps[GSHMEMI_MAX_TRANSPORTS];
static int gshmemi_team_sync_n_tps;

static void gshmemi_team_free(gshmemi_team_t *t)
{
    free(t->pes);
    memset(t, 0, sizeof *t);
}

/* A team on slot of size members; pe_of(i) computed by the caller into pes. */
static int gshmemi_team_make(int slot, int *pes, int size, const gshmem_team_config_t *config,
                             long config_mask)
{
    gshmemi_team_t *t = &gshmemi_teams[slot];

    memset(t, 0, sizeof *t);
    t->pes = pes;
    t->size = size;
    t->my_idx = -1;
    for (int i = 0; i < size; i++)
        if (pes[i] == gshmemi_g.my_pe)
            t->my_idx = i;
    t->sync = gshmemi_team_area + (size_t)slot * gshmemi_team_slot_words;
    t->expected = gshmemi_team_expected[slot];
    t->xchg = t->sync + GSHMEMI_TEAM_ROUNDS;
    if (config != NULL && (config_mask & GSHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = config->num_contexts;
    t->config_mask = config_mask;
    t->live = 1;
    return slot;
}

/* The barrier flags and counts of t's slot back to 0 (t is destroyed on
 * this PE: every flag meant for it has landed). */
static void gshmemi_team_flags_reset(const char *call, gshmemi_team_t *t)
{
    int rc = gshmemi_heap_memset(&gshmemi_g.heap, t->sync, 0,
                                 GSHMEMI_TEAM_ROUNDS * sizeof *t->sync);
    if (rc != 0)
        gshmemi_fatal(call, "clearing the barrier flags of a destroyed team failed: %s",
                      gshmem_strerror(rc));
    memset(t->expected, 0, GSHMEMI_TEAM_ROUNDS * sizeof *t->expected);
}

/* The device API's copy of slot (a no-op with a host heap); a failure was
 * logged. */
static int gshmemi_team_to_device(int slot)
{
    const gshmemi_team_t *t = &gshmemi_teams[slot];

    return gshmemi_device_state_team(slot, t->live ? t->pes : NULL, t->live ? t->size : 0,
                                     t->my_idx);
}

/* The same where failing leaves no way back (a split, a destroy). */
static void gshmemi_team_to_device_or_die(const char *call, int slot)
{
    if (gshmemi_team_to_device(slot) != 0)
        gshmemi_fatal(call, "the device API's copy of team %d could not be written (the "
                      "error is logged above)", slot);
}

/* A channel on every started transport for the barriers' signals. */
static int gshmemi_team_sync_open(gshmemi_state_t *g)
{
    for (int i = 0; i < g->n_tps; i++) {
        gshmemi_team_sync_tps[i] = g->tps[i];
        int rc = g->tps[i].ops->chan_open(&g->tps[i], &gshmemi_team_sync_tps[i].chan);
        if (rc != 0) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "transport %s: opening the barriers' channel: "
                          "%s", g->tps[i].ops->name, gshmem_strerror(rc));
            return rc;
        }
        gshmemi_team_sync_n_tps = i + 1;
    }
    return GSHMEM_SUCCESS;
}

/* Complete the barriers' signals and close their channels. */
static void gshmemi_team_sync_close(gshmemi_state_t *g)
{
    for (int i = 0; i < gshmemi_team_sync_n_tps; i++) {
        gshmemi_transport_t *tp = &gshmemi_team_sync_tps[i];
        int rc = tp->ops->quiet(tp);
        if (rc == 0)
            rc = g->tps[i].ops->chan_close(&g->tps[i], tp->chan);
        if (rc != 0)
            GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "transport %s: closing the barriers' channel: "
                         "%s", tp->ops->name, gshmem_strerror(rc));
    }
    gshmemi_team_sync_n_tps = 0;
}

int gshmemi_team_setup(gshmemi_state_t *g)
{
    size_t off;
    int *world = malloc((size_t)g->n_pes * sizeof(int));
    int *shared = malloc((size_t)g->n_pes * sizeof(int));
    int *node = malloc((size_t)g->n_pes * sizeof(int));

    if (world == NULL || shared == NULL || node == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for the teams of %d PEs", g->n_pes);
        goto fail;
    }
    gshmemi_team_slot_words = (GSHMEMI_TEAM_ROUNDS + (size_t)g->n_pes + 7) & ~(size_t)7;
    size_t bytes = (GSHMEM_TEAM_MAX + 1) * gshmemi_team_slot_words * sizeof(uint64_t);
    if (gshmemi_alloc_get(g->heap.alloc, bytes, GSHMEMI_MEM_MIN_ALIGN, &off) != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "the team area (%zu bytes: %d teams and the active "
                      "sets, %zu words each) does not fit the symmetric heap "
                      "(GSHMEM_SYMMETRIC_SIZE)", bytes, GSHMEM_TEAM_MAX,
                      gshmemi_team_slot_words);
        goto fail;
    }
    /* zero since the heap was made, and not cleared here: a peer's first
     * barrier flag or exchange word may be in it already (core/init.c) */
    gshmemi_team_area = (uint64_t *)((char *)g->heap.base + off);
    int rc = gshmemi_team_sync_open(g);
    if (rc != 0) {
        gshmemi_team_sync_close(g);
        gshmemi_alloc_put(g->heap.alloc, off);
        free(world), free(shared), free(node);
        return rc;
    }
    memset(gshmemi_team_expected, 0, sizeof gshmemi_team_expected);
    int n_local = 0;
    for (int pe = 0; pe < g->n_pes; pe++) {
        world[pe] = pe;
        if (g->node_of[pe] == g->node_of[g->my_pe]) {
            shared[n_local] = pe;
            node[n_local++] = pe;
        }
    }
    gshmemi_team_make(GSHMEM_TEAM_WORLD, world, g->n_pes, NULL, 0);
    gshmemi_team_make(GSHMEM_TEAM_SHARED, shared, n_local, NULL, 0);
    gshmemi_team_make(GSHMEM_TEAM_NODE, node, n_local, NULL, 0);
    for (int slot = GSHMEM_TEAM_WORLD; slot <= GSHMEM_TEAM_NODE; slot++)
        GSHMEMI_CHECK(gshmemi_team_to_device(slot));   /* teardown frees the teams */
    GSHMEMI_CHECK(gshmemi_coll_setup(g));
    return GSHMEM_SUCCESS;

fail:
    free(world), free(shared), free(node);
    return GSHMEM_ERR_NOMEM;
}

void gshmemi_team_teardown(gshmemi_state_t *g)
{
    gshmemi_coll_teardown(g);
    for (int i = 0; i < GSHMEM_TEAM_MAX; i++) {
        if (gshmemi_teams[i].live)
            gshmemi_ctx_drop_team(i);   /* every context belongs to a live team */
        gshmemi_team_free(&gshmemi_teams[i]);
    }
    gshmemi_aset_teardown();
    gshmemi_team_sync_close(g);
    if (gshmemi_team_area != NULL && g->heap.alloc != NULL)
        (void)gshmemi_alloc_put(g->heap.alloc,
                                (size_t)((char *)gshmemi_team_area - (char *)g->heap.base));
    gshmemi_team_area = NULL;
}

gshmemi_team_t *gshmemi_team_get(const char *call, gshmem_team_t team)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (team == GSHMEM_TEAM_INVALID) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: team is GSHMEM_TEAM_INVALID (this PE is not a "
                      "member)", call);
        return NULL;
    }
    if (team < 0 || team >= GSHMEM_TEAM_MAX || !gshmemi_teams[team].live) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: team %d is not a live team on PE %d (destroyed "
                      "or never created)", call, team, gshmemi_g.my_pe);
        return NULL;
    }
    return &gshmemi_teams[team];
}

/* A word of this PE's team area: host heaps are read in place, a CUDA heap
 * through a copy that does not wait for the user's kernels. */
static uint64_t gshmemi_team_load(const char *call, const uint64_t *w)
{
    uint64_t v;

    gshmemi_sym_load(call, &v, w, sizeof v);
    return v;
}

/* Set flag w at world PE pe to k without waiting for it, on the barriers'
 * channel (completed by its progress, and at teardown), and send it on its
 * way now: p2p keeps small writes in a batch until progress or quiet, and
 * nothing quiets this channel, so a PE whose own wait was already
 * satisfied would leave the barrier with its last flag still in the batch
 * and block in its next kernel while the peer waits for that flag (seen:
 * stage_gpu remote_tile_ahead_n2 hanging, 3 runs of 4). */
static void gshmemi_team_signal(const char *call, uint64_t *w, int pe, uint64_t k)
{
    uint64_t off = gshmemi_check_sym_aligned(call, "team flag", w, sizeof *w);
    gshmemi_transport_t *tp = &gshmemi_team_sync_tps[gshmemi_amo_tp_of(pe) - gshmemi_g.tps];
    int rc = tp->ops->flag_set(tp, pe, off, k);

    if (rc == 0)
        rc = tp->ops->progress(tp);

    if (rc != 0)
        gshmemi_tp_fatal(call, tp, rc, "team barrier signal", pe);
}

void gshmemi_team_sync(const char *call, gshmemi_team_t *t)
{
    GSHMEMI_TSAN_BARRIER_ENTER();   /* base/util/thread.h: the order through the peers */
    for (int r = 0, d = 1; d < t->size; r++, d <<= 1) {
        int to = t->pes[(t->my_idx + d) % t->size];
        uint64_t one = 1, want = t->expected != NULL ? ++t->expected[r] : 1;
        if (t->expected != NULL)
            gshmemi_team_signal(call, &t->sync[r], to, want);
        else
            gshmemi_amo(call, GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, &t->sync[r], &one, NULL,
                        NULL, to);
        gshmemi_sym_wait_ge_u64(call, &t->sync[r], want);
        if (t->expected == NULL) {   /* take this barrier's one back (blocking AMO) */
            uint64_t minus_one = UINT64_MAX;
            gshmemi_amo(call, GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, &t->sync[r], &minus_one,
                        NULL, NULL, gshmemi_g.my_pe);
        }
    }
    GSHMEMI_TSAN_BARRIER_EXIT();
}

void gshmemi_team_aset_init(gshmemi_team_t *t, int *pes, int size, int my_idx, long *pSync)
{
    memset(t, 0, sizeof *t);
    t->pes = pes;
    t->size = size;
    t->my_idx = my_idx;
    t->sync = (uint64_t *)(void *)pSync;
    t->xchg = gshmemi_team_area + (size_t)GSHMEM_TEAM_MAX * gshmemi_team_slot_words +
              GSHMEMI_TEAM_ROUNDS;
}

void gshmemi_team_barrier(const char *call, gshmemi_team_t *t)
{
    gshmemi_quiet_all(call);
    gshmemi_team_sync(call, t);
}

void gshmemi_team_exchange(const char *call, gshmemi_team_t *t, uint64_t v, uint64_t *out)
{
    uint64_t *x = t->xchg;

    for (int i = 1; i <= t->size; i++)
        gshmemi_rma_put(call, &x[gshmemi_g.my_pe], &v, sizeof v,
                        t->pes[(t->my_idx + i) % t->size], 1);
    gshmemi_team_barrier(call, t);   /* v's puts complete here, before v goes */
    for (int i = 0; i < t->size; i++)
        out[i] = gshmemi_team_load(call, &x[t->pes[i]]);
    gshmemi_team_sync(call, t);      /* nobody writes x again before all have read */
}

/* ---- queries -------------------------------------------------------------- */

/* my_pe and n_pes: the team, or NULL for GSHMEM_TEAM_INVALID (-1, quietly). */
static const gshmemi_team_t *gshmemi_team_query(const char *call, gshmem_team_t team)
{
    GSHMEMI_REQUIRE_INIT(call);
    return team == GSHMEM_TEAM_INVALID ? NULL : gshmemi_team_get(call, team);
}

int gshmem_team_my_pe(gshmem_team_t team)
{
    const gshmemi_team_t *t = gshmemi_team_query("gshmem_team_my_pe", team);
    return t != NULL ? t->my_idx : -1;
}

int gshmem_team_n_pes(gshmem_team_t team)
{
    const gshmemi_team_t *t = gshmemi_team_query("gshmem_team_n_pes", team);
    return t != NULL ? t->size : -1;
}

int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team)
{
    const char *call = "gshmem_team_translate_pe";

    GSHMEMI_REQUIRE_INIT(call);
    if (src_team == GSHMEM_TEAM_INVALID || dest_team == GSHMEM_TEAM_INVALID)
        return -1;
    gshmemi_team_t *s = gshmemi_team_get(call, src_team), *d = gshmemi_team_get(call, dest_team);
    if (s == NULL || d == NULL || src_pe < 0 || src_pe >= s->size)
        return -1;
    int pe = s->pes[src_pe], lo = 0, hi = d->size - 1;
    while (lo <= hi) {   /* members are in ascending world order */
        int mid = lo + (hi - lo) / 2;
        if (d->pes[mid] == pe)
            return mid;
        if (d->pes[mid] < pe)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int gshmem_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t *config)
{
    const char *call = "gshmem_team_get_config";
    gshmemi_team_t *t = gshmemi_team_get(call, team);

    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (config == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: config is NULL", call);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (config_mask & GSHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config.num_contexts;
    return GSHMEM_SUCCESS;
}

/* gshmem_team_sync and (quiet first) gshmem_barrier. */
static int gshmemi_team_sync_call(const char *call, gshmem_team_t team, int quiet)
{
    gshmemi_team_t *t = gshmemi_team_get(call, team);

    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (quiet)
        gshmemi_team_barrier(call, t);
    else
        gshmemi_team_sync(call, t);
    return GSHMEM_SUCCESS;
}

int gshmem_team_sync(gshmem_team_t team)
{
    return gshmemi_team_sync_call("gshmem_team_sync", team, 0);
}

int gshmem_barrier(gshmem_team_t team)
{
    return gshmemi_team_sync_call("gshmem_barrier", team, 1);
}

void gshmem_team_destroy(gshmem_team_t team)
{
    const char *call = "gshmem_team_destroy";

    GSHMEMI_REQUIRE_INIT(call);
    if (team == GSHMEM_TEAM_INVALID)
        return;
    if (team == GSHMEM_TEAM_WORLD || team == GSHMEM_TEAM_SHARED || team == GSHMEM_TEAM_NODE)
        gshmemi_fatal(call, "team %d is predefined (WORLD, SHARED or NODE): it cannot be "
                      "destroyed", team);
    if (gshmemi_team_get(call, team) == NULL)
        gshmemi_fatal(call, "team %d is not a live team (destroyed or never created)", team);
    gshmemi_ctx_drop_team(team);
    gshmemi_team_flags_reset(call, &gshmemi_teams[team]);
    gshmemi_team_free(&gshmemi_teams[team]);
    gshmemi_team_to_device_or_die(call, team);
}

/* ---- splits --------------------------------------------------------------- */

/* config and config_mask of a split: only GSHMEM_TEAM_NUM_CONTEXTS. */
static int gshmemi_team_config_ok(const char *call, const gshmem_team_config_t *config,
                                  long config_mask)
{
    if (config_mask & ~GSHMEM_TEAM_NUM_CONTEXTS) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: config_mask %#lx has unknown bits (only "
                      "GSHMEM_TEAM_NUM_CONTEXTS = %#lx)", call, config_mask,
                      GSHMEM_TEAM_NUM_CONTEXTS);
        return 0;
    }
    if ((config_mask & GSHMEM_TEAM_NUM_CONTEXTS) && (config == NULL || config->num_contexts < 0)) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: GSHMEM_TEAM_NUM_CONTEXTS with %s", call,
                      config == NULL ? "a NULL config" : "a negative num_contexts");
        return 0;
    }
    return 1;
}

/* n slots free on every member of p (collective over p), lowest first. */
static int gshmemi_team_pick(const char *call, gshmemi_team_t *p, int n, int *slots)
{
    uint64_t mine = 0, all = ~(uint64_t)0;
    uint64_t *masks = malloc((size_t)p->size * sizeof *masks);

    if (masks == NULL)
        gshmemi_fatal(call, "out of host memory for the masks of %d PEs", p->size);
    for (int i = 0; i < GSHMEM_TEAM_MAX; i++)
        if (!gshmemi_teams[i].live)
            mine |= (uint64_t)1 << i;
    gshmemi_team_exchange(call, p, mine, masks);
    for (int i = 0; i < p->size; i++)
        all &= masks[i];
    free(masks);
    for (int k = 0; k < n; k++) {
        if (all == 0) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: no free team: at most GSHMEM_TEAM_MAX = %d "
                          "teams may be live on a PE (WORLD, SHARED and NODE included), on "
                          "every member of the parent team", call, GSHMEM_TEAM_MAX);
            return GSHMEM_ERR_NOMEM;
        }
        slots[k] = __builtin_ctzll(all);
        all &= all - 1;
    }
    return GSHMEM_SUCCESS;
}

/* Parent PEs first, first + step, ... (count of them) as a new team on slot. */
static int gshmemi_team_carve(const char *call, gshmemi_team_t *p, int slot, int first,
                              int step, int count, const gshmem_team_config_t *config,
                              long config_mask)
{
    int *pes = malloc((size_t)count * sizeof(int));
    if (pes == NULL)
        gshmemi_fatal(call, "out of host memory for a team of %d PEs", count);
    for (int i = 0; i < count; i++)
        pes[i] = p->pes[first + i * step];
    gshmemi_team_make(slot, pes, count, config, config_mask);
    gshmemi_team_to_device_or_die(call, slot);
    return slot;
}

int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride, int size,
                              const gshmem_team_config_t *config, long config_mask,
                              gshmem_team_t *new_team)
{
    const char *call = "gshmem_team_split_strided";
    int slot;

    GSHMEMI_REQUIRE_INIT(call);
    if (new_team == NULL)
        gshmemi_fatal(call, "new_team is NULL");
    *new_team = GSHMEM_TEAM_INVALID;
    gshmemi_team_t *p = gshmemi_team_get(call, parent_team);
    if (p == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (start < 0 || start >= p->size || stride < 1 || size < 1 ||
        (long)start + (long)(size - 1) * stride >= p->size) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: start %d, stride %d, size %d do not fit parent "
                      "team %d of %d PEs (want 0 <= start, stride >= 1, size >= 1, start + "
                      "(size - 1) * stride < %d)", call, start, stride, size, parent_team,
                      p->size, p->size);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (!gshmemi_team_config_ok(call, config, config_mask))
        return GSHMEM_ERR_INVALID_ARG;
    GSHMEMI_CHECK(gshmemi_team_pick(call, p, 1, &slot));
    int k = p->my_idx - start;
    if (k >= 0 && k % stride == 0 && k / stride < size)
        *new_team = gshmemi_team_carve(call, p, slot, start, stride, size, config, config_mask);
    return GSHMEM_SUCCESS;
}

int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange,
                         const gshmem_team_config_t *xaxis_config, long xaxis_mask,
                         gshmem_team_t *xaxis_team,
                         const gshmem_team_config_t *yaxis_config, long yaxis_mask,
                         gshmem_team_t *yaxis_team)
{
    const char *call = "gshmem_team_split_2d";
    int slots[2];

    GSHMEMI_REQUIRE_INIT(call);
    if (xaxis_team == NULL || yaxis_team == NULL)
        gshmemi_fatal(call, "%s is NULL", xaxis_team == NULL ? "xaxis_team" : "yaxis_team");
    *xaxis_team = *yaxis_team = GSHMEM_TEAM_INVALID;
    gshmemi_team_t *p = gshmemi_team_get(call, parent_team);
    if (p == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (xrange < 1) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: xrange %d is not positive", call, xrange);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (!gshmemi_team_config_ok(call, xaxis_config, xaxis_mask) ||
        !gshmemi_team_config_ok(call, yaxis_config, yaxis_mask))
        return GSHMEM_ERR_INVALID_ARG;
    if (xrange > p->size)
        xrange = p->size;
    GSHMEMI_CHECK(gshmemi_team_pick(call, p, 2, slots));
    int row = p->my_idx / xrange, col = p->my_idx % xrange;
    int first = row * xrange, xn = p->size - first < xrange ? p->size - first : xrange;
    int yn = (p->size - col + xrange - 1) / xrange;
    *xaxis_team = gshmemi_team_carve(call, p, slots[0], first, 1, xn, xaxis_config, xaxis_mask);
    *yaxis_team = gshmemi_team_carve(call, p, slots[1], col, xrange, yn, yaxis_config,
                                     yaxis_mask);
    return GSHMEM_SUCCESS;
}

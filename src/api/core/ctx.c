/* ctx.c: communication contexts (OpenSHMEM 1.5). A context opens a channel
 * on every started transport (transport.h: chan_open) and keeps an
 * instance of each transport on it (gshmemi_ctx_t.tps); the gshmem_ctx_
 * calls issue through those instances, so gshmem_ctx_quiet / _fence
 * complete / order what the context issued and nothing else (order.c), and
 * gshmem_quiet leaves it alone. How much that isolates is the transport's:
 * ofi keeps a channel's own counts (ofi_chan.c); shm completes everything
 * at return; p2p (one stream) and ofi's active messages share one channel,
 * so a quiet there completes everything (correct, not isolated). On
 * GSHMEM_CTX_INVALID, quiet, fence and destroy do nothing, as 1.5 says
 * (gshmemi_ctx_get_or_invalid); every other call ends the job.
 *
 * A handle is (generation << 32) | (slot + 2) of a table of GSHMEM_CTX_MAX
 * slots: 0 is GSHMEM_CTX_INVALID, 1 GSHMEM_CTX_DEFAULT; a live slot holds
 * its handle, a destroyed one 0 and the next generation, so a stale handle
 * is recognised (until 2^32 reuses of one slot) and refused naming the call.
 *
 * Threads: the options SERIALIZED and PRIVATE are accepted; every context
 * is safe to share between threads (the transports' channels count with
 * atomics), so they change nothing. Create and destroy take a lock; an
 * operation only reads its slot's handle. */
#include <pthread.h>
#include <stdint.h>

#include "core.h"

static gshmemi_ctx_t gshmemi_ctxs[GSHMEM_CTX_MAX];
static pthread_mutex_t gshmemi_ctx_lock = PTHREAD_MUTEX_INITIALIZER;

#define GSHMEMI_CTX_OPTIONS (GSHMEM_CTX_SERIALIZED | GSHMEM_CTX_PRIVATE | GSHMEM_CTX_NOSTORE)

static void gshmemi_ctx_dead(const char *call, gshmem_ctx_t ctx) __attribute__((noreturn));
static void gshmemi_ctx_dead(const char *call, gshmem_ctx_t ctx)
{
    uint64_t v = (uint64_t)(uintptr_t)ctx, slot = (v & 0xffffffffu) - 2;
    uint32_t gen = (uint32_t)(v >> 32);

    if (ctx == GSHMEM_CTX_INVALID)
        gshmemi_fatal(call, "the context is GSHMEM_CTX_INVALID (a failed create, or a team "
                      "this PE is not in)");
    if (slot < GSHMEM_CTX_MAX &&
        gen < __atomic_load_n(&gshmemi_ctxs[slot].gen, __ATOMIC_RELAXED))
        gshmemi_fatal(call, "context %p (slot %llu, generation %u) was destroyed "
                      "(gshmem_ctx_destroy, or the destroy of its team)", (void *)ctx,
                      (unsigned long long)slot, gen);
    gshmemi_fatal(call, "context %p is not a context of this PE (not made by "
                  "gshmem_ctx_create / gshmem_team_create_ctx)", (void *)ctx);
}

gshmemi_ctx_t *gshmemi_ctx_get(const char *call, gshmem_ctx_t ctx)
{
    uint64_t v = (uint64_t)(uintptr_t)ctx, slot = (v & 0xffffffffu) - 2;

    GSHMEMI_REQUIRE_INIT(call);
    if (ctx == GSHMEM_CTX_DEFAULT)
        return NULL;
    if (__builtin_expect(slot >= GSHMEM_CTX_MAX ||
                         __atomic_load_n(&gshmemi_ctxs[slot].handle, __ATOMIC_ACQUIRE) != v, 0))
        gshmemi_ctx_dead(call, ctx);
    return &gshmemi_ctxs[slot];
}

gshmemi_ctx_t *gshmemi_ctx_get_or_invalid(const char *call, gshmem_ctx_t ctx, int *invalid_p)
{
    GSHMEMI_REQUIRE_INIT(call);
    *invalid_p = ctx == GSHMEM_CTX_INVALID;
    return *invalid_p ? NULL : gshmemi_ctx_get(call, ctx);
}

void gshmem_ctx_check(gshmem_ctx_t ctx, const char *call)
{
    (void)gshmemi_ctx_get(call != NULL ? call : "gshmem_ctx_check", ctx);
}

/* Close the channels of c's first n transports (their operations complete). */
static void gshmemi_ctx_close(const char *call, gshmemi_ctx_t *c, int n)
{
    for (int i = 0; i < n; i++) {
        gshmemi_transport_t *tp = &gshmemi_g.tps[i];
        int rc = tp->ops->chan_close(tp, c->tps[i].chan);
        if (rc != 0)
            GSHMEMI_WARN(GSHMEMI_SUBSYS_TRANSPORT, "%s: transport %s: closing a context's "
                         "channel: %s", call, tp->ops->name, gshmem_strerror(rc));
        c->tps[i].chan = NULL;
    }
}

/* A channel on every started transport into free slot c (under the lock). */
static int gshmemi_ctx_open(const char *call, gshmemi_ctx_t *c)
{
    gshmemi_state_t *g = &gshmemi_g;

    for (int i = 0; i < g->n_tps; i++) {
        c->tps[i] = g->tps[i];
        int rc = g->tps[i].ops->chan_open(&g->tps[i], &c->tps[i].chan);
        if (rc != 0) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_TRANSPORT, "%s: transport %s: opening a channel for "
                          "the context: %s", call, g->tps[i].ops->name, gshmem_strerror(rc));
            gshmemi_ctx_close(call, c, i);
            return rc;
        }
    }
    return GSHMEM_SUCCESS;
}

static int gshmemi_ctx_create(const char *call, gshmem_team_t team, long options,
                              gshmem_ctx_t *ctx)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (ctx == NULL)
        gshmemi_fatal(call, "ctx is NULL");
    *ctx = GSHMEM_CTX_INVALID;
    if (gshmemi_team_get(call, team) == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (options & ~GSHMEMI_CTX_OPTIONS) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: options %#lx has unknown bits (expected "
                      "GSHMEM_CTX_SERIALIZED, _PRIVATE, _NOSTORE: %#lx)", call, options,
                      (long)GSHMEMI_CTX_OPTIONS);
        return GSHMEM_ERR_INVALID_ARG;
    }
    pthread_mutex_lock(&gshmemi_ctx_lock);
    int i = 0;
    while (i < GSHMEM_CTX_MAX && gshmemi_ctxs[i].handle != 0)
        i++;
    if (i == GSHMEM_CTX_MAX) {
        pthread_mutex_unlock(&gshmemi_ctx_lock);
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: all GSHMEM_CTX_MAX = %d contexts are live",
                      call, GSHMEM_CTX_MAX);
        return GSHMEM_ERR_NOMEM;
    }
    gshmemi_ctx_t *c = &gshmemi_ctxs[i];
    int rc = gshmemi_ctx_open(call, c);
    if (rc == 0) {
        c->team = team;
        c->options = options;
        uint64_t h = ((uint64_t)c->gen << 32) | (uint64_t)(i + 2);
        __atomic_store_n(&c->handle, h, __ATOMIC_RELEASE);
        *ctx = (gshmem_ctx_t)(uintptr_t)h;
    }
    pthread_mutex_unlock(&gshmemi_ctx_lock);
    return rc;
}

int gshmem_team_create_ctx(gshmem_team_t team, long options, gshmem_ctx_t *ctx)
{
    return gshmemi_ctx_create("gshmem_team_create_ctx", team, options, ctx);
}

int gshmem_ctx_create(long options, gshmem_ctx_t *ctx)
{
    return gshmemi_ctx_create("gshmem_ctx_create", GSHMEM_TEAM_WORLD, options, ctx);
}

/* Quiet the live context c, retire its handle, close its channels. A
 * stale use of the handle from here on is refused (gshmemi_ctx_dead). */
static void gshmemi_ctx_kill(const char *call, gshmemi_ctx_t *c)
{
    gshmemi_quiet_on(call, c);
    pthread_mutex_lock(&gshmemi_ctx_lock);
    __atomic_store_n(&c->handle, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&c->gen, c->gen + 1, __ATOMIC_RELAXED);
    gshmemi_ctx_close(call, c, gshmemi_g.n_tps);
    pthread_mutex_unlock(&gshmemi_ctx_lock);
}

void gshmem_ctx_destroy(gshmem_ctx_t ctx)
{
    const char *call = "gshmem_ctx_destroy";

    if (ctx == GSHMEM_CTX_INVALID)
        return;
    gshmemi_ctx_t *c = gshmemi_ctx_get(call, ctx);
    if (c == NULL)
        gshmemi_fatal(call, "GSHMEM_CTX_DEFAULT cannot be destroyed");
    gshmemi_ctx_kill(call, c);
}

/* Every live context made from team (all of them for GSHMEM_TEAM_INVALID).
 * Only this PE's threads create and destroy, and the contexts it ends are
 * not in use (the caller's contract), so reading the handles unlocked is
 * safe; each kill takes the lock itself. */
static void gshmemi_ctx_kill_team(const char *call, gshmem_team_t team, int all)
{
    for (int i = 0; i < GSHMEM_CTX_MAX; i++) {
        gshmemi_ctx_t *c = &gshmemi_ctxs[i];
        if (__atomic_load_n(&c->handle, __ATOMIC_ACQUIRE) != 0 && (all || c->team == team))
            gshmemi_ctx_kill(call, c);
    }
}

void gshmemi_ctx_drop_team(gshmem_team_t team)
{
    gshmemi_ctx_kill_team("gshmem_team_destroy", team, 0);
}

void gshmemi_ctx_destroy_all(const char *call)
{
    gshmemi_ctx_kill_team(call, GSHMEM_TEAM_INVALID, 1);
}

int gshmem_ctx_get_team(gshmem_ctx_t ctx, gshmem_team_t *team)
{
    const char *call = "gshmem_ctx_get_team";

    GSHMEMI_REQUIRE_INIT(call);
    if (team == NULL)
        gshmemi_fatal(call, "team is NULL");
    if (ctx == GSHMEM_CTX_INVALID) {
        *team = GSHMEM_TEAM_INVALID;
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: the context is GSHMEM_CTX_INVALID", call);
        return GSHMEM_ERR_INVALID_ARG;
    }
    gshmemi_ctx_t *c = gshmemi_ctx_get(call, ctx);
    *team = c == NULL ? GSHMEM_TEAM_WORLD : c->team;
    return GSHMEM_SUCCESS;
}

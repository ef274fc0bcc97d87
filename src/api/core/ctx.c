/* ctx.c: communication contexts (OpenSHMEM 1.5), mapped onto the default
 * one: a context is a checked handle (its team and options recorded), its
 * operations are the plain calls, and quiet/fence on any context complete
 * or order every operation of the PE (correct, and conservative: no
 * isolation between contexts yet).
 *
 * A handle is (generation << 32) | (slot + 2) of a table of GSHMEM_CTX_MAX
 * slots: 0 is GSHMEM_CTX_INVALID, 1 GSHMEM_CTX_DEFAULT; a destroyed
 * context's slot gets a new generation, so a stale handle is recognised
 * (until 2^32 reuses of one slot) and refused naming the call. */
#include <pthread.h>
#include <stdint.h>

#include "core.h"

typedef struct gshmemi_ctx {
    uint32_t gen;
    int live;
    gshmem_team_t team;
    long options;
} gshmemi_ctx_t;

static gshmemi_ctx_t gshmemi_ctxs[GSHMEM_CTX_MAX];
static pthread_mutex_t gshmemi_ctx_lock = PTHREAD_MUTEX_INITIALIZER;

#define GSHMEMI_CTX_OPTIONS (GSHMEM_CTX_SERIALIZED | GSHMEM_CTX_PRIVATE | GSHMEM_CTX_NOSTORE)

/* The slot of a live ctx, -1 for GSHMEM_CTX_DEFAULT; else fatal naming call. */
static int gshmemi_ctx_slot(gshmem_ctx_t ctx, const char *call)
{
    uintptr_t v = (uintptr_t)ctx;

    GSHMEMI_REQUIRE_INIT(call);
    if (ctx == GSHMEM_CTX_DEFAULT)
        return -1;
    if (ctx == GSHMEM_CTX_INVALID)
        gshmemi_fatal(call, "the context is GSHMEM_CTX_INVALID (a failed create, or a team "
                      "this PE is not in)");
    uint64_t slot = (uint64_t)(v & 0xffffffffu) - 2;
    if (slot >= GSHMEM_CTX_MAX || !gshmemi_ctxs[slot].live ||
        gshmemi_ctxs[slot].gen != (uint32_t)((uint64_t)v >> 32))
        gshmemi_fatal(call, "context %p is not a live context (destroyed, or not made by "
                      "gshmem_ctx_create / gshmem_team_create_ctx)", (void *)ctx);
    return (int)slot;
}

void gshmem_ctx_check(gshmem_ctx_t ctx, const char *call)
{
    (void)gshmemi_ctx_slot(ctx, call != NULL ? call : "gshmem_ctx_check");
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
    for (int i = 0; i < GSHMEM_CTX_MAX; i++) {
        gshmemi_ctx_t *c = &gshmemi_ctxs[i];
        if (c->live)
            continue;
        c->live = 1;
        c->team = team;
        c->options = options;
        *ctx = (gshmem_ctx_t)(uintptr_t)(((uint64_t)c->gen << 32) | (uint64_t)(i + 2));
        pthread_mutex_unlock(&gshmemi_ctx_lock);
        return GSHMEM_SUCCESS;
    }
    pthread_mutex_unlock(&gshmemi_ctx_lock);
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: all GSHMEM_CTX_MAX = %d contexts are live", call,
                  GSHMEM_CTX_MAX);
    return GSHMEM_ERR_NOMEM;
}

int gshmem_team_create_ctx(gshmem_team_t team, long options, gshmem_ctx_t *ctx)
{
    return gshmemi_ctx_create("gshmem_team_create_ctx", team, options, ctx);
}

int gshmem_ctx_create(long options, gshmem_ctx_t *ctx)
{
    return gshmemi_ctx_create("gshmem_ctx_create", GSHMEM_TEAM_WORLD, options, ctx);
}

static void gshmemi_ctx_kill(gshmemi_ctx_t *c)
{
    c->live = 0;
    c->gen++;
}

void gshmem_ctx_destroy(gshmem_ctx_t ctx)
{
    const char *call = "gshmem_ctx_destroy";

    if (ctx == GSHMEM_CTX_INVALID)
        return;
    int slot = gshmemi_ctx_slot(ctx, call);
    if (slot < 0)
        gshmemi_fatal(call, "GSHMEM_CTX_DEFAULT cannot be destroyed");
    gshmemi_quiet_all(call);
    pthread_mutex_lock(&gshmemi_ctx_lock);
    gshmemi_ctx_kill(&gshmemi_ctxs[slot]);
    pthread_mutex_unlock(&gshmemi_ctx_lock);
}

void gshmemi_ctx_drop_team(gshmem_team_t team)
{
    pthread_mutex_lock(&gshmemi_ctx_lock);
    for (int i = 0; i < GSHMEM_CTX_MAX; i++)
        if (gshmemi_ctxs[i].live && gshmemi_ctxs[i].team == team)
            gshmemi_ctx_kill(&gshmemi_ctxs[i]);
    pthread_mutex_unlock(&gshmemi_ctx_lock);
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
    int slot = gshmemi_ctx_slot(ctx, call);
    *team = slot < 0 ? GSHMEM_TEAM_WORLD : gshmemi_ctxs[slot].team;
    return GSHMEM_SUCCESS;
}

void gshmem_ctx_quiet(gshmem_ctx_t ctx)
{
    (void)gshmemi_ctx_slot(ctx, "gshmem_ctx_quiet");
    gshmemi_quiet_all("gshmem_ctx_quiet");
}

void gshmem_ctx_fence(gshmem_ctx_t ctx)
{
    (void)gshmemi_ctx_slot(ctx, "gshmem_ctx_fence");
    gshmem_fence();
}

void gshmem_ctx_putmem(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    (void)gshmemi_ctx_slot(ctx, "gshmem_ctx_putmem");
    gshmemi_rma_put("gshmem_ctx_putmem", dest, source, nelems, pe, 0);
}

void gshmem_ctx_getmem(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    (void)gshmemi_ctx_slot(ctx, "gshmem_ctx_getmem");
    gshmemi_rma_get("gshmem_ctx_getmem", dest, source, nelems, pe, 0);
}

void gshmem_ctx_putmem_nbi(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                           int pe)
{
    (void)gshmemi_ctx_slot(ctx, "gshmem_ctx_putmem_nbi");
    gshmemi_rma_put("gshmem_ctx_putmem_nbi", dest, source, nelems, pe, 1);
}

void gshmem_ctx_getmem_nbi(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                           int pe)
{
    (void)gshmemi_ctx_slot(ctx, "gshmem_ctx_getmem_nbi");
    gshmemi_rma_get("gshmem_ctx_getmem_nbi", dest, source, nelems, pe, 1);
}

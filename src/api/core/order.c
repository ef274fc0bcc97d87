/* order.c: quiet, fence, barrier_all and sync_all.
 *
 * - quiet of a context: every started transport's quiet, through the
 *   context's instances (its own channels: ctx.c); gshmem_quiet is the
 *   default context's, as OpenSHMEM 1.5 says ("When ctx is not provided,
 *   the operation is performed on SHMEM_CTX_DEFAULT"): it does not
 *   complete what other contexts issued, nor do the barriers (1.5:
 *   "updates issued on the default context").
 * - fence: every transport's fence when one transport is started. With
 *   several (shm for node peers and ofi for the rest, AMOs through ofi), a
 *   put through shm and an AMO through ofi to the same PE can only be
 *   ordered by completing the first, so fence is a quiet then.
 * - barrier_all = quiet + sync_all; sync_all = the WORLD team's sync, a
 *   dissemination barrier over the transports (team.c): after init no
 *   synchronization goes through the bootstrap. */
#include "core.h"

void gshmemi_quiet_on(const char *call, gshmemi_ctx_t *c)
{
    gshmemi_state_t *g = &gshmemi_g;

    GSHMEMI_REQUIRE_INIT(call);
    for (int i = 0; i < g->n_tps; i++) {
        gshmemi_transport_t *tp = gshmemi_ctx_tp(c, &g->tps[i]);
        int rc = tp->ops->quiet(tp);
        if (rc != 0)
            gshmemi_fatal(call, "transport %s: quiet failed: %s", tp->ops->name,
                          gshmem_strerror(rc));
    }
}

void gshmemi_fence_on(const char *call, gshmemi_ctx_t *c)
{
    gshmemi_state_t *g = &gshmemi_g;

    GSHMEMI_REQUIRE_INIT(call);
    if (g->n_tps > 1) {
        gshmemi_quiet_on(call, c);
        return;
    }
    for (int i = 0; i < g->n_tps; i++) {
        gshmemi_transport_t *tp = gshmemi_ctx_tp(c, &g->tps[i]);
        int rc = tp->ops->fence(tp);
        if (rc != 0)
            gshmemi_fatal(call, "transport %s: fence failed: %s", tp->ops->name,
                          gshmem_strerror(rc));
    }
}

void gshmemi_sync_all(const char *call)
{
    GSHMEMI_REQUIRE_INIT(call);
    gshmemi_team_sync(call, gshmemi_team_get(call, GSHMEM_TEAM_WORLD));
}

void gshmemi_barrier_all(const char *call)
{
    gshmemi_quiet_all(call);
    gshmemi_sync_all(call);
}

void gshmem_quiet(void)
{
    gshmemi_quiet_all("gshmem_quiet");
}

void gshmem_fence(void)
{
    gshmemi_fence_on("gshmem_fence", NULL);
}

void gshmem_ctx_quiet(gshmem_ctx_t ctx)
{
    int invalid;
    gshmemi_ctx_t *c = gshmemi_ctx_get_or_invalid("gshmem_ctx_quiet", ctx, &invalid);
    if (!invalid)   /* 1.5: no operation on SHMEM_CTX_INVALID */
        gshmemi_quiet_on("gshmem_ctx_quiet", c);
}

void gshmem_ctx_fence(gshmem_ctx_t ctx)
{
    int invalid;
    gshmemi_ctx_t *c = gshmemi_ctx_get_or_invalid("gshmem_ctx_fence", ctx, &invalid);
    if (!invalid)   /* 1.5: no operation on SHMEM_CTX_INVALID */
        gshmemi_fence_on("gshmem_ctx_fence", c);
}

void gshmem_barrier_all(void)
{
    gshmemi_barrier_all("gshmem_barrier_all");
}

void gshmem_sync_all(void)
{
    gshmemi_sync_all("gshmem_sync_all");
}

/* order.c: quiet, fence, barrier_all, sync_all, and the progress/yield
 * step of every wait loop.
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
 * - barrier_all = quiet + bootstrap barrier; sync_all = bootstrap barrier.
 *   The barrier goes through the bootstrap for now; an RMA-based
 *   dissemination barrier over the transports is a later optimisation. */
#include <sched.h>

#include "core.h"
#include "base/util/thread.h"

/* Wait loops: progress every GSHMEMI_WAIT_PROGRESS spins; after
 * GSHMEMI_WAIT_YIELD spins give the core away on every step (PEs may
 * outnumber cores). */
#define GSHMEMI_WAIT_PROGRESS 64
#define GSHMEMI_WAIT_YIELD 1000

static inline void gshmemi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

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
    GSHMEMI_TSAN_BARRIER_ENTER();   /* base/util/thread.h: the order through the peers */
    int rc = gshmemi_g.boot->ops->barrier(gshmemi_g.boot);
    GSHMEMI_TSAN_BARRIER_EXIT();
    if (rc != 0)
        gshmemi_fatal(call, "bootstrap %s: barrier failed: %s", gshmemi_g.boot->ops->name,
                      gshmem_strerror(rc));
}

void gshmemi_barrier_all(const char *call)
{
    gshmemi_quiet_all(call);
    gshmemi_sync_all(call);
}

void gshmemi_progress_all(void)
{
    gshmemi_state_t *g = &gshmemi_g;
    for (int i = 0; i < g->n_tps; i++)
        (void)g->tps[i].ops->progress(&g->tps[i]);
}

void gshmemi_wait_step(unsigned long spins)
{
    if (spins % GSHMEMI_WAIT_PROGRESS == GSHMEMI_WAIT_PROGRESS - 1)
        gshmemi_progress_all();
    if (spins >= GSHMEMI_WAIT_YIELD)
        sched_yield();
    else
        gshmemi_cpu_relax();
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
    gshmemi_quiet_on("gshmem_ctx_quiet", gshmemi_ctx_get("gshmem_ctx_quiet", ctx));
}

void gshmem_ctx_fence(gshmem_ctx_t ctx)
{
    gshmemi_fence_on("gshmem_ctx_fence", gshmemi_ctx_get("gshmem_ctx_fence", ctx));
}

void gshmem_barrier_all(void)
{
    gshmemi_barrier_all("gshmem_barrier_all");
}

void gshmem_sync_all(void)
{
    gshmemi_sync_all("gshmem_sync_all");
}

/* stage.c: the host side of the stage API (include/gshmem_stage.h) that
 * needs no GPU: the policy and order check, wait-only views of semaphores
 * another component owns, the run counter, and the wait limit from the
 * settings table. stage_cuda.c allocates stages, stage_guard.cu launches
 * the guard kernel (CUDA builds). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/gshmemi.h"
#include "stage_impl.h"

/* ---- the check -------------------------------------------------------------- */

/* The grid, the policy's own fields and the order, before any table walk. */
static int gshmemi_stage_check_args(gshmem_stage_grid_t g, const gshmem_stage_policy_t *p,
                                    int order, const uint32_t *order_table, char *err,
                                    size_t errlen)
{
    if (g.x == 0 || g.y == 0 || (uint64_t)g.x * g.y > 0x7fffffffu) {
        snprintf(err, errlen, "tile grid %ux%u is empty or too large", g.x, g.y);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (p->kind < GSHMEM_STAGE_PER_TILE || p->kind > GSHMEM_STAGE_USER) {
        snprintf(err, errlen, "unknown policy kind %d", p->kind);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (p->kind == GSHMEM_STAGE_STRIDED && (p->stride < 1 || p->stride > g.x)) {
        snprintf(err, errlen, "strided policy: stride %u not in 1..%u (tiles per row)",
                 p->stride, g.x);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (p->kind == GSHMEM_STAGE_USER &&
        (p->n_user_sems == 0 || p->user_sem == NULL || p->user_expected == NULL)) {
        snprintf(err, errlen, "user policy: n_user_sems %u, user_sem %p, user_expected %p "
                 "(need tables and at least one semaphore)", p->n_user_sems,
                 (const void *)p->user_sem, (const void *)p->user_expected);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (order < GSHMEM_STAGE_ROW_MAJOR || order > GSHMEM_STAGE_ORDER_TABLE ||
        (order == GSHMEM_STAGE_ORDER_TABLE && order_table == NULL)) {
        snprintf(err, errlen, "order %d invalid (or ORDER_TABLE without a table)", order);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return GSHMEM_SUCCESS;
}

/* The tables: tiles per semaphore against the expected counts (count[0 ..
 * ns - 1]), then the order table as a permutation (count[ns ..]). */
static int gshmemi_stage_check_tables(gshmem_stage_grid_t g, const gshmem_stage_policy_t *p,
                                      int order, const uint32_t *order_table, uint32_t ns,
                                      uint32_t *count, char *err, size_t errlen)
{
    uint32_t n = g.x * g.y;

    for (uint32_t i = 0; i < n; i++) {
        gshmem_stage_tile_t t = {i % g.x, i / g.x};
        uint32_t s = gshmem_stage_policy_sem(p, g, t);
        if (s >= ns) {
            snprintf(err, errlen, "tile (%u,%u) maps to semaphore %u, not below %u", t.x,
                     t.y, s, ns);
            return GSHMEM_ERR_INVALID_ARG;
        }
        count[s]++;
    }
    for (uint32_t s = 0; s < ns; s++) {
        uint32_t e = gshmem_stage_policy_expected(p, g, s);
        if (e != count[s]) {
            snprintf(err, errlen, "semaphore %u expects %u posts per run but %u tiles map "
                     "to it", s, e, count[s]);
            return GSHMEM_ERR_INVALID_ARG;
        }
    }
    for (uint32_t pos = 0; pos < n && order == GSHMEM_STAGE_ORDER_TABLE; pos++) {
        uint32_t lin = order_table[pos];
        if (lin >= n || count[ns + lin]++ != 0) {
            snprintf(err, errlen, "order table: position %u holds tile %u (%s)", pos, lin,
                     lin >= n ? "out of range" : "repeated");
            return GSHMEM_ERR_INVALID_ARG;
        }
    }
    return GSHMEM_SUCCESS;
}

int gshmem_stage_check(gshmem_stage_grid_t g, const gshmem_stage_policy_t *p, int order,
                       const uint32_t *order_table, char *err, size_t errlen)
{
    int rc = gshmemi_stage_check_args(g, p, order, order_table, err, errlen);
    if (rc != GSHMEM_SUCCESS)
        return rc;
    uint32_t ns = gshmem_stage_policy_n_sems(p, g);
    uint32_t *count = (uint32_t *)calloc((size_t)ns + (size_t)g.x * g.y, sizeof(uint32_t));
    if (count == NULL) {
        snprintf(err, errlen, "out of host memory (%u semaphores)", ns);
        return GSHMEM_ERR_NOMEM;
    }
    rc = gshmemi_stage_check_tables(g, p, order, order_table, ns, count, err, errlen);
    free(count);
    return rc;
}

/* ---- the wait limit --------------------------------------------------------- */

static pthread_once_t gshmemi_stage_cfg_once = PTHREAD_ONCE_INIT;
static int gshmemi_stage_cfg_rc;
static long gshmemi_stage_cfg_timeout;

/* Before gshmem_init: the settings table as init would load it (the loader
 * logs an invalid value, and applies GSHMEM_DEBUG as init does). */
static void gshmemi_stage_cfg_load(void)
{
    gshmemi_config_t *cfg = (gshmemi_config_t *)malloc(sizeof *cfg);

    if (cfg == NULL) {
        GSHMEMI_ERROR(GSHMEMI_STAGE_SUBSYS, "stage: no host memory (%zu bytes) to load the "
                      "GSHMEM_* settings", sizeof *cfg);
        gshmemi_stage_cfg_rc = GSHMEM_ERR_NOMEM;
        return;
    }
    gshmemi_stage_cfg_rc = gshmemi_config_load(cfg);
    gshmemi_stage_cfg_timeout = cfg->timeout;
    free(cfg);
}

int gshmemi_stage_timeout_ns(const char *call, uint64_t *ns_p)
{
    long sec;

    if (gshmemi_g.initialized) {
        sec = gshmemi_g.cfg.timeout;
    } else {
        pthread_once(&gshmemi_stage_cfg_once, gshmemi_stage_cfg_load);
        if (gshmemi_stage_cfg_rc != GSHMEM_SUCCESS) {
            GSHMEMI_TRACE(GSHMEMI_STAGE_SUBSYS, "%s: settings -> %d", call,
                          gshmemi_stage_cfg_rc);
            return gshmemi_stage_cfg_rc;
        }
        sec = gshmemi_stage_cfg_timeout;
    }
    *ns_p = (uint64_t)(sec > 0 ? sec : GSHMEMI_CFG_BOUNDED_WAIT_S) * 1000000000ull;
    return GSHMEM_SUCCESS;
}

/* ---- views and runs ---------------------------------------------------------- */

gshmem_stage_policy_t gshmemi_stage_reset(gshmem_stage_t *s, uint32_t tiles_x, uint32_t tiles_y,
                                          const gshmem_stage_policy_t *policy)
{
    gshmem_stage_policy_t p;

    memset(&p, 0, sizeof p);
    if (policy != NULL)
        p = *policy;
    memset(s, 0, sizeof *s);
    s->grid.x = tiles_x;
    s->grid.y = tiles_y;
    return p;
}

int gshmem_stage_wrap(gshmem_stage_t *s, uint64_t *sems, uint32_t tiles_x, uint32_t tiles_y,
                      const gshmem_stage_policy_t *policy, uint32_t flags)
{
    static const char call[] = "gshmem_stage_wrap";
    gshmem_stage_policy_t p = gshmemi_stage_reset(s, tiles_x, tiles_y, policy);
    int rc;

    if (sems == NULL || p.kind == GSHMEM_STAGE_USER || (flags & GSHMEM_STAGE_COUNTER)) {
        GSHMEMI_ERROR(GSHMEMI_STAGE_SUBSYS, "%s: %s (a view needs semaphores, a built-in "
                      "policy and no GSHMEM_STAGE_COUNTER; sems %p, policy kind %d, flags %#x)",
                      call, sems == NULL ? "sems is NULL"
                      : p.kind == GSHMEM_STAGE_USER ? "a USER policy"
                      : "GSHMEM_STAGE_COUNTER in flags", (void *)sems, p.kind, flags);
        return GSHMEM_ERR_INVALID_ARG;
    }
    rc = gshmemi_stage_prepare(call, s, &p, GSHMEM_STAGE_ROW_MAJOR, NULL);
    if (rc != GSHMEM_SUCCESS)
        return rc;
    s->policy = p;
    s->flags = flags;
    s->sems = sems;
    s->n_sems = gshmem_stage_policy_n_sems(&p, s->grid);
    return GSHMEM_SUCCESS;
}

int gshmemi_stage_prepare(const char *call, gshmem_stage_t *s, const gshmem_stage_policy_t *p,
                          int order, const uint32_t *order_table)
{
    char err[256];
    int rc = gshmem_stage_check(s->grid, p, order, order_table, err, sizeof err);

    if (rc != GSHMEM_SUCCESS) {
        GSHMEMI_ERROR(GSHMEMI_STAGE_SUBSYS, "%s: %s", call, err);
        return rc;
    }
    rc = gshmemi_stage_timeout_ns(call, &s->timeout_ns);
    if (rc != GSHMEM_SUCCESS)
        memset(s, 0, sizeof *s);
    return rc;
}

uint64_t gshmem_stage_begin(gshmem_stage_t *s)
{
    return ++s->epoch;
}

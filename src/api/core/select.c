/* select.c: start the transports of GSHMEM_TRANSPORTS and pick, for each
 * PE, the one that serves it.
 *
 * - Transports start in the listed order ("auto" = p2p,shm,ofi, p2p only
 *   in CUDA builds), each collectively. After each one the PEs agree (allgather)
 *   whether every PE now reaches every PE; if so the rest are not started
 *   (a one-node job over shm never opens libfabric).
 * - A transport that fails to start on every PE is skipped with a warning
 *   (the next one may still cover the job); one that fails on some PEs
 *   only is an error.
 * - pe_tp[pe] is the first started transport that reaches pe. A PE that no
 *   transport reaches makes init fail with GSHMEM_ERR_TRANSPORT on every
 *   PE (agreed by allgather), naming the PE and the transports tried.
 * - AMOs: when every started transport does hardware atomics (CPU atomics
 *   on mapped memory, e.g. shm), an AMO to pe goes through pe_tp[pe]
 *   (amo_tp = NULL). Otherwise ALL AMOs, even those to this PE or to a PE
 *   served by shm, go through the first transport without hardware atomics
 *   (ofi), which must reach every PE including this one: the provider's
 *   atomics are not atomic with CPU atomics on the same word, so every AMO
 *   to one location must take the same path to stay atomic with the
 *   others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core.h"
#include "select.h"

/* reach arrays allocated here (a transport might replace tp->reach). */
static unsigned char *gshmemi_select_reach[GSHMEMI_MAX_TRANSPORTS];

/* ---- GSHMEM_TRANSPORTS ---------------------------------------------- */

static int gshmemi_select_add(gshmemi_tp_list_t *list, const char *name, const char *s)
{
    static const char *const known[] = {"shm", "ofi", "p2p"};
    const gshmemi_transport_ops_t *ops;
    int is_known = 0;

    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        is_known |= strcasecmp(name, known[i]) == 0;
    if (!is_known) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRANSPORTS=%s: unknown transport '%s' "
                      "(expected a comma list of p2p, shm, ofi, or auto)", s, name);
        return GSHMEM_ERR_CONFIG;
    }
    ops = gshmemi_transport_lookup(name);
    if (ops == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRANSPORTS=%s: transport %s is not "
                      "available in this build", s, name);
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    for (int i = 0; i < list->n; i++)
        if (list->ops[i] == ops)
            return GSHMEM_SUCCESS;   /* named twice: the first place counts */
    if (list->n == GSHMEMI_MAX_TRANSPORTS)
        return GSHMEM_SUCCESS;
    list->ops[list->n++] = ops;
    return GSHMEM_SUCCESS;
}

int gshmemi_select_parse(const char *s, gshmemi_tp_list_t *list_p)
{
    gshmemi_tp_list_t list = {.n = 0};
    char buf[256], *save = NULL;

    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (strcasecmp(tok, "auto") == 0) {
            /* p2p first where built: a CUDA heap must never be reached by
             * shm's CPU atomics (shm serves host heaps only anyway). */
            if (gshmemi_transport_lookup("p2p") != NULL)
                GSHMEMI_CHECK(gshmemi_select_add(&list, "p2p", s));
            GSHMEMI_CHECK(gshmemi_select_add(&list, "shm", s));
            GSHMEMI_CHECK(gshmemi_select_add(&list, "ofi", s));
        } else {
            GSHMEMI_CHECK(gshmemi_select_add(&list, tok, s));
        }
    }
    if (list.n == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRANSPORTS='%s' names no transport "
                      "(expected a comma list of p2p, shm, ofi, or auto)", s);
        return GSHMEM_ERR_CONFIG;
    }
    *list_p = list;
    return GSHMEM_SUCCESS;
}

/* ---- agreement ------------------------------------------------------ */

/* Allgather one int per PE into a new array (*all_p, free it). */
static int gshmemi_select_gather(gshmemi_state_t *g, int v, int **all_p)
{
    int *all = malloc((size_t)g->n_pes * sizeof(int));
    if (all == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for %d PEs", g->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    int rc = g->boot->ops->allgather(g->boot, &v, all, sizeof(int));
    if (rc != 0) {
        free(all);
        return rc;
    }
    *all_p = all;
    return GSHMEM_SUCCESS;
}

/* The lowest PE with a non-zero value, or -1. */
static int gshmemi_select_first_set(const gshmemi_state_t *g, const int *all)
{
    for (int pe = 0; pe < g->n_pes; pe++)
        if (all[pe] != 0)
            return pe;
    return -1;
}

/* ---- starting one transport ----------------------------------------- */

static void gshmemi_select_drop(gshmemi_state_t *g)
{
    gshmemi_transport_t *tp = &g->tps[g->n_tps];
    free(gshmemi_select_reach[g->n_tps]);
    gshmemi_select_reach[g->n_tps] = NULL;
    memset(tp, 0, sizeof *tp);
}

/* Start ops as g->tps[g->n_tps]; *kept_p = 1 when it runs on every PE,
 * 0 when it failed on every PE (skipped). */
static int gshmemi_select_start(gshmemi_state_t *g, const gshmemi_transport_ops_t *ops,
                                const gshmemi_tp_env_t *env, int *kept_p)
{
    gshmemi_transport_t *tp = &g->tps[g->n_tps];
    unsigned char *reach = calloc((size_t)g->n_pes, 1);
    int *all, rc;

    memset(tp, 0, sizeof *tp);
    tp->ops = ops;
    tp->reach = reach;
    gshmemi_select_reach[g->n_tps] = reach;
    rc = reach ? ops->init(tp, env) : GSHMEM_ERR_NOMEM;
    int arc = gshmemi_select_gather(g, rc, &all);
    if (arc != 0) {
        gshmemi_select_drop(g);   /* a started transport leaks: the job is broken */
        return arc;
    }
    int bad = gshmemi_select_first_set(g, all), n_bad = 0;
    for (int pe = 0; pe < g->n_pes; pe++)
        n_bad += all[pe] != 0;
    if (bad < 0) {
        free(all);
        g->n_tps++;
        *kept_p = 1;
        return GSHMEM_SUCCESS;
    }
    if (n_bad == g->n_pes) {
        GSHMEMI_WARN(GSHMEMI_SUBSYS_TRANSPORT, "transport %s could not start (PE %d: %s); "
                     "trying the next one", ops->name, bad, gshmem_strerror(all[bad]));
        free(all);
        gshmemi_select_drop(g);
        *kept_p = 0;
        return GSHMEM_SUCCESS;
    }
    /* Started on some PEs only: its finalize is collective and cannot run
     * on a subset, so the PEs where it started leave it (the job fails). */
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_TRANSPORT, "transport %s failed to start on PE %d (%s) but "
                  "started on %d other PE(s)", ops->name, bad, gshmem_strerror(all[bad]),
                  g->n_pes - n_bad);
    free(all);
    if (rc != 0)
        gshmemi_select_drop(g);
    else
        gshmemi_select_reach[g->n_tps] = NULL;
    return GSHMEM_ERR_TRANSPORT;
}

/* 1 when the started transports together reach every PE from here. */
static int gshmemi_select_covered(const gshmemi_state_t *g)
{
    for (int pe = 0; pe < g->n_pes; pe++) {
        int ok = 0;
        for (int i = 0; i < g->n_tps && !ok; i++)
            ok = g->tps[i].reach[pe] != 0;
        if (!ok)
            return 0;
    }
    return 1;
}

static int gshmemi_select_start_all(gshmemi_state_t *g, const gshmemi_tp_list_t *list)
{
    gshmemi_tp_env_t env = {.cfg = &g->cfg, .boot = g->boot, .heap = &g->heap,
                            .node_of = g->node_of, .my_pe = g->my_pe, .n_pes = g->n_pes,
                            .n_machine = g->n_machine};

    for (int i = 0; i < list->n; i++) {
        int kept = 0, *all;
        GSHMEMI_CHECK(gshmemi_select_start(g, list->ops[i], &env, &kept));
        if (!kept)
            continue;
        GSHMEMI_CHECK(gshmemi_select_gather(g, !gshmemi_select_covered(g), &all));
        int gap = gshmemi_select_first_set(g, all);
        free(all);
        if (gap < 0)
            break;   /* every PE reaches every PE: start no more */
    }
    return GSHMEM_SUCCESS;
}

/* ---- per-PE choice -------------------------------------------------- */

static void gshmemi_select_tried(const gshmemi_tp_list_t *list, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < list->n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "",
                                list->ops[i]->name);
}

/* Fill pe_tp and amo_tp; returns 0 or the PE (+1) that is not reached. */
static int gshmemi_select_assign(gshmemi_state_t *g, const gshmemi_tp_list_t *list)
{
    char tried[64];
    gshmemi_select_tried(list, tried, sizeof tried);
    for (int pe = 0; pe < g->n_pes; pe++) {
        g->pe_tp[pe] = NULL;
        for (int i = 0; i < g->n_tps && g->pe_tp[pe] == NULL; i++)
            if (g->tps[i].reach[pe])
                g->pe_tp[pe] = &g->tps[i];
        if (g->pe_tp[pe] == NULL) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_TRANSPORT, "PE %d is not reached by any transport "
                          "(tried %s: GSHMEM_TRANSPORTS=%s; this PE's heap: %s, %s)", pe,
                          tried, g->cfg.transports,
                          g->heap.kind == GSHMEMI_HEAP_CUDA ? "cuda" : "host", g->heap_why);
            return pe + 1;
        }
    }
    g->amo_tp = NULL;
    for (int i = 0; i < g->n_tps && g->amo_tp == NULL; i++)
        if (!g->tps[i].hw_atomics)
            g->amo_tp = &g->tps[i];
    if (g->amo_tp == NULL)
        return 0;
    for (int pe = 0; pe < g->n_pes; pe++) {
        if (!g->amo_tp->reach[pe]) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_TRANSPORT, "transport %s carries every AMO but "
                          "does not reach PE %d", g->amo_tp->ops->name, pe);
            return pe + 1;
        }
    }
    return 0;
}

/* GSHMEM_INFO=1 (or GSHMEM_DEBUG=INFO): one line with each peer's
 * transport and node (the node map's index: same hostname and boot id),
 * and what the transports in use say of themselves (ofi: provider, NIC). */
static void gshmemi_select_report(const gshmemi_state_t *g)
{
    char tps[1536], nodes[1024], host[64] = "";
    size_t lt = 0, ln = 0;

    if (!g->cfg.info && gshmemi_log_level < GSHMEMI_LOG_INFO)
        return;
    tps[0] = nodes[0] = '\0';
    for (int pe = 0; pe < g->n_pes; pe++) {
        if (lt < sizeof tps - 32)
            lt += (size_t)snprintf(tps + lt, sizeof tps - lt, " %d:%s", pe,
                                   g->pe_tp[pe]->ops->name);
        if (ln < sizeof nodes - 32)
            ln += (size_t)snprintf(nodes + ln, sizeof nodes - ln, " %d",
                                   g->node_of ? g->node_of[pe] : 0);
    }
    if (lt >= sizeof tps - 32)
        snprintf(tps + lt, sizeof tps - lt, " ...");
    if (ln >= sizeof nodes - 32)
        snprintf(nodes + ln, sizeof nodes - ln, " ...");
    char details[256] = "";   /* each transport in use that says more of itself */
    size_t ld = 0;
    for (int i = 0; i < g->n_tps; i++) {
        int used = 0;
        for (int pe = 0; pe < g->n_pes && !used; pe++)
            used = g->pe_tp[pe] == &g->tps[i];
        if (used && g->tps[i].detail[0] && ld < sizeof details)
            ld += (size_t)snprintf(details + ld, sizeof details - ld, "; %s: %s",
                                   g->tps[i].ops->name, g->tps[i].detail);
    }
    gethostname(host, sizeof host - 1);
    gshmemi_log_write(GSHMEMI_LOG_INFO, GSHMEMI_SUBSYS_TRANSPORT, __FILE__, __LINE__,
                      "transport per PE:%s; node per PE:%s (%d node(s); this PE's: %s); AMOs %s%s",
                      tps, nodes, g->n_nodes, host,
                      g->amo_tp ? g->amo_tp->ops->name : "per PE (hardware atomics)", details);
}

int gshmemi_select_init(gshmemi_state_t *g, const gshmemi_tp_list_t *list)
{
    int rc, *all;

    g->n_tps = 0;
    g->pe_tp = calloc((size_t)g->n_pes, sizeof(*g->pe_tp));
    if (g->pe_tp == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for %d PEs", g->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    GSHMEMI_CHECK_GOTO(gshmemi_select_start_all(g, list), rc, fail);
    GSHMEMI_CHECK_GOTO(gshmemi_select_gather(g, gshmemi_select_assign(g, list), &all), rc,
                       fail);
    int bad = gshmemi_select_first_set(g, all);
    if (bad >= 0) {
        if (all[g->my_pe] == 0)   /* a PE with a gap of its own logged it already */
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_TRANSPORT, "PE %d cannot reach PE %d with the "
                      "transports of GSHMEM_TRANSPORTS=%s", bad, all[bad] - 1,
                      g->cfg.transports);
        free(all);
        rc = GSHMEM_ERR_TRANSPORT;
        goto fail;
    }
    free(all);
    gshmemi_select_report(g);
    return GSHMEM_SUCCESS;

fail:
    gshmemi_select_finalize(g);
    return rc;
}

void gshmemi_select_finalize(gshmemi_state_t *g)
{
    for (int i = g->n_tps - 1; i >= 0; i--) {
        gshmemi_transport_t *tp = &g->tps[i];
        int rc = tp->ops->finalize(tp);
        if (rc != 0)
            GSHMEMI_WARN(GSHMEMI_SUBSYS_TRANSPORT, "transport %s finalize: %s",
                         tp->ops->name, gshmem_strerror(rc));
        free(gshmemi_select_reach[i]);
        gshmemi_select_reach[i] = NULL;
        memset(tp, 0, sizeof *tp);
    }
    g->n_tps = 0;
    g->amo_tp = NULL;
    free(g->pe_tp);
    g->pe_tp = NULL;
}

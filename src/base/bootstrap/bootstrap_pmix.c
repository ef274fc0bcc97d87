/* bootstrap_pmix.c: the bootstrap over PMIx (mpirun, prterun, srun).
 * allgather: each PE puts its bytes under a per-round key, commits, fences
 * with data collection, then gets every PE's value. barrier: a fence
 * without data. Fences carry PMIX_TIMEOUT = GSHMEM_TIMEOUT. PMIx itself
 * stays initialized until the process exits (see pmix_held). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap_int.h"
#include "gshmem_types.h"
#include "base/util/log.h"

#define SUBSYS GSHMEMI_SUBSYS_BOOTSTRAP

#ifndef GSHMEM_HAVE_PMIX

int gshmemi_bootstrap_pmix_open(const gshmemi_config_t *cfg, gshmemi_bootstrap_t **boot_p)
{
    (void)cfg;
    (void)boot_p;
    GSHMEMI_INFO(SUBSYS, "bootstrap pmix: not available: gshmem was built without PMIx");
    return GSHMEM_ERR_NOT_SUPPORTED;
}

#else /* GSHMEM_HAVE_PMIX */

#include <pmix.h>

typedef struct pmix_priv {
    pmix_proc_t me;
    int timeout_s;      /* 0: no limit */
    int dir_owner;
} pmix_priv_t;

/* Keys must differ across rounds and across init/finalize cycles. */
static unsigned long pmix_round;

/* PMIx stays initialized from the first open to the process's exit, as MPI
 * does in bootstrap_mpi.c: open takes one more PMIx_Init reference (the
 * client counts them), dropped by an atexit handler; finalize drops the
 * cycle's own. A client that really finalized and initialized again raced
 * the server: a slow PE's finalize, handled after a fast PE's first fence
 * of the next cycle, removed the slow PE from that fence, which then failed
 * with PARTIAL SUCCESS (about 1 run in 3 of 3 cycles at 4 PEs, Open MPI
 * 4.1.4 with PMIx 4.2.2; openpmix issues 3931 and 4113). A PE that leaves
 * without gshmem_finalize still exits with PMIx initialized, which the
 * launcher reports. */
static int pmix_held;

static int pmix_failed(const char *op, pmix_status_t st, int pe)
{
    GSHMEMI_ERROR(SUBSYS, "bootstrap pmix: PE %d: %s failed: %s", pe, op, PMIx_Error_string(st));
    return st == PMIX_ERR_TIMEOUT ? GSHMEM_ERR_TIMEOUT : GSHMEM_ERR_BOOTSTRAP;
}

static int pmix_fence(gshmemi_bootstrap_t *b, int collect)
{
    pmix_priv_t *pp = b->priv;
    pmix_proc_t all;
    pmix_info_t info[2];
    bool flag = collect ? true : false;
    size_t n = 0;
    PMIX_LOAD_PROCID(&all, pp->me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    if (collect)
        PMIX_INFO_LOAD(&info[n++], PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    if (pp->timeout_s > 0)
        PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &pp->timeout_s, PMIX_INT);
    pmix_status_t st = PMIx_Fence(&all, 1, n ? info : NULL, n);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (st != PMIX_SUCCESS)
        return pmix_failed(collect ? "PMIx_Fence (allgather)" : "PMIx_Fence (barrier)", st,
                           b->my_pe);
    return 0;
}

static int pmix_get_one(gshmemi_bootstrap_t *b, const char *key, int pe, void *out, size_t len)
{
    pmix_priv_t *pp = b->priv;
    pmix_proc_t p;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&p, pp->me.nspace, (pmix_rank_t)pe);
    pmix_status_t st = PMIx_Get(&p, key, NULL, 0, &val);
    if (st != PMIX_SUCCESS)
        return pmix_failed("PMIx_Get", st, b->my_pe);
    int rc = 0;
    if (val->type != PMIX_BYTE_OBJECT || val->data.bo.size != len) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap pmix: allgather key %s: PE %d gave %zu bytes, PE %d "
                      "expected %zu", key, pe, val->type == PMIX_BYTE_OBJECT ?
                      val->data.bo.size : (size_t)0, b->my_pe, len);
        rc = GSHMEM_ERR_MISMATCH;
    } else {
        memcpy(out, val->data.bo.bytes, len);
    }
    PMIX_VALUE_RELEASE(val);
    return rc;
}

static int pmix_allgather(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len)
{
    if (len == 0)
        return pmix_fence(b, 0);
    char key[64];
    snprintf(key, sizeof key, "gshmem.ag.%lu", pmix_round++);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)in;
    v.data.bo.size = len;
    pmix_status_t st = PMIx_Put(PMIX_GLOBAL, key, &v);   /* copies the bytes */
    if (st != PMIX_SUCCESS)
        return pmix_failed("PMIx_Put", st, b->my_pe);
    st = PMIx_Commit();
    if (st != PMIX_SUCCESS)
        return pmix_failed("PMIx_Commit", st, b->my_pe);
    GSHMEMI_CHECK(pmix_fence(b, 1));
    for (int p = 0; p < b->n_pes; p++) {
        if (p == b->my_pe)
            memcpy((char *)out + (size_t)p * len, in, len);
        else
            GSHMEMI_CHECK(pmix_get_one(b, key, p, (char *)out + (size_t)p * len, len));
    }
    return 0;
}

static int pmix_barrier(gshmemi_bootstrap_t *b)
{
    return pmix_fence(b, 0);
}

static void pmix_abort(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    fprintf(stderr, "gshmem: PE %d aborted the job (status %d): %s\n", b->my_pe, status,
            msg ? msg : "");
    fflush(stderr);
    PMIx_Abort(status, msg ? msg : "", NULL, 0);
    _Exit(status);
}

/* mpirun returns the status of PMIx_Abort, 0 included. Open MPI 4.1.4's
 * mpirun may hang or crash at its own exit when this comes while other PEs
 * wait in a fence (seen in about 1 run of 4 under load; never with the mpi
 * bootstrap); pmix_abort shares that. */
static void pmix_global_exit(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    (void)b;
    fprintf(stderr, "gshmem: %s: ending the job with status %d\n", msg ? msg : "", status);
    fflush(stderr);
    PMIx_Abort(status, msg ? msg : "", NULL, 0);
    _Exit(status);
}

static int pmix_finalize(gshmemi_bootstrap_t *b)
{
    pmix_priv_t *pp = b->priv;
    int rc = gshmemi_bootstrap_node_dir_remove(b, pp->dir_owner);
    pmix_status_t st = PMIx_Finalize(NULL, 0);
    if (st != PMIX_SUCCESS && rc == 0)
        rc = pmix_failed("PMIx_Finalize", st, b->my_pe);
    free(pp);
    free(b);
    return rc;
}

static const gshmemi_bootstrap_ops_t pmix_ops = {
    .size = sizeof(gshmemi_bootstrap_ops_t),
    .name = "pmix",
    .allgather = pmix_allgather,
    .barrier = pmix_barrier,
    .notice = gshmemi_bootstrap_notice_none,   /* mpirun ends the job */
    .abort = pmix_abort,
    .global_exit = pmix_global_exit,
    .finalize = pmix_finalize,
};

static void pmix_release_at_exit(void)
{
    PMIx_Finalize(NULL, 0);
}

/* The PMIx server is the launcher's daemon on this node (orted, prted,
 * slurmstepd). When it dies the launcher cannot end this PE any more: it
 * would live on as an orphan, waiting for PEs that mpirun has already
 * killed (seen: orted killed under mpirun, its PEs left running). PMIx's
 * own thread reports the lost connection, whatever this PE is doing; the
 * PE ends there, naming itself and its node. PMIx_Finalize disconnects
 * without this event, and the hold keeps PMIx up to the process's exit. */
static int pmix_me_rank = -1;

static void pmix_lost_server(size_t id, pmix_status_t status, const pmix_proc_t *source,
                             pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                             size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                             void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    (void)cbfunc, (void)cbdata;
    char host[256] = "?";
    (void)gethostname(host, sizeof host - 1);
    fprintf(stderr, "gshmem: PE %d (host %s, pid %d): lost the connection to the launcher's "
            "PMIx server on this node (%s: the launcher's daemon is gone): the job is ending\n",
            pmix_me_rank, host, (int)getpid(), PMIx_Error_string(status));
    fflush(stderr);
    _exit(1);
}

static void pmix_watch_server(void)
{
    pmix_status_t codes[] = {PMIX_ERR_LOST_CONNECTION};
    /* registration completes in PMIx's thread; a failure only costs the
     * watch, which mpirun's own end of the job does not need */
    pmix_status_t st = PMIx_Register_event_handler(codes, 1, NULL, 0, pmix_lost_server, NULL,
                                                   NULL);
    if (st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED)
        GSHMEMI_INFO(SUBSYS, "bootstrap pmix: PE %d: no watch of the PMIx server: %s",
                     pmix_me_rank, PMIx_Error_string(st));
}

static int pmix_hold(const pmix_proc_t *me)
{
    pmix_proc_t again;
    if (pmix_held)
        return 0;
    pmix_status_t st = PMIx_Init(&again, NULL, 0);
    if (st != PMIX_SUCCESS)
        return pmix_failed("PMIx_Init (the reference kept to exit)", st, (int)me->rank);
    if (atexit(pmix_release_at_exit) != 0) {
        PMIx_Finalize(NULL, 0);
        GSHMEMI_ERROR(SUBSYS, "bootstrap pmix: PE %d: atexit failed", (int)me->rank);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    pmix_held = 1;
    pmix_me_rank = (int)me->rank;
    pmix_watch_server();
    return 0;
}

static int pmix_job_size(pmix_priv_t *pp, int *n_p)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&wild, pp->me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t st = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (st != PMIX_SUCCESS)
        return pmix_failed("PMIx_Get(PMIX_JOB_SIZE)", st, (int)pp->me.rank);
    int n = val->type == PMIX_UINT32 ? (int)val->data.uint32 : -1;
    PMIX_VALUE_RELEASE(val);
    if (n < 1) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap pmix: PMIX_JOB_SIZE has an unexpected type");
        return GSHMEM_ERR_BOOTSTRAP;
    }
    *n_p = n;
    return 0;
}

int gshmemi_bootstrap_pmix_open(const gshmemi_config_t *cfg, gshmemi_bootstrap_t **boot_p)
{
    gshmemi_bootstrap_t *b = calloc(1, sizeof *b);
    pmix_priv_t *pp = calloc(1, sizeof *pp);
    int rc;
    if (!b || !pp) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap pmix: out of memory");
        rc = GSHMEM_ERR_NOMEM;
        goto free_mem;
    }
    pmix_status_t st = PMIx_Init(&pp->me, NULL, 0);
    if (st != PMIX_SUCCESS) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap pmix: PMIx_Init failed: %s (is the program started "
                      "by a PMIx launcher such as mpirun, prterun or srun?)",
                      PMIx_Error_string(st));
        rc = GSHMEM_ERR_BOOTSTRAP;
        goto free_mem;
    }
    GSHMEMI_CHECK_GOTO(pmix_hold(&pp->me), rc, fini);
    long t = cfg->timeout;
    pp->timeout_s = t > 0 ? (t > 1000000 ? 1000000 : (int)t) : 0;
    GSHMEMI_CHECK_GOTO(pmix_job_size(pp, &b->n_pes), rc, fini);
    b->my_pe = (int)pp->me.rank;
    b->ops = &pmix_ops;
    b->priv = pp;
    GSHMEMI_CHECK_GOTO(gshmemi_bootstrap_node_dir_create(b, &pp->dir_owner), rc, fini);
    *boot_p = b;
    return 0;
fini:
    PMIx_Finalize(NULL, 0);
free_mem:
    free(pp);
    free(b);
    return rc;
}

#endif /* GSHMEM_HAVE_PMIX */

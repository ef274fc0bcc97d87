/* bootstrap_mpi.c: the bootstrap over an MPI communicator (a duplicate of
 * the one given, or of MPI_COMM_WORLD). When MPI is not initialized yet,
 * this bootstrap initializes it and finalizes it at process exit (not at
 * gshmem_finalize, so that gshmem may be initialized again: MPI cannot). */
#include <stdio.h>
#include <stdlib.h>

#include "bootstrap_int.h"
#include "gshmem_types.h"
#include "base/util/log.h"

#define SUBSYS GSHMEMI_SUBSYS_BOOTSTRAP

#ifndef GSHMEM_HAVE_MPI

int gshmemi_bootstrap_mpi_open(const gshmemi_config_t *cfg, void *mpi_comm,
                               gshmemi_bootstrap_t **boot_p)
{
    (void)cfg;
    (void)mpi_comm;
    (void)boot_p;
    GSHMEMI_INFO(SUBSYS, "bootstrap mpi: not available: gshmem was built without MPI");
    return GSHMEM_ERR_NOT_SUPPORTED;
}

#else /* GSHMEM_HAVE_MPI */

#include <limits.h>
#include <mpi.h>

typedef struct mpi_priv {
    MPI_Comm comm;
    int dir_owner;
} mpi_priv_t;

static int mpi_failed(const char *op, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    GSHMEMI_ERROR(SUBSYS, "bootstrap mpi: %s failed: %s", op, text);
    return GSHMEM_ERR_BOOTSTRAP;
}

static int mpi_allgather(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len)
{
    mpi_priv_t *mp = b->priv;
    if (len > INT_MAX) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap mpi: allgather of %zu bytes is over INT_MAX", len);
        return GSHMEM_ERR_INVALID_ARG;
    }
    int err = MPI_Allgather(in, (int)len, MPI_BYTE, out, (int)len, MPI_BYTE, mp->comm);
    return err == MPI_SUCCESS ? 0 : mpi_failed("MPI_Allgather", err);
}

static int mpi_barrier(gshmemi_bootstrap_t *b)
{
    mpi_priv_t *mp = b->priv;
    int err = MPI_Barrier(mp->comm);
    return err == MPI_SUCCESS ? 0 : mpi_failed("MPI_Barrier", err);
}

static void mpi_abort(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    mpi_priv_t *mp = b->priv;
    fprintf(stderr, "gshmem: PE %d aborted the job (status %d): %s\n", b->my_pe, status,
            msg ? msg : "");
    fflush(stderr);
    MPI_Abort(mp->comm, status);
    _Exit(status);
}

/* mpirun returns the status given to MPI_Abort, 0 included (Open MPI). */
static void mpi_global_exit(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    mpi_priv_t *mp = b->priv;
    fprintf(stderr, "gshmem: %s: ending the job with status %d\n", msg ? msg : "", status);
    fflush(stderr);
    MPI_Abort(mp->comm, status);
    _Exit(status);
}

static int mpi_finalize(gshmemi_bootstrap_t *b)
{
    mpi_priv_t *mp = b->priv;
    int rc = gshmemi_bootstrap_node_dir_remove(b, mp->dir_owner);
    MPI_Comm_free(&mp->comm);
    free(mp);
    free(b);
    return rc;
}

static const gshmemi_bootstrap_ops_t mpi_ops = {
    .size = sizeof(gshmemi_bootstrap_ops_t),
    .name = "mpi",
    .allgather = mpi_allgather,
    .barrier = mpi_barrier,
    .notice = gshmemi_bootstrap_notice_none,
    .abort = mpi_abort,
    .global_exit = mpi_global_exit,
    .finalize = mpi_finalize,
};

static void mpi_finalize_at_exit(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
}

/* Initializes MPI when nobody did (once per process). */
static int mpi_ensure_init(void)
{
    static int registered;
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (fin) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap mpi: MPI was already finalized; it cannot be "
                      "initialized again");
        return GSHMEM_ERR_BOOTSTRAP;
    }
    if (init)
        return 0;
    int err = MPI_Init(NULL, NULL);
    if (err != MPI_SUCCESS)
        return mpi_failed("MPI_Init", err);
    if (!registered) {
        atexit(mpi_finalize_at_exit);
        registered = 1;
    }
    return 0;
}

/* The caller's communicator (GSHMEM_INIT_WITH_MPI_COMM) before any call
 * on it: MPI_COMM_NULL or an intercommunicator would end the job in MPI's
 * error handler, or give PEs that are not the communicator's ranks. */
static int mpi_comm_check(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap mpi: the communicator given to gshmem_init_attr "
                      "(GSHMEM_INIT_WITH_MPI_COMM) is MPI_COMM_NULL (expected an "
                      "intracommunicator whose ranks become the PEs)");
        return GSHMEM_ERR_INVALID_ARG;
    }
    int err = MPI_Comm_test_inter(comm, &inter);
    if (err != MPI_SUCCESS)
        return mpi_failed("MPI_Comm_test_inter on the given communicator", err);
    if (inter) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap mpi: the communicator given to gshmem_init_attr "
                      "(GSHMEM_INIT_WITH_MPI_COMM) is an intercommunicator (expected an "
                      "intracommunicator whose ranks become the PEs)");
        return GSHMEM_ERR_INVALID_ARG;
    }
    return 0;
}

int gshmemi_bootstrap_mpi_open(const gshmemi_config_t *cfg, void *mpi_comm,
                               gshmemi_bootstrap_t **boot_p)
{
    (void)cfg;
    GSHMEMI_CHECK(mpi_ensure_init());
    gshmemi_bootstrap_t *b = calloc(1, sizeof *b);
    mpi_priv_t *mp = calloc(1, sizeof *mp);
    int rc, err;
    if (!b || !mp) {
        GSHMEMI_ERROR(SUBSYS, "bootstrap mpi: out of memory");
        rc = GSHMEM_ERR_NOMEM;
        goto free_mem;
    }
    MPI_Comm base = mpi_comm ? *(MPI_Comm *)mpi_comm : MPI_COMM_WORLD;
    if ((rc = mpi_comm_check(base)) != 0)
        goto free_mem;
    err = MPI_Comm_dup(base, &mp->comm);
    if (err != MPI_SUCCESS) {
        rc = mpi_failed("MPI_Comm_dup", err);
        goto free_mem;
    }
    MPI_Comm_set_errhandler(mp->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(mp->comm, &b->my_pe);
    MPI_Comm_size(mp->comm, &b->n_pes);
    b->ops = &mpi_ops;
    b->priv = mp;
    GSHMEMI_CHECK_GOTO(gshmemi_bootstrap_node_dir_create(b, &mp->dir_owner), rc, free_comm);
    *boot_p = b;
    return 0;
free_comm:
    MPI_Comm_free(&mp->comm);
free_mem:
    free(mp);
    free(b);
    return rc;
}

#endif /* GSHMEM_HAVE_MPI */

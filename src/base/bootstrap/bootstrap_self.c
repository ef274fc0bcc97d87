/* bootstrap_self.c: a job of one PE, no launcher. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "bootstrap_int.h"
#include "gshmem_types.h"
#include "base/util/log.h"

typedef struct self_priv {
    int dir_owner;
} self_priv_t;

static int self_allgather(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len)
{
    (void)b;
    if (len)
        memmove(out, in, len);
    return 0;
}

static int self_barrier(gshmemi_bootstrap_t *b)
{
    (void)b;
    return 0;
}

static void self_abort(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    (void)b;
    fprintf(stderr, "gshmem: PE 0 aborted the job (status %d): %s\n", status, msg ? msg : "");
    fflush(stderr);
    _exit(status);
}

/* The only PE: its exit is the job's. */
static void self_global_exit(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    (void)b, (void)msg;
    _exit(status);
}

static int self_finalize(gshmemi_bootstrap_t *b)
{
    self_priv_t *sp = b->priv;
    int rc = gshmemi_bootstrap_node_dir_remove(b, sp->dir_owner);
    free(sp);
    free(b);
    return rc;
}

static const gshmemi_bootstrap_ops_t self_ops = {
    .size = sizeof(gshmemi_bootstrap_ops_t),
    .name = "self",
    .allgather = self_allgather,
    .barrier = self_barrier,
    .notice = gshmemi_bootstrap_notice_none,
    .abort = self_abort,
    .global_exit = self_global_exit,
    .finalize = self_finalize,
};

int gshmemi_bootstrap_self_open(const gshmemi_config_t *cfg, gshmemi_bootstrap_t **boot_p)
{
    (void)cfg;
    gshmemi_bootstrap_t *b = calloc(1, sizeof *b);
    self_priv_t *sp = calloc(1, sizeof *sp);
    if (!b || !sp) {
        free(b);
        free(sp);
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_BOOTSTRAP, "bootstrap self: out of memory");
        return GSHMEM_ERR_NOMEM;
    }
    b->ops = &self_ops;
    b->my_pe = 0;
    b->n_pes = 1;
    b->priv = sp;
    int rc = gshmemi_bootstrap_node_dir_create(b, &sp->dir_owner);
    if (rc != 0) {
        free(sp);
        free(b);
        return rc;
    }
    *boot_p = b;
    return 0;
}

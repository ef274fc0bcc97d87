/* bootstrap.c: picks the bootstrap (GSHMEM_BOOTSTRAP or the launcher's
 * environment) and the helpers built on any of them: the node map and the
 * node's private directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bootstrap_int.h"
#include "gshmem_types.h"
#include "local_proto.h"
#include "base/util/log.h"

#ifdef GSHMEM_HAVE_MPI
#include <mpi.h>
#endif

#define SUBSYS GSHMEMI_SUBSYS_BOOTSTRAP

typedef int (*open_fn_t)(const gshmemi_config_t *cfg, const gshmemi_boot_args_t *a,
                         gshmemi_bootstrap_t **boot_p);

static int open_local(const gshmemi_config_t *c, const gshmemi_boot_args_t *a,
                      gshmemi_bootstrap_t **b)
{
    (void)a;
    return gshmemi_bootstrap_local_open(c, b);
}
static int open_mpi(const gshmemi_config_t *c, const gshmemi_boot_args_t *a,
                    gshmemi_bootstrap_t **b)
{
    return gshmemi_bootstrap_mpi_open(c, a->mpi_comm, b);
}
static int open_pmix(const gshmemi_config_t *c, const gshmemi_boot_args_t *a,
                     gshmemi_bootstrap_t **b)
{
    (void)a;
    return gshmemi_bootstrap_pmix_open(c, b);
}
static int open_self(const gshmemi_config_t *c, const gshmemi_boot_args_t *a,
                     gshmemi_bootstrap_t **b)
{
    (void)a;
    return gshmemi_bootstrap_self_open(c, b);
}

static const struct {
    const char *name;
    open_fn_t open;
} boot_table[] = {
    {"local", open_local},
    {"mpi", open_mpi},
    {"pmix", open_pmix},
    {"uid", gshmemi_bootstrap_uid_open},
    {"self", open_self},
};
#define N_BOOT ((int)(sizeof boot_table / sizeof boot_table[0]))

static int boot_index(const char *name)
{
    for (int i = 0; i < N_BOOT; i++)
        if (strcmp(boot_table[i].name, name) == 0)
            return i;
    return -1;
}

static int mpi_is_initialized(void)
{
#ifdef GSHMEM_HAVE_MPI
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
#else
    return 0;
#endif
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

/* The auto rule of bootstrap.h: candidates in order; *why_p says what was
 * seen in the environment. */
static int auto_candidates(const gshmemi_config_t *cfg, const gshmemi_boot_args_t *a,
                           const char **list, const char **why_p)
{
    int n = 0;
    if (a->mpi_comm) {   /* the caller's communicator decides the PEs, whatever launched them */
        *why_p = "an MPI communicator was given";
        list[n++] = "mpi";
    } else if (a->uid) {
        *why_p = "a unique ID was given (GSHMEM_INIT_WITH_UNIQUEID)";
        list[n++] = "uid";
    } else if (cfg->bootstrap_uid[0]) {
        *why_p = "GSHMEM_BOOTSTRAP_UID is set";
        list[n++] = "uid";
    } else if (env_set(GSHMEMI_LP_ENV_SOCKET)) {
        *why_p = GSHMEMI_LP_ENV_SOCKET " is set (gshmemrun)";
        list[n++] = "local";
    } else if (mpi_is_initialized()) {
        *why_p = "MPI is initialized";
        list[n++] = "mpi";
    } else if (env_set("PMIX_RANK")) {
        *why_p = "PMIX_RANK is set (a PMIx launcher: mpirun, prterun, srun)";
        list[n++] = "pmix";
        list[n++] = "mpi";
    } else if (env_set("OMPI_COMM_WORLD_SIZE") || env_set("PMI_RANK")) {
        *why_p = "OMPI_COMM_WORLD_SIZE or PMI_RANK is set (an MPI launcher)";
        list[n++] = "mpi";
    } else {
        *why_p = "no launcher found in the environment";
        list[n++] = "self";
    }
    return n;
}

int gshmemi_bootstrap_open(const gshmemi_config_t *cfg, const gshmemi_boot_args_t *args,
                           gshmemi_bootstrap_t **boot_p)
{
    static const gshmemi_boot_args_t none;
    const gshmemi_boot_args_t *a = args ? args : &none;
    const char *want = cfg->bootstrap[0] ? cfg->bootstrap : "auto";
    if (strcmp(want, "auto") != 0) {
        int i = boot_index(want);
        if (i < 0) {
            GSHMEMI_ERROR(SUBSYS, "GSHMEM_BOOTSTRAP=%s: expected auto, local, mpi, pmix, uid or "
                          "self", want);
            return GSHMEM_ERR_CONFIG;
        }
        if (a->mpi_comm && strcmp(want, "mpi") != 0) {
            GSHMEMI_ERROR(SUBSYS, "GSHMEM_BOOTSTRAP=%s, but an MPI communicator was given to "
                          "gshmem_init_attr (GSHMEM_INIT_WITH_MPI_COMM): its ranks must be the "
                          "PEs; unset GSHMEM_BOOTSTRAP or set it to mpi or auto", want);
            return GSHMEM_ERR_CONFIG;
        }
        if (a->uid && strcmp(want, "uid") != 0) {
            GSHMEMI_ERROR(SUBSYS, "GSHMEM_BOOTSTRAP=%s, but a unique ID was given to "
                          "gshmem_init_attr (GSHMEM_INIT_WITH_UNIQUEID); unset "
                          "GSHMEM_BOOTSTRAP or set it to uid or auto", want);
            return GSHMEM_ERR_CONFIG;
        }
        int rc = boot_table[i].open(cfg, a, boot_p);
        if (rc == GSHMEM_ERR_NOT_SUPPORTED)
            GSHMEMI_ERROR(SUBSYS, "GSHMEM_BOOTSTRAP=%s: gshmem was built without %s support",
                          want, want);
        return rc;
    }
    const char *list[4], *why = "";
    int n = auto_candidates(cfg, a, list, &why);
    for (int k = 0; k < n; k++) {
        int rc = boot_table[boot_index(list[k])].open(cfg, a, boot_p);
        if (rc == 0) {
            GSHMEMI_INFO(SUBSYS, "bootstrap %s picked (GSHMEM_BOOTSTRAP=auto: %s)", list[k], why);
            return 0;
        }
        if (rc != GSHMEM_ERR_NOT_SUPPORTED)
            return rc;
    }
    GSHMEMI_ERROR(SUBSYS, "GSHMEM_BOOTSTRAP=auto: %s, but this gshmem was built without %s%s%s; "
                  "rebuild with it or start the program with gshmemrun", why, list[0],
                  n > 1 ? " and " : "", n > 1 ? list[1] : "");
    return GSHMEM_ERR_NOT_SUPPORTED;
}

int gshmemi_bootstrap_notice_none(gshmemi_bootstrap_t *b, char *why, size_t cap)
{
    (void)b;
    if (cap > 0)
        why[0] = '\0';
    return 0;
}

int gshmemi_bootstrap_timeout_ms(const gshmemi_config_t *cfg)
{
    if (cfg->timeout <= 0)
        return -1;
    return cfg->timeout > 2000000 ? 2000000000 : (int)(cfg->timeout * 1000);
}

typedef struct node_rec {
    char host[256];
    char boot_id[64];
} node_rec_t;

static void node_rec_fill(node_rec_t *r)
{
    memset(r, 0, sizeof *r);
    if (gethostname(r->host, sizeof r->host - 1) != 0)
        strcpy(r->host, "unknown");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(r->boot_id, sizeof r->boot_id, f))
            r->boot_id[0] = '\0';
        fclose(f);
        r->boot_id[strcspn(r->boot_id, "\n")] = '\0';
    }
}

/* What each PE publishes for the node map: where it runs, and its pid. */
typedef struct node_card {
    node_rec_t node;
    int32_t pid;
} node_card_t;

int gshmemi_bootstrap_node_map_pids(gshmemi_bootstrap_t *b, int *node_of, int *pid_of,
                                    int *n_machine_p, int *n_nodes_p)
{
    node_card_t me, *all = malloc(sizeof(node_card_t) * (size_t)b->n_pes);
    if (!all) {
        GSHMEMI_ERROR(SUBSYS, "node map: out of memory for %d PEs", b->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    memset(&me, 0, sizeof me);
    node_rec_fill(&me.node);
    me.pid = (int32_t)getpid();
    int rc = b->ops->allgather(b, &me, all, sizeof me);
    if (rc != 0) {
        free(all);
        return rc;
    }
    int n_nodes = 0, n_machine = 0;
    for (int p = 0; p < b->n_pes; p++) {
        n_machine += strcmp(all[p].node.boot_id, me.node.boot_id) == 0;
        int q = 0;   /* lowest PE on p's node */
        while (q < p && memcmp(&all[q].node, &all[p].node, sizeof me.node) != 0)
            q++;
        node_of[p] = q == p ? n_nodes++ : node_of[q];
        if (pid_of)
            pid_of[p] = all[p].pid;
    }
    free(all);
    *n_nodes_p = n_nodes;
    if (n_machine_p)
        *n_machine_p = me.node.boot_id[0] ? n_machine : 0;   /* 0: unknown */
    return 0;
}

int gshmemi_bootstrap_node_map(gshmemi_bootstrap_t *b, int *node_of, int *n_nodes_p)
{
    return gshmemi_bootstrap_node_map_pids(b, node_of, NULL, NULL, n_nodes_p);
}

/* The creator's part: a fresh 0700 directory, or "" on failure (logged). */
static void node_dir_make(char *path, size_t cap)
{
    char tmpl[] = "/tmp/gshmem-XXXXXX";
    if (!mkdtemp(tmpl)) {
        GSHMEMI_ERROR(SUBSYS, "cannot create the node directory %s: %s", tmpl, strerror(errno));
        path[0] = '\0';
        return;
    }
    chmod(tmpl, 0700);
    snprintf(path, cap, "%s", tmpl);
}

int gshmemi_bootstrap_node_dir_create(gshmemi_bootstrap_t *b, int *owner_p)
{
    int n = b->n_pes, n_nodes, rc, owner;
    int *node_of = malloc(sizeof(int) * (size_t)n);
    char *paths = malloc(sizeof b->node_dir * (size_t)n), mine[sizeof b->node_dir] = "";
    if (!node_of || !paths) {
        rc = GSHMEM_ERR_NOMEM;
        goto out;
    }
    GSHMEMI_CHECK_GOTO(gshmemi_bootstrap_node_map(b, node_of, &n_nodes), rc, out);
    int lowest = 0;
    while (node_of[lowest] != node_of[b->my_pe])
        lowest++;
    owner = lowest == b->my_pe;
    if (owner)
        node_dir_make(mine, sizeof mine);
    GSHMEMI_CHECK_GOTO(b->ops->allgather(b, mine, paths, sizeof mine), rc, undo);
    const char *path = paths + (size_t)lowest * sizeof mine;
    if (!path[0]) {
        if (!owner)
            GSHMEMI_ERROR(SUBSYS, "PE %d: PE %d could not create the node directory",
                          b->my_pe, lowest);
        rc = GSHMEM_ERR_SYSTEM;
        goto out;
    }
    snprintf(b->node_dir, sizeof b->node_dir, "%s", path);
    *owner_p = owner;
    rc = 0;
    goto out;
undo:
    if (owner && mine[0])
        rmdir(mine);
out:
    free(node_of);
    free(paths);
    return rc;
}

int gshmemi_bootstrap_node_dir_remove(gshmemi_bootstrap_t *b, int owner)
{
    int rc = b->n_pes > 1 ? b->ops->barrier(b) : 0;
    if (owner && b->node_dir[0] && gshmemi_rmtree(b->node_dir) != 0)
        GSHMEMI_WARN(SUBSYS, "cannot remove the node directory %s: %s", b->node_dir,
                     strerror(errno));
    b->node_dir[0] = '\0';
    return rc;
}

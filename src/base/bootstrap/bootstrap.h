/* bootstrap.h: out-of-band exchange between the PEs of a job, behind one
 * ops table. Implementations: local (gshmemrun, Unix socket), mpi, pmix and
 * self (one PE, no launcher). The bootstrap is the control path only: it
 * carries addresses, keys and descriptors at init and finalize, and tells
 * the PEs of a failure (notice). */
#ifndef GSHMEMI_BOOTSTRAP_H
#define GSHMEMI_BOOTSTRAP_H

#include <stddef.h>
#include "base/util/config.h"

typedef struct gshmemi_bootstrap gshmemi_bootstrap_t;

typedef struct gshmemi_bootstrap_ops {
    size_t size;                      /* sizeof(gshmemi_bootstrap_ops_t) */
    const char *name;                 /* "local", "mpi", "pmix", "self" */
    /* in: len bytes from this PE; out: n_pes * len bytes, PE order. */
    int (*allgather)(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len);
    int (*barrier)(gshmemi_bootstrap_t *b);
    /* Without waiting: 0 while nothing is known against the job;
     * GSHMEM_ERR_PEER_DEAD once the launcher (or PMIx) told this PE that the
     * job is failing (a PE died, aborted, the launcher is gone), with what
     * it said in why[cap]. Called from the wait loops every few
     * milliseconds, never during an exchange. Stub where the launcher ends
     * the job itself (mpirun): gshmemi_bootstrap_notice_none. */
    int (*notice)(gshmemi_bootstrap_t *b, char *why, size_t cap);
    /* Ends every PE of the job; msg is shown by the launcher/others. */
    void (*abort)(gshmemi_bootstrap_t *b, int status, const char *msg);
    /* gshmem_global_exit: ends every PE of the job, which exits with
     * status, 0 included (the launcher or mpirun returns it); msg says who
     * called it. Does not return. */
    void (*global_exit)(gshmemi_bootstrap_t *b, int status, const char *msg);
    int (*finalize)(gshmemi_bootstrap_t *b);   /* frees b */
} gshmemi_bootstrap_ops_t;

struct gshmemi_bootstrap {
    const gshmemi_bootstrap_ops_t *ops;
    int my_pe;
    int n_pes;
    /* A private (0700) directory on this node, the same for the node's PEs,
     * for Unix sockets of transports (descriptor passing). Created by the
     * bootstrap; removed at finalize by whoever created it. */
    char node_dir[256];
    void *priv;
};

/* What gshmem_init_attr was given for the bootstrap (zero: nothing). */
typedef struct gshmemi_boot_args {
    void *mpi_comm;      /* GSHMEM_INIT_WITH_MPI_COMM: pointer to an MPI_Comm */
    const char *uid;     /* GSHMEM_INIT_WITH_UNIQUEID: the ID's text */
    int uid_pe, uid_n_pes;
} gshmemi_boot_args_t;

/* Opens the bootstrap named by cfg->bootstrap ("auto" picks: mpi when
 * mpi_comm is given, uid when an ID is given (gshmem_init_attr or
 * GSHMEM_BOOTSTRAP_UID), local when gshmemrun's variables are set, mpi when
 * MPI is initialized, pmix when PMIX_RANK is set, mpi when
 * OMPI_COMM_WORLD_SIZE or PMI_RANK is set, else self). args may be NULL.
 * A communicator or an ID given with a GSHMEM_BOOTSTRAP that cannot take
 * it is GSHMEM_ERR_CONFIG, logged (it would be ignored). */
int gshmemi_bootstrap_open(const gshmemi_config_t *cfg, const gshmemi_boot_args_t *args,
                           gshmemi_bootstrap_t **boot_p);

/* Implementations (NOT_SUPPORTED where not built in). */
int gshmemi_bootstrap_local_open(const gshmemi_config_t *cfg, gshmemi_bootstrap_t **boot_p);
int gshmemi_bootstrap_mpi_open(const gshmemi_config_t *cfg, void *mpi_comm,
                               gshmemi_bootstrap_t **boot_p);
int gshmemi_bootstrap_pmix_open(const gshmemi_config_t *cfg, gshmemi_bootstrap_t **boot_p);
int gshmemi_bootstrap_self_open(const gshmemi_config_t *cfg, gshmemi_bootstrap_t **boot_p);
/* uid: the ID, PE and PE count from args, else from GSHMEM_BOOTSTRAP_UID*. */
int gshmemi_bootstrap_uid_open(const gshmemi_config_t *cfg, const gshmemi_boot_args_t *args,
                               gshmemi_bootstrap_t **boot_p);
/* gshmem_get_uniqueid: listens on a TCP port of this process (an earlier
 * one of this process is closed: its ID goes stale) and writes the ID's
 * text, NUL-terminated, into id[cap]. */
int gshmemi_bootstrap_uid_make(const gshmemi_config_t *cfg, char *id, size_t cap);

/* The notice of a bootstrap whose launcher ends the job itself: 0. */
int gshmemi_bootstrap_notice_none(gshmemi_bootstrap_t *b, char *why, size_t cap);

/* Helpers built on the ops: node-local PEs (same hostname and boot id). */
/* Fills node_of[n_pes] with a node index (0..n_nodes-1, in order of the
 * node's lowest PE). */
int gshmemi_bootstrap_node_map(gshmemi_bootstrap_t *b, int *node_of, int *n_nodes_p);
/* The same, and each PE's pid in pid_of[n_pes] (NULL: not wanted) and the
 * number of PEs on this machine, *n_machine_p (NULL: not wanted: those of one
 * kernel, by boot id; nodes that are namespaces of one machine, as in
 * tests/cluster, share its cores), from the same exchange. */
int gshmemi_bootstrap_node_map_pids(gshmemi_bootstrap_t *b, int *node_of, int *pid_of,
                                    int *n_machine_p, int *n_nodes_p);

#endif /* GSHMEMI_BOOTSTRAP_H */

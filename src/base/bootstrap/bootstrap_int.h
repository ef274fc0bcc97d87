/* bootstrap_int.h: helpers shared by the bootstrap implementations of this
 * folder. Internal to src/base/bootstrap. */
#ifndef GSHMEMI_BOOTSTRAP_INT_H
#define GSHMEMI_BOOTSTRAP_INT_H

#include "bootstrap.h"

/* Remove a directory tree (0, or -1 with errno). */
int gshmemi_rmtree(const char *path);

/* For bootstraps without a launcher directory (mpi, pmix, self): the lowest
 * PE of each node creates a private /tmp/gshmem-XXXXXX (0700) and the
 * node's PEs learn its path by allgather. Collective. Sets b->node_dir and
 * *owner_p (1 on the creating PE). */
int gshmemi_bootstrap_node_dir_create(gshmemi_bootstrap_t *b, int *owner_p);
/* Collective: a barrier, then the creator removes the directory. */
int gshmemi_bootstrap_node_dir_remove(gshmemi_bootstrap_t *b, int owner);

/* Seconds of cfg->timeout as poll milliseconds (-1: no limit). */
int gshmemi_bootstrap_timeout_ms(const gshmemi_config_t *cfg);

#endif /* GSHMEMI_BOOTSTRAP_INT_H */

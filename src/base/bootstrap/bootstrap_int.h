/* bootstrap_int.h: helpers shared by the bootstrap implementations of this
 * folder. Internal to src/base/bootstrap. */
#ifndef GSHMEMI_BOOTSTRAP_INT_H
#define GSHMEMI_BOOTSTRAP_INT_H

#include <stdint.h>

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

/* Stream sockets of the bootstraps (bootstrap_io.c). CLOCK_MONOTONIC in ms. */
double gshmemi_boot_now_ms(void);
/* All len bytes to (is_write) or from fd by deadline (gshmemi_boot_now_ms
 * value; < 0: none): 0, GSHMEM_ERR_TIMEOUT, or GSHMEM_ERR_PEER_DEAD (the
 * connection closed or failed). */
int gshmemi_boot_io(int fd, void *buf, size_t len, int is_write, double deadline);
/* A text payload of len bytes from fd into buf[cap], NUL-terminated (the
 * rest read and dropped), by deadline; gshmemi_boot_io's statuses. */
int gshmemi_boot_read_text(int fd, uint64_t len, char *buf, size_t cap, double deadline);

#endif /* GSHMEMI_BOOTSTRAP_INT_H */

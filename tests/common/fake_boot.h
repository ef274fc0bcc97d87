/* fake_boot.h: a bootstrap for unit tests of transports. The PEs are forked
 * children of one test and meet in an anonymous MAP_SHARED region (no
 * launcher, no sockets), so a transport can be tested before, and apart
 * from, the real bootstraps. */
#ifndef GSHMEM_TESTS_FAKE_BOOT_H
#define GSHMEM_TESTS_FAKE_BOOT_H

#include <stddef.h>
#include "base/bootstrap/bootstrap.h"

typedef struct fake_boot fake_boot_t;

/* Before forking: a region for n_pes PEs whose allgather contributions are
 * at most slot_bytes each; a barrier gives up after wait_s seconds with
 * GSHMEM_ERR_TIMEOUT. NULL if mmap failed. */
fake_boot_t *fake_boot_create(int n_pes, size_t slot_bytes, int wait_s);
void fake_boot_destroy(fake_boot_t *fb);

/* In PE pe: *b becomes a bootstrap over fb (node_dir left empty; abort
 * prints the message and _exits with the status). */
void fake_boot_attach(fake_boot_t *fb, int pe, gshmemi_bootstrap_t *b);

#endif

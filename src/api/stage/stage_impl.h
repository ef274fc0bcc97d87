/* stage_impl.h: what the host files of the stage API (include/gshmem_stage.h)
 * share. Internal: never installed. */
#ifndef GSHMEMI_STAGE_IMPL_H
#define GSHMEMI_STAGE_IMPL_H

#include <stdint.h>
#include "gshmem_stage.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "base/util/log.h"

/* Stages have no log subsystem of their own; what they hold is memory
 * (semaphores, counters, tables). Their errors print at any GSHMEM_DEBUG
 * but NONE. */
#define GSHMEMI_STAGE_SUBSYS GSHMEMI_SUBSYS_HEAP

/* The start of gshmem_stage_create and _wrap: *s zeroed with its tile grid;
 * returns the policy to use (per tile when policy is NULL). */
gshmem_stage_policy_t gshmemi_stage_reset(gshmem_stage_t *s, uint32_t tiles_x, uint32_t tiles_y,
                                          const gshmem_stage_policy_t *policy);

/* A stage's wait limit: GSHMEM_TIMEOUT seconds from the settings table,
 * init's value after gshmem_init, before it (single-GPU programs need no
 * init) the table loaded once here. Returns GSHMEM_SUCCESS, or
 * GSHMEM_ERR_CONFIG when the table does not load (the loader logged the
 * variable). call names the public call for the log. */
int gshmemi_stage_timeout_ns(const char *call, uint64_t *ns_p);
/* stage.c: gshmem_stage_check of the grid, policy and order (logged with
 * call on failure), then the timeout; on failure *s is zeroed. */
int gshmemi_stage_prepare(const char *call, gshmem_stage_t *s, const gshmem_stage_policy_t *p,
                          int order, const uint32_t *order_table);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEMI_STAGE_IMPL_H */

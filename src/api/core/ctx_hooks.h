/* ctx_hooks.h: test hooks on communication contexts (ctx.c), for PE
 * programs that include shmem.h (tests/multipe/pe_api_ctx.c), and the
 * handle check of the calls that take GSHMEM_CTX_INVALID (core.h includes
 * it); nothing else of the internals comes with it. Both hooks act on the
 * context's own channels and return GSHMEM_ERR_NOT_SUPPORTED where it has
 * none (every transport it uses shares its one channel, or counts nothing
 * per channel). */
#ifndef GSHMEMI_CTX_HOOKS_H
#define GSHMEMI_CTX_HOOKS_H

#include <stdint.h>
#include "gshmem.h"

/* *pending_p = the operations issued on ctx whose completion is not
 * counted yet. */
int gshmemi_ctx_pending(gshmem_ctx_t ctx, uint64_t *pending_p);
/* Hold (1) or release (0) the completions of ctx's operations: while
 * held they are not counted, and a quiet that would wait for them ends
 * the job at once (transport.h: chan_hold). */
int gshmemi_ctx_hold(gshmem_ctx_t ctx, int hold);

/* For gshmem_ctx_quiet and gshmem_ctx_fence, which do nothing on
 * GSHMEM_CTX_INVALID (OpenSHMEM 1.5): *invalid_p = 1 and NULL for it;
 * otherwise *invalid_p = 0 and gshmemi_ctx_get(call, ctx) (NULL for
 * GSHMEM_CTX_DEFAULT; a handle that is not live ends the job). */
struct gshmemi_ctx;
struct gshmemi_ctx *gshmemi_ctx_get_or_invalid(const char *call, gshmem_ctx_t ctx,
                                               int *invalid_p);

#endif /* GSHMEMI_CTX_HOOKS_H */

/* ctx_hooks.h: the handle check of the calls that take GSHMEM_CTX_INVALID
 * (core.h includes it). */
#ifndef GSHMEMI_CTX_HOOKS_H
#define GSHMEMI_CTX_HOOKS_H

#include "gshmem.h"

/* For gshmem_ctx_quiet and gshmem_ctx_fence, which do nothing on
 * GSHMEM_CTX_INVALID (OpenSHMEM 1.5): *invalid_p = 1 and NULL for it;
 * otherwise *invalid_p = 0 and gshmemi_ctx_get(call, ctx) (NULL for
 * GSHMEM_CTX_DEFAULT; a handle that is not live ends the job). */
struct gshmemi_ctx;
struct gshmemi_ctx *gshmemi_ctx_get_or_invalid(const char *call, gshmem_ctx_t ctx,
                                               int *invalid_p);

#endif /* GSHMEMI_CTX_HOOKS_H */

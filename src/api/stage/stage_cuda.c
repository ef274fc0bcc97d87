/* stage_cuda.c: gshmem_stage_create and gshmem_stage_destroy (CUDA builds):
 * a stage's semaphores (device memory, or the symmetric heap: collective),
 * its counters, and device copies of its USER and ORDER_TABLE tables. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "gshmem.h"
#include "stage_impl.h"

/* A CUDA call of call failed doing what: logged with the CUDA error (then
 * cleared, when it is not sticky). */
static int gshmemi_stage_cuda_fail(const char *call, const char *what, cudaError_t e)
{
    GSHMEMI_ERROR(GSHMEMI_STAGE_SUBSYS, "%s: %s: %s (%s)", call, what, cudaGetErrorString(e),
                  cudaGetErrorName(e));
    (void)cudaGetLastError();
    return GSHMEM_ERR_CUDA;
}

/* A device copy of n host words, what naming the table for the log
 * (*dst_p NULL for n == 0 or src NULL). */
static int gshmemi_stage_upload(const char *call, const char *what, const uint32_t *src,
                                size_t n, const uint32_t **dst_p)
{
    uint32_t *d = NULL;
    char msg[128];

    *dst_p = NULL;
    if (src == NULL || n == 0)
        return GSHMEM_SUCCESS;
    cudaError_t e = cudaMalloc((void **)&d, n * sizeof(uint32_t));
    if (e == cudaSuccess)
        e = cudaMemcpy(d, src, n * sizeof(uint32_t), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cudaFree(d);
        snprintf(msg, sizeof msg, "copying %s (%zu words) to the GPU", what, n);
        return gshmemi_stage_cuda_fail(call, msg, e);
    }
    *dst_p = d;
    return GSHMEM_SUCCESS;
}

/* s->n_sems semaphores in the symmetric heap, which must be GPU memory. */
static int gshmemi_stage_alloc_symmetric(const char *call, gshmem_stage_t *s)
{
    struct cudaPointerAttributes a;

    s->sems = (uint64_t *)gshmem_calloc(s->n_sems, sizeof(uint64_t));
    if (s->sems != NULL && cudaPointerGetAttributes(&a, s->sems) == cudaSuccess &&
        a.type == cudaMemoryTypeDevice)
        return GSHMEM_SUCCESS;
    (void)cudaGetLastError();
    GSHMEMI_ERROR(GSHMEMI_STAGE_SUBSYS, "%s: %u symmetric semaphores: gshmem_calloc gave %p, "
                  "not GPU memory (gshmem_init with GSHMEM_HEAP=cuda first)", call,
                  s->n_sems, (void *)s->sems);
    return s->sems == NULL ? GSHMEM_ERR_NOMEM : GSHMEM_ERR_NOT_SUPPORTED;
}

/* The semaphores and the two control words, all zero. */
static int gshmemi_stage_alloc(const char *call, gshmem_stage_t *s)
{
    size_t bytes = (size_t)s->n_sems * sizeof(uint64_t);
    cudaError_t e = cudaSuccess;

    if (s->flags & GSHMEM_STAGE_SYMMETRIC) {
        int rc = gshmemi_stage_alloc_symmetric(call, s);
        if (rc != GSHMEM_SUCCESS)
            return rc;
    } else {
        e = cudaMalloc((void **)&s->sems, bytes);
        if (e == cudaSuccess)
            e = cudaMemset(s->sems, 0, bytes);
    }
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&s->ctl, 2 * sizeof(uint64_t));
    if (e == cudaSuccess)
        e = cudaMemset(s->ctl, 0, 2 * sizeof(uint64_t));
    if (e != cudaSuccess)
        return gshmemi_stage_cuda_fail(call, "allocating semaphores and counters", e);
    return GSHMEM_SUCCESS;
}

/* Device copies of the USER tables and the order table (host arrays p and
 * order_table, already checked). */
static int gshmemi_stage_upload_tables(const char *call, gshmem_stage_t *s,
                                       const gshmem_stage_policy_t *p,
                                       const uint32_t *order_table)
{
    size_t n_tiles = (size_t)s->grid.x * s->grid.y;
    int rc = GSHMEM_SUCCESS;

    if (p->kind == GSHMEM_STAGE_USER) {
        rc = gshmemi_stage_upload(call, "the user policy's semaphore table", p->user_sem,
                                  n_tiles, &s->policy.user_sem);
        if (rc == GSHMEM_SUCCESS)
            rc = gshmemi_stage_upload(call, "the user policy's expected counts",
                                      p->user_expected, p->n_user_sems,
                                      &s->policy.user_expected);
    }
    if (rc == GSHMEM_SUCCESS && s->order == GSHMEM_STAGE_ORDER_TABLE)
        rc = gshmemi_stage_upload(call, "the order table", order_table, n_tiles,
                                  &s->order_table);
    return rc;
}

int gshmem_stage_create(gshmem_stage_t *s, uint32_t tiles_x, uint32_t tiles_y,
                        const gshmem_stage_policy_t *policy, int order,
                        const uint32_t *order_table, uint32_t flags)
{
    static const char call[] = "gshmem_stage_create";
    gshmem_stage_policy_t p = gshmemi_stage_reset(s, tiles_x, tiles_y, policy);
    int rc = gshmemi_stage_prepare(call, s, &p, order, order_table);
    cudaError_t e;

    if (rc != GSHMEM_SUCCESS)
        return rc;
    s->order = order;
    s->flags = flags;
    s->policy = p;
    s->policy.user_sem = NULL;
    s->policy.user_expected = NULL;
    s->n_sems = gshmem_stage_policy_n_sems(&p, s->grid);
    rc = gshmemi_stage_alloc(call, s);
    if (rc == GSHMEM_SUCCESS)
        rc = gshmemi_stage_upload_tables(call, s, &p, order_table);
    if (rc != GSHMEM_SUCCESS)
        goto fail_destroy;
    /* the memsets and the pageable copies went on the legacy stream, which
     * does not order the non-blocking streams the stage's kernels may use:
     * everything is in place when create returns */
    e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) {
        rc = gshmemi_stage_cuda_fail(call, "waiting for the semaphores' initialization", e);
        goto fail_destroy;
    }
    return GSHMEM_SUCCESS;
fail_destroy:
    gshmem_stage_destroy(s);
    return rc;
}

void gshmem_stage_destroy(gshmem_stage_t *s)
{
    if (s->sems != NULL) {
        if (s->flags & GSHMEM_STAGE_SYMMETRIC)
            gshmem_free(s->sems);
        else
            cudaFree(s->sems);
    }
    cudaFree(s->ctl);
    cudaFree((void *)s->policy.user_sem);
    cudaFree((void *)s->policy.user_expected);
    cudaFree((void *)s->order_table);
    memset(s, 0, sizeof *s);
}

/* dlrm_op.c: the C ABI of dlrm_op.h over dlrm_fused.h (GPU PEs, CUDA
 * builds) and dlrm_cpu_fused.h (CPU PEs). Decisions:
 * - The op owns its staging buffer and signals (symmetric, collective at
 *   create); the caller owns the output, so the tensor it returns is the
 *   symmetric buffer itself (zero copies).
 * - dlrm_fused.h's reuse rule (every PE consumed the last output before a
 *   peer writes the next) holds without the caller's help: on GPUs by the
 *   kernel's handshake (a late PE holds up only the rows bound for it, and
 *   a forward is one launch: no barrier kernel, no memset), on CPUs by a
 *   barrier over all PEs at the start of each forward.
 * - GPU forwards run on the op's device (the one current at create),
 *   whatever device the caller has current, which they leave as it was.
 * - The inputs change per forward; the kernel takes them by value at each
 *   launch, so forward sets them in the created kernel's arguments. */
#include "dlrm_op.h"

#include <stdio.h>
#include <stdlib.h>

#include "dlrm_cpu_fused.h"
#include "dlrm_plan.h"
#include "gshmem.h"
#ifdef DLRM_OP_HAVE_CUDA
#include "dlrm_fused.h"
#endif

struct dlrm_op {
    int device;
    int gpu;                      /* its CUDA device (GPU PEs) */
    dlrm_part_t p;
    float *stage;                 /* symmetric [B][tmax * D] */
    dlrm_pool_t pool;             /* CPU PEs */
    dlrm_cpu_fused_t cpu;
#ifdef DLRM_OP_HAVE_CUDA
    dlrm_fused_t fused;
#endif
};

int dlrm_op_have_gpu(void)
{
#ifdef DLRM_OP_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

/* The case's sizes, checked the same way on every PE (before any
 * collective call, so a refusal is everyone's). */
static int check_case(int device, int64_t T, int64_t B, int D, int dtype, int P, char *why,
                      size_t whylen)
{
    if (device != DLRM_OP_CPU && device != DLRM_OP_GPU)
        snprintf(why, whylen, "device %d is neither CPU (0) nor GPU (1)", device);
    else if (device == DLRM_OP_GPU && !dlrm_op_have_gpu())
        snprintf(why, whylen, "the GPU path needs a CUDA build of gshmem (this one has none)");
    else if (T < P)
        snprintf(why, whylen, "%lld tables for %d PEs: every PE needs a table", (long long)T, P);
    else if (B <= 0 || B % P != 0)
        snprintf(why, whylen, "batch %lld is not a positive multiple of %d PEs", (long long)B,
                 P);
    else if (D <= 0 || D % 4 != 0)
        snprintf(why, whylen, "dim %d is not a positive multiple of 4", D);
    else if (dtype < DLRM_F32 || dtype > DLRM_BF16)
        snprintf(why, whylen, "weight dtype %d is not fp32 (0), fp16 (1) or bf16 (2)", dtype);
    else
        return 0;
    return -1;
}

static int create_engine(dlrm_op_t *op, int dtype, const void *weights, const int64_t *wrow,
                         float *out, double bag_bytes, char *why, size_t whylen)
{
#ifdef DLRM_OP_HAVE_CUDA
    if (op->device == DLRM_OP_GPU) {
        cudaError_t e = cudaGetDevice(&op->gpu);
        if (e != cudaSuccess) {
            snprintf(why, whylen, "no current CUDA device: %s", cudaGetErrorString(e));
            return -1;
        }
        if (dlrm_fused_create(&op->fused, &op->p, dtype, DLRM_SCHED_AWARE, DLRM_ORDER_TABLE,
                              weights, NULL, NULL, wrow, out, op->stage, why, whylen) != 0)
            return -1;
        dlrm_fused_set_items(&op->fused, bag_bytes, 0);
        return 0;
    }
#endif
    if (dlrm_cpu_fused_create(&op->cpu, &op->p, dtype, DLRM_SCHED_AWARE, DLRM_ORDER_TABLE,
                              weights, NULL, NULL, wrow, out, op->stage, &op->pool, why,
                              whylen) != 0)
        return -1;
    dlrm_cpu_fused_set_items(&op->cpu, bag_bytes, 0);
    return 0;
}

dlrm_op_t *dlrm_op_create(int device, int64_t T, int64_t B, int D, int dtype, int slice_rows,
                          int threads, const void *weights, const int64_t *wrow, float *out,
                          double mean_bag, char *why, size_t whylen)
{
    const int P = gshmem_n_pes();
    if (check_case(device, T, B, D, dtype, P, why, whylen) != 0)
        return NULL;
    dlrm_op_t *op = calloc(1, sizeof *op);
    if (op == NULL) {
        snprintf(why, whylen, "out of host memory");
        return NULL;   /* a local failure: the job cannot go on (the caller says so) */
    }
    dlrm_case_t c = {.tables = T, .dim = D, .batch = B,
                     .slice_rows = slice_rows > 0 ? slice_rows : 32};
    op->device = device;
    op->p = dlrm_part_make(&c, P, gshmem_my_pe());
    const size_t stage_bytes = sizeof(float) * (size_t)(B * op->p.tmax * D);
    op->stage = gshmem_malloc(stage_bytes);   /* collective */
    if (op->stage == NULL) {
        snprintf(why, whylen, "symmetric heap too small for the %zu-byte staging buffer "
                 "(raise GSHMEM_SYMMETRIC_SIZE)", stage_bytes);
        free(op);
        return NULL;
    }
    if (device == DLRM_OP_CPU && dlrm_pool_init(&op->pool, threads > 0 ? threads : 1) != 0) {
        snprintf(why, whylen, "cannot start %d threads", threads);
        goto err_stage;   /* a local failure: the caller ends the job */
    }
    const double bag_bytes = mean_bag * D * (dtype == DLRM_F32 ? 4 : 2);
    if (create_engine(op, dtype, weights, wrow, out, bag_bytes, why, whylen) != 0)
        goto err_pool;
    return op;
err_pool:
    if (device == DLRM_OP_CPU)
        dlrm_pool_fini(&op->pool);
err_stage:
    gshmem_free(op->stage);
    free(op);
    return NULL;
}

uint64_t dlrm_op_forward(dlrm_op_t *op, const int64_t *off, const int64_t *idx, void *stream,
                         char *why, size_t whylen)
{
#ifdef DLRM_OP_HAVE_CUDA
    if (op->device == DLRM_OP_GPU) {
        int cur = op->gpu;
        if (cudaGetDevice(&cur) != cudaSuccess || (cur != op->gpu &&
                                                   cudaSetDevice(op->gpu) != cudaSuccess)) {
            snprintf(why, whylen, "cannot make CUDA device %d current", op->gpu);
            return 0;
        }
        op->fused.a.off = off;
        op->fused.a.idx = idx;
        uint64_t e = dlrm_fused_launch(&op->fused, DLRM_FUSED_HANDSHAKE, (cudaStream_t)stream);
        if (cur != op->gpu)
            cudaSetDevice(cur);
        if (e == 0)
            snprintf(why, whylen, "the fused kernel's launch failed (the CUDA error is printed "
                     "above)");
        return e;
    }
#endif
    (void)stream;
    (void)why;
    (void)whylen;
    op->cpu.off = off;
    op->cpu.idx = idx;
    gshmem_barrier_all();
    return dlrm_cpu_fused_run(&op->cpu, 0, NULL);
}

void dlrm_op_destroy(dlrm_op_t *op)
{
    if (op == NULL)
        return;
#ifdef DLRM_OP_HAVE_CUDA
    if (op->device == DLRM_OP_GPU)
        dlrm_fused_destroy(&op->fused);
#endif
    if (op->device == DLRM_OP_CPU) {
        dlrm_cpu_fused_destroy(&op->cpu);
        dlrm_pool_fini(&op->pool);
    }
    gshmem_free(op->stage);
    free(op);
}

/* dlrm_op.h: the fused embedding + all-to-all behind a plain C ABI of raw
 * pointers, sizes and a stream: libgshmem_dlrm_op.so, which the Python
 * package loads with ctypes for its torch op (python/gshmem/_dlrm_op.py).
 * GPU PEs run dlrm_fused.h's kernel (CUDA builds), CPU PEs
 * dlrm_cpu_fused.h's threads (every build).
 *
 * The case: T global tables split over the PEs as dlrm_plan.h says (PE p
 * owns tables [tstart(p), tstart(p) + tcount(p))), a global batch of B
 * samples (B % P == 0), D floats per pooled row (D % 4 == 0), weights of
 * dtype dlrm_dtype_t (0 fp32, 1 fp16, 2 bf16). Output on every PE q, in
 * its symmetric heap: out[b][t * D + d], fp32, its B/P samples x all T
 * tables (the DLRM layout dlrm_fused.h describes).
 *
 * Memory: on GPU PEs weights, wrow, off and idx are device memory of the
 * heap's GPU and out is in the CUDA heap; on CPU PEs they are host memory
 * and out is in the host heap. The caller keeps every buffer alive until
 * dlrm_op_destroy. Everything is checked by the caller (the Python package
 * checks shapes, dtypes, devices, and with check=True the values): this
 * layer trusts its arguments but for the case's sizes. */
#ifndef DLRM_OP_H
#define DLRM_OP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { DLRM_OP_CPU = 0, DLRM_OP_GPU = 1 };

typedef struct dlrm_op dlrm_op_t;

/* Collective (allocates the staging buffer and the slice signals in the
 * symmetric heap). device: DLRM_OP_*; slice_rows: samples per slice (0:
 * 32); threads: CPU PEs' threads per PE, the caller's included (>= 1);
 * weights: [wrow[tn]][D] of dtype, this PE's tables one after another;
 * wrow: [tn + 1] each table's first row (wrow[tn]: total rows); out:
 * symmetric [B/P][T * D] floats; mean_bag: the mean bag length expected
 * (sizes the work items; 0: unknown). The op, or NULL with the reason in
 * why (a failure of the collective allocations happens on every PE). */
dlrm_op_t *dlrm_op_create(int device, int64_t T, int64_t B, int D, int dtype, int slice_rows,
                          int threads, const void *weights, const int64_t *wrow, float *out,
                          double mean_bag, char *why, size_t whylen);

/* One forward step on the inputs off ([tn][B + 1]: row t is local table
 * t's bag offsets, absolute positions in idx, non-decreasing) and idx
 * (table-local rows). Collective. Every PE's previous output must have
 * been consumed before peers write the next: GPU: by the handshake of
 * dlrm_fused.h (DLRM_FUSED_HANDSHAKE: no barrier; the rows for PE q wait
 * until q's stream reached its forward, so the previous output's readers
 * must run on the stream that q's next forward is enqueued on), enqueued
 * on stream (a cudaStream_t; NULL: the legacy default stream) on the
 * op's GPU (the one current at create; the caller's current device is
 * left as it was), the output in place when the stream's next operation
 * starts; CPU: a barrier over all PEs first, returns with the output in
 * place. Returns the run's epoch (>= 1), or 0 with the reason in why. */
uint64_t dlrm_op_forward(dlrm_op_t *op, const int64_t *off, const int64_t *idx, void *stream,
                         char *why, size_t whylen);

/* Collective: waits for the op's GPU work, frees what create allocated. */
void dlrm_op_destroy(dlrm_op_t *op);

/* 1 when this build runs the GPU path (CUDA), else 0. */
int dlrm_op_have_gpu(void);

#ifdef __cplusplus
}
#endif

#endif /* DLRM_OP_H */

/* dlrm_fused.h: the fused embedding + all-to-all kernel of gshmem-dlrm, for
 * programs that launch it themselves and consume its output slice by slice
 * (apps/stage). CUDA builds; needs gshmem_init with a CUDA heap.
 *
 * What the kernel does (one persistent launch per iteration): its warps
 * take work items (one local table x a few samples of one slice, see
 * dlrm_plan.h) from one counter in the order of dlrm_plan.h, pool each bag (sum of fp32, fp16
 * or bf16 rows, accumulated in fp32) and store the pooled row
 *   - straight into the destination PE's output when that PE is local or
 *     reachable by load/store (P2P, zero copy),
 *   - into the local staging buffer otherwise (queue path).
 * A per-slice completion counter tells the warp that finished a slice's
 * last item; that warp sends the slice: P2P/local: a system fence and the
 * slice's signal; queue path: one put per row from staging into the
 * destination's output, a fence, and the last row as a put-with-signal.
 *
 * OUTPUT (on every PE q, symmetric): out[b][t * D + d], b in [0, B/P) the
 * local sample (global q * B/P + b), t the global table; fp32, row-major.
 *
 * READY SIGNALS (on every PE, symmetric, uint64_t sig[P][G], from
 * dlrm_fused_t.sig): after the launch that returned epoch e,
 *   sig[s * G + i] >= e  <=>  slice i from PE s is in place in this PE's
 *   output: local rows [i * rows, min(B/P, (i + 1) * rows)) and columns
 *   [tstart(s) * D, (tstart(s) + tcount(s)) * D) (dlrm_plan.h),
 * and a consumer that saw it with an acquire load (dlrm_slice_ready below)
 * sees the data. Epochs start at 1 and grow by one per launch (every mode);
 * signals are never reset.
 *
 * HOW A CONSUMER WAITS (pick one):
 *   1. default (no DLRM_FUSED_NO_WAIT): the kernel waits itself: after the
 *      work runs out, thread k of the grid waits on the signals
 *      j = k, k + n_threads, ... (each block on a distinct subset), so the
 *      kernel ends only when the whole output is in place; the next kernel
 *      on the stream just reads it.
 *   2. DLRM_FUSED_NO_WAIT: the kernel ends when this PE's own slices are
 *      sent; the next kernel (on any stream ordered after the launch, or
 *      concurrent with it) waits per slice with dlrm_slice_ready() and
 *      processes slices in the order they arrive.
 * Reuse: the output of epoch e must be consumed on every PE before any PE
 * writes epoch e + 1 into it. Either
 *   - a barrier between (gshmemx_barrier_all_on_stream, or the host
 *     gshmem_barrier_all after a stream synchronize, as gshmem-dlrm does),
 *   - or DLRM_FUSED_HANDSHAKE, when every consumer of the output runs on
 *     the launch's stream before the next launch (default waiting mode):
 *     each launch first tells every peer "ready for epoch e" (HANDSHAKE
 *     SIGNALS below; its stream reached it, so its consumers are done),
 *     and a warp waits for that word of PE q before it writes anything
 *     for q (q's output, or staging rows bound for q). No barrier on the
 *     stream, and a PE that starts late only holds up the rows bound for
 *     it: the others pool meanwhile (the torch op's forward, dlrm_op.c).
 *
 * HANDSHAKE SIGNALS (on every PE, symmetric, uint64_t ready[P], from
 * dlrm_fused_t.ready): ready[s] >= e <=> PE s started its launch of epoch
 * e with DLRM_FUSED_HANDSHAKE. Like the slice signals, never reset.
 *
 * The grid comes from the occupancy API (all blocks resident) minus one
 * block: gshmem's queue-path targets apply signals with a one-thread
 * kernel, which needs room on the GPU while this kernel spins. */
#ifndef DLRM_FUSED_H
#define DLRM_FUSED_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "dlrm_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-slice trace record (device memory, [P][G] by destination and slice). */
typedef struct dlrm_slice_trace {
    unsigned long long t_start, t_end;   /* %globaltimer ns: pooled / send issued */
    long long bytes;
} dlrm_slice_trace_t;

/* The kernel's arguments (by value). */
typedef struct dlrm_fused_args {
    dlrm_part_t p;
    const void *weights;          /* [total rows][D] of dtype */
    const int64_t *off, *idx, *wrow;   /* local CSR (dlrm_inputs.h's dlrm_local_t layout) */
    float *out;                   /* symmetric [B/P][T * D] */
    float *stage;                 /* symmetric [B][tn * D] (queue path, compute_only) */
    uint64_t *sig;                /* symmetric [P][G] */
    unsigned long long *cnt;      /* [P][G] per-slice completions (monotonic) */
    unsigned long long *next;     /* work counter (monotonic over launches) */
    unsigned long long next_base; /* its value when this launch started */
    uint64_t *ready;              /* symmetric [P]: the handshake signals */
    uint64_t epoch;
    int sched, order;
    int compute_only, wait, fault, handshake;
    unsigned long long timeout_ns;
    dlrm_slice_trace_t *trace;    /* NULL: no trace */
    unsigned long long *trace_t0; /* earliest warp start of the launch */
} dlrm_fused_args_t;

typedef struct dlrm_fused {
    dlrm_fused_args_t a;
    int dtype;                    /* dlrm_dtype_t */
    int grid, block;
    uint64_t *sig;                /* = a.sig: the slice signals */
    uint64_t *ready;              /* = a.ready: the handshake signals */
    uint64_t epoch;               /* of the last launch (0: none yet) */
} dlrm_fused_t;

enum {
    DLRM_FUSED_COMPUTE_ONLY = 1 << 0,   /* every destination local (the floor) */
    DLRM_FUSED_NO_WAIT = 1 << 1,         /* consumers wait per slice themselves */
    DLRM_FUSED_HANDSHAKE = 1 << 2        /* reuse by handshake, not a barrier (above) */
};

/* Collective (allocates the signals in the symmetric heap). The buffers
 * stay the caller's: weights, CSR and counters in device memory, out and
 * stage symmetric. 0, or -1 with the reason in why (on every PE when the
 * heap is exhausted). */
int dlrm_fused_create(dlrm_fused_t *f, const dlrm_part_t *p, int dtype, int sched, int order,
                      const void *weights, const int64_t *off, const int64_t *idx,
                      const int64_t *wrow, float *out, float *stage, char *why, size_t whylen);
/* Work items of the created kernel (dlrm_plan.h): item_rows samples each
 * (0: automatic, from bag_bytes, the mean bag's weight bytes). Call before
 * the first launch; create sizes items by the worker count alone. */
void dlrm_fused_set_items(dlrm_fused_t *f, double bag_bytes, int item_rows);
/* Enqueues one iteration on stream; returns its epoch (0 on a launch
 * error, printed). flags: DLRM_FUSED_*. */
uint64_t dlrm_fused_launch(dlrm_fused_t *f, int flags, cudaStream_t stream);
/* Collective. */
void dlrm_fused_destroy(dlrm_fused_t *f);

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__)
/* 1 when slice i from PE s of epoch e is in place (an acquire load at
 * system scope: the data is visible to this thread after it returns 1). */
__device__ __forceinline__ int dlrm_slice_ready(const uint64_t *sig, int64_t G, int s, int64_t i,
                                                uint64_t e)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(sig + s * G + i) : "memory");
    return v >= e;
}
#endif

#endif /* DLRM_FUSED_H */

/* dlrm_backend.h: the two implementations of the three modes behind one
 * ops table: GPU PEs (dlrm_gpu.cu, CUDA builds: CUDA heap, device API,
 * NCCL baseline) and CPU PEs (dlrm_cpu.c, every build: host heap, a pool
 * of threads per PE, gshmem host calls). The driver (dlrm_bench.c) runs
 * the checks and the timing loop over these calls only. */
#ifndef DLRM_BACKEND_H
#define DLRM_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "dlrm_inputs.h"
#include "dlrm_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One row of the raw trace (dlrm-contract.md): times in ns from the start
 * of the PE's traced iteration. kind: "slice", "compute", "a2a", "unpack". */
typedef struct dlrm_trace_row {
    int32_t pe, mode, dst, kind;   /* mode: dlrm_mode_t; kind: DLRM_TK_* */
    int64_t slice, t_start, t_end, bytes;
} dlrm_trace_row_t;

enum { DLRM_TK_SLICE = 0, DLRM_TK_COMPUTE = 1, DLRM_TK_A2A = 2, DLRM_TK_UNPACK = 3 };

typedef struct dlrm_trace_buf {
    dlrm_trace_row_t *rows;
    int n, cap;
} dlrm_trace_buf_t;

/* Baseline phase times of the last run (us). */
typedef struct dlrm_phases {
    double embed_us, a2a_us, unpack_us;
} dlrm_phases_t;

/* What a backend says about itself and the case it set up. */
typedef struct dlrm_be_info {
    char device[320];      /* "4 x NVIDIA H200 ..." or "CPU PEs, 2 threads each" */
    char a2a[96];          /* the baseline's all-to-all */
    char base_desc[256];   /* what baseline and fused are on this backend */
    char fused_desc[256];
    double copy_gbps;      /* device (or host) copy, read + write bytes per second / 1e9 */
    int p2p_peers;         /* peers reached by load/store (fused) */
    int queue_peers;       /* peers reached through the queue path / host puts */
    int item_rows;         /* samples per work item the fused mode uses (this PE) */
} dlrm_be_info_t;

typedef struct dlrm_backend dlrm_backend_t;

typedef struct dlrm_backend_ops {
    const char *name;
    /* Case setup: allocations (symmetric ones collective), inputs, weights.
     * 0, or -1 with why (on every PE the same way for collective failures). */
    int (*setup)(dlrm_backend_t *be, const dlrm_case_t *c, const dlrm_inputs_t *in,
                 const dlrm_part_t *p, char *why, size_t whylen);
    void (*teardown)(dlrm_backend_t *be);
    /* NaN into the output and the send / staging buffers. */
    void (*poison)(dlrm_backend_t *be);
    /* One iteration: a barrier over all PEs (not timed), then the mode.
     * Returns this PE's time in us. tr != NULL: append trace rows. */
    double (*run)(dlrm_backend_t *be, dlrm_mode_t m, dlrm_trace_buf_t *tr, dlrm_phases_t *ph);
    /* Keeps the current output and send buffer as the comparison reference. */
    void (*snapshot)(dlrm_backend_t *be);
    /* Every element of the output (which 0) or of the staging buffer
     * against the snapshot's send buffer (which 1); returns the count out
     * of tolerance, the first described in first. */
    int64_t (*compare)(dlrm_backend_t *be, int which, char *first, size_t firstlen);
    /* Local output rows rows[0..n) into dst (n x T*D floats). */
    void (*get_rows)(dlrm_backend_t *be, const int64_t *rows, int n, float *dst);
    /* Indices gathered by one embedding pass on this PE (for bandwidth). */
    int64_t (*nnz)(dlrm_backend_t *be);
    void (*fini)(dlrm_backend_t *be);
} dlrm_backend_ops_t;

struct dlrm_backend {
    const dlrm_backend_ops_t *ops;
    dlrm_be_info_t info;
    void *impl;
};

/* CPU PEs: threads per PE (>= 1); fault != 0 leaves one pooled row of the
 * fused mode unwritten (tests that the checks catch it). 0, or -1 with why. */
int dlrm_cpu_backend_init(dlrm_backend_t *be, int threads, int fault, char *why,
                          size_t whylen);

/* GPU PEs (CUDA builds): after gshmem_init with a CUDA heap; collective
 * (NCCL). fault as above. 0, or -1 with why. */
int dlrm_gpu_backend_init(dlrm_backend_t *be, int fault, char *why, size_t whylen);
/* Number of CUDA devices visible, before gshmem_init (0 without CUDA). */
int dlrm_gpu_count(void);

/* Appends a row (grows the buffer); ignores the row when out of memory. */
void dlrm_trace_add(dlrm_trace_buf_t *tr, const dlrm_trace_row_t *r);

#ifdef __cplusplus
}
#endif

#endif /* DLRM_BACKEND_H */

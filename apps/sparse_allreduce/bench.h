/* bench.h: gshmem-sparse-allreduce's pieces. bench_main.c drives checks and
 * benchmarks through one backend per kind of PE: bench_host.c (host PEs;
 * baselines on gshmem host collectives) and bench_gpu.cu (GPU PEs; NCCL
 * baselines). bench_ref.c is the CPU fp64 reference. */
#ifndef SAR_BENCH_H
#define SAR_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include "sar.h"
#include "sar_gen.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { M_GSHMEM = 0, M_OWNER, M_DENSE, M_UNION, M_ALLGATHER, M_COUNT };
extern const char *const bench_mode_names[M_COUNT];
/* Bound of the gshmem path's waits (sar_params_t.timeout_s), from --timeout. */
extern double bench_timeout_s;

/* One mode's result; idx/val live where the backend keeps data. */
typedef struct bench_out {
    int64_t count;
    const int64_t *idx;
    const float *val;
} bench_out_t;

typedef struct bench_be bench_be_t;   /* a backend's state */

typedef struct bench_ops {
    const char *name;   /* "gpu" or "host" */
    /* Inputs of this PE for c; the gshmem context for nnz_max rows per PE
     * (recv_cap as in sar_params_t, 0: default). Collective. */
    int (*setup)(bench_be_t *b, const sar_case_t *c, int64_t nnz_max, int64_t recv_cap,
                 char *why, size_t whylen);
    void (*teardown)(bench_be_t *b);                 /* collective */
    /* Only the first nnz_limit rows of each PE's input (-1: all) from now on. */
    void (*limit)(bench_be_t *b, int64_t nnz_limit);
    /* Buffers of a baseline mode, before its runs; released by the next
     * prepare or teardown. Collective. 0, or -1 with why. */
    int (*prepare)(bench_be_t *b, int mode, char *why, size_t whylen);
    /* One call of mode (collective); 0, or a SAR_ERR_* / -1 with why. */
    int (*run)(bench_be_t *b, int mode, bench_out_t *out, char *why, size_t whylen);
    /* Copies out to host arrays (idx[count], val[count * dim]). */
    int (*fetch)(bench_be_t *b, const bench_out_t *out, int64_t *idx, float *val);
    /* Mismatching rows of a against b (indices equal, values within
     * tolerance); -1 when the counts differ. */
    int64_t (*compare)(bench_be_t *b, const bench_out_t *x, const bench_out_t *y);
    /* Exact fingerprint of an output (indices and value bits). */
    uint64_t (*hash)(bench_be_t *b, const bench_out_t *x);
    /* Times one run of mode in ms (this PE; the caller takes the max). */
    double (*time)(bench_be_t *b, int mode, int *rc, char *why, size_t whylen);
    /* Graph-capturable enqueue of the gshmem path, captured once and
     * replayed (GPU only, NULL elsewhere): 0 with the result in out. */
    int (*graph_run)(bench_be_t *b, bench_out_t *out, char *why, size_t whylen);
    sar_t *(*ctx)(bench_be_t *b);
} bench_ops_t;

/* Backends; create returns NULL with why when unusable here. */
bench_be_t *bench_host_new(char *why, size_t whylen);
void bench_host_free(bench_be_t *b);
extern const bench_ops_t bench_host_ops;

bench_be_t *bench_gpu_new(int need_nccl, char *why, size_t whylen);
void bench_gpu_free(bench_be_t *b);
extern const bench_ops_t bench_gpu_ops;
/* 1 when this process sees a CUDA device (0 in CPU-only builds). */
int bench_gpu_present(void);
/* NVLink egress bandwidth of this PE in GB/s while every PE writes to every
 * other at once: SM stores (*sm) and copy engines (*ce). Collective. */
int bench_gpu_link_bw(bench_be_t *b, size_t bytes_per_peer, int iters, double *sm,
                      double *ce, char *why, size_t whylen);
/* Whether the NCCL baselines can run (GPU backend). */
int bench_gpu_has_nccl(bench_be_t *b);

/* ---- the CPU fp64 reference (bench_ref.c) ---------------------------------- */
typedef struct bench_ref {
    int64_t count;
    int64_t *idx;
    double *val;     /* [count][dim] */
    double *mag;     /* [count][dim]: sum of |terms| */
    int32_t *terms;  /* [count]: number of input rows summed */
} bench_ref_t;

/* The sum over np PEs of c's inputs (each PE's first nnz_limit rows; -1:
 * all). Every index must be valid. 0, or -1 when out of memory. */
int bench_ref_build(bench_ref_t *r, const sar_case_t *c, int np, int64_t nnz_limit);
void bench_ref_free(bench_ref_t *r);
/* Mismatches of a host copy of a result against the reference; the first
 * one is described in what. */
int64_t bench_ref_compare(const bench_ref_t *r, int dim, int64_t count, const int64_t *idx,
                          const float *val, char *what, size_t whatlen);

#ifdef __cplusplus
}
#endif

#endif

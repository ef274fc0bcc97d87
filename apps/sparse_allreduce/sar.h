/* sar.h: sparse All-Reduce of COO row gradients over all gshmem PEs.
 *
 * Each PE holds nnz rows of a [n_rows, dim] fp32 table's gradient: row
 * indices (int64, any order, duplicates allowed, nnz may be 0) and values
 * [nnz, dim]. sar_allreduce returns on every PE the same coalesced sum over
 * all PEs: the sorted unique indices and, for each, the sum of every row
 * with that index on every PE.
 *
 * Algorithm (one-sided, gshmem): local coalesce (sort, segmented sum); an
 * exchange of the unique indices (8 B per row) fixes every output position
 * (a prefix sum over the union); rows are partitioned by owner (equal index
 * ranges): a row that other PEs also hold goes to its owner's receive area,
 * in slots reserved with one remote fetch-add per (PE, owner); the owner
 * reduces and puts the sum into every PE's output. A row no other PE holds
 * is already its sum: with SAR_ROUTE_DIRECT (the default) its PE puts it
 * straight into every output; SAR_ROUTE_OWNER sends every row through its
 * owner. Signals (put-with-signal, counters that grow by n_pes per call)
 * separate the phases; every wait is bounded.
 *
 * GPU PEs (on_gpu = 1, GSHMEM_HEAP=cuda, every PE on its own GPU and
 * reachable by load/store): inputs and outputs in GPU memory; the call
 * enqueues kernels on the stream and synchronises the host only to read
 * the output count at the end. sar_allreduce_enqueue + sar_finish split
 * that: the enqueue reads nnz from GPU memory (at most nnz_max) and can be
 * captured into a CUDA graph. Host PEs (on_gpu = 0, any heap kind):
 * inputs and outputs in host memory, the same algorithm through the host
 * API (stream ignored).
 *
 * Errors: functions return 0 or a negative SAR_ERR_*; sar_error() says
 * why. Invalid input (an index outside [0, n_rows), nnz above nnz_max) is
 * detected during the index exchange, before any row is written: every PE
 * returns SAR_ERR_INDEX (naming the PE, position and value) and the
 * output of the previous call is left as it was. Capacity errors
 * (out_cap, recv_cap) and timeouts are reported on every PE as well, but
 * outputs may then be partly written.
 */
#ifndef SAR_H
#define SAR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    SAR_OK = 0,
    SAR_ERR_ARG = -1,       /* bad argument or parameter (named in sar_error) */
    SAR_ERR_NOMEM = -2,     /* host, GPU or symmetric memory exhausted */
    SAR_ERR_INDEX = -3,     /* an input index outside [0, n_rows), or nnz > nnz_max */
    SAR_ERR_CAPACITY = -4,  /* output or receive area too small */
    SAR_ERR_TIMEOUT = -5,   /* a peer did not signal within timeout_s */
    SAR_ERR_DEVICE = -6,    /* CUDA error, no GPU, or a peer not reachable by load/store */
    SAR_ERR_PROTOCOL = -7   /* a peer's message of another call (epochs differ) */
};

enum { SAR_ROUTE_DIRECT = 0, SAR_ROUTE_OWNER = 1 };

#define SAR_MAX_PES 64

typedef struct sar sar_t;

typedef struct sar_params {
    int64_t n_rows;    /* table rows: indices lie in [0, n_rows) */
    int dim;           /* floats per row */
    int64_t nnz_max;   /* most input rows per PE in one call */
    int64_t out_cap;   /* output rows; 0: min(n_rows, n_pes * nnz_max) */
    int64_t recv_cap;  /* owner receive-area rows; 0: min(n_rows/n_pes+1, nnz_max) * n_pes */
    int on_gpu;        /* 1: GPU PEs (CUDA heap); 0: host PEs */
    int route;         /* SAR_ROUTE_DIRECT or SAR_ROUTE_OWNER */
    double timeout_s;  /* bound of every wait for a peer; 0: 60 */
} sar_params_t;

typedef struct sar_result {
    int64_t count;       /* unique rows of the sum */
    const int64_t *idx;  /* [count] ascending; owned by the context, valid until its next call */
    const float *val;    /* [count][dim], same */
} sar_result_t;

/* What this PE did in its last successful call (bytes it sent to other PEs). */
typedef struct sar_stats {
    int64_t unique;       /* unique rows here after the local coalesce */
    int64_t exclusive;    /* of those, rows no other PE holds */
    int64_t to_owner;     /* rows sent to another PE's receive area */
    int64_t reduced;      /* rows this PE reduced as owner */
    int64_t out_rows;     /* rows of the output (same on every PE) */
    double bytes_sent;    /* rows and indices put to other PEs */
} sar_stats_t;

/* Phases recorded with sar_set_phase_timing(s, 1) (GPU; CUDA events). */
enum {
    SAR_PH_COALESCE = 0, /* validate, sort, unique */
    SAR_PH_INDEX,        /* index exchange, union positions */
    SAR_PH_SEND,         /* reservation, rows to owners and outputs */
    SAR_PH_REDUCE,       /* wait for the rows, owner reduce into the outputs */
    SAR_PH_DONE,         /* wait for every PE's completion */
    SAR_N_PHASES
};

/* Collective over all PEs (after gshmem_init; same parameters everywhere):
 * allocates the symmetric areas and scratch. 0, or SAR_ERR_* on every PE
 * with the reason in why. */
int sar_create(sar_t **out, const sar_params_t *params, char *why, size_t whylen);
/* Collective. */
void sar_destroy(sar_t *s);

/* Collective: the sum of every PE's (idx[nnz], val[nnz][dim]) into res.
 * n_rows and dim must equal the context's; nnz <= nnz_max. stream: a
 * cudaStream_t on GPU PEs (NULL: the legacy stream), ignored on host PEs. */
int sar_allreduce(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                  int64_t n_rows, int dim, void *stream, sar_result_t *res);

/* GPU PEs: enqueue only, nnz read from GPU memory when the work runs
 * (graph-capturable); then, once the stream's work completed, sar_finish. */
int sar_allreduce_enqueue(sar_t *s, const int64_t *idx, const float *val,
                          const int64_t *nnz_dev, void *stream);
int sar_finish(sar_t *s, sar_result_t *res);

/* Between calls, the same on every PE: SAR_ROUTE_DIRECT or SAR_ROUTE_OWNER. */
int sar_set_route(sar_t *s, int route);

const char *sar_error(const sar_t *s);
int sar_last_stats(const sar_t *s, sar_stats_t *st);
/* GPU PEs: record CUDA events between phases of later calls (on = 1);
 * sar_phase_ms gives the last call's phase times (ms[SAR_N_PHASES]). */
int sar_set_phase_timing(sar_t *s, int on);
int sar_phase_ms(const sar_t *s, double *ms);

#ifdef __cplusplus
}
#endif

#endif /* SAR_H */

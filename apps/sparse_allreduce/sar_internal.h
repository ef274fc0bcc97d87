/* sar_internal.h: the context and the symmetric layout shared by sar.c (API,
 * checks, host PEs) and sar_gpu.cu (GPU PEs). Plain C. */
#ifndef SAR_INTERNAL_H
#define SAR_INTERNAL_H

#include <stdint.h>
#include "sar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs of more input rows than this with one index are summed in chunks of
 * this many rows, then the chunk sums are added (GPU: in parallel; host:
 * the same order, so both give the same bits). */
#define SAR_CHUNK 64

/* One PE's word to another, written before the signal that announces it.
 * epoch tags the call, so a stale or early message is recognised. */
typedef struct sar_msg {
    uint64_t epoch;
    int64_t a, b;       /* index phase: unique rows, -; send phase: slot base, rows */
    int32_t err;        /* SAR_ERR_* seen by the sender (0: none) */
    int32_t err_pe;     /* the PE whose input or state caused it */
    int64_t err_pos, err_val;
} sar_msg_t;

/* Symmetric control block: three signal words (each grows by n_pes per
 * call), the receive-area reservation counter (reset by its owner once the
 * call's rows arrived, before anyone can start the next call), and one
 * message slot per sender and phase. */
typedef struct sar_sym {
    uint64_t sig_idx, sig_recv, sig_done;
    int64_t recv_ctr;
    sar_msg_t idx_msg[SAR_MAX_PES], recv_msg[SAR_MAX_PES], done_msg[SAR_MAX_PES];
} sar_sym_t;

typedef struct sar_gpu sar_gpu_t;   /* sar_gpu.cu */

struct sar {
    sar_params_t p;
    int me, np;
    int64_t chunk;          /* rows per owner: ceil(n_rows / np) */
    uint64_t epoch;         /* calls made (host PEs; GPU PEs keep theirs on the GPU) */
    /* symmetric */
    sar_sym_t *sym;
    int64_t *gidx;          /* [np][nnz_max] every PE's unique indices */
    int64_t *recv_key;      /* [recv_cap] */
    float *recv_val;        /* [recv_cap][dim] */
    float *out_val;         /* [out_cap][dim] */
    /* local */
    int64_t *out_idx;       /* [out_cap] (host memory, or GPU memory on GPU PEs) */
    sar_stats_t stats;
    char msg[512];
    sar_gpu_t *gpu;
};

/* Formats into s->msg and returns code. */
int sar_fail(sar_t *s, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The message of a failed message exchange (same text on every PE). */
int sar_fail_msg(sar_t *s, const sar_msg_t *m);

/* Host PEs (sar_host.c). */
int sar_host_create(sar_t *s);
void sar_host_destroy(sar_t *s);
int sar_host_run(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                 sar_result_t *res);

/* GPU PEs (sar_gpu.cu; stubs in CPU-only builds). */
int sar_gpu_create(sar_t *s);
void sar_gpu_destroy(sar_t *s);
int sar_gpu_enqueue(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                    const int64_t *nnz_dev, void *stream);
int sar_gpu_finish(sar_t *s, sar_result_t *res);
int sar_gpu_phase_timing(sar_t *s, int on);
int sar_gpu_phase_ms(const sar_t *s, double *ms);

#ifdef __cplusplus
}
#endif

#endif

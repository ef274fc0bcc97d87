/* dlrm_bench.h: one case from start to end (setup, checks, timing, trace)
 * and the report (table, CSV, raw trace). */
#ifndef DLRM_BENCH_H
#define DLRM_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "dlrm_backend.h"
#include "dlrm_opts.h"

typedef struct dlrm_result {
    dlrm_case_t c;
    int P;
    int have[DLRM_N_MODES];
    double us[DLRM_N_MODES];   /* median over iterations of the max over PEs */
    double embed_us;           /* baseline's embedding kernel alone (same statistic) */
    double embed_gbps;         /* its bytes (gathered rows, indices, offsets, output) / time */
    int64_t bad;               /* elements out of tolerance, summed over PEs */
    int ref_rows;              /* rows checked against the fp64 reference per PE (0: none) */
    int iters;
} dlrm_result_t;

/* Runs case c on every PE (collective). 0, or -1 when the setup failed
 * (why printed). tr != NULL: trace one iteration of baseline and fused. */
int dlrm_bench_case(dlrm_backend_t *be, const dlrm_opts_t *o, const dlrm_case_t *c,
                    const dlrm_inputs_t *in, dlrm_result_t *res, dlrm_trace_buf_t *tr);

/* PE 0 prints / writes; the others return at once. */
void dlrm_report_header(FILE *f, const dlrm_backend_t *be, const dlrm_opts_t *o, int P);
void dlrm_report_row(FILE *f, const dlrm_result_t *r, const dlrm_backend_t *be);
void dlrm_report_summary(FILE *f, const dlrm_result_t *r, int n);
/* 0, or -1 when the file cannot be written (named on stderr). */
int dlrm_report_csv(const char *path, const dlrm_result_t *r, const dlrm_backend_t *be);
/* Collective: gathers every PE's rows, PE 0 writes the raw trace CSV. */
int dlrm_report_trace(const char *path, const dlrm_trace_buf_t *tr);

#endif

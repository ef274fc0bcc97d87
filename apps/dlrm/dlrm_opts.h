/* dlrm_opts.h: command line of gshmem-dlrm and the config sets of
 * BENCHMARKS.md section 2 (W, S, G, N), tiny and custom. */
#ifndef DLRM_OPTS_H
#define DLRM_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dlrm_plan.h"

#define DLRM_MAX_LIST 16
#define DLRM_PATH_MAX 512

enum { DLRM_DEV_AUTO = 0, DLRM_DEV_GPU = 1, DLRM_DEV_CPU = 2 };

typedef struct dlrm_opts {
    char config[8];
    unsigned modes;                   /* bit per dlrm_mode_t */
    int64_t tables;                   /* > 0: T fixed */
    int64_t tpp[DLRM_MAX_LIST];       /* tables per PE (T = tpp * P) */
    int n_tpp;
    int64_t rows;
    int dim;
    int64_t batch[DLRM_MAX_LIST];
    int n_batch;
    int lmax, fixed_l;
    int slice[DLRM_MAX_LIST];
    int n_slice;
    int item_rows;                    /* 0: automatic */
    int sched, order, dtype;
    int iters, warmup, check;
    int device, threads;
    int fault;                        /* --fault: tests only */
    int quiet;                        /* --quiet: no progress on stderr */
    uint32_t seed;
    char csv[DLRM_PATH_MAX], trace[DLRM_PATH_MAX], inputs[DLRM_PATH_MAX],
        dump[DLRM_PATH_MAX];
} dlrm_opts_t;

/* Parses argv into o (the set's values, then the flags over them).
 * Returns 0; 1 after printing the usage (-h); 2 after printing what is
 * wrong (an unknown flag or a bad value, named). */
int dlrm_opts_parse(dlrm_opts_t *o, int argc, char **argv);
void dlrm_opts_usage(FILE *f);

/* The cases of o at P PEs (file inputs: T and B from the file, given as
 * file_T / file_B, else 0). Returns the count (<= cap). */
int dlrm_opts_cases(const dlrm_opts_t *o, int P, int64_t file_T, int64_t file_B,
                    dlrm_case_t *cases, int cap);

/* Bytes of symmetric heap a PE needs for the cases of o at P PEs. */
size_t dlrm_opts_heap_bytes(const dlrm_opts_t *o, int P, int64_t file_T, int64_t file_B);

const char *dlrm_mode_name(int m);
const char *dlrm_dtype_name(int d);

#endif

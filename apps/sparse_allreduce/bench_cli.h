/* bench_cli.h: the state of gshmem-sparse-allreduce shared by its main
 * (bench_main.c), the checks (bench_check.c) and the benchmark
 * (bench_run.c). */
#ifndef SAR_BENCH_CLI_H
#define SAR_BENCH_CLI_H

#include "bench.h"

#define CLI_MAX_LIST 8

typedef struct cli {
    const bench_ops_t *ops;
    bench_be_t *be;
    int me, np, gpu, have_nccl;
    /* options */
    int check, bench, quiet;
    int64_t n_rows;
    int dims[CLI_MAX_LIST], ndims;
    double dens[CLI_MAX_LIST];
    int ndens;
    int dists[CLI_MAX_LIST], ndists;
    double zipf_s;
    int mode_on[M_COUNT];
    int iters, warmup, phases, link_bw;
    double recv_frac;      /* receive area rows = frac * np * nnz (0: library default) */
    const char *csv, *md;
    /* measured */
    double bw_sm, bw_ce;
} cli_t;

/* Every PE's verdict (fail != 0 with what) reaches every PE; returns the
 * first failing PE, or -1, and that PE's message in first. */
int cli_agree(int fail, const char *what, char *first, size_t firstlen);

/* Number of failed checks (the same on every PE). */
int cli_check(cli_t *c);
/* 0, or the number of configurations that failed. */
int cli_bench(cli_t *c);

#endif

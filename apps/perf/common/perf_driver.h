/* perf_driver.h: the one driver shared by every gshmem benchmark (host
 * benchmarks now, device benchmarks later). Plain C, no gshmem and no CUDA
 * dependence: the benchmark does the communication, the driver does the
 * flags, the size sweep, the clock, the statistics, the table, the CSV file
 * and the data checks.
 *
 * Flags (nccl-tests / NVSHMEM perftest style), the same for every program:
 *   -b SIZE  smallest message (K/M/G suffixes)     -e SIZE  largest message
 *   -f N     size factor between steps (>= 2)      -n N     timed iterations
 *   -w N     warm-up iterations                    -c 0|1   correctness check
 *   -o FILE  also write the table as CSV           -h       help
 *   --quiet  no progress on stderr (otherwise the table's PE shows one
 *            line per row, apps/common/app_progress.h)
 * A benchmark may add its own flags (perf_opts_parse's extra arguments).
 */
#ifndef GSHMEM_PERF_DRIVER_H
#define GSHMEM_PERF_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The median is always taken over at least this many timed samples. */
#define PERF_MIN_ITERS 20

typedef struct perf_opts {
    const char *name;        /* program name shown in help and headers */
    size_t min_size, max_size;
    size_t factor;
    int iters, warmup;
    int check;               /* 1: check every size before timing it */
    const char *csv_path;    /* NULL: no CSV */
    int quiet;               /* 1: no progress on stderr */
} perf_opts_t;

/* A benchmark's own flag: called with the option letter and its argument
 * (NULL for a flag without one). Return 0, or -1 with a message printed. */
typedef int (*perf_extra_opt_fn)(int opt, const char *arg, void *ctx);

typedef struct perf_extra_opts {
    const char *optstring;   /* getopt letters of the extra flags, e.g. "W:d" */
    const char *help;        /* lines appended to the help text */
    perf_extra_opt_fn fn;
    void *ctx;
} perf_extra_opts_t;

/* Fill opts with the defaults: sizes min..max, factor 2, 100 iterations,
 * 10 warm-up, check on, no CSV. */
void perf_opts_init(perf_opts_t *opts, const char *name, size_t min_size,
                    size_t max_size);

/* Parse argv into opts. extra may be NULL. Returns 0 to run, 1 when help was
 * printed (exit 0), -1 on a bad flag (message printed; exit non-zero).
 * An -n below PERF_MIN_ITERS is raised to it, with a note on stderr. */
int perf_opts_parse(perf_opts_t *opts, int argc, char **argv,
                    const perf_extra_opts_t *extra);
void perf_opts_usage(const perf_opts_t *opts, const perf_extra_opts_t *extra,
                     FILE *f);

/* "4096", "4K", "64M", "1G" (binary multiples, k/m/g too) -> bytes.
 * Returns 0, or -1 for an empty, malformed, negative or overflowing value. */
int perf_parse_size(const char *s, size_t *size_p);
/* A decimal integer in [min, max]: digits with an optional sign, nothing
 * before or after them. Returns 0, or -1. */
int perf_parse_int(const char *s, long min, long max, long *v_p);
/* bytes -> "4K", "64M", "1G" when exact, else the byte count. */
const char *perf_format_size(size_t size, char *buf, size_t len);

/* Size sweep: for (s = perf_size_first(o); s; s = perf_size_next(o, s)). */
size_t perf_size_first(const perf_opts_t *opts);
size_t perf_size_next(const perf_opts_t *opts, size_t size);

/* Monotonic clock in microseconds (clock_gettime(CLOCK_MONOTONIC)). */
double perf_now_us(void);

/* Statistics of n samples (not modified; n >= 1). Percentiles interpolate
 * linearly between the sorted samples, so p = 50 is the usual median. */
typedef struct perf_stats {
    double min, max, mean, median, p99;
} perf_stats_t;

double perf_percentile(const double *sorted, int n, double p);
double perf_median(const double *samples, int n);
int perf_stats_compute(const double *samples, int n, perf_stats_t *stats_p);

/* GB/s (1e9 bytes per second) of bytes moved in us microseconds. */
double perf_bw_gbps(double bytes, double us);

/* Table: aligned columns printed to stdout, one row per size, and the same
 * rows to the CSV file when opts->csv_path is set. Column k prints values
 * with decimals[k] digits after the point (0: an integer). */
#define PERF_MAX_COLS 12

typedef struct perf_table {
    int ncols;
    const char *names[PERF_MAX_COLS];
    int decimals[PERF_MAX_COLS];
    int widths[PERF_MAX_COLS];
    FILE *out;               /* stdout unless changed */
    FILE *csv;               /* NULL: no CSV */
    struct app_progress *progress;   /* rows as cases (NULL: none) */
    int rows;                /* rows written */
} perf_table_t;

/* names: ncols column titles; decimals: digits per column. Opens the CSV
 * file (truncated) when csv_path is not NULL. Returns 0, or -1 with a
 * message when the file cannot be opened. Unless the last parsed options
 * say --quiet, the progress of the rows starts on stderr: one case per row, as
 * many as the sizes of the sweep (unnamed rows) or not known (named). */
int perf_table_open(perf_table_t *t, int ncols, const char *const *names,
                    const int *decimals, const char *csv_path);
void perf_table_header(perf_table_t *t);
void perf_table_row(perf_table_t *t, const double *values);
/* A row whose first column is text (an operation's name, right-aligned
 * like the numbers; written as is to the CSV): values[0..ncols-2] fill
 * the other columns. */
void perf_table_row_named(perf_table_t *t, const char *name, const double *values);
void perf_table_close(perf_table_t *t);

/* Data checks: fill with fresh pseudo-random bytes (the same seed gives the
 * same bytes, on any PE), fill with a poison pattern, compare. */
uint64_t perf_seed(uint64_t run, uint64_t size, uint64_t who);
void perf_fill_random(void *buf, size_t len, uint64_t seed);
void perf_poison(void *buf, size_t len);
/* Index of the first byte where got differs from expect, or len if none. */
size_t perf_first_diff(const void *got, const void *expect, size_t len);
/* Compare got with the bytes perf_fill_random(seed) gives. On a mismatch
 * print "<name>: check FAILED at size S: first wrong index I (got G,
 * expected E)" with the context string and return -1; else 0. */
int perf_check_random(const char *name, const char *context, const void *got,
                      size_t len, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_PERF_DRIVER_H */

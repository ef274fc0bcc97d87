/* app_stats.h: the apps' timing statistics (BENCHMARKS.md: the median of at
 * least 20 iterations, each the max over PEs, since a collective is as slow
 * as its slowest PE). Plain C over the gshmem host API; all builds. */
#ifndef GSHMEM_APP_STATS_H
#define GSHMEM_APP_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collective: every PE's `bytes` bytes at mine land in all (n_pes blocks, PE
 * order) on every PE. Host buffers, any heap kind (through PE 0's symmetric
 * memory). Returns 0, or -1 when the symmetric allocation failed. */
int app_allgather_host(void *all, const void *mine, size_t bytes);
/* Median of n values (n >= 1); v is not modified. */
double app_median(const double *v, int n);
/* Collective: for each iteration i the max over PEs of v[i], then the median
 * of those n maxima. Every PE passes the same n and gets the same result. */
double app_median_of_max(const double *v, int n);

#ifdef __cplusplus
}
#endif

#endif

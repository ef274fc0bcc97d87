/* bench_host.h: what the host benchmarks share beyond the driver: start-up,
 * the banner with the transport in use, a reduction over PEs and the way a
 * failed check ends the job. */
#ifndef GSHMEM_BENCH_HOST_H
#define GSHMEM_BENCH_HOST_H

#include <stddef.h>
#include "gshmem.h"
#include "perf_driver.h"

/* gshmem_init on a host heap (GSHMEM_HEAP=host unless the environment sets
 * it), then require at least min_pes PEs. Returns 0, or prints why (on PE
 * 0 for a PE count) and returns -1. */
int bench_init(const char *name, int min_pes);

/* "load/store (shm)" when gshmem_ptr(sym, pe) gives a pointer, else
 * "network (ofi)". */
const char *bench_transport_name(void *sym, int pe);

/* PE 0 prints "# ..." lines: program, PEs, transport to peer (sym is any
 * symmetric address), GSHMEM_TRANSPORTS / GSHMEM_OFI_PROVIDER, sweep. */
void bench_banner(const char *what, const perf_opts_t *o, void *sym, int peer);

/* gshmem_malloc that names the size and the GSHMEM_SYMMETRIC_SIZE setting
 * when it fails (then ends the job). */
void *bench_malloc(const char *name, size_t size);

/* Max over all PEs of n (<= 8) doubles, in place. Collective. */
void bench_max_over_pes(double *v, int n);

/* A data check failed on this PE: end the whole job with status 1. */
void bench_fail(void) __attribute__((noreturn));

#endif

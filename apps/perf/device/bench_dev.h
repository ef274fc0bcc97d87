/* bench_dev.h: what the device benchmarks share on top of perf_driver, for
 * gshmem (apps/perf/device) and for NVSHMEM (apps/perf/nvshmem) alike.
 *
 * Two halves:
 * - the runtime glue (brt_*): start-up, symmetric memory, barrier, max over
 *   PEs, failure exit. One implementation per runtime: bench_rt_gshmem.cu
 *   here, bench_rt_nvshmem.cu in apps/perf/nvshmem. The benchmark bodies
 *   (*.cuh) call only these, plus the device calls named by the BDEV_*
 *   macros of api_gshmem.cuh / api_nvshmem.cuh, so both runtimes run the
 *   very same kernels, sweeps, checks and output.
 * - runtime-neutral helpers (bench_dev.cu): CUDA error checks, the event
 *   timer, random fill / poison / check of device buffers, the banner and
 *   the "probe" mode used by the tests.
 *
 * Timing: every sample is one kernel (or one batch of copies) between two
 * cudaEvents on the benchmark's stream; a row reports the median (and p99,
 * min, max) of -n samples after -w warm-up samples; where several PEs time
 * the same iteration the sample is the max over PEs of that iteration.
 */
#ifndef GSHMEM_BENCH_DEV_H
#define GSHMEM_BENCH_DEV_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "perf_driver.h"

/* A CUDA call that must succeed: otherwise print it and end the job. */
#define BCU(call)                                                                     \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,   \
                    cudaGetErrorString(e_), cudaGetErrorName(e_));                    \
            brt_fail();                                                               \
        }                                                                             \
    } while (0)

/* ---- runtime glue (one implementation per runtime) ------------------------ */

/* Starts the runtime (symmetric heap of at least heap_bytes where the
 * runtime takes a size), selects the GPU. Returns 0, or prints why and
 * returns -1. Needs at least 2 PEs. */
int brt_init(const char *name, size_t heap_bytes);
const char *brt_name(void);          /* "gshmem", "NVSHMEM 3.x.y" */
int brt_my_pe(void);
int brt_n_pes(void);
void *brt_malloc(size_t size);       /* symmetric, device memory; ends the job on failure */
void brt_free(void *p);
void *brt_peer_ptr(void *sym, int pe);   /* peer's twin usable here (cudaMemcpyPeer), or NULL */
void brt_barrier(void);              /* host barrier over all PEs, device work complete */
void brt_max_over_pes(double *v, int n);  /* element-wise max over PEs, in place */
void brt_fail(void) __attribute__((noreturn));   /* end the whole job, status 1 */
void brt_finalize(void);

/* ---- runtime-neutral helpers (bench_dev.cu) -------------------------------- */

/* "<prog> probe": exit 0 when a CUDA device is visible, else print
 * "SKIP: <why>" and exit 77. Returns when argv is not "probe". */
void bdev_probe(int argc, char **argv);

typedef struct bdev_timer {
    cudaStream_t stream;
    cudaEvent_t start, stop;
} bdev_timer_t;

void bdev_timer_init(bdev_timer_t *t);
void bdev_timer_start(bdev_timer_t *t);
/* Records the stop event, waits for it; returns microseconds since start. */
double bdev_timer_stop(bdev_timer_t *t);
void bdev_timer_destroy(bdev_timer_t *t);

/* Device buffers: fresh random bytes (perf_fill_random(seed)), poison,
 * compare with perf_fill_random(seed) (a mismatch prints the place and
 * ends the job with status 1). */
void bdev_fill_random(void *dev, size_t len, uint64_t seed);
void bdev_poison(void *dev, size_t len);
void bdev_check(const char *name, const char *ctx, const void *dev, size_t len, uint64_t seed);

/* PE 0 prints "# <name> (<runtime>): <what>", the PEs and their GPUs, the
 * sweep and extra (a preformatted line, may be NULL). Collective. */
void bdev_banner(const perf_opts_t *o, const char *what, const char *extra);

/* PE 0 opens the table (CSV too with -o) and prints its header; other PEs
 * get a table that prints nothing. Ends the job when the CSV cannot be
 * opened. */
void bdev_table_open(perf_table_t *t, const perf_opts_t *o, int ncols,
                     const char *const *names, const int *decimals);
void bdev_table_row(perf_table_t *t, const double *values);   /* PE 0 only prints */
void bdev_table_close(perf_table_t *t);

/* Operations (rounds) per sample: fixed when > 0, else about 64 MiB per
 * sample, 1 to 100. */
int bdev_reps(int fixed, size_t size);

/* The GPUs of this PE and of PE 1, as this process numbers them (PE 1's is
 * learnt through the max over PEs). Collective. */
void bdev_pe1_device(int *my_dev_p, int *peer_dev_p);
/* bytes of device memory on GPU peer_dev, peer access from my_dev enabled
 * (a cudaMemcpyPeer reference that does not depend on how the runtime maps
 * its heap); the current device stays my_dev. Ends the job on failure. */
void *bdev_peer_alloc(int my_dev, int peer_dev, size_t bytes);
void bdev_peer_free(int my_dev, int peer_dev, void *p);   /* NULL: nothing */

/* Number of SMs of the current device. */
int bdev_sm_count(void);

/* Parses a positive int flag value; prints and returns -1 when bad. */
int bdev_parse_int(const char *name, int opt, const char *arg, int min, int *v_p);

#endif /* GSHMEM_BENCH_DEV_H */

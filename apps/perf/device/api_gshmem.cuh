/* api_gshmem.cuh: the device calls of the shared benchmark bodies
 * (put_latency.cuh, put_bw.cuh, signal_pingpong.cuh), mapped to gshmem.
 * apps/perf/nvshmem/api_nvshmem.cuh maps the same names to NVSHMEM. */
#ifndef GSHMEM_BENCH_API_GSHMEM_CUH
#define GSHMEM_BENCH_API_GSHMEM_CUH

#include "gshmem_device.h"

#define BDEV_IMPL "gshmem"
#define BDEV_PROG(name) "gshmem-perf-dev-" name
#define BDEV_PUTMEM(d, s, n, pe) gshmem_putmem((d), (s), (n), (pe))
#define BDEV_QUIET() gshmem_quiet()
#define BDEV_PUTMEM_NBI_BLOCK(d, s, n, pe) gshmemx_putmem_nbi_block((d), (s), (n), (pe))
#define BDEV_PUTMEM_SIGNAL_NBI(d, s, n, sig, v, pe) \
    gshmem_putmem_signal_nbi((d), (s), (n), (sig), (v), GSHMEM_SIGNAL_SET, (pe))
#define BDEV_SIGNAL_WAIT_GE(sig, v) gshmem_signal_wait_until((sig), GSHMEM_CMP_GE, (v))

#endif

/* api_nvshmem.cuh: the device calls of the shared benchmark bodies
 * (apps/perf/device/{put_latency,put_bw,signal_pingpong}.cuh), mapped to
 * NVSHMEM 3.x. Same names as apps/perf/device/api_gshmem.cuh. */
#ifndef GSHMEM_BENCH_API_NVSHMEM_CUH
#define GSHMEM_BENCH_API_NVSHMEM_CUH

#include <nvshmem.h>
#include <nvshmemx.h>

#define BDEV_IMPL "nvshmem"
#define BDEV_PROG(name) "nvshmem-perf-" name
#define BDEV_PUTMEM(d, s, n, pe) nvshmem_putmem((d), (s), (n), (pe))
#define BDEV_QUIET() nvshmem_quiet()
#define BDEV_PUTMEM_NBI_BLOCK(d, s, n, pe) nvshmemx_putmem_nbi_block((d), (s), (n), (pe))
#define BDEV_PUTMEM_SIGNAL_NBI(d, s, n, sig, v, pe) \
    nvshmem_putmem_signal_nbi((d), (s), (n), (sig), (v), NVSHMEM_SIGNAL_SET, (pe))
#define BDEV_SIGNAL_WAIT_GE(sig, v) nvshmem_signal_wait_until((sig), NVSHMEM_CMP_GE, (v))

#endif

/* put_latency.cu: gshmem's put_latency device benchmark (body: put_latency.cuh, shared with
 * apps/perf/nvshmem/put_latency.cu). Run with: gshmemrun -n 2 <this> [flags]
 * (GSHMEM_HEAP defaults to cuda here). */
#include "api_gshmem.cuh"
#include "put_latency.cuh"

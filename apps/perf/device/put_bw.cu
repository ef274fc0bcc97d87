/* put_bw.cu: gshmem's put_bw device benchmark (body: put_bw.cuh, shared with
 * apps/perf/nvshmem/put_bw.cu). Run with: gshmemrun -n 2 <this> [flags]
 * (GSHMEM_HEAP defaults to cuda here). */
#include "api_gshmem.cuh"
#include "put_bw.cuh"

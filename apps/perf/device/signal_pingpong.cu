/* signal_pingpong.cu: gshmem's signal_pingpong device benchmark (body: signal_pingpong.cuh, shared with
 * apps/perf/nvshmem/signal_pingpong.cu). Run with: gshmemrun -n 2 <this> [flags]
 * (GSHMEM_HEAP defaults to cuda here). */
#include "api_gshmem.cuh"
#include "signal_pingpong.cuh"

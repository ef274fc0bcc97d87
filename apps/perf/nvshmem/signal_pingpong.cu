/* signal_pingpong.cu: NVSHMEM's signal_pingpong device benchmark, the same body as gshmem's
 * (apps/perf/device/signal_pingpong.cuh). Run with mpirun -np 2 (see CMakeLists.txt). */
#include "api_nvshmem.cuh"
#include "signal_pingpong.cuh"

/* put_latency.cu: NVSHMEM's put_latency device benchmark, the same body as gshmem's
 * (apps/perf/device/put_latency.cuh). Run with mpirun -np 2 (see CMakeLists.txt). */
#include "api_nvshmem.cuh"
#include "put_latency.cuh"

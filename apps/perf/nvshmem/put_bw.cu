/* put_bw.cu: NVSHMEM's put_bw device benchmark, the same body as gshmem's
 * (apps/perf/device/put_bw.cuh). Run with mpirun -np 2 (see CMakeLists.txt). */
#include "api_nvshmem.cuh"
#include "put_bw.cuh"

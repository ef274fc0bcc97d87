/* bench_rt_nvshmem.cu: the runtime glue of apps/perf/device/bench_dev.h for
 * NVSHMEM 3.x, so NVSHMEM runs the very same benchmark bodies as gshmem.
 *
 * Start-up as NVSHMEM's own MPI examples: MPI_Init, the GPU chosen by the
 * node-local rank, nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM) on
 * MPI_COMM_WORLD. NVSHMEM_SYMMETRIC_SIZE defaults to what the benchmark
 * asks for unless the environment sets it. Max over PEs: MPI_Allreduce. */
#include "bench_dev.h"

#include <mpi.h>
#include <stdlib.h>
#include <nvshmem.h>
#include <nvshmemx.h>

static MPI_Comm brt_comm = MPI_COMM_WORLD;
static char brt_version[64];
static int brt_inited;   /* nvshmem initialised: global_exit usable */

static int brt_local_rank(void)
{
    MPI_Comm node;
    int r = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    return r;
}

int brt_init(const char *name, size_t heap_bytes)
{
    int argc = 0;
    char **argv = NULL;
    MPI_Init(&argc, &argv);
    int ndev = 0;
    BCU(cudaGetDeviceCount(&ndev));
    BCU(cudaSetDevice(brt_local_rank() % ndev));
    char v[32];
    snprintf(v, sizeof v, "%zu", heap_bytes + ((size_t)64 << 20));
    setenv("NVSHMEM_SYMMETRIC_SIZE", v, 0);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    attr.mpi_comm = &brt_comm;
    int rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
    if (rc != 0) {
        fprintf(stderr, "%s: nvshmemx_init_attr failed: %d\n", name, rc);
        return -1;
    }
    if (nvshmem_n_pes() < 2) {
        fprintf(stderr, "%s: needs 2 PEs, got %d (run with mpirun -np 2)\n", name,
                nvshmem_n_pes());
        return -1;
    }
    brt_inited = 1;
#if defined(NVSHMEM_VENDOR_MAJOR_VERSION)
    snprintf(brt_version, sizeof brt_version, "NVSHMEM %d.%d.%d", NVSHMEM_VENDOR_MAJOR_VERSION,
             NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION);
#else
    snprintf(brt_version, sizeof brt_version, "NVSHMEM");
#endif
    return 0;
}

const char *brt_name(void)
{
    return brt_version;
}

int brt_my_pe(void)
{
    return nvshmem_my_pe();
}

int brt_n_pes(void)
{
    return nvshmem_n_pes();
}

void *brt_malloc(size_t size)
{
    void *p = nvshmem_malloc(size);
    if (p == NULL) {
        fprintf(stderr, "PE %d: nvshmem_malloc(%zu) failed (NVSHMEM_SYMMETRIC_SIZE=%s)\n",
                nvshmem_my_pe(), size, getenv("NVSHMEM_SYMMETRIC_SIZE"));
        brt_fail();
    }
    return p;
}

void brt_free(void *p)
{
    nvshmem_free(p);
}

void *brt_peer_ptr(void *sym, int pe)
{
    return nvshmem_ptr(sym, pe);
}

void brt_barrier(void)
{
    BCU(cudaDeviceSynchronize());
    nvshmem_barrier_all();
}

void brt_max_over_pes(double *v, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, brt_comm);
}

void brt_fail(void)
{
    fflush(stdout);
    fflush(stderr);
    if (brt_inited)
        nvshmem_global_exit(1);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

void brt_finalize(void)
{
    BCU(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    nvshmem_finalize();
    MPI_Finalize();
}

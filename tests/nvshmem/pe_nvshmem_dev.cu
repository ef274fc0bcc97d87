/* pe_nvshmem_dev: a CUDA program written against NVSHMEM's names only
 * (nvshmem.h / nvshmemx.h), no -rdc, at 2+ PEs on a CUDA heap:
 *   - a collective launch (gridsize from
 *     nvshmemx_collective_launch_query_gridsize) whose kernel puts
 *     C-typed data (nvshmem_int_p, nvshmemx_float_put_nbi_block,
 *     nvshmem_long_put_signal_nbi), waits on the signal, signals with
 *     nvshmemx_signal_op and meets in nvshmem_barrier_all;
 *   - on-stream calls: nvshmemx_barrier_all_on_stream,
 *     nvshmemx_int_sum_reduce_on_stream;
 *   - a kernel the program loads itself (cuModuleLoad of
 *     nvshmem_kernel.cubin beside this program, compiled from
 *     pe_nvshmem_kernel.cu), given the device state by
 *     nvshmemx_cumodule_init, whose nvshmem_int_p reaches the right
 *     neighbour.
 * Every value is checked on the host. Prints
 * "pe_nvshmem_dev: OK (PE <me>)". */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <libgen.h>
#include <string.h>

#include "pe_check.h"

#define NF 1000

#define CUDA_OK(call)                                                                  \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        PE_CHECK(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));          \
    } while (0)
#define CU_OK(call)                                                                    \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        PE_CHECK(r_ == CUDA_SUCCESS, "%s: CUresult %d", #call, (int)r_);               \
    } while (0)

struct bufs {
    int *iv;
    float *fv;
    float *fsrc;   /* the block put's source: symmetric, as a remote transport needs */
    long *lv;
    uint64_t *sig;   /* [0]: put_signal, [1]: signal_op */
    int *errs;
};

__global__ void k_ring(bufs b, int me, int npes)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < NF; i += blockDim.x)
            b.fsrc[i] = (float)(me * NF + i);
        __syncthreads();
        if (threadIdx.x == 0) {
            nvshmem_int_p(&b.iv[0], 10 + me, right);
            long l = 7L * me;   /* a register source: fine for 8 B on every path */
            nvshmem_long_put_signal_nbi(b.lv, &l, 1, &b.sig[0], 1 + me, NVSHMEM_SIGNAL_SET,
                                        right);
        }
        nvshmemx_float_put_nbi_block(b.fv, b.fsrc, NF, right);
    }
    nvshmem_barrier_all();   /* quiets and meets: the data has landed */
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        nvshmem_signal_wait_until(&b.sig[0], NVSHMEM_CMP_EQ, (uint64_t)(1 + left));
        if (b.iv[0] != 10 + left || b.lv[0] != 7L * left)
            atomicAdd(b.errs, 1);
        nvshmemx_signal_op(&b.sig[1], 5, NVSHMEM_SIGNAL_ADD, right);
        nvshmemx_signal_op(&b.sig[1], 1, NVSHMEM_SIGNAL_ADD, right);
        nvshmem_uint64_wait_until(&b.sig[1], NVSHMEM_CMP_GE, 6);
        if (b.sig[1] != 6)
            atomicAdd(b.errs, 1);
    }
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < NF; i += blockDim.x * gridDim.x)
        if (b.fv[i] != (float)(left * NF + i))
            atomicAdd(b.errs, 1);
}

static void check_module(const char *self, int *iv, int me, int npes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", self);
    snprintf(path + strlen(dirname(path)), sizeof path - strlen(path), "/nvshmem_kernel.cubin");
    CUmodule mod;
    CUfunction fn;
    CU_OK(cuModuleLoad(&mod, path));
    int rc = nvshmemx_cumodule_init(mod);
    PE_CHECK(rc == 0, "nvshmemx_cumodule_init: %d", rc);
    CU_OK(cuModuleGetFunction(&fn, mod, "k_module_put"));
    int right = (me + 1) % npes, left = (me + npes - 1) % npes, value = 500 + me;
    void *args[] = {&iv, &value, &right};
    CU_OK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL));
    CUDA_OK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    int got = -1;
    CUDA_OK(cudaMemcpy(&got, &iv[1], sizeof got, cudaMemcpyDeviceToHost));
    PE_CHECK(got == 500 + left, "module kernel's nvshmem_int_p: %d, expected %d", got,
             500 + left);
    PE_CHECK(nvshmemx_cumodule_finalize(mod) == 0, "cumodule_finalize");
    CU_OK(cuModuleUnload(mod));
}

int main(int argc, char **argv)
{
    (void)argc;
    nvshmem_init();
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
    int dev = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE), n_dev = 0;
    CUDA_OK(cudaGetDeviceCount(&n_dev));
    CUDA_OK(cudaSetDevice(dev % n_dev));

    bufs b;
    b.iv = (int *)nvshmem_calloc(4, sizeof(int));
    b.fv = (float *)nvshmem_calloc(NF, sizeof(float));
    b.fsrc = (float *)nvshmem_calloc(NF, sizeof(float));
    b.lv = (long *)nvshmem_calloc(2, sizeof(long));
    b.sig = (uint64_t *)nvshmem_calloc(2, sizeof(uint64_t));
    CUDA_OK(cudaMalloc(&b.errs, sizeof(int)));
    CUDA_OK(cudaMemset(b.errs, 0, sizeof(int)));
    PE_CHECK(b.iv && b.fv && b.fsrc && b.lv && b.sig, "allocations");

    int grid = 0;
    dim3 block(256);
    int rc = nvshmemx_collective_launch_query_gridsize((const void *)k_ring, block, NULL, 0,
                                                       &grid);
    PE_CHECK(rc == NVSHMEMX_SUCCESS && grid >= 1, "query_gridsize: %d, grid %d", rc, grid);
    if (grid > 4)
        grid = 4;
    void *args[] = {&b, &me, &npes};
    nvshmem_barrier_all();
    rc = nvshmemx_collective_launch((const void *)k_ring, dim3(grid), block, args, 0, 0);
    PE_CHECK(rc == NVSHMEMX_SUCCESS, "collective_launch: %d", rc);
    CUDA_OK(cudaDeviceSynchronize());
    int errs = -1;
    CUDA_OK(cudaMemcpy(&errs, b.errs, sizeof errs, cudaMemcpyDeviceToHost));
    PE_CHECK(errs == 0, "k_ring: %d wrong values", errs);

    /* on-stream: a reduction of every PE's (me, 1) */
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *red = (int *)nvshmem_malloc(2 * sizeof(int)), mine[2] = {me, 1}, out[2];
    CUDA_OK(cudaMemcpy(&b.iv[2], mine, sizeof mine, cudaMemcpyHostToDevice));
    nvshmemx_barrier_all_on_stream(s);
    rc = nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, red, &b.iv[2], 2, s);
    PE_CHECK(rc == 0, "int_sum_reduce_on_stream: %d", rc);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(out, red, sizeof out, cudaMemcpyDeviceToHost));
    PE_CHECK(out[0] == npes * (npes - 1) / 2 && out[1] == npes, "sum_reduce_on_stream: %d %d",
             out[0], out[1]);

    check_module(argv[0], b.iv, me, npes);

    nvshmem_barrier_all();
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFree(b.errs));
    nvshmem_free(red);
    nvshmem_free(b.sig);
    nvshmem_free(b.lv);
    nvshmem_free(b.fsrc);
    nvshmem_free(b.fv);
    nvshmem_free(b.iv);
    nvshmem_finalize();
    printf("pe_nvshmem_dev: OK (PE %d)\n", me);
    return 0;
}

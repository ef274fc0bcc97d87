/* shift.cu: each PE writes its number into the next PE's GPU memory from a
 * kernel. (The README's first device example; tests/gpu/pe_readme.cu is
 * this very file, run with no GSHMEM_* variable set.) */
#include <stdio.h>
#include <gshmem_device.h>   /* the device API; includes gshmem.h */

__global__ void shift(int *dest)
{
    int me = gshmem_my_pe(), next = (me + 1) % gshmem_n_pes();
    gshmem_int32_p(dest, me, next);   /* a store into the next PE's GPU memory */
    gshmem_quiet();                   /* ... complete before the kernel ends */
}

int main(void)
{
    if (gshmem_init() != 0)   /* a CUDA build on a GPU machine: a heap in GPU memory */
        return 1;
    int me = gshmem_my_pe(), n = gshmem_n_pes(), got = -1;
    int *dest = (int *)gshmem_malloc(sizeof(int));
    shift<<<1, 1>>>(dest);
    cudaDeviceSynchronize();
    gshmem_barrier_all();     /* every PE's kernel has stored */
    cudaMemcpy(&got, dest, sizeof got, cudaMemcpyDeviceToHost);
    printf("PE %d of %d got %d\n", me, n, got);
    gshmem_free(dest);
    gshmem_finalize();
    return got == (me + n - 1) % n ? 0 : 1;
}

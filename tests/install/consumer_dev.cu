/* consumer_dev.cu: a CUDA source built against an installed gshmem (through
 * pkg-config, without -rdc): the installed device headers, with the device
 * queue and the aggregator they pull in, must compile on their own. Each PE
 * stores its number into the next PE's box from a kernel and checks what
 * the previous PE stored into its own. */
#include <cstdio>
#include <gshmem.h>
#include <gshmem_device.h>
#include <gshmem_agg.h>

__global__ void pass_on(int32_t *box)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    gshmem_int32_p(box, me, (me + 1) % n);
    gshmem_quiet();
}

int main(void)
{
    if (gshmem_init() != 0)
        return 2;
    int32_t *box = (int32_t *)gshmem_malloc(sizeof *box);
    pass_on<<<1, 1>>>(box);
    int ok = cudaDeviceSynchronize() == cudaSuccess;
    gshmem_barrier_all();
    int32_t got = -1, want = (gshmem_my_pe() + gshmem_n_pes() - 1) % gshmem_n_pes();
    if (ok && (cudaMemcpy(&got, box, sizeof got, cudaMemcpyDefault) != cudaSuccess || got != want)) {
        fprintf(stderr, "consumer_dev PE %d: box holds %d, want %d\n", gshmem_my_pe(), got, want);
        ok = 0;
    }
    gshmem_free(box);
    gshmem_finalize();
    if (ok)
        printf("consumer_dev PE OK\n");
    return ok ? 0 : 1;
}

/* pe_nvshmem_kernel: compiled to a cubin (nvshmem_kernel.cubin), loaded by
 * pe_nvshmem_dev with cuModuleLoad and given the device state by
 * nvshmemx_cumodule_init: one thread puts value into iv[1] at pe. */
#include <nvshmem.h>

extern "C" __global__ void k_module_put(int *iv, int value, int pe)
{
    nvshmem_int_p(&iv[1], value, pe);
    nvshmem_quiet();
}

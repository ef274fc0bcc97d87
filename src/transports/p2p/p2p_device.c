/* p2p_device.c: which GPU this PE uses, and CUDA error reporting. */
#include <stdlib.h>

#include "gshmem_types.h"
#include "p2p_impl.h"

int gshmemi_p2p_cuda_error(cudaError_t e, int rc_if, const char *what, int pe)
{
    GSHMEMI_ERROR(P2P_SUBSYS, "p2p: %s (PE %d) failed: %s (%s)", what, pe,
                  cudaGetErrorString(e), cudaGetErrorName(e));
    (void)cudaGetLastError();   /* clear a sticky-less error for later calls */
    return rc_if;
}

int gshmemi_p2p_select_device(const int *node_of, int my_pe, int n_pes, int *device_p)
{
    int n_dev = 0, local = 0, n_local = 0, dev;
    cudaError_t e;

    if (node_of == NULL || my_pe < 0 || my_pe >= n_pes) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: select_device: bad PE %d of %d (node map %p)", my_pe,
                      n_pes, (const void *)node_of);
        return GSHMEM_ERR_INVALID_ARG;
    }
    for (int pe = 0; pe < n_pes; pe++) {
        if (node_of[pe] != node_of[my_pe])
            continue;
        local += pe < my_pe;
        n_local++;
    }
    e = cudaGetDeviceCount(&n_dev);
    if (e != cudaSuccess || n_dev <= 0) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: PE %d has no CUDA device: cudaGetDeviceCount: %s "
                      "(CUDA_VISIBLE_DEVICES='%s'; set GSHMEM_HEAP=host to run without a GPU)",
                      my_pe, e != cudaSuccess ? cudaGetErrorString(e) : "0 devices",
                      getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES")
                                                     : "(unset)");
        (void)cudaGetLastError();
        return GSHMEM_ERR_NO_DEVICE;
    }
    dev = local % n_dev;
    e = cudaSetDevice(dev);
    if (e == cudaSuccess)
        e = cudaFree(NULL);   /* create the context now: a broken device fails here */
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: PE %d (local index %d of %d) cannot use CUDA device "
                      "%d of %d: %s", my_pe, local, n_local, dev, n_dev, cudaGetErrorString(e));
        (void)cudaGetLastError();
        return GSHMEM_ERR_NO_DEVICE;
    }
    if (n_local > n_dev && local == 0)
        GSHMEMI_INFO(P2P_SUBSYS, "p2p: %d PEs on this node share %d CUDA device(s)", n_local,
                     n_dev);
    GSHMEMI_INFO(P2P_SUBSYS, "p2p: PE %d (local index %d of %d) uses CUDA device %d of %d",
                 my_pe, local, n_local, dev, n_dev);
    *device_p = dev;
    return GSHMEM_SUCCESS;
}

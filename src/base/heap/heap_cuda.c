/* heap_cuda.c: the CUDA device-memory heap, on the calling thread's current
 * device (choosing the device is the init layer's business). Built only
 * with GSHMEM_ENABLE_CUDA; a plain C file over the CUDA runtime API. The
 * memory starts zeroed, like the host heap. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "gshmem_types.h"
#include "heap_impl.h"
#include "base/util/log.h"

/* The CUDA devices this process sees, without logging; cudaGetDeviceCount
 * creates no context. */
int gshmemi_heap_cuda_count(const char **err_p)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);

    if (e != cudaSuccess) {
        if (err_p != NULL)
            *err_p = cudaGetErrorString(e);
        (void)cudaGetLastError();   /* clear it so later calls do not see it */
        return 0;
    }
    return n > 0 ? n : 0;
}

/* See gshmemi_heap_cuda_loading_check (heap.h). The mode comes from the
 * driver (cuModuleGetLoadingMode through the runtime's entry point: no
 * link against libcuda); a driver without it loads eagerly. */
void gshmemi_heap_cuda_loading_mode_check(void)
{
    typedef int (*get_mode_fn)(int *mode);   /* CUresult (CUmoduleLoadingMode *) */
    enum { LAZY = 2 };                        /* CU_MODULE_LAZY_LOADING */
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    int mode = 0;

    if (cudaGetDriverEntryPointByVersion("cuModuleGetLoadingMode", &fn, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || fn == NULL || ((get_mode_fn)fn)(&mode) != 0) {
        (void)cudaGetLastError();
        return;
    }
    const char *env = getenv("CUDA_MODULE_LOADING");
    if (mode == LAZY)
        GSHMEMI_WARN(GSHMEMI_SUBSYS_HEAP, "CUDA loads kernels lazily in this process "
                     "(CUDA_MODULE_LOADING=%s): a kernel that waits for the queue path can "
                     "hang when a kernel the engine or the ofi target needs is loaded while it "
                     "waits; set CUDA_MODULE_LOADING=EAGER before the first CUDA call (gshmemrun "
                     "does; gshmem_init does when it comes first)", env != NULL ? env : "unset");
    else
        GSHMEMI_DEBUG(GSHMEMI_SUBSYS_HEAP, "CUDA loads kernels eagerly (CUDA_MODULE_LOADING=%s)",
                      env != NULL ? env : "unset");
}

static int gshmemi_heap_cuda_device(int *dev_p)
{
    int n = 0, dev;
    cudaError_t e = cudaGetDeviceCount(&n);

    if (e != cudaSuccess || n == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP,
                      "no CUDA device for a GPU heap: cudaGetDeviceCount: %s "
                      "(set GSHMEM_HEAP=host to use host memory)",
                      e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        (void)cudaGetLastError();
        return GSHMEM_ERR_NO_DEVICE;
    }
    e = cudaGetDevice(&dev);
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "cudaGetDevice failed: %s", cudaGetErrorString(e));
        return GSHMEM_ERR_NO_DEVICE;
    }
    *dev_p = dev;
    return GSHMEM_SUCCESS;
}

int gshmemi_heap_cuda_create(gshmemi_heap_t *h, size_t size)
{
    void *base = NULL;
    int dev;
    cudaError_t e;

    GSHMEMI_CHECK(gshmemi_heap_cuda_device(&dev));
    e = cudaMalloc(&base, size);
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP,
                      "cudaMalloc of a %zu-byte heap on device %d failed: %s "
                      "(lower GSHMEM_SYMMETRIC_SIZE?)",
                      size, dev, cudaGetErrorString(e));
        return e == cudaErrorMemoryAllocation ? GSHMEM_ERR_NOMEM : GSHMEM_ERR_NO_DEVICE;
    }
    e = cudaMemset(base, 0, size);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "clearing the %zu-byte GPU heap failed: %s", size,
                      cudaGetErrorString(e));
        cudaFree(base);
        return GSHMEM_ERR_NO_DEVICE;
    }
    cudaStream_t stream = NULL;
    e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "cudaStreamCreateWithFlags (the heap's copy stream "
                      "on device %d) failed: %s", dev, cudaGetErrorString(e));
        cudaFree(base);
        return GSHMEM_ERR_NO_DEVICE;
    }
    h->cuda_stream = stream;
    h->base = base;
    h->cuda_device = dev;
    GSHMEMI_DEBUG(GSHMEMI_SUBSYS_HEAP, "CUDA heap of %zu bytes at %p on device %d", size, base,
                  dev);
    return GSHMEM_SUCCESS;
}

void gshmemi_heap_cuda_destroy(gshmemi_heap_t *h)
{
    if (h->cuda_stream != NULL)
        (void)cudaStreamDestroy((cudaStream_t)h->cuda_stream);
    h->cuda_stream = NULL;
    if (h->base != NULL) {
        cudaError_t e = cudaFree(h->base);
        if (e != cudaSuccess)
            GSHMEMI_WARN(GSHMEMI_SUBSYS_HEAP, "cudaFree of the heap at %p failed: %s", h->base,
                         cudaGetErrorString(e));
    }
    h->base = NULL;
    h->cuda_device = -1;
}

/* A copy on the heap's non-blocking stream (see heap.h), issued with the
 * heap's device current: a user thread may have another device current,
 * or none set. */
int gshmemi_heap_cuda_copy_nb(const gshmemi_heap_t *h, void *dst, const void *src, size_t n)
{
    int cur = -1, prev = -1;
    cudaStream_t s = (cudaStream_t)h->cuda_stream;

    if (s == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "copy of %zu bytes %p -> %p: the CUDA heap has no "
                      "copy stream (not made by gshmemi_heap_create)", n, src, dst);
        return GSHMEM_ERR_INTERNAL;
    }
    if (cudaGetDevice(&cur) == cudaSuccess && cur != h->cuda_device &&
        cudaSetDevice(h->cuda_device) == cudaSuccess)
        prev = cur;
    cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    if (prev >= 0)
        (void)cudaSetDevice(prev);
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "cudaMemcpyAsync of %zu bytes %p -> %p on the heap's "
                      "stream (device %d) failed: %s", n, src, dst, h->cuda_device,
                      cudaGetErrorString(e));
        (void)cudaGetLastError();
        return GSHMEM_ERR_INTERNAL;
    }
    return GSHMEM_SUCCESS;
}

int gshmemi_heap_cuda_memset(void *dst, int c, size_t n)
{
    cudaError_t e = cudaMemset(dst, c, n);

    if (e == cudaSuccess)
        e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "cudaMemset of %zu bytes at %p failed: %s", n, dst,
                      cudaGetErrorString(e));
        return GSHMEM_ERR_INTERNAL;
    }
    return GSHMEM_SUCCESS;
}

int gshmemi_heap_cuda_is_device(const void *p)
{
    struct cudaPointerAttributes a;

    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

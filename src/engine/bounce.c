/* bounce.c: the engine's own bounce buffers in pinned host memory, for
 * transports that would otherwise copy device memory to device memory
 * while the user's kernel runs.
 *
 * Why: a target the transport maps for load/store (p2p: tp->ops->ptr is
 * not NULL) is reached with cudaMemcpyAsync between device addresses. When
 * the local buffer is device memory too (a GPU's queue entry always has
 * one), that is a copy between two addresses of the same device whenever
 * the PEs share a GPU, and CUDA serializes such a copy with the kernels
 * running in the context: the copy waits for the kernel that waits for the
 * copy. The engine avoids it: a PUT copies its source device-to-host into
 * an arena of pinned memory (on the engine's own non-blocking stream) and
 * hands the transport a host source; a GET lets the transport copy into
 * the arena, then copies host-to-device into the destination on the
 * engine's stream. Host<->device copies on non-blocking streams run beside
 * kernels. Ops larger than the arena go in arena-sized chunks; the arena is
 * reused after an engine quiet (which synchronizes the engine's stream).
 * Transports that copy through host memory by themselves (ofi's
 * active-message path) map nothing and are not affected. Host engines
 * (tests) never bounce. */
#include <string.h>

#include "proxy_impl.h"
#if defined(GSHMEM_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define GSHMEMI_PROXY_ARENA (4u << 20)

#if defined(GSHMEM_HAVE_CUDA)

static int proxy_bounce_err(cudaError_t e, const char *what, size_t n)
{
    GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: bounce buffer: %s (%zu bytes) failed: %s", what, n,
                  cudaGetErrorString(e));
    (void)cudaGetLastError();
    return GSHMEM_ERR_TRANSPORT;
}

int gshmemi_proxy_bounce_init(gshmemi_proxy_t *p)
{
    cudaError_t e;

    if (!p->cuda)
        return GSHMEM_SUCCESS;
    e = cudaStreamCreateWithFlags((cudaStream_t *)&p->bounce_stream, cudaStreamNonBlocking);
    if (e != cudaSuccess)
        return proxy_bounce_err(e, "cudaStreamCreateWithFlags", 0);
    e = cudaHostAlloc(&p->arena, GSHMEMI_PROXY_ARENA, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        cudaStreamDestroy((cudaStream_t)p->bounce_stream);
        p->bounce_stream = NULL;
        return proxy_bounce_err(e, "cudaHostAlloc of the bounce arena", GSHMEMI_PROXY_ARENA);
    }
    p->arena_size = GSHMEMI_PROXY_ARENA;
    p->arena_used = 0;
    return GSHMEM_SUCCESS;
}

void gshmemi_proxy_bounce_fini(gshmemi_proxy_t *p)
{
    if (p->arena != NULL)
        (void)cudaFreeHost(p->arena);
    if (p->bounce_stream != NULL)
        (void)cudaStreamDestroy((cudaStream_t)p->bounce_stream);
    p->arena = NULL;
    p->bounce_stream = NULL;
}

int gshmemi_proxy_bounce_wanted(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe,
                               uint64_t off, uint64_t laddr)
{
    struct cudaPointerAttributes a;

    if (!p->cuda || p->arena == NULL || tp->ops->ptr(tp, pe, off) == NULL)
        return 0;
    /* the common case, the local heap, without a CUDA call; registered
     * memory (gshmem_register) is asked about */
    if (gshmemi_heap_contains(p->env.heap, (const void *)(uintptr_t)laddr, 1))
        return p->env.heap->kind == GSHMEMI_HEAP_CUDA;
    if (cudaPointerGetAttributes(&a, (const void *)(uintptr_t)laddr) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

int gshmemi_proxy_bounce_sync(gshmemi_proxy_t *p)
{
    if (p->bounce_stream == NULL || p->arena_used == 0)
        return GSHMEM_SUCCESS;   /* nothing bounced since the last sync: no CUDA call */
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)p->bounce_stream);
    if (e != cudaSuccess)
        return proxy_bounce_err(e, "cudaStreamSynchronize of the bounce stream", 0);
    p->arena_used = 0;
    return GSHMEM_SUCCESS;
}

/* A chunk of n bytes in the arena (after an engine quiet if it is full). */
static int proxy_bounce_chunk(gshmemi_proxy_t *p, size_t n, char **buf_p)
{
    if (p->arena_used + n > p->arena_size)
        GSHMEMI_CHECK(gshmemi_proxy_quiet(p));   /* resets the arena */
    *buf_p = (char *)p->arena + p->arena_used;
    p->arena_used += (n + 63) & ~(size_t)63;
    return GSHMEM_SUCCESS;
}

int gshmemi_proxy_bounce_put(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe,
                            uint64_t off, const void *src, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t len = n - done < p->arena_size ? n - done : p->arena_size;
        char *buf;
        GSHMEMI_CHECK(proxy_bounce_chunk(p, len, &buf));
        cudaStream_t s = (cudaStream_t)p->bounce_stream;
        cudaError_t e = cudaMemcpyAsync(buf, (const char *)src + done, len,
                                        cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(s);
        if (e != cudaSuccess)
            return proxy_bounce_err(e, "device-to-host copy of a put's source", len);
        int rc = tp->ops->put(tp, pe, off + done, buf, len, 1);
        if (rc != 0)
            return rc;
        done += len;
    }
    return GSHMEM_SUCCESS;
}

int gshmemi_proxy_bounce_get(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe, void *dst,
                            uint64_t off, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t len = n - done < p->arena_size ? n - done : p->arena_size;
        char *buf;
        GSHMEMI_CHECK(proxy_bounce_chunk(p, len, &buf));
        int rc = tp->ops->get(tp, pe, buf, off + done, len, 0);
        if (rc != 0)
            return rc;
        cudaError_t e = cudaMemcpyAsync((char *)dst + done, buf, len, cudaMemcpyHostToDevice,
                                        (cudaStream_t)p->bounce_stream);
        if (e != cudaSuccess)
            return proxy_bounce_err(e, "host-to-device copy of a get's data", len);
        done += len;
    }
    return GSHMEM_SUCCESS;
}

#else /* no CUDA: host engines never bounce */

int gshmemi_proxy_bounce_init(gshmemi_proxy_t *p) { (void)p; return GSHMEM_SUCCESS; }
void gshmemi_proxy_bounce_fini(gshmemi_proxy_t *p) { (void)p; }
int gshmemi_proxy_bounce_wanted(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe,
                               uint64_t off, uint64_t laddr)
{
    (void)p, (void)tp, (void)pe, (void)off, (void)laddr;
    return 0;
}
int gshmemi_proxy_bounce_sync(gshmemi_proxy_t *p) { (void)p; return GSHMEM_SUCCESS; }
int gshmemi_proxy_bounce_put(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe,
                            uint64_t off, const void *src, size_t n)
{
    (void)p, (void)tp, (void)pe, (void)off, (void)src, (void)n;
    return GSHMEM_ERR_NOT_SUPPORTED;
}
int gshmemi_proxy_bounce_get(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe, void *dst,
                            uint64_t off, size_t n)
{
    (void)p, (void)tp, (void)pe, (void)dst, (void)off, (void)n;
    return GSHMEM_ERR_NOT_SUPPORTED;
}

#endif

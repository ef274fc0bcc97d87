/* ofi_am_mem.c: the memory operations of the active-message path, for a CUDA
 * heap (copies on private non-blocking streams, AMOs with the system-scope
 * kernels of src/base/heap/heap_cuda_amo.cu) and for a host heap (plain copies
 * and CPU atomics: the mode the unit tests use to run the protocol without
 * a GPU). Non-blocking streams: a legacy-default-stream copy would wait for
 * the user's kernels, which may be spinning on the very data we bring. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "base/heap/heap_cuda_amo.h"
#include "base/heap/heap_cuda_batch.h"
#include "ofi_am.h"

static int ofi_smem_fail(cudaError_t e, const char *what, size_t n, const void *p)
{
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: %s (%zu bytes at %p) failed: %s", what, n, p,
                  cudaGetErrorString(e));
    (void)cudaGetLastError();
    return GSHMEM_ERR_TRANSPORT;
}

int ofi_smem_init(ofi_am_t *st, const gshmemi_heap_t *heap, int batch)
{
    st->cuda = heap->kind == GSHMEMI_HEAP_CUDA;
    st->dev = heap->cuda_device;
    if (!st->cuda)
        return 0;
    int prev;
    ofi_smem_dev_enter(st, &prev);
    cudaStream_t a = NULL, b = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    ofi_smem_dev_leave(prev);
    if (e != cudaSuccess) {
        if (a)
            cudaStreamDestroy(a);
        return ofi_smem_fail(e, "cudaStreamCreateWithFlags", 0, NULL);
    }
    st->stream = a;
    st->ustream = b;
    if (batch && gshmemi_cbatch_create(st->dev, st->stream, "ofi target", &st->batch) != 0)
        GSHMEMI_WARN(OFI_SUBSYS, "ofi active messages: no small-op batch: each small record "
                     "costs a copy");
    return 0;
}

void ofi_smem_fini(ofi_am_t *st)
{
    if (st->batch) {
        (void)cudaStreamSynchronize((cudaStream_t)st->stream);   /* its kernels are done */
        gshmemi_cbatch_destroy(st->batch);
        st->batch = NULL;
    }
    if (st->stream)
        cudaStreamDestroy((cudaStream_t)st->stream);
    if (st->ustream)
        cudaStreamDestroy((cudaStream_t)st->ustream);
    st->stream = st->ustream = NULL;
}

/* Pinned host memory (cudaHostAlloc) for a CUDA heap: copies from and to
 * it are true asynchronous DMA. */
int ofi_smem_alloc(ofi_am_t *st, size_t len, void **p_p)
{
    void *p = NULL;
    if (st->cuda) {
        cudaError_t e = cudaHostAlloc(&p, len, cudaHostAllocPortable);
        if (e != cudaSuccess)
            return ofi_smem_fail(e, "cudaHostAlloc of bounce buffers", len, NULL);
    } else if (posix_memalign(&p, 4096, len) != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: cannot allocate %zu bytes of bounce buffers",
                      len);
        return GSHMEM_ERR_NOMEM;
    }
    memset(p, 0, len);
    *p_p = p;
    return 0;
}

void ofi_smem_free(ofi_am_t *st, void *p)
{
    if (!p)
        return;
    if (st->cuda)
        cudaFreeHost(p);
    else
        free(p);
}

void ofi_smem_dev_enter(ofi_am_t *st, int *prev_p)
{
    int cur = -1;
    *prev_p = -1;
    if (!st->cuda)
        return;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != st->dev &&
        cudaSetDevice(st->dev) == cudaSuccess)
        *prev_p = cur;
    (void)cudaGetLastError();
}

void ofi_smem_dev_leave(int prev)
{
    if (prev >= 0)
        (void)cudaSetDevice(prev);
}

/* Work about to enter stream: when it is the target's stream, the batch's
 * records go first (stream order is issue order). */
static int ofi_smem_order(ofi_am_t *st, void *stream)
{
    return st->batch != NULL && stream == st->stream ? gshmemi_cbatch_flush(st->batch) : 0;
}

/* 1 when p is device (or managed) memory: copy it with the CUDA runtime. */
static int ofi_smem_is_device_mem(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

static int ofi_smem_copy_sync(ofi_am_t *st, void *stream, void *dst, const void *src,
                              size_t n, const char *what)
{
    cudaStream_t cs = (cudaStream_t)stream;
    int prev;
    GSHMEMI_CHECK(ofi_smem_order(st, stream));
    ofi_smem_dev_enter(st, &prev);   /* the stream belongs to the heap's device */
    cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, cs);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(cs);
    ofi_smem_dev_leave(prev);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, what, n, dst);
}

int ofi_smem_from_user(ofi_am_t *st, void *stream, void *host_dst, const void *src, size_t n)
{
    if (st->cuda && ofi_smem_is_device_mem(src))
        return ofi_smem_copy_sync(st, stream, host_dst, src, n, "copy out of a device buffer");
    memcpy(host_dst, src, n);
    return 0;
}

int ofi_smem_to_user(ofi_am_t *st, void *stream, void *dst, const void *host_src, size_t n)
{
    if (st->cuda && ofi_smem_is_device_mem(dst))
        return ofi_smem_copy_sync(st, stream, dst, host_src, n, "copy into a device buffer");
    memcpy(dst, host_src, n);
    return 0;
}

int ofi_smem_is_device(ofi_am_t *st, const gshmemi_heap_t *heap, const void *src)
{
    if (!st->cuda)
        return 0;
    if (gshmemi_heap_contains(heap, src, 1))
        return 1;   /* the usual case (the engine's puts): no runtime call */
    return ofi_smem_is_device_mem(src);
}

int ofi_smem_rows_from_device(ofi_am_t *st, void *dst, size_t dpitch, const void *src,
                              size_t width, size_t height)
{
    cudaError_t e = height == 1
                        ? cudaMemcpyAsync(dst, src, width, cudaMemcpyDeviceToHost,
                                          (cudaStream_t)st->ustream)
                        : cudaMemcpy2DAsync(dst, dpitch, src, width, width, height,
                                            cudaMemcpyDeviceToHost, (cudaStream_t)st->ustream);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, "copy out of a device buffer", width * height,
                                                src);
}

static int ofi_smem_events_make(ofi_am_t *st, void ***ev_p, int n)
{
    void **ev = calloc((size_t)n, sizeof *ev);
    if (!ev) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory for %d events", n);
        return GSHMEM_ERR_NOMEM;
    }
    *ev_p = ev;
    int prev;
    ofi_smem_dev_enter(st, &prev);
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < n && e == cudaSuccess; i++)
        e = cudaEventCreateWithFlags((cudaEvent_t *)&ev[i], cudaEventDisableTiming);
    ofi_smem_dev_leave(prev);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, "cudaEventCreateWithFlags", 0, NULL);
}

static void ofi_smem_events_free(void ***ev_p, int n)
{
    void **ev = *ev_p;
    if (!ev)
        return;
    for (int i = 0; i < n; i++)
        if (ev[i])
            cudaEventDestroy((cudaEvent_t)ev[i]);
    free(ev);
    *ev_p = NULL;
}

int ofi_smem_events_init(ofi_am_t *st)
{
    if (!st->cuda)
        return 0;
    GSHMEMI_CHECK(ofi_smem_events_make(st, &st->ev, OFI_AM_TX));
    return ofi_smem_events_make(st, &st->tev, OFI_AM_BATCHES);
}

void ofi_smem_events_fini(ofi_am_t *st)
{
    ofi_smem_events_free(&st->ev, OFI_AM_TX);
    ofi_smem_events_free(&st->tev, OFI_AM_BATCHES);
}

int ofi_smem_mark(ofi_am_t *st, void *ev, void *stream)
{
    if (!st->cuda)
        return 0;
    GSHMEMI_CHECK(ofi_smem_order(st, stream));
    cudaError_t e = cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)stream);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, "cudaEventRecord", 0, NULL);
}

int ofi_smem_marked(ofi_am_t *st, void *ev)
{
    if (!st->cuda)
        return 1;
    cudaError_t e = cudaEventQuery((cudaEvent_t)ev);
    if (e == cudaSuccess)
        return 1;
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return 0;
    }
    return ofi_smem_fail(e, "a copy (event)", 0, NULL);
}

int ofi_smem_wait_copies(ofi_am_t *st)
{
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)st->ustream);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, "copy out of a device buffer", 0, NULL);
}

int ofi_smem_heap_write_rows(ofi_am_t *st, void *heap_dst, size_t dpitch, const void *host_src,
                             size_t spitch, size_t width, size_t height)
{
    if (!st->cuda) {
        for (size_t r = 0; r < height; r++)
            memcpy((char *)heap_dst + r * dpitch, (const char *)host_src + r * spitch, width);
        return 0;
    }
    if (st->batch != NULL && width <= sizeof(uint64_t)) {   /* records: no CUDA call */
        for (size_t r = 0; r < height; r++) {
            uint64_t v = 0;
            memcpy(&v, (const char *)host_src + r * spitch, width);   /* little-endian */
            GSHMEMI_CHECK(gshmemi_cbatch_add(st->batch, (char *)heap_dst + r * dpitch,
                                             GSHMEMI_CBATCH_PUT, v, (uint32_t)width, 0));
        }
        return 0;
    }
    GSHMEMI_CHECK(ofi_smem_order(st, st->stream));
    cudaStream_t cs = (cudaStream_t)st->stream;
    cudaError_t e = height == 1 ? cudaMemcpyAsync(heap_dst, host_src, width,
                                                  cudaMemcpyHostToDevice, cs)
                                : cudaMemcpy2DAsync(heap_dst, dpitch, host_src, spitch, width,
                                                    height, cudaMemcpyHostToDevice, cs);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, "cudaMemcpy2DAsync into the heap",
                                                width * height, heap_dst);
}

void ofi_smem_heap_fence(ofi_am_t *st)
{
    if (st->batch != NULL)
        gshmemi_cbatch_fence(st->batch);
}

int ofi_smem_heap_read(ofi_am_t *st, void *host_dst, const void *heap_src, size_t n)
{
    if (!st->cuda) {
        memcpy(host_dst, heap_src, n);
        return 0;
    }
    GSHMEMI_CHECK(ofi_smem_order(st, st->stream));
    cudaStream_t cs = (cudaStream_t)st->stream;
    cudaError_t e = cudaMemcpyAsync(host_dst, heap_src, n, cudaMemcpyDeviceToHost, cs);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(cs);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, "copy out of the heap", n, heap_src);
}

int ofi_smem_sync(ofi_am_t *st)
{
    if (!st->cuda)
        return 0;
    GSHMEMI_CHECK(ofi_smem_order(st, st->stream));
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)st->stream);
    return e == cudaSuccess ? 0 : ofi_smem_fail(e, "cudaStreamSynchronize", 0, NULL);
}

/* CPU atomics on a host heap (the no-GPU test mode). */
#define OFI_SMEM_HOST_AMO(T, p, op, v, c, old)                                    \
    do {                                                                          \
        T *p_ = (T *)(p), v_ = (T)(v), c_ = (T)(c);                               \
        switch (op) {                                                             \
        case GSHMEMI_AMO_SET: __atomic_store_n(p_, v_, __ATOMIC_SEQ_CST); break;  \
        case GSHMEMI_AMO_ADD: __atomic_fetch_add(p_, v_, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH: (old) = __atomic_load_n(p_, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH_ADD:                                               \
            (old) = __atomic_fetch_add(p_, v_, __ATOMIC_SEQ_CST); break;          \
        case GSHMEMI_AMO_SWAP: (old) = __atomic_exchange_n(p_, v_, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_CSWAP:                                                   \
            __atomic_compare_exchange_n(p_, &c_, v_, 0, __ATOMIC_SEQ_CST,         \
                                        __ATOMIC_SEQ_CST);                        \
            (old) = c_;                                                           \
            break;                                                                \
        case GSHMEMI_AMO_AND: __atomic_fetch_and(p_, v_, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_OR: __atomic_fetch_or(p_, v_, __ATOMIC_SEQ_CST); break;  \
        case GSHMEMI_AMO_XOR: __atomic_fetch_xor(p_, v_, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH_AND: (old) = __atomic_fetch_and(p_, v_, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH_OR: (old) = __atomic_fetch_or(p_, v_, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH_XOR: (old) = __atomic_fetch_xor(p_, v_, __ATOMIC_SEQ_CST); break; \
        }                                                                         \
    } while (0)

int ofi_smem_heap_amo(ofi_am_t *st, void *heap_p, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                      const void *operand, const void *compare, void *result)
{
    if (st->cuda) {
        GSHMEMI_CHECK(ofi_smem_order(st, st->stream));
        return gshmemi_cuda_amo(heap_p, op, dt, operand, compare, result, st->stream);
    }
    uint64_t v = 0, c = 0;
    size_t sz = gshmemi_dtype_size(dt);
    if (operand)
        memcpy(&v, operand, sz);
    if (compare)
        memcpy(&c, compare, sz);
    if (dt == GSHMEMI_DT_INT32) {
        uint32_t old = 0;
        OFI_SMEM_HOST_AMO(uint32_t, heap_p, op, v, c, old);
        if (result)
            memcpy(result, &old, sizeof old);
    } else {
        uint64_t old = 0;
        OFI_SMEM_HOST_AMO(uint64_t, heap_p, op, v, c, old);
        if (result)
            memcpy(result, &old, sizeof old);
    }
    return 0;
}

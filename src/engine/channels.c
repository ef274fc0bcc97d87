/* channels.c: the memory of the engine's channels.
 *
 * Per ring: slots (capacity WQEs), the tail / completed / status words (each
 * on its own 128-byte line), the operand words of inline data, and the
 * result slots and payloads (one array each for all rings) in pinned host
 * memory mapped into the GPU; the head and the producers' cache (each on
 * its own line) in device memory. The ring descriptors (device addresses)
 * and the gshmemi_queue_t that the device state points to are in device
 * memory. A host engine (tests) uses plain host memory for all of it. */
#include <stdlib.h>
#include <string.h>

#include "proxy_impl.h"
#if defined(GSHMEM_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define PROXY_LINE 128

#ifdef GSHMEM_HAVE_CUDA
static const char *proxy_kind_name(int kind)
{
    return kind == GSHMEMI_PROXY_MEM_PINNED ? "pinned host" :
           kind == GSHMEMI_PROXY_MEM_DEVICE ? "device" : "host";
}
#endif

/* n zeroed bytes of kind (HOST for everything in a host engine); *host_p
 * is the host view (NULL for device memory), *dev_p the producers' view. */
static int proxy_alloc(gshmemi_proxy_t *p, int kind, size_t n, void **host_p, void **dev_p)
{
    void *h = NULL, *d = NULL;

    if (p->n_mem == GSHMEMI_PROXY_MAX_MEM) {
        GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: more than %d channel allocations",
                      GSHMEMI_PROXY_MAX_MEM);
        return GSHMEM_ERR_INTERNAL;
    }
    if (!p->cuda)
        kind = GSHMEMI_PROXY_MEM_HOST;
#if defined(GSHMEM_HAVE_CUDA)
    cudaError_t e = cudaSuccess;
    if (kind == GSHMEMI_PROXY_MEM_PINNED) {
        e = cudaHostAlloc(&h, n, cudaHostAllocMapped | cudaHostAllocPortable);
        if (e == cudaSuccess) {
            memset(h, 0, n);
            e = cudaHostGetDevicePointer(&d, h, 0);
        }
    } else if (kind == GSHMEMI_PROXY_MEM_DEVICE) {
        e = cudaMalloc(&d, n);
        if (e == cudaSuccess)
            e = cudaMemset(d, 0, n);
    }
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: allocating %zu bytes of %s memory for the "
                      "channels failed: %s", n, proxy_kind_name(kind), cudaGetErrorString(e));
        if (h != NULL)
            cudaFreeHost(h);
        else if (d != NULL)
            cudaFree(d);
        (void)cudaGetLastError();
        return GSHMEM_ERR_NOMEM;
    }
#endif
    if (kind == GSHMEMI_PROXY_MEM_HOST) {
        h = aligned_alloc(PROXY_LINE, (n + PROXY_LINE - 1) / PROXY_LINE * PROXY_LINE);
        if (h == NULL) {
            GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: out of host memory (%zu bytes for the "
                          "channels)", n);
            return GSHMEM_ERR_NOMEM;
        }
        memset(h, 0, n);
        d = h;
    }
    p->mem[p->n_mem].p = kind == GSHMEMI_PROXY_MEM_PINNED ? h : d;
    p->mem[p->n_mem].kind = kind;
    p->n_mem++;
    *host_p = kind == GSHMEMI_PROXY_MEM_DEVICE ? NULL : h;
    *dev_p = d;
    return GSHMEM_SUCCESS;
}

/* Host -> producers' memory (a device copy for a CUDA engine). */
static int proxy_upload(gshmemi_proxy_t *p, void *dst, const void *src, size_t n)
{
#if defined(GSHMEM_HAVE_CUDA)
    if (p->cuda) {
        cudaError_t e = cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
        /* the copy (pageable) and proxy_alloc's cudaMemsets may still be in
         * flight on the legacy stream, which does not order the producers'
         * non-blocking streams: done here, not by a later sync elsewhere */
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(0);
        if (e != cudaSuccess) {
            GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: copying the channel descriptors (%zu bytes) "
                          "to the device failed: %s", n, cudaGetErrorString(e));
            return GSHMEM_ERR_NO_DEVICE;
        }
        return GSHMEM_SUCCESS;
    }
#else
    (void)p;
#endif
    memcpy(dst, src, n);
    return GSHMEM_SUCCESS;
}

/* Ring k: its memory, the producers' descriptor in *dev_ring, the host one
 * in the consumer. */
static int proxy_ring_create(gshmemi_proxy_t *p, uint32_t k, gshmemi_ring_t *dev_ring)
{
    gshmemi_proxy_chan_t *ch = &p->chan[k];
    void *slots_h, *slots_d, *ctr_h, *ctr_d, *operands_h, *operands_d, *dv_h, *dv_d;
    gshmemi_ring_t hr;

    GSHMEMI_CHECK(proxy_alloc(p, GSHMEMI_PROXY_MEM_PINNED, p->capacity * sizeof(gshmemi_wqe_t),
                              &slots_h, &slots_d));
    GSHMEMI_CHECK(proxy_alloc(p, GSHMEMI_PROXY_MEM_PINNED, 3 * PROXY_LINE, &ctr_h, &ctr_d));
    GSHMEMI_CHECK(proxy_alloc(p, GSHMEMI_PROXY_MEM_PINNED, p->capacity * sizeof(uint64_t),
                              &operands_h, &operands_d));
    GSHMEMI_CHECK(proxy_alloc(p, GSHMEMI_PROXY_MEM_DEVICE, 2 * PROXY_LINE, &dv_h, &dv_d));
    char *c_h = ctr_h, *c_d = ctr_d, *d = dv_d;
    int rc = gshmemi_ring_init(&hr, slots_h, p->capacity, (uint64_t *)c_h,
                               (uint64_t *)(c_h + PROXY_LINE), (uint32_t *)(c_h + 2 * PROXY_LINE),
                               (uint64_t *)d, (gshmemi_ring_cache_t *)(d + PROXY_LINE));
    if (rc == 0)
        rc = gshmemi_ring_init(dev_ring, slots_d, p->capacity, (uint64_t *)c_d,
                               (uint64_t *)(c_d + PROXY_LINE),
                               (uint32_t *)(c_d + 2 * PROXY_LINE), (uint64_t *)d,
                               (gshmemi_ring_cache_t *)(d + PROXY_LINE));
    if (rc != 0) {
        GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: ring %u: capacity %u is not a power of two >= 2",
                      k, p->capacity);
        return rc;
    }
    gshmemi_ring_consumer_init(&ch->c, &hr, GSHMEMI_PROXY_PUBLISH);
    ch->operands = operands_h;
    ch->executed = 0;
    return GSHMEM_SUCCESS;
}

int gshmemi_proxy_channels_create(gshmemi_proxy_t *p)
{
    gshmemi_ring_t rings[GSHMEMI_QUEUE_CHANNELS];
    gshmemi_queue_t q;
    void *res_h, *res_d, *pay_h, *pay_d, *rings_h, *rings_d, *q_h, *q_d;
    int rc;

    memset(rings, 0, sizeof rings);
    for (uint32_t k = 0; k < p->n_chan; k++)
        GSHMEMI_CHECK_GOTO(proxy_ring_create(p, k, &rings[k]), rc, fail);
    GSHMEMI_CHECK_GOTO(proxy_alloc(p, GSHMEMI_PROXY_MEM_PINNED, (size_t)p->n_chan *
                                   p->capacity * sizeof(gshmemi_qresult_t), &res_h, &res_d),
                       rc, fail);
    size_t pay_ring = gshmemi_qpayload_ring_bytes(p->capacity);
    GSHMEMI_CHECK_GOTO(proxy_alloc(p, GSHMEMI_PROXY_MEM_PINNED, p->n_chan * pay_ring, &pay_h,
                                   &pay_d), rc, fail);
    for (uint32_t k = 0; k < p->n_chan; k++) {
        p->chan[k].results = (gshmemi_qresult_t *)res_h + (size_t)k * p->capacity;
        p->chan[k].payload = (const unsigned char *)pay_h + k * pay_ring;
    }
    GSHMEMI_CHECK_GOTO(proxy_alloc(p, GSHMEMI_PROXY_MEM_DEVICE, p->n_chan * sizeof rings[0],
                                   &rings_h, &rings_d), rc, fail);
    GSHMEMI_CHECK_GOTO(proxy_upload(p, rings_d, rings, p->n_chan * sizeof rings[0]), rc, fail);
    memset(&q, 0, sizeof q);
    q.ch.rings = rings_d;
    q.ch.count = p->n_chan;
    q.results = res_d;
    q.payload = pay_d;
    q.capacity = p->capacity;
    GSHMEMI_CHECK_GOTO(proxy_alloc(p, GSHMEMI_PROXY_MEM_DEVICE, sizeof q, &q_h, &q_d), rc,
                       fail);
    GSHMEMI_CHECK_GOTO(proxy_upload(p, q_d, &q, sizeof q), rc, fail);
    p->queue = q_d;
    (void)rings_h, (void)q_h;
    return GSHMEM_SUCCESS;

fail:
    gshmemi_proxy_channels_destroy(p);
    return rc;
}

void gshmemi_proxy_channels_destroy(gshmemi_proxy_t *p)
{
    for (int i = p->n_mem - 1; i >= 0; i--) {
#if defined(GSHMEM_HAVE_CUDA)
        if (p->mem[i].kind == GSHMEMI_PROXY_MEM_PINNED)
            (void)cudaFreeHost(p->mem[i].p);
        else if (p->mem[i].kind == GSHMEMI_PROXY_MEM_DEVICE)
            (void)cudaFree(p->mem[i].p);
        else
#endif
            free(p->mem[i].p);
    }
    p->n_mem = 0;
    p->queue = NULL;
}

uint64_t gshmemi_proxy_host_take(const gshmemi_queue_t *q, uint32_t ch, uint64_t idx)
{
    gshmemi_qresult_t *r = &q->results[(size_t)ch * q->capacity + (idx & (q->capacity - 1))];
    uint64_t v = __atomic_load_n(&r->value, __ATOMIC_RELAXED);
    __atomic_store_n(&r->busy, 0, __ATOMIC_RELEASE);
    return v;
}

int gshmemi_proxy_host_quiet(const gshmemi_queue_t *q, uint32_t *ch_p)
{
    for (uint32_t c = 0; c < q->ch.count; c++) {
        uint64_t h = __atomic_load_n(q->ch.rings[c].head, __ATOMIC_RELAXED);
        int rc = h > 0 ? gshmemi_ring_quiet(&q->ch.rings[c], h - 1) : 0;
        if (rc != 0) {
            *ch_p = c;
            return rc;
        }
    }
    return 0;
}

/* p2p_ops.c: the data path of the p2p transport and its ops table.
 *
 * Every copy and every AMO kernel goes, in issue order, into one
 * non-blocking stream of this PE's device:
 *   - put/get: cudaMemcpyAsync(cudaMemcpyDefault) to/from the peer's
 *     mapped heap (UVA tells host from device memory on either side);
 *     blocking ones synchronize the stream, nbi ones complete at quiet;
 *   - amo: a one-thread kernel (src/base/heap/heap_cuda_amo.cu) doing a
 *     system-scope atomic on the peer's word; fetching ones write the old
 *     value to a pinned host word and synchronize. The CPU cannot do atomics on GPU memory; these
 *     kernels are atomic with each other and with device-side atomics of
 *     any GPU on the word, which is what hw_atomics = 1 promises;
 *   - put_value (1..8 host bytes) and amo_nbi (SET/ADD): a record in the
 *     small-op batch (base/heap/heap_cuda_batch.cu), no CUDA call each; one kernel
 *     applies a buffer of them, launched before any other work enters the
 *     stream, at progress (so a signal reaches a peer that waits without a
 *     quiet) and at quiet;
 *   - fence: a stream runs its work one item after the other, each
 *     complete before the next starts; inside a batch buffer the next
 *     record starts an ordered segment;
 *   - quiet: launch the batch, synchronize the stream.
 * Calls are made on this PE's device; the caller's current device is put
 * back afterwards. AMO results come back through gshmemi_cuda_amo
 * (src/base/heap/heap_cuda_amo.cu). */
#include <string.h>

#include "gshmem_types.h"
#include "base/heap/heap_cuda_amo.h"
#include "p2p_impl.h"

void p2p_dev_enter(const p2p_priv_t *priv, int *prev_p)
{
    int cur = -1;

    *prev_p = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != priv->device &&
        cudaSetDevice(priv->device) == cudaSuccess)
        *prev_p = cur;
    (void)cudaGetLastError();
}

void p2p_dev_leave(int prev)
{
    if (prev >= 0)
        (void)cudaSetDevice(prev);
}

/* The mapped address of [off, off+n) at pe, checked; logs what is wrong. */
static int p2p_addr(gshmemi_transport_t *tp, int pe, uint64_t off, size_t n, const char *op,
                    unsigned char **addr_p)
{
    p2p_priv_t *priv = tp->priv;

    if (priv == NULL || pe < 0 || pe >= priv->n_pes || priv->base[pe] == NULL) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: %s to PE %d: not reached by p2p (%d PEs)", op, pe,
                      priv != NULL ? priv->n_pes : 0);
        return GSHMEM_ERR_INVALID_PE;
    }
    if (off > priv->size || n > priv->size - off) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: %s of %zu bytes at offset %llu of PE %d is outside "
                      "its %zu-byte heap", op, n, (unsigned long long)off, pe, priv->size);
        return GSHMEM_ERR_OUT_OF_HEAP;
    }
    *addr_p = (unsigned char *)priv->base[pe] + off;
    return GSHMEM_SUCCESS;
}

/* One copy in the stream; synchronous unless nbi. */
static int p2p_copy(p2p_priv_t *priv, void *dst, const void *src, size_t n, int nbi,
                    const char *op, int pe)
{
    cudaError_t e = cudaSuccess;
    int prev;

    if (n == 0)
        return GSHMEM_SUCCESS;
    GSHMEMI_CHECK(p2p_batch_flush(priv));   /* the stream keeps issue order */
    p2p_dev_enter(priv, &prev);
    e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, priv->stream);
    if (e == cudaSuccess && !nbi)
        e = cudaStreamSynchronize(priv->stream);
    p2p_dev_leave(prev);
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: %s%s of %zu bytes %p -> %p (PE %d) failed: %s", op,
                      nbi ? "_nbi" : "", n, src, dst, pe, cudaGetErrorString(e));
        (void)cudaGetLastError();
        return GSHMEM_ERR_TRANSPORT;
    }
    return GSHMEM_SUCCESS;
}

static int p2p_put(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                   size_t n, int nbi)
{
    unsigned char *dst;

    GSHMEMI_CHECK(p2p_addr(tp, pe, dst_off, n, "put", &dst));
    return p2p_copy(tp->priv, dst, src, n, nbi, "put", pe);
}

/* 1..8 host bytes: a batch record (base/heap/heap_cuda_batch.cu), no CUDA call. */
static int p2p_put_value(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                         size_t n)
{
    p2p_priv_t *priv = tp->priv;
    unsigned char *dst;
    uint64_t v = 0;

    GSHMEMI_CHECK(p2p_addr(tp, pe, dst_off, n, "put", &dst));
    if (priv->batch == NULL || n == 0 || n > sizeof v)
        return p2p_copy(priv, dst, src, n, 1, "put", pe);
    memcpy(&v, src, n);   /* little-endian: the first n bytes */
    return gshmemi_cbatch_add(priv->batch, dst, GSHMEMI_CBATCH_PUT, v, (uint32_t)n, 0);
}

static int p2p_get(gshmemi_transport_t *tp, int pe, void *dst, uint64_t src_off, size_t n,
                   int nbi)
{
    unsigned char *src;

    GSHMEMI_CHECK(p2p_addr(tp, pe, src_off, n, "get", &src));
    return p2p_copy(tp->priv, dst, src, n, nbi, "get", pe);
}

/* Checks an AMO's arguments and finds its target word. */
static int p2p_amo_target(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op,
                          gshmemi_dtype_t dt, uint64_t off, const void *operand,
                          const void *compare, unsigned char **addr_p)
{
    size_t sz = gshmemi_dtype_size(dt);

    if ((unsigned)op > GSHMEMI_AMO_OP_MAX || (unsigned)dt > GSHMEMI_DT_UINT64 ||
        (operand == NULL && op != GSHMEMI_AMO_FETCH) ||
        (compare == NULL && op == GSHMEMI_AMO_CSWAP)) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: AMO op %d dtype %d to PE %d: unknown op/type or "
                      "missing operand (%p) / compare (%p)", (int)op, (int)dt, pe, operand,
                      compare);
        return GSHMEM_ERR_INVALID_ARG;
    }
    GSHMEMI_CHECK(p2p_addr(tp, pe, off, sz, "AMO", addr_p));
    if (off % sz != 0) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: AMO on a %zu-byte type at offset %llu of PE %d is "
                      "misaligned", sz, (unsigned long long)off, pe);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return GSHMEM_SUCCESS;
}

/* Queue one AMO kernel (src/base/heap/heap_cuda_amo.cu) in the stream; it
 * waits and writes the old value out when fetching, the stream is
 * synchronized too when wait is set. */
static int p2p_amo_issue(p2p_priv_t *priv, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                         void *addr, const void *operand, const void *compare, void *result,
                         int wait)
{
    cudaError_t e = cudaSuccess;
    int prev, rc;

    GSHMEMI_CHECK(p2p_batch_flush(priv));   /* the stream keeps issue order */
    p2p_dev_enter(priv, &prev);
    rc = gshmemi_cuda_amo(addr, op, dt, operand, compare, result, priv->stream);
    if (rc == 0 && wait && result == NULL)
        e = cudaStreamSynchronize(priv->stream);
    p2p_dev_leave(prev);
    if (rc != 0) {
        GSHMEMI_DEBUG(P2P_SUBSYS, "p2p: AMO op %d dtype %d to PE %d failed", (int)op, (int)dt,
                      pe);
        return rc;
    }
    if (e != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "AMO (cudaStreamSynchronize)",
                                      pe);
    return GSHMEM_SUCCESS;
}

static int p2p_amo(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                   uint64_t off, const void *operand, const void *compare, void *result)
{
    unsigned char *addr;

    GSHMEMI_CHECK(p2p_amo_target(tp, pe, op, dt, off, operand, compare, &addr));
    if (!gshmemi_amo_fetching(op))
        result = NULL;   /* nothing to fetch */
    return p2p_amo_issue(tp->priv, pe, op, dt, addr, operand, compare, result, 1);
}

/* A batch record (ordered after every earlier one when after_fence), or
 * without the batch an AMO kernel, which stream order puts after every
 * earlier put. */
static int p2p_amo_nbi(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op,
                       gshmemi_dtype_t dt, uint64_t off, const void *operand, int after_fence)
{
    p2p_priv_t *priv = tp->priv;
    unsigned char *addr;
    uint64_t v = 0;

    if (gshmemi_amo_fetching(op)) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: non-blocking AMO op %d to PE %d: only non-fetching "
                      "ones (set, add, and, or, xor) are allowed", (int)op, pe);
        return GSHMEM_ERR_INVALID_ARG;
    }
    GSHMEMI_CHECK(p2p_amo_target(tp, pe, op, dt, off, operand, NULL, &addr));
    if (priv->batch == NULL || gshmemi_amo_bitwise(op))   /* the batch has no bitwise records */
        return p2p_amo_issue(priv, pe, op, dt, addr, operand, NULL, NULL, 0);
    memcpy(&v, operand, gshmemi_dtype_size(dt));
    return gshmemi_cbatch_add(priv->batch, addr, op == GSHMEMI_AMO_SET ? GSHMEMI_CBATCH_SET : GSHMEMI_CBATCH_ADD, v,
                         (uint32_t)gshmemi_dtype_size(dt), after_fence);
}

static int p2p_fence(gshmemi_transport_t *tp)
{
    /* one in-order stream: ordered, except inside a batch buffer */
    p2p_priv_t *priv = tp->priv;
    if (priv != NULL && priv->batch != NULL)
        gshmemi_cbatch_fence(priv->batch);
    return GSHMEM_SUCCESS;
}

static int p2p_quiet(gshmemi_transport_t *tp)
{
    p2p_priv_t *priv = tp->priv;
    cudaError_t e;
    int prev;

    if (priv == NULL || priv->stream == NULL)
        return GSHMEM_SUCCESS;   /* serves nothing: nothing was issued */
    GSHMEMI_CHECK(p2p_batch_flush(priv));
    p2p_dev_enter(priv, &prev);
    e = cudaStreamSynchronize(priv->stream);
    p2p_dev_leave(prev);
    if (e != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "quiet (cudaStreamSynchronize)",
                                      priv->my_pe);
    return GSHMEM_SUCCESS;
}

static void *p2p_ptr(gshmemi_transport_t *tp, int pe, uint64_t off)
{
    p2p_priv_t *priv = tp->priv;

    if (priv == NULL || pe < 0 || pe >= priv->n_pes || priv->base[pe] == NULL ||
        off > priv->size)
        return NULL;
    return (unsigned char *)priv->base[pe] + off;
}

/* Launches the small-op batch's records (not waiting for them). Records
 * otherwise wait for a full buffer, the next copy or AMO, or quiet: a
 * put-with-signal's signal (an amo_nbi record) would never reach a peer
 * that this PE waits for before its own quiet (each PE signals its
 * neighbour, then both wait in signal_wait_until: a deadlock; seen as
 * host_cuda/p2p_n2 hanging). Every wait loop calls progress. */
static int p2p_progress(gshmemi_transport_t *tp)
{
    p2p_priv_t *priv = tp->priv;

    return priv != NULL ? p2p_batch_flush(priv) : GSHMEM_SUCCESS;
}

/* cudaMemcpy takes any host memory: nothing to register. */
static int p2p_mem_register(gshmemi_transport_t *tp, void *addr, size_t len)
{
    (void)tp, (void)addr, (void)len;
    return GSHMEM_SUCCESS;
}

static int p2p_mem_unregister(gshmemi_transport_t *tp, void *addr)
{
    (void)tp, (void)addr;
    return GSHMEM_SUCCESS;
}

const gshmemi_transport_ops_t gshmemi_p2p_ops = {
    .size = sizeof(gshmemi_transport_ops_t),
    .name = "p2p",
    .init = gshmemi_p2p_init,
    .finalize = gshmemi_p2p_finalize,
    .exit_threads = gshmemi_tp_no_threads,   /* no threads of its own */
    .put = p2p_put,
    .get = p2p_get,
    .put_value = p2p_put_value,
    .amo = p2p_amo,
    .amo_nbi = p2p_amo_nbi,
    .flag_set = gshmemi_tp_flag_set_by_amo,
    .put_count = gshmemi_tp_put_count_by_amo,
    .fence = p2p_fence,
    .quiet = p2p_quiet,
    .ptr = p2p_ptr,
    .progress = p2p_progress,
    .mem_register = p2p_mem_register,
    .mem_unregister = p2p_mem_unregister,
    /* one stream per PE: a context's quiet synchronizes it (everything) */
    .chan_open = gshmemi_tp_chan_shared,
    .chan_close = gshmemi_tp_chan_close_shared,
    .select_device = gshmemi_p2p_select_device,
    .peer_bases_device = gshmemi_p2p_peer_bases_device,
    .describe = gshmemi_tp_no_describe,
};

static p2p_priv_t *p2p_priv_of(gshmemi_transport_t *tp)
{
    return tp != NULL && tp->ops == &gshmemi_p2p_ops ? tp->priv : NULL;
}

void *const *gshmemi_p2p_peer_bases(gshmemi_transport_t *tp)
{
    p2p_priv_t *priv = p2p_priv_of(tp);

    return priv != NULL ? priv->base : NULL;
}

void *const *gshmemi_p2p_peer_bases_device(gshmemi_transport_t *tp)
{
    p2p_priv_t *priv = p2p_priv_of(tp);

    return priv != NULL ? priv->base_dev : NULL;
}

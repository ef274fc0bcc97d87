/* p2p_init.c: start and stop the p2p transport.
 *
 * The transport serves the PEs of this node whose heap is CUDA memory on a
 * GPU this process can reach by peer access (or on its own GPU), this PE
 * included, unless GSHMEM_DISABLE_P2P is set. Init is collective over all
 * PEs, even those it serves nothing for (a host heap, P2P disabled):
 *   1. each PE builds its card: state (1 exports its heap, 0 does not,
 *      -1 failed), heap size, device, PCI bus id and CUDA IPC handle;
 *   2. allgather of the cards; when one PE failed, all fail;
 *   3. a serving PE maps each serving peer of its node: the peer's PCI bus
 *      id gives the peer's device as this process numbers it (peers may
 *      see different CUDA_VISIBLE_DEVICES); the peer is reached when it is
 *      on the same device, or peer access and native peer atomics are
 *      available (AMOs are system-scope atomics issued from this GPU, so
 *      without native peer atomics they would not be atomic); peer access
 *      is enabled and the peer's heap opened with cudaIpcOpenMemHandle;
 *   4. the table of bases is copied to device memory;
 *   5. allgather of each PE's result, so that all fail together. */
#include <stdlib.h>
#include <string.h>

#include "gshmem_types.h"
#include "p2p_impl.h"

#define P2P_BUS_ID_LEN 32

typedef struct p2p_card {
    int32_t state;             /* 1 exports its heap, 0 does not, -1 failed */
    int32_t device;            /* its ordinal in its own process (for messages) */
    uint64_t size;             /* heap bytes */
    char bus_id[P2P_BUS_ID_LEN];
    cudaIpcMemHandle_t handle;
} p2p_card_t;

static void p2p_priv_free(gshmemi_transport_t *tp)
{
    p2p_priv_t *priv = tp->priv;
    cudaError_t e;

    if (priv == NULL)
        return;
    for (int pe = 0; priv->base != NULL && pe < priv->n_pes; pe++) {
        if (priv->opened != NULL && priv->opened[pe]) {
            e = cudaIpcCloseMemHandle(priv->base[pe]);
            if (e != cudaSuccess)
                GSHMEMI_WARN(P2P_SUBSYS, "p2p: cudaIpcCloseMemHandle of PE %d's heap at %p: "
                             "%s", pe, priv->base[pe], cudaGetErrorString(e));
        }
    }
    if (priv->base_dev != NULL)
        cudaFree(priv->base_dev);
    if (priv->stream != NULL)
        (void)cudaStreamSynchronize(priv->stream);   /* the batch's kernels are done */
    gshmemi_cbatch_destroy(priv->batch);
    priv->batch = NULL;
    if (priv->stream != NULL)
        cudaStreamDestroy(priv->stream);
    free(priv->base);
    free(priv->opened);
    if (priv->own_reach) {
        free(tp->reach);
        tp->reach = NULL;
    }
    free(priv);
    tp->priv = NULL;
}

static int p2p_priv_alloc(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env)
{
    p2p_priv_t *priv = calloc(1, sizeof(*priv));

    tp->priv = priv;
    if (priv == NULL)
        goto err;
    priv->my_pe = env->my_pe;
    priv->n_pes = env->n_pes;
    priv->boot = env->boot;
    priv->device = -1;
    priv->size = env->heap->size;
    priv->base = calloc((size_t)env->n_pes, sizeof(*priv->base));
    priv->opened = calloc((size_t)env->n_pes, 1);
    if (priv->base == NULL || priv->opened == NULL)
        goto err;
    if (tp->reach == NULL) {
        tp->reach = calloc((size_t)env->n_pes, 1);
        priv->own_reach = 1;
        if (tp->reach == NULL)
            goto err;
    }
    memset(tp->reach, 0, (size_t)env->n_pes);
    return GSHMEM_SUCCESS;
err:
    GSHMEMI_ERROR(P2P_SUBSYS, "p2p: out of memory for the state of %d PEs", env->n_pes);
    p2p_priv_free(tp);
    return GSHMEM_ERR_NOMEM;
}

/* Step 1 for a serving PE: device, handle, stream. */
static int p2p_card_fill(p2p_priv_t *priv, const gshmemi_tp_env_t *env, p2p_card_t *card)
{
    const gshmemi_heap_t *h = env->heap;
    int me = env->my_pe, dev = h->cuda_device;
    cudaError_t e;

    if (dev < 0 && (e = cudaGetDevice(&dev)) != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_NO_DEVICE, "cudaGetDevice", me);
    if ((e = cudaSetDevice(dev)) != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_NO_DEVICE, "cudaSetDevice of the heap's "
                                      "device", me);
    priv->device = dev;
    if ((e = cudaIpcGetMemHandle(&card->handle, h->base)) != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "cudaIpcGetMemHandle of the "
                                      "heap", me);
    if ((e = cudaDeviceGetPCIBusId(card->bus_id, P2P_BUS_ID_LEN, dev)) != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "cudaDeviceGetPCIBusId", me);
    /* Non-blocking: a host put must not wait for the user's kernels on the
     * legacy default stream (one may be spinning on the data it brings). */
    if ((e = cudaStreamCreateWithFlags(&priv->stream, cudaStreamNonBlocking)) != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "cudaStreamCreate", me);
    if (env->cfg != NULL && !env->cfg->p2p_batch)
        GSHMEMI_INFO(P2P_SUBSYS, "p2p: PE %d: GSHMEM_P2P_BATCH=0: a CUDA call per small put "
                     "and signal", me);
    else if (gshmemi_cbatch_create(dev, priv->stream, "p2p", &priv->batch) != GSHMEM_SUCCESS)
        GSHMEMI_WARN(P2P_SUBSYS, "p2p: PE %d: no small-op batch: each small put and signal "
                     "costs a CUDA call", me);
    card->device = dev;
    card->state = 1;
    return GSHMEM_SUCCESS;
}

/* The device of peer pe's card as this process numbers it, or -1 when it
 * cannot be reached (logged at INFO with the reason). */
static int p2p_peer_device(const p2p_priv_t *priv, const p2p_card_t *c, int pe)
{
    int dev = -1, access = 0, atomics = 0;
    cudaError_t e = cudaDeviceGetByPCIBusId(&dev, c->bus_id);

    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        GSHMEMI_INFO(P2P_SUBSYS, "p2p: PE %d's GPU %s is not visible to PE %d (%s): not "
                     "reached by p2p", pe, c->bus_id, priv->my_pe, cudaGetErrorString(e));
        return -1;
    }
    if (dev == priv->device)
        return dev;
    e = cudaDeviceCanAccessPeer(&access, priv->device, dev);
    if (e == cudaSuccess && access)
        e = cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported,
                                      priv->device, dev);
    if (e != cudaSuccess || !access || !atomics) {
        (void)cudaGetLastError();
        GSHMEMI_INFO(P2P_SUBSYS, "p2p: device %d (PE %d) -> device %d (PE %d, %s): %s: not "
                     "reached by p2p", priv->device, priv->my_pe, dev, pe, c->bus_id,
                     e != cudaSuccess ? cudaGetErrorString(e)
                     : !access ? "no peer access" : "no native peer atomics");
        return -1;
    }
    return dev;
}

/* Step 3 for one serving peer of this node. */
static int p2p_open_peer(p2p_priv_t *priv, const p2p_card_t *c, int pe)
{
    int dev;
    void *p = NULL;
    cudaError_t e;

    if (c->size != priv->size) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: PE %d's heap is %llu bytes, PE %d's is %zu: heap sizes "
                      "must match", pe, (unsigned long long)c->size, priv->my_pe, priv->size);
        return GSHMEM_ERR_MISMATCH;
    }
    dev = p2p_peer_device(priv, c, pe);
    if (dev < 0)
        return GSHMEM_SUCCESS;
    if (dev != priv->device) {
        e = cudaDeviceEnablePeerAccess(dev, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            (void)cudaGetLastError();
        else if (e != cudaSuccess)
            return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "cudaDeviceEnablePeerAccess "
                                          "to the device of a peer", pe);
    }
    e = cudaIpcOpenMemHandle(&p, c->handle, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "cudaIpcOpenMemHandle of the "
                                      "heap of", pe);
    priv->base[pe] = p;
    priv->opened[pe] = 1;
    GSHMEMI_DEBUG(P2P_SUBSYS, "p2p: PE %d's heap (device %d, %s) mapped at %p", pe, dev,
                  c->bus_id, p);
    return GSHMEM_SUCCESS;
}

/* PEs of one node that share a GPU without MPS time-slice it: a kernel of
 * one runs only in its process's slices (milliseconds). A device call that
 * goes through the queue (to a PE p2p does not reach) waits for the
 * engine and for the target's kernel to get a slice: measured on one H200,
 * 2.4 ms per 8 B put instead of 24 us under MPS. Said once, at init, with
 * the fix; not an error: a job may not care. */
static void p2p_warn_shared_gpu(const p2p_priv_t *priv, const gshmemi_tp_env_t *env,
                                const p2p_card_t *all)
{
    int sharers = 0, queued = 0, mps = 0;
    for (int pe = 0; pe < env->n_pes; pe++) {
        if (pe == env->my_pe)
            continue;
        int local = env->node_of[pe] == env->node_of[env->my_pe];
        sharers += local && all[pe].state == 1 &&
                   strcmp(all[pe].bus_id, all[env->my_pe].bus_id) == 0;
        queued += !priv->opened[pe];
    }
    if (sharers == 0 || queued == 0)
        return;
    if (cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, priv->device) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    if (!mps)
        GSHMEMI_WARN(P2P_SUBSYS, "p2p: PE %d shares its GPU (%s) with %d other PE(s) of this "
                     "node without MPS, and %d PE(s) are reached through the device queue: "
                     "the processes time-slice the GPU and each queued device call waits for "
                     "a slice (measured on one H200: 2.4 ms per 8 B put instead of 24 us under "
                     "MPS). Start MPS (nvidia-cuda-mps-control -d) or give each PE a GPU of "
                     "its own (CUDA_VISIBLE_DEVICES)", env->my_pe, all[env->my_pe].bus_id,
                     sharers, queued);
}

/* Steps 3 and 4: map the peers, publish the table to device memory. */
static int p2p_map_all(p2p_priv_t *priv, const gshmemi_tp_env_t *env, const p2p_card_t *all)
{
    size_t bytes = (size_t)env->n_pes * sizeof(void *);
    cudaError_t e;

    for (int k = 1; k < env->n_pes; k++) {
        int pe = (env->my_pe + k) % env->n_pes;
        if (env->node_of[pe] == env->node_of[env->my_pe] && all[pe].state == 1)
            GSHMEMI_CHECK(p2p_open_peer(priv, &all[pe], pe));
    }
    p2p_warn_shared_gpu(priv, env, all);
    priv->base[env->my_pe] = env->heap->base;
    if ((e = cudaMalloc((void **)&priv->base_dev, bytes)) != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_NOMEM, "cudaMalloc of the peer table",
                                      env->my_pe);
    e = cudaMemcpyAsync(priv->base_dev, priv->base, bytes, cudaMemcpyHostToDevice,
                        priv->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(priv->stream);
    if (e != cudaSuccess)
        return gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "copy of the peer table to "
                                      "the device", env->my_pe);
    return GSHMEM_SUCCESS;
}

/* The lowest PE whose value in all[] is not zero, or -1. */
static int p2p_first_failed(const int32_t *all, int n_pes)
{
    for (int pe = 0; pe < n_pes; pe++)
        if (all[pe] != 0)
            return pe;
    return -1;
}

/* Steps 2-5; returns this PE's status, an error on every PE when one failed. */
static int p2p_connect_all(p2p_priv_t *priv, const gshmemi_tp_env_t *env, p2p_card_t *all,
                           int serve)
{
    gshmemi_bootstrap_t *b = env->boot;
    p2p_card_t mine;
    int32_t rc32, *res;
    int rc = GSHMEM_SUCCESS, fail_pe = -1;

    memset(&mine, 0, sizeof(mine));
    mine.device = -1;
    mine.size = env->heap->size;
    if (serve && (rc = p2p_card_fill(priv, env, &mine)) != GSHMEM_SUCCESS)
        mine.state = -1;
    GSHMEMI_CHECK(b->ops->allgather(b, &mine, all, sizeof(mine)));
    for (int pe = 0; pe < env->n_pes && fail_pe < 0; pe++)
        if (all[pe].state < 0)
            fail_pe = pe;
    if (fail_pe < 0 && serve)
        rc = p2p_map_all(priv, env, all);
    res = calloc((size_t)env->n_pes, sizeof(*res));
    if (res == NULL) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: out of memory for the results of %d PEs", env->n_pes);
        return GSHMEM_ERR_NOMEM;   /* the job is broken: the others wait in allgather */
    }
    rc32 = rc;
    int brc = b->ops->allgather(b, &rc32, res, sizeof(rc32));
    if (brc == GSHMEM_SUCCESS && fail_pe < 0)
        fail_pe = p2p_first_failed(res, env->n_pes);
    free(res);
    if (brc != GSHMEM_SUCCESS)
        return brc;
    if (fail_pe >= 0 && rc == GSHMEM_SUCCESS) {
        GSHMEMI_DEBUG(P2P_SUBSYS, "p2p: init failed on PE %d", fail_pe);
        rc = GSHMEM_ERR_TRANSPORT;
    }
    return rc;
}

int gshmemi_p2p_init(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env)
{
    int disabled = env->cfg != NULL && env->cfg->disable_p2p;
    int serve = env->heap->kind == GSHMEMI_HEAP_CUDA && !disabled;
    p2p_priv_t *priv;
    p2p_card_t *all;
    int rc, n_reached = 0;

    all = calloc((size_t)env->n_pes, sizeof(*all));
    if (all == NULL) {
        GSHMEMI_ERROR(P2P_SUBSYS, "p2p: out of memory for the cards of %d PEs", env->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    GSHMEMI_CHECK_GOTO(p2p_priv_alloc(tp, env), rc, out);
    priv = tp->priv;
    /* AMOs are system-scope atomics on the target memory, native and
     * atomic with each other and with device-side atomics: the core may
     * send AMOs to a PE through the transport that serves it. */
    tp->hw_atomics = 1;
    rc = p2p_connect_all(priv, env, all, serve);
    if (rc != GSHMEM_SUCCESS) {
        p2p_priv_free(tp);
        goto out;
    }
    for (int pe = 0; pe < env->n_pes; pe++) {
        tp->reach[pe] = priv->base[pe] != NULL;
        n_reached += tp->reach[pe];
    }
    GSHMEMI_INFO(P2P_SUBSYS, "p2p: %s; reaches %d PE(s), this one included",
                 disabled ? "disabled by GSHMEM_DISABLE_P2P"
                 : serve ? "CUDA heap" : "not a CUDA heap", n_reached);
out:
    free(all);
    return rc;
}

/* Collective: completes this PE's operations, waits until every PE has
 * (so none still writes through a mapping), then unmaps the peers. */
int gshmemi_p2p_finalize(gshmemi_transport_t *tp)
{
    p2p_priv_t *priv = tp->priv;
    int rc = GSHMEM_SUCCESS, brc;
    cudaError_t e;

    if (priv == NULL)
        return GSHMEM_SUCCESS;
    rc = priv->batch != NULL ? gshmemi_cbatch_flush(priv->batch) : GSHMEM_SUCCESS;
    if (priv->stream != NULL && (e = cudaStreamSynchronize(priv->stream)) != cudaSuccess)
        rc = gshmemi_p2p_cuda_error(e, GSHMEM_ERR_TRANSPORT, "cudaStreamSynchronize at "
                                    "finalize", priv->my_pe);
    brc = priv->boot != NULL ? priv->boot->ops->barrier(priv->boot) : GSHMEM_SUCCESS;
    p2p_priv_free(tp);
    return rc != GSHMEM_SUCCESS ? rc : brc;
}

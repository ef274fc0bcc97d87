/* agg.c: gshmem_agg_attr_init, gshmem_agg_create, gshmem_agg_destroy, and
 * the host-engine mode used by tests (see agg.h).
 *
 * create is collective: every PE checks the attributes (and that a path
 * for the records exists), then the PEs allgather the verdicts and the
 * values, so that all of them fail together (naming the attribute, or the
 * PEs that differ) before anything is allocated. Then one zeroed symmetric
 * block holds everything (agg_rt.h's layout). destroy seals and delivers
 * what is still buffered (the service thread, gshmemi_agg_service_quiesce),
 * waits for every PE with a barrier (after it, every buffer anyone sent was
 * acknowledged, i.e. applied), and frees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/core/core.h"
#include "engine/proxy.h"
#include "agg.h"

#define AGG_SUBSYS GSHMEMI_SUBSYS_AGG
#define AGG_MAX_BUF_BYTES (16u << 20)
#define AGG_MAX_BUFS 64u
#define AGG_MAX_WAIT_US 10000000u

void gshmem_agg_attr_init(gshmem_agg_attr_t *attr)
{
    GSHMEMI_REQUIRE_INIT("gshmem_agg_attr_init");
    if (attr == NULL)
        gshmemi_fatal("gshmem_agg_attr_init", "attr is NULL");
    const gshmemi_config_t *c = &gshmemi_g.cfg;
    memset(attr, 0, sizeof *attr);
    attr->buf_bytes = c->agg_bytes;
    attr->bufs_per_pe = (uint32_t)c->agg_bufs;     /* in range: config.c checked them */
    attr->max_wait_us = (uint32_t)c->agg_wait_us;
    attr->p2p_bypass = c->agg_p2p_bypass;
}

static pthread_mutex_t agg_lock = PTHREAD_MUTEX_INITIALIZER;
static gshmemi_agg_host_t *agg_list;   /* every live aggregator of this PE */

/* The host record behind a handle (device mode: the device copy's
 * address), or NULL. */
static gshmemi_agg_host_t *agg_find(gshmem_agg_t *agg)
{
    pthread_mutex_lock(&agg_lock);
    gshmemi_agg_host_t *h = agg_list;
    while (h != NULL && h->handle != agg)
        h = h->next;
    pthread_mutex_unlock(&agg_lock);
    return h;
}

static void agg_list_add(gshmemi_agg_host_t *h)
{
    pthread_mutex_lock(&agg_lock);
    h->next = agg_list;
    agg_list = h;
    pthread_mutex_unlock(&agg_lock);
}

static void agg_list_remove(gshmemi_agg_host_t *h)
{
    pthread_mutex_lock(&agg_lock);
    for (gshmemi_agg_host_t **pp = &agg_list; *pp != NULL; pp = &(*pp)->next)
        if (*pp == h) {
            *pp = h->next;
            break;
        }
    pthread_mutex_unlock(&agg_lock);
}

/* This PE's verdict on the attributes and the mode; why: the reason. */
static int agg_check(const gshmem_agg_attr_t *a, gshmem_agg_t **agg_p, char *why, size_t cap)
{
    gshmemi_state_t *g = &gshmemi_g;

    if (agg_p == NULL)
        return snprintf(why, cap, "agg_p is NULL"), GSHMEM_ERR_INVALID_ARG;
    if (a->buf_bytes < 16 || a->buf_bytes > AGG_MAX_BUF_BYTES || a->buf_bytes % 8 != 0)
        return snprintf(why, cap, "buf_bytes %zu (attr or GSHMEM_AGG_BYTES) must be a multiple "
                        "of 8 in [16, %u]", a->buf_bytes, AGG_MAX_BUF_BYTES),
               GSHMEM_ERR_INVALID_ARG;
    if (a->bufs_per_pe < 1 || a->bufs_per_pe > AGG_MAX_BUFS)
        return snprintf(why, cap, "bufs_per_pe %u (attr or GSHMEM_AGG_BUFS) must be in [1, %u]",
                        a->bufs_per_pe, AGG_MAX_BUFS), GSHMEM_ERR_INVALID_ARG;
    if (a->max_wait_us > AGG_MAX_WAIT_US)
        return snprintf(why, cap, "max_wait_us %u (attr or GSHMEM_AGG_WAIT_US) must be in "
                        "[0, %u]", a->max_wait_us, AGG_MAX_WAIT_US), GSHMEM_ERR_INVALID_ARG;
    if (a->p2p_bypass != 0 && a->p2p_bypass != 1)
        return snprintf(why, cap, "p2p_bypass %d must be 0 or 1", a->p2p_bypass),
               GSHMEM_ERR_INVALID_ARG;
    if (g->heap.kind != GSHMEMI_HEAP_CUDA && gshmemi_proxy_queue() == NULL)
        return snprintf(why, cap, "the aggregator is a device API and needs a CUDA heap "
                        "(GSHMEM_HEAP=cuda)"), GSHMEM_ERR_INVALID_ARG;
    if (gshmemi_proxy_queue() == NULL && !a->p2p_bypass && g->n_pes > 1)
        return snprintf(why, cap, "p2p_bypass 0 needs the queue path, and no proxy engine "
                        "runs (every PE is reached by load/store; GSHMEM_DEVICE_QUEUE_ONLY=1 "
                        "starts one)"), GSHMEM_ERR_INVALID_ARG;
    return GSHMEM_SUCCESS;
}

typedef struct agg_vote {
    int64_t rc;
    uint64_t buf_bytes;
    uint32_t bufs, wait_us;
    int64_t bypass;
} agg_vote_t;

/* Every PE learns every verdict: the same status everywhere. */
static int agg_agree(const gshmem_agg_attr_t *a, int rc, const char *why)
{
    gshmemi_state_t *g = &gshmemi_g;
    agg_vote_t mine = {rc, a->buf_bytes, a->bufs_per_pe, a->max_wait_us, a->p2p_bypass};
    agg_vote_t *all = calloc((size_t)g->n_pes, sizeof *all);
    int out = GSHMEM_SUCCESS;

    if (rc != 0)
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: %s", why);
    if (all == NULL)
        gshmemi_fatal("gshmem_agg_create", "out of host memory for %d PEs' votes", g->n_pes);
    int brc = g->boot->ops->allgather(g->boot, &mine, all, sizeof mine);
    if (brc != 0)
        gshmemi_fatal("gshmem_agg_create", "bootstrap %s: allgather failed: %s",
                      g->boot->ops->name, gshmem_strerror(brc));
    for (int pe = 0; pe < g->n_pes && out == 0; pe++) {
        if (all[pe].rc != 0) {
            if (rc == 0)
                GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: PE %d rejected the aggregator "
                              "(its log says why)", pe);
            out = (int)all[pe].rc;
        } else if (memcmp(&all[pe], &mine, sizeof mine) != 0) {
            GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: PEs differ: PE %d has buf_bytes "
                          "%llu, bufs_per_pe %u, max_wait_us %u, p2p_bypass %lld; PE %d has "
                          "%llu, %u, %u, %lld", g->my_pe, (unsigned long long)mine.buf_bytes,
                          mine.bufs, mine.wait_us, (long long)mine.bypass, pe,
                          (unsigned long long)all[pe].buf_bytes, all[pe].bufs,
                          all[pe].wait_us, (long long)all[pe].bypass);
            out = GSHMEM_ERR_MISMATCH;
        }
    }
    free(all);
    return out;
}

static void agg_fill(gshmemi_agg_host_t *h, const gshmem_agg_attr_t *a, uint8_t *block,
                     const gshmemi_agg_layout_t *l)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmemi_agg_rt_t *rt = &h->rt;
    uint8_t *base = (uint8_t *)g->heap.base;
    uint64_t boff = (uint64_t)(block - base);

    (void)gshmemi_agg_init(&rt->core, block + l->send, (gshmemi_agg_slot_t *)(block + l->slots),
                           (gshmemi_agg_cur_t *)(block + l->cur), (uint32_t)g->n_pes,
                           a->bufs_per_pe, (uint32_t)a->buf_bytes, g->heap.size,
                           (uint64_t)a->max_wait_us * 1000);   /* checked in agg_check */
    rt->queue = gshmemi_proxy_queue();
    rt->heap_base = base;
    rt->send_off = boff + l->send;
    rt->recv_off = boff + l->recv;
    rt->rsig_off = boff + l->rsig;
    rt->ack_off = boff + l->ack;
    rt->rx_state = (uint64_t *)(block + l->rx_state);
    rt->inflight = (uint64_t *)(block + l->inflight);
    rt->timeout_ns = (uint64_t)gshmemi_config_bounded_wait_s(&g->cfg) * 1000000000ull;
    rt->my_pe = g->my_pe;
    rt->n_pes = g->n_pes;
    rt->flags = a->p2p_bypass ? GSHMEMI_AGG_F_BYPASS : 0;
    rt->magic = GSHMEMI_AGG_RT_MAGIC;
    /* service period: a quarter of the wait, 5 us .. 500 us */
    uint64_t p = (uint64_t)a->max_wait_us * 250;
    h->period_ns = p < 5000 ? 5000 : p > 500000 ? 500000 : p;
}

int gshmem_agg_create(const gshmem_agg_attr_t *attr, gshmem_agg_t **agg_p)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmem_agg_attr_t a;
    gshmemi_agg_layout_t l;
    char why[320] = "";
    int rc;

    GSHMEMI_REQUIRE_INIT("gshmem_agg_create");
    if (attr != NULL)
        a = *attr;
    else
        gshmem_agg_attr_init(&a);
    rc = agg_agree(&a, agg_check(&a, agg_p, why, sizeof why), why);
    if (rc != 0)
        return rc;
    gshmemi_agg_layout((uint32_t)g->n_pes, a.bufs_per_pe, (uint32_t)a.buf_bytes, &l);
    uint8_t *block = gshmemi_mem_alloc("gshmem_agg_create", GSHMEMI_MEM_SCRATCH, l.total, 128, 1);
    if (block == NULL) {
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: %llu bytes of symmetric heap (2 x %d PEs "
                      "x %u buffers x %zu bytes + control) are not free: lower buf_bytes or "
                      "bufs_per_pe, or raise GSHMEM_SYMMETRIC_SIZE",
                      (unsigned long long)l.total, g->n_pes, a.bufs_per_pe, a.buf_bytes);
        return GSHMEM_ERR_NOMEM;
    }
    gshmemi_agg_host_t *h = calloc(1, sizeof *h);
    if (h == NULL)
        gshmemi_fatal("gshmem_agg_create", "out of host memory");
    h->block = block;
    h->cuda = g->heap.kind == GSHMEMI_HEAP_CUDA;
    agg_fill(h, &a, block, &l);
    h->handle = (gshmem_agg_t *)&h->rt;
    if (h->cuda && (rc = gshmemi_agg_cuda_alloc(h)) != 0)
        goto fail_cuda;
    agg_list_add(h);
    if (h->rt.queue != NULL && (rc = gshmemi_agg_service_add(h)) != 0)
        goto fail_cuda;
    GSHMEMI_INFO(AGG_SUBSYS, "aggregator %p: %s mode, %d PEs x %u buffers x %zu bytes, max "
                 "wait %u us, p2p bypass %d, %s", (void *)h->handle, h->cuda ? "device" : "host",
                 g->n_pes, a.bufs_per_pe, a.buf_bytes, a.max_wait_us, a.p2p_bypass,
                 h->rt.queue ? "queue path" : "no queue path (every PE direct)");
    *agg_p = h->handle;
    return GSHMEM_SUCCESS;

fail_cuda:
    agg_list_remove(h);
    gshmemi_agg_cuda_free(h);   /* frees what exists */
    /* the allocation is collective: free it on every PE even if only this
     * one failed (the others then hold a dead handle; CUDA memory errors
     * are not expected to differ between PEs) */
    gshmemi_mem_free("gshmem_agg_create", block);
    free(h);
    return rc;
}

int gshmem_agg_destroy(gshmem_agg_t *agg)
{
    gshmemi_state_t *g = &gshmemi_g;
    int rc = GSHMEM_SUCCESS;

    GSHMEMI_REQUIRE_INIT("gshmem_agg_destroy");
    gshmemi_agg_host_t *h = agg_find(agg);
    if (h == NULL)
        gshmemi_fatal("gshmem_agg_destroy", "%p is not a live aggregator of this PE (never "
                      "created, or destroyed already)", (void *)agg);
    if (h->serviced)
        rc = gshmemi_agg_service_quiesce(h, gshmemi_config_bounded_wait_s(&g->cfg));
    /* after this barrier every PE's buffers were acknowledged: applied */
    gshmemi_barrier_all("gshmem_agg_destroy");
    if (h->serviced)
        gshmemi_agg_service_remove(h);
    agg_list_remove(h);
    h->rt.magic = 0;
    if (h->cuda)
        gshmemi_agg_cuda_free(h);
    gshmemi_mem_free("gshmem_agg_destroy", h->block);
    free(h);
    return rc;
}

void gshmemi_agg_shutdown(void)
{
    pthread_mutex_lock(&agg_lock);
    gshmemi_agg_host_t *h = agg_list;
    agg_list = NULL;
    pthread_mutex_unlock(&agg_lock);
    while (h != NULL) {
        gshmemi_agg_host_t *next = h->next;
        GSHMEMI_WARN(AGG_SUBSYS, "gshmem_finalize: aggregator %p was not destroyed: records "
                     "still buffered in it are dropped (call gshmem_agg_destroy first)",
                     (void *)h->handle);
        if (h->serviced)
            gshmemi_agg_service_remove(h);
        if (h->cuda)
            gshmemi_agg_cuda_free(h);
        free(h);   /* its symmetric block goes with the heap */
        h = next;
    }
}

/* ---- host mode (tests) --------------------------------------------------------- */

static gshmemi_agg_host_t *agg_host_mode(const char *call, gshmem_agg_t *agg)
{
    gshmemi_agg_host_t *h = agg_find(agg);
    if (h == NULL || h->cuda)
        gshmemi_fatal(call, "%p is not a live host-mode aggregator", (void *)agg);
    return h;
}

int gshmemi_agg_host_store(gshmem_agg_t *agg, void *dst, const void *src, size_t bytes, int pe,
                           uint32_t ch)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmemi_agg_host_t *h = agg_host_mode("gshmem_agg_store", agg);
    const gshmemi_agg_rt_t *rt = &h->rt;

    if (pe < 0 || pe >= g->n_pes) {
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_store: invalid PE %d (n_pes %d)", pe, g->n_pes);
        return GSHMEM_ERR_INVALID_PE;
    }
    if (bytes == 0 || bytes > gshmemi_agg_max_payload(&rt->core)) {
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_store: a record of %zu bytes to PE %d does not "
                      "fit a buffer (1 .. %u payload bytes with %u-byte buffers)", bytes, pe,
                      gshmemi_agg_max_payload(&rt->core), rt->core.buf_bytes);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (!gshmemi_heap_contains(&g->heap, dst, bytes)) {
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_store: dst %p (%zu bytes) is not inside the "
                      "symmetric heap [%p, +%zu)", dst, bytes, g->heap.base, g->heap.size);
        return GSHMEM_ERR_OUT_OF_HEAP;
    }
    if (pe == g->my_pe) {
        memcpy(dst, src, bytes);
        return GSHMEM_SUCCESS;
    }
    int rc = gshmemi_agg_rt_store(rt, (uint64_t)((char *)dst - (char *)g->heap.base), src,
                                  (uint32_t)bytes, (uint32_t)pe, ch);
    if (rc != 0)
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_store: record to PE %d: %s%s", pe,
                      gshmem_strerror(rc), rc == GSHMEM_ERR_TIMEOUT ? " (no buffer to it came "
                      "back within GSHMEM_TIMEOUT: it does not apply what it receives)" : "");
    return rc;
}

int gshmemi_agg_host_flush(gshmem_agg_t *agg, int pe, uint32_t ch)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmemi_agg_host_t *h = agg_host_mode("gshmem_agg_flush", agg);
    uint32_t stuck = 0;

    if (pe < -1 || pe >= g->n_pes) {
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_flush_pe: invalid PE %d (n_pes %d)", pe,
                      g->n_pes);
        return GSHMEM_ERR_INVALID_PE;
    }
    uint32_t lo = pe < 0 ? 0 : (uint32_t)pe, hi = pe < 0 ? (uint32_t)g->n_pes : lo + 1;
    int rc = gshmemi_agg_rt_flush(&h->rt, lo, hi, ch, &stuck);
    if (rc != 0)
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_flush: buffer %u to PE %u: %s",
                      stuck % h->rt.core.nbufs, stuck / h->rt.core.nbufs, gshmem_strerror(rc));
    return rc;
}

/* ---- without CUDA ---------------------------------------------------------------- */
#if !defined(GSHMEM_HAVE_CUDA)
int gshmemi_agg_cuda_alloc(gshmemi_agg_host_t *a)
{
    (void)a;
    GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: this build has no CUDA support");
    return GSHMEM_ERR_NO_DEVICE;
}
void gshmemi_agg_cuda_free(gshmemi_agg_host_t *a) { (void)a; }
int gshmemi_agg_cuda_stream(int device, void **stream_p)
{
    (void)device;
    *stream_p = NULL;
    return GSHMEM_SUCCESS;
}
void gshmemi_agg_cuda_stream_destroy(void *stream) { (void)stream; }
int gshmemi_agg_cuda_round(gshmemi_agg_host_t *a, void *stream)
{
    (void)a, (void)stream;
    return GSHMEM_ERR_NO_DEVICE;
}
#endif

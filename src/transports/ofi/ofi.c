/* ofi.c: the ofi transport's ops table, init and finalize. One libfabric RDM
 * endpoint per PE, the whole heap registered once, endpoint names, MR keys
 * and heap bases exchanged through the bootstrap, every PE (this one too)
 * in an FI_AV_TABLE at its PE index. The active-message path adds its
 * rails' endpoints (ofi_am_rail.c), named in the same exchange. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofi.h"

/* What each PE publishes at init (fixed size for the allgather). */
typedef struct ofi_card {
    int32_t status;              /* 0, or this PE's local setup error */
    uint32_t addr_len;
    uint64_t base, key;
    char prov[64];
    unsigned char addr[OFI_ADDR_MAX];
    ofi_names_t rails;           /* active messages: rails 1.. */
} ofi_card_t;

/* libfabric's shm provider names an endpoint's shared-memory region after
 * the process ("<pid>:<domain>:<ep>" under /dev/shm) unless the source
 * address names it. A PE killed without finalize leaves its region behind,
 * and a later process that reuses the pid then fails fi_enable with EBUSY.
 * An "fi_ns://" name with a random part is used as is: unique per run. */
static int ofi_name_shm_endpoint(ofi_state_t *s)
{
    uint64_t r = 0;
    char name[96];
    if (strcmp(s->prov_name, "shm") != 0)
        return 0;
    GSHMEMI_CHECK(ofi_random_u64(&r, "the shm endpoint name"));
    snprintf(name, sizeof name, "fi_ns://gshmem-%d-%016" PRIx64, (int)getpid(), r);
    char *copy = strdup(name);
    if (copy == NULL)
        return GSHMEM_ERR_NOMEM;
    free(s->info->src_addr);
    s->info->src_addr = copy;
    s->info->src_addrlen = strlen(copy) + 1;
    return 0;
}

int ofi_ep_open(ofi_state_t *s, struct fid_domain *domain, struct fi_info *info,
                struct fid_cq *cq, struct fid_av **av_p, struct fid_ep **ep_p, const char **what_p)
{
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)s->n_pes};
    int rc = fi_av_open(domain, &av_attr, av_p, NULL);
    *what_p = "fi_av_open";
    if (rc == 0 && (*what_p = "fi_endpoint"))
        rc = fi_endpoint(domain, info, ep_p, NULL);
    if (rc == 0 && (*what_p = "fi_ep_bind(av)"))
        rc = fi_ep_bind(*ep_p, &(*av_p)->fid, 0);
    if (rc == 0 && (*what_p = "fi_ep_bind(cq)"))
        rc = fi_ep_bind(*ep_p, &cq->fid, FI_TRANSMIT | FI_RECV);
    return rc;
}

static int ofi_open_objects(ofi_state_t *s)
{
    GSHMEMI_CHECK(ofi_name_shm_endpoint(s));
    const char *what = "fi_fabric";
    int rc = fi_fabric(s->info->fabric_attr, &s->fabric, NULL);
    if (rc == 0 && (what = "fi_domain"))
        rc = fi_domain(s->fabric, s->info, &s->domain, NULL);
    /* Without FI_RMA_EVENT the progress thread naps on the CQ's wait fd
     * (woken by the provider's traffic, tcp's sockets) where it has one. */
    if (rc == 0 && (what = "fi_cq_open") && ofi_cq_open(s, s->domain, !s->has_rma_event, &s->cq,
                                                        &s->cq_fd) != 0)
        return GSHMEM_ERR_TRANSPORT;
    if (rc == 0)
        GSHMEMI_DEBUG(OFI_SUBSYS, "ofi: progress thread naps %s, steps aside %llu us while "
                      "another thread polls", s->has_rma_event ?
                      "until the remote-access counter moves or a CQ entry comes" :
                      s->cq_fd >= 0 ? "on the CQ's wait fd" : "with nanosleep",
                      (unsigned long long)(s->aside_ns / 1000u));
    if (rc == 0)
        rc = ofi_ep_open(s, s->domain, s->info, s->cq, &s->av, &s->ep, &what);
    struct fi_cntr_attr cntr_attr = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    if (rc == 0 && s->has_rma_event && (what = "fi_cntr_open"))
        rc = fi_cntr_open(s->domain, &cntr_attr, &s->rcntr, NULL);
    if (rc == 0 && s->has_rma_event && (what = "fi_ep_bind(remote counter)"))
        rc = fi_ep_bind(s->ep, &s->rcntr->fid, FI_REMOTE_WRITE | FI_REMOTE_READ);
    if (rc == 0 && (what = "fi_enable"))
        rc = fi_enable(s->ep);
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: %s failed with provider '%s': %s", what, s->prov_name,
                      fi_strerror(-rc));
        return GSHMEM_ERR_TRANSPORT;
    }
    return 0;
}

/* The heap MR, the op arena and the bounce slots (all registered). */
static int ofi_register_memory(ofi_state_t *s)
{
    if (!s->am_mode)   /* active messages: no RMA into the heap, nothing to register */
        GSHMEMI_CHECK(ofi_mr_register(s, s->heap->base, s->heap->size,
                                      FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
                                      &s->heap_mr, &s->heap_desc));
    size_t arena_len = sizeof(ofi_op_t) * OFI_ARENA_OPS;
    size_t bounce_len = (size_t)OFI_BOUNCE_SLOTS * OFI_BOUNCE_SIZE;
    if (posix_memalign((void **)&s->arena, 4096, arena_len) != 0 ||
        posix_memalign((void **)&s->bounce, 4096, bounce_len) != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: cannot allocate %zu + %zu bytes of op arena and "
                      "bounce buffers", arena_len, bounce_len);
        return GSHMEM_ERR_NOMEM;
    }
    memset(s->arena, 0, arena_len);
    memset(s->bounce, 0, bounce_len);
    for (int i = OFI_ARENA_OPS - 1; i >= 0; i--) {
        s->arena[i].next_free = s->free_ops;
        s->free_ops = &s->arena[i];
    }
    s->bounce_free = OFI_BOUNCE_SLOTS >= 64 ? ~0ull : (1ull << OFI_BOUNCE_SLOTS) - 1;
    GSHMEMI_CHECK(ofi_mr_register(s, s->arena, arena_len, FI_READ | FI_WRITE, &s->arena_mr,
                                  &s->arena_desc));
    GSHMEMI_CHECK(ofi_mr_register(s, s->bounce, bounce_len, FI_READ | FI_WRITE,
                                  &s->bounce_mr, &s->bounce_desc));
    return 0;
}

static int ofi_local_setup(ofi_state_t *s, const gshmemi_tp_env_t *env, ofi_card_t *me)
{
    GSHMEMI_CHECK(ofi_info_select(s, env));
    GSHMEMI_CHECK(ofi_bind_address(s, env));
    GSHMEMI_CHECK(ofi_open_objects(s));
    if (!s->am_mode)
        GSHMEMI_CHECK(ofi_info_check_atomics(s));
    GSHMEMI_CHECK(ofi_register_memory(s));
#ifdef GSHMEM_HAVE_CUDA
    if (s->am_mode) {
        GSHMEMI_CHECK(ofi_random_u64(&s->msg_key, "the active-message key"));
        GSHMEMI_CHECK(ofi_am_setup(s, env->cfg));
        ofi_am_names(s, &me->rails);
    }
#endif
    size_t len = sizeof me->addr;
    int rc = fi_getname(&s->ep->fid, me->addr, &len);
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: fi_getname failed (%zu bytes of room, provider '%s'): "
                      "%s", sizeof me->addr, s->prov_name, fi_strerror(-rc));
        return GSHMEM_ERR_TRANSPORT;
    }
    me->addr_len = (uint32_t)len;
    GSHMEMI_CHECK(ofi_check_reach(s, env, me->addr, len));
    me->base = (uint64_t)(uintptr_t)s->heap->base;
    /* the heap MR's key, or on the active-message path (no heap MR) the key
     * this PE's messages carry: either is the PE's secret for the others */
    me->key = s->heap_mr ? fi_mr_key(s->heap_mr) : s->msg_key;
    snprintf(me->prov, sizeof me->prov, "%s", s->prov_name);
    return 0;
}

/* After the allgather: every PE set up, the same provider, AV filled. */
static int ofi_connect(ofi_state_t *s, const ofi_card_t *cards)
{
    for (int pe = 0; pe < s->n_pes; pe++)
        if (cards[pe].status != 0) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: PE %d could not set up the ofi transport (status "
                          "%d); see its log", pe, (int)cards[pe].status);
            return GSHMEM_ERR_TRANSPORT;
        }
    for (int pe = 0; pe < s->n_pes; pe++)
        if (strcmp(cards[pe].prov, s->prov_name) != 0) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: PE %d uses provider '%s' but PE %d uses '%s'; all "
                          "PEs must use the same one (set GSHMEM_OFI_PROVIDER)", pe,
                          cards[pe].prov, s->my_pe, s->prov_name);
            return GSHMEM_ERR_MISMATCH;
        }
    for (int pe = 0; pe < s->n_pes; pe++)
        if (cards[pe].rails.n_rails != cards[s->my_pe].rails.n_rails) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: PE %d uses %u endpoints (rails) but PE %d uses %u; "
                          "set the same GSHMEM_OFI_AM_RAILS and heap kind on every PE", pe,
                          cards[pe].rails.n_rails, s->my_pe, cards[s->my_pe].rails.n_rails);
            return GSHMEM_ERR_MISMATCH;
        }
    size_t n = (size_t)(unsigned)s->n_pes;
    s->peers = calloc(n, sizeof *s->peers);
    if (!s->peers) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: out of memory for %d peers", s->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    GSHMEMI_CHECK(ofi_chan_init(s, &s->dchan));
    for (int pe = 0; pe < s->n_pes; pe++) {
        fi_addr_t a = FI_ADDR_NOTAVAIL;
        int rc = fi_av_insert(s->av, cards[pe].addr, 1, &a, 0, NULL);
        if (rc != 1) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: inserting PE %d's address (%u bytes) into the AV "
                          "failed: %s", pe, cards[pe].addr_len,
                          fi_strerror(rc < 0 ? -rc : FI_EINVAL));
            return GSHMEM_ERR_TRANSPORT;
        }
        s->peers[pe] = (ofi_peer_t){.addr = a, .key = cards[pe].key, .base = cards[pe].base};
#ifdef GSHMEM_HAVE_CUDA
        if (s->am)
            GSHMEMI_CHECK(ofi_am_connect(s, pe, &cards[pe].rails));
#endif
    }
    return 0;
}

static void ofi_close_fid(struct fid *f, const char *what, int *rc_p)
{
    if (!f)
        return;
    int rc = fi_close(f);
    if (rc != 0 && *rc_p == 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: closing %s failed: %s", what, fi_strerror(-rc));
        *rc_p = GSHMEM_ERR_TRANSPORT;
    }
}

static int ofi_close_all(ofi_state_t *s)
{
    int rc = 0;
    ofi_progress_stop(s);
    for (ofi_reg_t *r = s->regs, *next; r; r = next) {
        next = r->next;
        ofi_close_fid(&r->mr->fid, "a registration", &rc);
        free(r);
    }
    ofi_close_fid(s->bounce_mr ? &s->bounce_mr->fid : NULL, "the bounce MR", &rc);
    ofi_close_fid(s->arena_mr ? &s->arena_mr->fid : NULL, "the op arena MR", &rc);
    ofi_close_fid(s->heap_mr ? &s->heap_mr->fid : NULL, "the heap MR", &rc);
    ofi_close_fid(s->ep ? &s->ep->fid : NULL, "the endpoint", &rc);
#ifdef GSHMEM_HAVE_CUDA
    ofi_am_close(s);   /* its buffers' MRs; the endpoint no longer uses them */
#endif
    ofi_close_fid(s->av ? &s->av->fid : NULL, "the AV", &rc);
    ofi_close_fid(s->rcntr ? &s->rcntr->fid : NULL, "the remote-access counter", &rc);
    ofi_close_fid(s->cq ? &s->cq->fid : NULL, "the CQ", &rc);
    ofi_close_fid(s->domain ? &s->domain->fid : NULL, "the domain", &rc);
    ofi_close_fid(s->fabric ? &s->fabric->fid : NULL, "the fabric", &rc);
    if (s->info)
        fi_freeinfo(s->info);
    free(s->arena);
    free(s->bounce);
    free(s->peers);
    ofi_chan_fini(&s->dchan);
    for (ofi_chan_t *ch = s->chans, *next; ch; ch = next) {   /* not closed: contexts */
        next = ch->next;                                      /* end before finalize */
        ofi_chan_fini(ch);
        free(ch);
    }
    free(s->own_reach);
    pthread_mutex_destroy(&s->free_lock);
    pthread_mutex_destroy(&s->reg_lock);
    pthread_mutex_destroy(&s->chan_lock);
    pthread_mutex_destroy(&s->hold_lock);
    free(s);
    return rc;
}

static int ofi_init(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env)
{
    if (env->n_pes <= 0 || env->my_pe < 0 || env->my_pe >= env->n_pes) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: PE %d of %d is not a valid PE", env->my_pe, env->n_pes);
        return GSHMEM_ERR_INVALID_PE;
    }
    ofi_state_t *s = calloc(1, sizeof *s);
    ofi_card_t *cards = calloc((size_t)env->n_pes, sizeof *cards);
    ofi_card_t me;
    if (!s || !cards) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: out of memory at init (%d PEs)", env->n_pes);
        free(s);
        free(cards);
        return GSHMEM_ERR_NOMEM;
    }
    s->my_pe = env->my_pe;
    s->n_pes = env->n_pes;
    s->boot = env->boot;
    s->heap = env->heap;
    gshmemi_idle_init(&s->idle, env->cfg->idle_spin_us, env->cfg->idle_nap_us);
    s->aside_ns = ofi_progress_aside_ns(env);
    pthread_mutex_init(&s->free_lock, NULL);
    pthread_mutex_init(&s->reg_lock, NULL);
    pthread_mutex_init(&s->chan_lock, NULL);
    pthread_mutex_init(&s->hold_lock, NULL);
    memset(&me, 0, sizeof me);
    /* Local failures still join the exchange, so no peer is left waiting. */
    me.status = ofi_local_setup(s, env, &me);
    int rc = env->boot->ops->allgather(env->boot, &me, cards, sizeof me);
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: exchanging endpoint addresses through bootstrap '%s' "
                      "failed (%d)", env->boot->ops->name, rc);
        goto fail;
    }
    rc = me.status != 0 ? me.status : ofi_connect(s, cards);
    if (rc == 0)
        ofi_security_note(s, env);
    if (rc == 0)
        rc = ofi_progress_start(s);
    if (rc != 0)
        goto fail;
    if (!tp->reach)
        tp->reach = s->own_reach = calloc((size_t)s->n_pes, 1);
    for (int pe = 0; pe < s->n_pes && tp->reach; pe++)
        tp->reach[pe] = 1;
    tp->hw_atomics = 0;
    tp->priv = s;
    snprintf(tp->detail, sizeof tp->detail, "provider %s, NIC %s%s", s->prov_name,
             s->info->domain_attr->name, s->am_mode ? ", active messages" : "");
    GSHMEMI_DEBUG(OFI_SUBSYS, "ofi: PE %d ready on '%s': fence %s, amo_nbi after fence %s, "
                  "quiet %s, local buffers %s", s->my_pe, s->prov_name,
                  s->am_mode ? "marks the next put record per PE (active messages: requests "
                               "applied in order per PE, small records batched up to a fenced one)"
                  : s->has_waw ? "nothing (writes placed in order)"
                  : s->has_fence ? "sets FI_FENCE on the next op per PE" : "waits for completions",
                  s->am_mode || s->has_waw ? "ordered" : s->has_fence ? "posted with FI_FENCE"
                                                           : "waits for all outstanding ops first",
                  s->am_mode ? "waits for the targets' acknowledgements (applied)"
                  : s->has_dc ? "waits for delivery-complete" : "waits, then flushes with reads",
                  s->am_mode ? "copied into host bounce buffers (active messages)"
                  : s->mr_local ? "need descriptors (bounce outside heap/registrations)"
                                : "used as is");
    free(cards);
    return 0;
fail:
    free(cards);
    tp->priv = NULL;
    ofi_close_all(s);
    return rc;
}

static int ofi_finalize(gshmemi_transport_t *tp)
{
    ofi_state_t *s = ofi_state(tp);
    if (!s)
        return 0;
    int rc = ofi_quiet_all(s);
    /* Nobody closes while a peer may still target it. */
    int brc = s->boot->ops->barrier(s->boot);
    if (brc != 0 && rc == 0)
        rc = brc;
    if (tp->reach == s->own_reach)
        tp->reach = NULL;
    int crc = ofi_close_all(s);
    tp->priv = NULL;
    return rc ? rc : crc;
}

/* Both on the instance's channel only. */
static int ofi_fence(gshmemi_transport_t *tp)
{
    ofi_state_t *s = ofi_state(tp);
    ofi_chan_t *ch = ofi_chan_of(tp);
    if (s->am_mode) {   /* active messages: targets apply one PE's requests in order, */
#ifdef GSHMEM_HAVE_CUDA    /* but for small records, which a fenced record follows */
        if (s->am)
            ofi_am_fence(s);
#endif
        return 0;
    }
    if (s->has_waw)   /* the provider places one PE's writes in order */
        return 0;
    if (!s->has_fence)
        return ofi_quiet(s, ch);
    for (int pe = 0; pe < s->n_pes; pe++)
        __atomic_store_n(&ch->fence_pending[pe], 1, __ATOMIC_RELEASE);
    return 0;
}

static int ofi_quiet_op(gshmemi_transport_t *tp)
{
    return ofi_quiet(ofi_state(tp), ofi_chan_of(tp));
}

static int ofi_quiet_mark_op(gshmemi_transport_t *tp, uint64_t *mark_p)
{
#ifdef GSHMEM_HAVE_CUDA
    ofi_state_t *s = ofi_state(tp);
    if (s->am)
        return ofi_am_quiet_mark(s, mark_p);
#endif
    (void)tp, (void)mark_p;
    return GSHMEM_ERR_NOT_SUPPORTED;   /* the RMA path: the engine quiets */
}

static int ofi_quiet_test_op(gshmemi_transport_t *tp, uint64_t mark)
{
#ifdef GSHMEM_HAVE_CUDA
    ofi_state_t *s = ofi_state(tp);
    if (s->am)
        return ofi_am_quiet_test(s, mark);
#endif
    (void)tp, (void)mark;
    return GSHMEM_ERR_NOT_SUPPORTED;
}

static void *ofi_ptr(gshmemi_transport_t *tp, int pe, uint64_t off)
{
    (void)tp, (void)pe, (void)off;
    return NULL;
}

static int ofi_progress_op(gshmemi_transport_t *tp)
{
    int n = ofi_progress_once(ofi_state(tp));
    return n < 0 ? n : 0;
}

static int ofi_mem_register(gshmemi_transport_t *tp, void *addr, size_t len)
{
    ofi_state_t *s = ofi_state(tp);
    ofi_reg_t *r = calloc(1, sizeof *r);
    if (!r) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: out of memory registering [%p, +%zu)", addr, len);
        return GSHMEM_ERR_NOMEM;
    }
    void *desc;
    int rc = ofi_mr_register(s, addr, len, FI_READ | FI_WRITE, &r->mr, &desc);
    if (rc != 0) {
        free(r);
        return rc;
    }
    r->addr = addr;
    r->len = len;
    pthread_mutex_lock(&s->reg_lock);
    r->next = s->regs;
    s->regs = r;
    pthread_mutex_unlock(&s->reg_lock);
    return 0;
}

static int ofi_mem_unregister(gshmemi_transport_t *tp, void *addr)
{
    ofi_state_t *s = ofi_state(tp);
    ofi_reg_t *found = NULL;
    pthread_mutex_lock(&s->reg_lock);
    for (ofi_reg_t **pp = &s->regs; *pp; pp = &(*pp)->next)
        if ((*pp)->addr == addr) {
            found = *pp;
            *pp = found->next;
            break;
        }
    pthread_mutex_unlock(&s->reg_lock);
    if (!found) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: %p is not a registered address", addr);
        return GSHMEM_ERR_INVALID_ARG;
    }
    /* Ops still using it, on any channel, must finish before the MR goes. */
    int rc = ofi_quiet_all(s);
    int crc = fi_close(&found->mr->fid);
    if (crc != 0 && rc == 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: closing the registration of %p failed: %s", addr,
                      fi_strerror(-crc));
        rc = GSHMEM_ERR_TRANSPORT;
    }
    free(found);
    return rc;
}

const gshmemi_transport_ops_t gshmemi_ofi_ops = {
    .size = sizeof(gshmemi_transport_ops_t),
    .name = "ofi",
    .init = ofi_init,
    .finalize = ofi_finalize,
    .exit_threads = ofi_exit_threads,
    .put = ofi_rma_put,
    .get = ofi_rma_get,
    .put_value = ofi_rma_put_value,
    .amo = ofi_amo,
    .amo_nbi = ofi_amo_nbi,
    .flag_set = ofi_rma_flag_set,
    .put_count = ofi_rma_put_count,
    .fence = ofi_fence,
    .quiet = ofi_quiet_op,
    .quiet_mark = ofi_quiet_mark_op,
    .quiet_test = ofi_quiet_test_op,
    .ptr = ofi_ptr,
    .progress = ofi_progress_op,
    .mem_register = ofi_mem_register,
    .mem_unregister = ofi_mem_unregister,
    .chan_open = ofi_chan_open,
    .chan_close = ofi_chan_close,
    .select_device = gshmemi_tp_no_select_device,
    .peer_bases_device = gshmemi_tp_no_peer_bases_device,
    .describe = ofi_describe,
};

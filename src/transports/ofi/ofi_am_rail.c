/* ofi_am_rail.c: the rails of the active-message path (ofi_am.h): rails
 * 1.. each get their own domain, AV, CQ, endpoint and progress thread, so
 * that a PE moves several messages at once. Why: over tcp;ofi_rxm on
 * loopback one endpoint moved about 4.3 GB/s per PE pair whatever the
 * direction (one direction, or 2.15 each way both at once): the one thread
 * that reads the CQ does the provider's copies and socket calls of both
 * directions. libfabric's tcp provider makes progress per domain under one
 * lock, hence a domain per rail. CUDA builds only. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofi_am.h"
#include "base/util/thread.h"

/* rail idx >= 1: its objects. shm names an endpoint by its source address
 * (ofi.c): each rail gets the transport's name with "-r<idx>". */
static int ofi_am_rail_open(ofi_state_t *s, ofi_am_rail_t *r)
{
    struct fi_info *info = fi_dupinfo(s->info);
    const char *what = "fi_dupinfo";
    int rc = info ? 0 : -FI_ENOMEM;
    if (rc == 0 && strcmp(s->prov_name, "shm") == 0 && s->info->src_addr != NULL) {
        char name[160];
        snprintf(name, sizeof name, "%s-r%d", (const char *)s->info->src_addr, r->idx);
        free(info->src_addr);
        info->src_addr = strdup(name);
        info->src_addrlen = strlen(name) + 1;
        if (info->src_addr == NULL)
            rc = -FI_ENOMEM;
    }
    if (rc == 0 && (what = "fi_domain"))
        rc = fi_domain(s->fabric, info, &r->domain, NULL);
    if (rc == 0 && (what = "fi_cq_open") &&
        ofi_cq_open(s, r->domain, 1, &r->cq, &r->cq_fd) != 0)
        rc = -FI_EOTHER;
    if (rc == 0)
        rc = ofi_ep_open(s, r->domain, info, r->cq, &r->av, &r->ep, &what);
    if (rc == 0 && (what = "fi_enable"))
        rc = fi_enable(r->ep);
    if (info)
        fi_freeinfo(info);
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: rail %d: %s failed with provider '%s': %s",
                      r->idx, what, s->prov_name, fi_strerror(-rc));
        return GSHMEM_ERR_TRANSPORT;
    }
    return 0;
}

int ofi_am_rails_open(ofi_state_t *s, int n)
{
    ofi_am_t *st = s->am;
    st->n_rails = n;
    for (int i = 0; i < n; i++) {
        ofi_am_rail_t *r = &st->rails[i];
        r->s = s;
        r->idx = i;
        r->cq_fd = -1;
        pthread_mutex_init(&r->lock, NULL);
        r->addr = calloc((size_t)(unsigned)s->n_pes, sizeof *r->addr);
        if (r->addr == NULL) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory for %d PEs", s->n_pes);
            return GSHMEM_ERR_NOMEM;
        }
        if (i == 0) {   /* the transport's endpoint */
            r->domain = s->domain;
            r->av = s->av;
            r->cq = s->cq;
            r->ep = s->ep;
            r->cq_fd = s->cq_fd;
            continue;
        }
        GSHMEMI_CHECK(ofi_am_rail_open(s, r));
    }
    return 0;
}

void ofi_am_rails_close(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    for (int i = 0; i < st->n_rails; i++) {
        ofi_am_rail_t *r = &st->rails[i];
        if (i > 0 && r->ep)
            fi_close(&r->ep->fid);
        if (r->tx_mr)
            fi_close(&r->tx_mr->fid);
        if (r->rx_mr)
            fi_close(&r->rx_mr->fid);
        if (i > 0) {
            if (r->av)
                fi_close(&r->av->fid);
            if (r->cq)
                fi_close(&r->cq->fid);
            if (r->domain)
                fi_close(&r->domain->fid);
        }
        free(r->addr);
        pthread_mutex_destroy(&r->lock);
    }
}

void ofi_am_names(ofi_state_t *s, ofi_names_t *names)
{
    ofi_am_t *st = s->am;
    memset(names, 0, sizeof *names);
    names->n_rails = (uint32_t)st->n_rails;
    for (int i = 1; i < st->n_rails; i++) {
        size_t len = sizeof names->addr[i];
        int rc = fi_getname(&st->rails[i].ep->fid, names->addr[i], &len);
        if (rc != 0) {   /* the peers fail on the empty name, this PE below */
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: fi_getname of rail %d failed: %s", i,
                          fi_strerror(-rc));
            len = 0;
        }
        names->len[i] = (uint32_t)len;
    }
}

int ofi_am_connect(ofi_state_t *s, int pe, const ofi_names_t *names)
{
    ofi_am_t *st = s->am;
    st->rails[0].addr[pe] = s->peers[pe].addr;
    for (int i = 1; i < st->n_rails; i++) {
        fi_addr_t a = FI_ADDR_NOTAVAIL;
        int rc = names->len[i] ? fi_av_insert(st->rails[i].av, names->addr[i], 1, &a, 0, NULL)
                               : -FI_EINVAL;
        if (rc != 1) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: inserting PE %d's rail %d address "
                          "(%u bytes) failed: %s", pe, i, names->len[i],
                          fi_strerror(rc < 0 ? -rc : FI_EINVAL));
            return GSHMEM_ERR_TRANSPORT;
        }
        st->rails[i].addr[pe] = a;
    }
    return 0;
}

/* ---- sends ------------------------------------------------------------- */

void ofi_am_rail_queue(ofi_state_t *s, const ofi_am_ready_t *m, ofi_op_t *op, uint64_t seq)
{
    ofi_am_t *st = s->am;
    /* small messages gain nothing from another core: rail 0, which every
     * waiter polls, is the quickest way there and back */
    ofi_am_rail_t *r = &st->rails[m->len <= OFI_AM_SMALL ? 0 : seq % (uint64_t)st->n_rails];
    unsigned t = r->q_tail;   /* OFI_AM_TX entries: one per send buffer, never full */
    r->q[t % OFI_AM_TX] = *m;
    r->q_op[t % OFI_AM_TX] = op;
    __atomic_store_n(&r->q_tail, t + 1, __ATOMIC_RELEASE);
    if (pthread_mutex_trylock(&r->lock) == 0) {
        (void)ofi_am_rail_drain(s, r);   /* a failure is logged and counted in tx_sync */
        pthread_mutex_unlock(&r->lock);
    }
}

int ofi_am_rail_drain(ofi_state_t *s, ofi_am_rail_t *r)
{
    ofi_am_t *st = s->am;
    int sent = 0;
    unsigned tail = __atomic_load_n(&r->q_tail, __ATOMIC_ACQUIRE);
    while (r->q_head != tail) {
        const ofi_am_ready_t *m = &r->q[r->q_head % OFI_AM_TX];
        ofi_op_t *op = r->q_op[r->q_head % OFI_AM_TX];
        memset(&op->ctx, 0, sizeof op->ctx);
        op->rail = r->idx;
        ssize_t rc = fi_send(r->ep, ofi_am_tx_ptr(st, m->slot), m->len, r->tx_desc,
                             r->addr[m->pe], op);
        if (rc == -FI_EAGAIN)
            break;   /* the provider is full: the rail's next pass */
        r->q_head++;
        if (rc != 0) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: sending %zu bytes to PE %d on rail %d "
                          "failed: %s", m->len, m->pe, r->idx, fi_strerror((int)-rc));
            ofi_am_event(s, op, GSHMEM_ERR_TRANSPORT);   /* frees the buffer, counts the failure */
            return GSHMEM_ERR_TRANSPORT;
        }
        gshmemi_trace(GSHMEMI_TR_SEND);
        r->msgs++;
        r->bytes += m->len;
        sent++;
    }
    return sent;
}

/* ---- threads of rails 1.. ------------------------------------------------ */

static void *ofi_am_rail_main(void *arg)
{
    ofi_am_rail_t *r = arg;
    ofi_state_t *s = r->s;
    int hot = 0;
    ofi_am_thread_start(s);
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        int n = ofi_am_rail_pass(s, r);
        if (n > 0) {
            gshmemi_idle_busy(&r->idle);
            continue;
        }
        if (ofi_am_hot(s, &hot)) {
            gshmemi_idle_busy(&r->idle);
            sched_yield();
            continue;
        }
        ofi_cq_nap(s, r->cq, r->cq_fd, gshmemi_idle_next(&r->idle));
    }
    return NULL;
}

int ofi_am_threads_start(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    for (int i = 1; i < st->n_rails; i++) {
        ofi_am_rail_t *r = &st->rails[i];
        /* the transport's settings (written before its thread started),
         * own state: s->idle itself is the running progress thread's */
        gshmemi_idle_init(&r->idle, (long)(s->idle.spin_ns / 1000u),
                          (long)(s->idle.nap_max_ns / 1000u));
        int rc = pthread_create(&r->thread, NULL, ofi_am_rail_main, r);
        if (rc != 0) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: cannot start rail %d's thread: %s", i,
                          strerror(rc));
            return GSHMEM_ERR_SYSTEM;
        }
        char name[16];
        snprintf(name, sizeof name, "gshmem-ofi-r%d", i);
        pthread_setname_np(r->thread, name);
        r->started = 1;
    }
    return 0;
}

void ofi_am_threads_stop(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    for (int i = 1; i < st->n_rails; i++)
        if (st->rails[i].started) {
            pthread_join(st->rails[i].thread, NULL);
            st->rails[i].started = 0;
        }
}

int ofi_am_threads_exit(ofi_state_t *s, uint64_t deadline_ns)
{
    ofi_am_t *st = s->am;
    int joined = 0, late = 0;
    for (int i = 1; i < st->n_rails; i++) {
        if (!st->rails[i].started)
            continue;
        char what[64];
        snprintf(what, sizeof what, "ofi active messages: rail %d's thread", i);
        int rc = gshmemi_thread_exit_join(st->rails[i].thread, deadline_ns, OFI_SUBSYS, what);
        if (rc < 0) {
            late = 1;
            continue;
        }
        joined += rc;
        st->rails[i].started = 0;
    }
    return late ? GSHMEM_ERR_TIMEOUT : joined;
}

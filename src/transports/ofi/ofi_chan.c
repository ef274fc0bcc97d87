/* ofi_chan.c: the ofi transport's channels (transport.h: chan_open ..) and
 * their quiet. A channel is the completion and ordering state of a group
 * of operations on the one endpoint: its nbi counts (each op's
 * op_context names its sync, so the CQ, read by whichever thread polls,
 * counts it on its own channel), the PEs with a fence pending and the PEs
 * written since its last quiet. The transport's own channel (dchan)
 * serves the default context and the engine; each communication context
 * opens one more. Nothing on the data path takes a lock or a syscall that
 * dchan did not: an op picks its channel from the instance it came through.
 *
 * Why not an endpoint (or an fi_cntr) per context: a context is created by
 * one PE alone, while an endpoint must be named to the peers' address
 * vectors (FI_MR_ENDPOINT providers also bind the heap's MR to it), and
 * the CQ already tells each completion's op. On the active-message path
 * (CUDA heaps) every channel is dchan: its acknowledgements are per PE,
 * not per channel. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "ofi.h"

int ofi_chan_init(ofi_state_t *s, ofi_chan_t *ch)
{
    size_t n = (size_t)(unsigned)s->n_pes;
    memset(ch, 0, sizeof *ch);
    ch->fence_pending = calloc(n, 1);
    ch->dirty = calloc(n, 1);
    if (ch->fence_pending == NULL || ch->dirty == NULL) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: out of memory for a channel of %d PEs", s->n_pes);
        ofi_chan_fini(ch);
        return GSHMEM_ERR_NOMEM;
    }
    return 0;
}

void ofi_chan_fini(ofi_chan_t *ch)
{
    free(ch->fence_pending);
    free(ch->dirty);
    ch->fence_pending = ch->dirty = NULL;
}

int ofi_chan_open(gshmemi_transport_t *tp, void **chan_p)
{
    ofi_state_t *s = ofi_state(tp);
    *chan_p = NULL;
    if (s->am_mode)
        return 0;   /* active messages: the one channel (see above) */
    ofi_chan_t *ch = malloc(sizeof *ch);
    if (ch == NULL) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: out of memory for a channel");
        return GSHMEM_ERR_NOMEM;
    }
    int rc = ofi_chan_init(s, ch);
    if (rc != 0) {
        free(ch);
        return rc;
    }
    pthread_mutex_lock(&s->chan_lock);
    ch->next = s->chans;
    s->chans = ch;
    pthread_mutex_unlock(&s->chan_lock);
    *chan_p = ch;
    return 0;
}

int ofi_chan_close(gshmemi_transport_t *tp, void *chan)
{
    ofi_state_t *s = ofi_state(tp);
    ofi_chan_t *ch = chan;
    if (ch == NULL)
        return 0;
    uint64_t left = __atomic_load_n(&ch->nbi.posted, __ATOMIC_ACQUIRE) -
                    __atomic_load_n(&ch->nbi.done, __ATOMIC_ACQUIRE);
    if (left != 0) {   /* the caller's quiet failed: its ops still name ch */
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: closing a channel with %llu operations not complete; "
                      "it is kept", (unsigned long long)left);
        return GSHMEM_ERR_INTERNAL;
    }
    pthread_mutex_lock(&s->chan_lock);
    for (ofi_chan_t **pp = &s->chans; *pp; pp = &(*pp)->next)
        if (*pp == ch) {
            *pp = ch->next;
            break;
        }
    pthread_mutex_unlock(&s->chan_lock);
    ofi_chan_fini(ch);
    free(ch);
    return 0;
}

int ofi_chan_pending(gshmemi_transport_t *tp, uint64_t *pending_p)
{
    ofi_chan_t *ch = ofi_chan_of(tp);
    if (ofi_state(tp)->am_mode)
        return GSHMEM_ERR_NOT_SUPPORTED;   /* acknowledged per PE, not counted here */
    uint64_t done = __atomic_load_n(&ch->nbi.done, __ATOMIC_ACQUIRE);
    *pending_p = __atomic_load_n(&ch->nbi.posted, __ATOMIC_ACQUIRE) - done;
    return 0;
}

int ofi_chan_hold(gshmemi_transport_t *tp, int hold)
{
    ofi_state_t *s = ofi_state(tp);
    if (s->am_mode)
        return GSHMEM_ERR_NOT_SUPPORTED;
    ofi_sync_hold(s, &ofi_chan_of(tp)->nbi, hold);
    return 0;
}

/* Without delivery-complete, a read after the writes to each PE ch wrote
 * (read-after-write ordered) makes them visible before quiet returns. */
static int ofi_flush(ofi_state_t *s, ofi_chan_t *ch)
{
    ofi_sync_t local = {0};
    int rc = 0;
    for (int pe = 0; pe < s->n_pes && rc == 0; pe++) {
        if (!__atomic_exchange_n(&ch->dirty[pe], 0, __ATOMIC_ACQ_REL))
            continue;
        ofi_op_t *op = ofi_op_get(s, &local, OFI_OP_FLUSH, pe, 0, sizeof(uint64_t));
        rc = ofi_rma_post(s, op, &op->result, s->arena_desc, ofi_op_flags(s, ch, pe, 0));
    }
    int wrc = ofi_sync_wait(s, &local);
    return rc ? rc : wrc;
}

int ofi_quiet(ofi_state_t *s, ofi_chan_t *ch)
{
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)
        return ofi_am_quiet(s);
#endif
    int rc = ofi_sync_wait(s, &ch->nbi);
    if (rc == 0 && !s->has_dc && s->has_raw)
        rc = ofi_flush(s, ch);
    return rc;
}

int ofi_quiet_all(ofi_state_t *s)
{
    int rc = ofi_quiet(s, &s->dchan);
    pthread_mutex_lock(&s->chan_lock);
    for (ofi_chan_t *ch = s->chans; ch != NULL && rc == 0; ch = ch->next)
        rc = ofi_quiet(s, ch);
    pthread_mutex_unlock(&s->chan_lock);
    return rc;
}

/* ofi_rma.c: put and get over fi_writemsg / fi_readmsg, on the channel of
 * the instance they come through (ofi_chan.c has the channels' quiet).
 * Transfers split at the provider's max_msg_size (and at the bounce slot
 * size when bouncing). Local buffers: the heap MR's descriptor inside the
 * heap, a registration's for mem_register'd memory, NULL for providers
 * without FI_MR_LOCAL; otherwise bounce through registered slots (gets copy
 * out on completion). Small puts go with FI_INJECT (the source is reusable
 * at once, the completion still counts for quiet). */
#define _GNU_SOURCE
#include <string.h>

#include "ofi.h"

int gshmemi_ofi_force_bounce = 0;

uint64_t ofi_op_flags(ofi_state_t *s, ofi_chan_t *ch, int pe, int remote_write)
{
    uint64_t flags = FI_COMPLETION;
    if (remote_write && s->has_dc)
        flags |= FI_DELIVERY_COMPLETE;
    if (remote_write && !s->has_dc)
        __atomic_store_n(&ch->dirty[pe], 1, __ATOMIC_RELAXED);
    if (s->has_fence && __atomic_exchange_n(&ch->fence_pending[pe], 0, __ATOMIC_ACQ_REL))
        flags |= FI_FENCE;
    return flags;
}

int ofi_local_desc(ofi_state_t *s, const void *p, size_t n, void **desc_p)
{
    if (gshmemi_heap_contains(s->heap, p, n)) {
        *desc_p = s->heap_desc;
        return 1;
    }
    int found = 0;
    pthread_mutex_lock(&s->reg_lock);
    for (ofi_reg_t *r = s->regs; r; r = r->next) {
        uintptr_t a = (uintptr_t)p, b = (uintptr_t)r->addr;
        if (a >= b && a - b <= r->len && n <= r->len - (a - b)) {
            *desc_p = fi_mr_desc(r->mr);
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&s->reg_lock);
    if (found)
        return 1;
    if (!s->mr_local && !gshmemi_ofi_force_bounce) {
        *desc_p = NULL;
        return 1;
    }
    return 0;
}

int ofi_rma_post(ofi_state_t *s, ofi_op_t *op, void *buf, void *desc, uint64_t flags)
{
    ofi_peer_t *peer = &s->peers[op->pe];
    struct iovec iov = {.iov_base = buf, .iov_len = op->len};
    struct fi_rma_iov rma = {.addr = ofi_raddr(peer, s->mr_virt, op->off), .len = op->len,
                             .key = peer->key};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1,
                             .addr = peer->addr, .rma_iov = &rma, .rma_iov_count = 1,
                             .context = op,
                             .data = flags & FI_REMOTE_CQ_DATA ? op->operand : 0};
    ofi_sync_t *sync = op->sync;
    __atomic_fetch_add(&sync->posted, 1, __ATOMIC_RELEASE);
    ssize_t rc;
    for (;;) {
        rc = op->kind != OFI_OP_PUT ? fi_readmsg(s->ep, &msg, flags)
                                    : fi_writemsg(s->ep, &msg, flags);
        if (rc != -FI_EAGAIN || ofi_progress_once(s) == GSHMEM_ERR_NOT_INITIALIZED)
            break;   /* posted, failed, or the process exits (still -FI_EAGAIN) */
    }
    if (rc == 0)
        return 0;
    if (rc != -FI_EAGAIN)
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: posting %s of %zu bytes to PE %d at heap offset %llu "
                      "failed: %s", op->kind == OFI_OP_PUT ? "put" : "get", op->len, op->pe,
                      (unsigned long long)op->off, fi_strerror((int)-rc));
    if (op->bounce >= 0)
        __atomic_fetch_or(&s->bounce_free, 1ull << op->bounce, __ATOMIC_RELEASE);
    ofi_op_put(s, op);
    __atomic_fetch_sub(&sync->posted, 1, __ATOMIC_RELEASE);
    return rc == -FI_EAGAIN ? GSHMEM_ERR_NOT_INITIALIZED : GSHMEM_ERR_TRANSPORT;
}

static int ofi_put_chunk(ofi_state_t *s, ofi_chan_t *ch, ofi_sync_t *sync, int pe,
                         uint64_t off, const char *src, size_t len, int usable, void *desc)
{
    ofi_op_t *op = ofi_op_get(s, sync, OFI_OP_PUT, pe, off, len);
    uint64_t flags = ofi_op_flags(s, ch, pe, 1);
    if (len <= s->inject_size) {
        flags |= FI_INJECT;   /* copied by the provider: no local descriptor needed */
        return ofi_rma_post(s, op, (void *)src, usable ? desc : NULL, flags);
    }
    if (usable)
        return ofi_rma_post(s, op, (void *)src, desc, flags);
    op->bounce = ofi_bounce_get(s);
    char *b = ofi_bounce_ptr(s, op->bounce);
    memcpy(b, src, len);
    return ofi_rma_post(s, op, b, s->bounce_desc, flags);
}

static int ofi_get_chunk(ofi_state_t *s, ofi_chan_t *ch, ofi_sync_t *sync, int pe,
                         uint64_t off, char *dst, size_t len, int usable, void *desc)
{
    ofi_op_t *op = ofi_op_get(s, sync, OFI_OP_GET, pe, off, len);
    uint64_t flags = ofi_op_flags(s, ch, pe, 0);
    if (usable)
        return ofi_rma_post(s, op, dst, desc, flags);
    op->bounce = ofi_bounce_get(s);
    op->copy_out = dst;
    op->copy_len = len;
    return ofi_rma_post(s, op, ofi_bounce_ptr(s, op->bounce), s->bounce_desc, flags);
}

static size_t ofi_chunk_size(ofi_state_t *s, int usable)
{
    size_t c = s->max_msg;
    if (!usable && c > OFI_BOUNCE_SIZE)
        c = OFI_BOUNCE_SIZE;
    return c;
}

/* host_src: src is known to be host memory (the engine's inline data):
 * over active messages, put without asking the CUDA runtime what it is. */
static int ofi_rma_put_from(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                            size_t n, int nbi, int host_src)
{
    ofi_state_t *s = ofi_state(tp);
    GSHMEMI_CHECK(ofi_check_pe(s, pe, "put"));
    GSHMEMI_CHECK(ofi_check_range(s, dst_off, n, "put", pe));
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)
        return host_src ? ofi_am_put_value(s, pe, dst_off, src, n)
                        : ofi_am_put(s, pe, dst_off, src, n, nbi);
#else
    (void)host_src;
#endif
    ofi_chan_t *ch = ofi_chan_of(tp);
    ofi_sync_t local = {0};
    ofi_sync_t *sync = nbi ? &ch->nbi : &local;
    void *desc = NULL;
    int usable = ofi_local_desc(s, src, n, &desc);
    size_t chunk = ofi_chunk_size(s, usable);
    int rc = 0;
    for (size_t done = 0; done < n && rc == 0; done += chunk) {
        size_t len = n - done < chunk ? n - done : chunk;
        rc = ofi_put_chunk(s, ch, sync, pe, dst_off + done, (const char *)src + done, len,
                           usable, desc);
    }
    if (nbi)
        return rc;
    int wrc = ofi_sync_wait(s, &local);
    return rc ? rc : wrc;
}

/* The engine's inline data: host memory, non-blocking. */
int ofi_rma_put_value(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                      size_t n)
{
    return ofi_rma_put_from(tp, pe, dst_off, src, n, 1, 1);
}

/* A flag: fi_inject_write, which asks for no delivery-complete (the target
 * sends no acknowledgement) and makes no completion at all: nothing waits
 * for it, and no CQ entry wakes the CQ's wait fd (over tcp;ofi_rxm each
 * entry was a pipe write, and its reset a read, per flag). Errors still come
 * as CQ error entries. Over active messages, and where 8 bytes cannot be
 * injected: an atomic set. */
int ofi_rma_flag_set(gshmemi_transport_t *tp, int pe, uint64_t off, uint64_t value)
{
    ofi_state_t *s = ofi_state(tp);
    GSHMEMI_CHECK(ofi_check_pe(s, pe, "flag set"));
    GSHMEMI_CHECK(ofi_check_range(s, off, sizeof value, "flag set", pe));
    if (s->am_mode || s->inject_size < sizeof value)
        return gshmemi_tp_flag_set_by_amo(tp, pe, off, value);
    ofi_peer_t *peer = &s->peers[pe];
    ssize_t rc;
    for (;;) {
        rc = fi_inject_write(s->ep, &value, sizeof value, peer->addr,
                             ofi_raddr(peer, s->mr_virt, off), peer->key);
        if (rc != -FI_EAGAIN || ofi_progress_once(s) == GSHMEM_ERR_NOT_INITIALIZED)
            break;
    }
    if (rc == 0)
        return 0;
    if (rc == -FI_EAGAIN)   /* still full as the process exits: ofi_rma_post's answer */
        return GSHMEM_ERR_NOT_INITIALIZED;
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi: a flag write to PE %d at heap offset %llu failed: %s", pe,
                  (unsigned long long)off, fi_strerror((int)-rc));
    return GSHMEM_ERR_TRANSPORT;
}

/* Where the target reports writes that carry CQ data (has_cq_data), the
 * count rides in the write itself: the CQ data is sig_off, and the
 * target's progress adds 1 there once the data is placed (ofi_progress.c).
 * One write, no fence, no acknowledgement: nothing waits for the data
 * before the count, nor for the target after it. A write larger than one
 * message, and providers without it: the stub. */
int ofi_rma_put_count(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                      size_t n, uint64_t sig_off)
{
    ofi_state_t *s = ofi_state(tp);
    GSHMEMI_CHECK(ofi_check_pe(s, pe, "put with a count"));
    GSHMEMI_CHECK(ofi_check_range(s, dst_off, n, "put with a count", pe));
    GSHMEMI_CHECK(ofi_check_range(s, sig_off, sizeof(uint64_t), "count", pe));
    void *desc = NULL;
    int usable = n == 0 || ofi_local_desc(s, src, n, &desc);
    if (!s->has_cq_data || !usable || n > s->max_msg || sig_off % sizeof(uint64_t) != 0)
        return gshmemi_tp_put_count_by_amo(tp, pe, dst_off, src, n, sig_off);
    ofi_chan_t *ch = ofi_chan_of(tp);
    ofi_op_t *op = ofi_op_get(s, &ch->nbi, OFI_OP_PUT, pe, dst_off, n);
    op->operand = sig_off;
    /* no delivery-complete: the count is what tells the target, and no
     * caller needs to know at this PE that it landed (transport.h) */
    uint64_t flags = ofi_op_flags(s, ch, pe, 0) | FI_REMOTE_CQ_DATA;
    if (n <= s->inject_size)
        flags |= FI_INJECT;
    return ofi_rma_post(s, op, (void *)src, desc, flags);
}

int ofi_rma_put(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                size_t n, int nbi)
{
    return ofi_rma_put_from(tp, pe, dst_off, src, n, nbi, 0);
}

int ofi_rma_get(gshmemi_transport_t *tp, int pe, void *dst, uint64_t src_off, size_t n,
                int nbi)
{
    ofi_state_t *s = ofi_state(tp);
    GSHMEMI_CHECK(ofi_check_pe(s, pe, "get"));
    GSHMEMI_CHECK(ofi_check_range(s, src_off, n, "get", pe));
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)
        return ofi_am_get(s, pe, dst, src_off, n, nbi);
#endif
    ofi_chan_t *ch = ofi_chan_of(tp);
    ofi_sync_t local = {0};
    ofi_sync_t *sync = nbi ? &ch->nbi : &local;
    void *desc = NULL;
    int usable = ofi_local_desc(s, dst, n, &desc);
    size_t chunk = ofi_chunk_size(s, usable);
    int rc = 0;
    for (size_t done = 0; done < n && rc == 0; done += chunk) {
        size_t len = n - done < chunk ? n - done : chunk;
        rc = ofi_get_chunk(s, ch, sync, pe, src_off + done, (char *)dst + done, len, usable,
                           desc);
    }
    if (nbi)
        return rc;
    int wrc = ofi_sync_wait(s, &local);
    return rc ? rc : wrc;
}

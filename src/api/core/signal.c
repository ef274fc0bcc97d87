/* signal.c: put-with-signal, signal_fetch and signal_wait_until.
 *
 * put-with-signal = the put, then a non-blocking SET/ADD on the uint64
 * signal word issued after a fence (amo_nbi with after_fence), so the
 * signal is visible only after the data. When the data and the signal take
 * different transports (data through shm, AMOs through ofi), the data is
 * completed (quiet of its transport) before the signal is issued. The
 * blocking form returns when the source may be reused, like OpenSHMEM's;
 * both complete at the quiet of their context (gshmem_quiet: the default). */
#include "core.h"

void gshmemi_signal_put(const char *call, gshmemi_ctx_t *c, void *dest, const void *src,
                        size_t n, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                        int nbi)
{
    gshmemi_state_t *g = &gshmemi_g;
    int rc;

    GSHMEMI_REQUIRE_INIT(call);
    gshmemi_check_pe(call, pe);
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        gshmemi_fatal(call, "invalid sig_op %d (expected GSHMEM_SIGNAL_SET = 0 or "
                      "GSHMEM_SIGNAL_ADD = 1)", sig_op);
    uint64_t sig_off = gshmemi_check_sym_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
    gshmemi_rma_put_on(call, c, dest, src, n, pe, nbi);

    gshmemi_transport_t *stp = gshmemi_ctx_tp(c, gshmemi_amo_tp_of(pe));
    int self_copy = pe == g->my_pe && g->heap.kind == GSHMEMI_HEAP_HOST;
    gshmemi_transport_t *dtp = self_copy ? NULL : gshmemi_ctx_tp(c, g->pe_tp[pe]);
    if (n > 0 && dtp != NULL && dtp != stp) {
        rc = dtp->ops->quiet(dtp);
        if (rc != 0)
            gshmemi_tp_fatal(call, dtp, rc, "completing the data before the signal", pe);
    }
    rc = stp->ops->amo_nbi(stp, pe, sig_op == GSHMEM_SIGNAL_SET ? GSHMEMI_AMO_SET
                                                                 : GSHMEMI_AMO_ADD,
                           GSHMEMI_DT_UINT64, sig_off, &signal, 1);
    if (rc != 0)
        gshmemi_tp_fatal(call, stp, rc, "signal update", pe);
}

/* gshmem_<C>putmem_signal<NBI>: C empty (the default context) or ctx_. */
#define GSHMEMI_DEF_SIGNAL(C, NBI, nbi)                                                    \
    void gshmem_##C##putmem_signal##NBI(GSHMEMI_CTXA_##C void *dest,                       \
                                        const void *source, size_t nelems,                 \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                        int pe)                                            \
    {                                                                                      \
        const char *call = "gshmem_" #C "putmem_signal" #NBI;                              \
        gshmemi_signal_put(call, GSHMEMI_CTX_OF_##C(call), dest, source, nelems, sig_addr, \
                           signal, sig_op, pe, nbi);                                       \
    }
GSHMEMI_DEF_SIGNAL(, , 0)
GSHMEMI_DEF_SIGNAL(, _nbi, 1)
GSHMEMI_DEF_SIGNAL(ctx_, , 0)
GSHMEMI_DEF_SIGNAL(ctx_, _nbi, 1)

/* Local value of a signal word. Hardware-atomic transports update it with
 * CPU atomics: an acquire load suffices. Otherwise read it with an AMO
 * through the transport that carries every AMO, coherent with them. */
static uint64_t gshmemi_signal_load(const char *call, const uint64_t *sig_addr, uint64_t off)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmemi_transport_t *tp = gshmemi_amo_tp_of(g->my_pe);
    uint64_t v, zero = 0;

    if (tp->hw_atomics && g->heap.kind == GSHMEMI_HEAP_HOST)
        return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    int rc = tp->ops->amo(tp, g->my_pe, GSHMEMI_AMO_FETCH, GSHMEMI_DT_UINT64, off, &zero,
                          NULL, &v);
    if (rc != 0)
        gshmemi_tp_fatal(call, tp, rc, "signal fetch", g->my_pe);
    return v;
}

uint64_t gshmem_signal_fetch(const uint64_t *sig_addr)
{
    const char *call = "gshmem_signal_fetch";
    GSHMEMI_REQUIRE_INIT(call);
    uint64_t off = gshmemi_check_sym_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
    return gshmemi_signal_load(call, sig_addr, off);
}

uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    const char *call = "gshmem_signal_wait_until";

    GSHMEMI_REQUIRE_INIT(call);
    (void)gshmemi_cmp_u64(call, cmp, 0, 0);   /* an invalid cmp ends the job here */
    gshmemi_check_sym_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
    for (unsigned long spins = 0;; spins++) {
        uint64_t v;
        gshmemi_sym_load(call, &v, sig_addr, sizeof v);   /* a CUDA heap: by a copy */
        if (gshmemi_cmp_u64(call, cmp, v, cmp_value))
            return v;
        gshmemi_sym_wait_step(spins);
    }
}

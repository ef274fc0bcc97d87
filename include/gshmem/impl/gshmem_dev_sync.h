/* gshmem_dev_sync.h: fence, quiet, put-with-signal, signal_op, signal
 * fetch/wait and point synchronization (wait_until, test and the set
 * forms, for every wait type of impl/gshmem_coll_types.h). Included by
 * gshmem_device.h only; bodies in the device pass. */
#ifndef GSHMEMI_DEV_SYNC_H
#define GSHMEMI_DEV_SYNC_H

#if defined(GSHMEMI_DEV_PASS)

extern "C" {

/* P2P: a system-scope fence orders this thread's stores and atomics to
 * peers (fence) and, the stores being issued, makes them visible before
 * anything this thread does next (quiet). Queue path (when an engine
 * runs): fence posts a FENCE entry in this thread's ring; quiet waits until
 * every entry posted before it on this PE is complete. */
GSHMEMI_DEV_API void gshmem_fence(void)
{
    __threadfence_system();
    gshmemi_devq_fence();
}

GSHMEMI_DEV_API void gshmem_quiet(void)
{
    __threadfence_system();
    gshmemi_devq_quiet("gshmem_quiet");
}

} /* extern "C" */

/* ---- comparisons ----------------------------------------------------------------- */

template <typename T>
GSHMEMI_DEV bool gshmemi_dev_cmp(const char *call, T v, int cmp, T ref)
{
    switch (cmp) {
    case GSHMEM_CMP_EQ: return v == ref;
    case GSHMEM_CMP_NE: return v != ref;
    case GSHMEM_CMP_GT: return v > ref;
    case GSHMEM_CMP_GE: return v >= ref;
    case GSHMEM_CMP_LT: return v < ref;
    case GSHMEM_CMP_LE: return v <= ref;
    default: gshmemi_dev_fail_arg(call, "cmp", cmp); return false;
    }
}

/* An acquire load of an ivar of 2, 4 or 8 bytes (system scope: the writer
 * may be a peer GPU or a CPU). */
template <typename T> GSHMEMI_DEV T gshmemi_dev_ld_acq(const T *p)
{
    uint64_t b = sizeof(T) == 8   ? gshmemi_atomic_load_acquire_u64((const uint64_t *)p)
                 : sizeof(T) == 4 ? gshmemi_atomic_load_acquire_u32((const uint32_t *)p)
                                  : gshmemi_dev_ld_acquire_u16((const uint16_t *)p);
    return gshmemi_dev_from_bits<T>(b);
}

/* Spins until *ivar satisfies cmp; returns the value seen. An acquire load
 * per poll: polling with relaxed loads and one fence.acq_rel.sys after the
 * value is seen made the signal ping-pong 1.2x slower (the fence waits on
 * the system; docs/results/device-perf-2026-11-26-s10). */
template <typename T>
GSHMEMI_DEV T gshmemi_dev_wait(const char *call, const T *ivar, int cmp, T ref)
{
    uint32_t spins = 0, backoff = 0;
    gshmemi_dev_check_local(call, "ivar", ivar, sizeof(T));
    for (;;) {
        T v = gshmemi_dev_ld_acq(ivar);
        if (gshmemi_dev_cmp(call, v, cmp, ref))
            return v;
        gshmemi_dev_pause(&spins, &backoff);
    }
}

/* ---- signals ------------------------------------------------------------------------ */

/* After the data (stores of this thread, or of its group once the group's
 * barrier has run): a system fence, then the signal update at pe (P2P). */
GSHMEMI_DEV void gshmemi_dev_signal_p2p(uint64_t *r, uint64_t signal, int sig_op)
{
    __threadfence_system();
    if (sig_op == GSHMEM_SIGNAL_ADD)
        (void)gshmemi_atomic_fetch_add_relaxed_u64(r, signal);
    else
        gshmemi_atomic_store_relaxed_u64(r, signal);
}

/* Every put-with-signal form: P2P: the group copies, syncs, rank 0 signals;
 * queue path: rank 0 posts one PUT_SIGNAL entry once the group reached the
 * call. blocking: the group syncs at the end (and, on the queue path, rank 0
 * waited for completion first). sm: as gshmemi_dev_put's. */
GSHMEMI_DEV void gshmemi_dev_put_signal(const char *call, void *dest, const void *source,
                                        size_t n, uint64_t *sig_addr, uint64_t signal,
                                        int sig_op, int pe, gshmemi_dev_group_t g,
                                        bool blocking, const gshmemi_dev_small_t &sm)
{
    gshmemi_dev_check(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
    if (n > 0)
        gshmemi_dev_check(call, "dest", dest, n, pe);
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        gshmemi_dev_fail_arg(call, "sig_op", sig_op);
    uint64_t *r = (uint64_t *)gshmemi_dev_peer_addr(sig_addr, pe);
    if (r != NULL) {
        /* dest is in the same heap: its twin is as far from it as sig_addr's */
        char *d = (char *)dest + ((char *)r - (char *)sig_addr);
        if (sm.nw != 0)
            gshmemi_dev_small_store(d, sm);
        else if (n > 0)
            gshmemi_dev_copy_p2p(d, source, n, g, dest, source);
        gshmemi_devq_group_sync(g);
        if (g.rank == 0)
            gshmemi_dev_signal_p2p(r, signal, sig_op);
    } else {
        gshmemi_devq_group_sync(g);
        if (g.rank == 0)
            gshmemi_devq_put_signal(call, dest, source, n, sig_addr, signal, sig_op, pe,
                                    blocking);
    }
    if (blocking)
        gshmemi_devq_group_sync(g);
}

extern "C" {

GSHMEMI_DEV_API void gshmem_putmem_signal(void *dest, const void *source, size_t nelems,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    gshmemi_dev_put_signal("gshmem_putmem_signal", dest, source, nelems, sig_addr, signal,
                           sig_op, pe, gshmemi_dev_thread(), true,
                           gshmemi_dev_small_load(dest, source, nelems));
}

GSHMEMI_DEV_API void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,
                                          int pe)
{
    gshmemi_dev_put_signal("gshmem_putmem_signal_nbi", dest, source, nelems, sig_addr,
                           signal, sig_op, pe, gshmemi_dev_thread(), false,
                           gshmemi_dev_small_load(dest, source, nelems));
}

GSHMEMI_DEV void gshmemx_putmem_signal_warp(void *dest, const void *source, size_t nelems,
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,
                                            int pe)
{
    gshmemi_dev_lanemask_t mask;
    gshmemi_dev_put_signal("gshmemx_putmem_signal_warp", dest, source, nelems, sig_addr,
                           signal, sig_op, pe, gshmemi_dev_warp(&mask), true,
                           gshmemi_dev_small_none());
}

GSHMEMI_DEV void gshmemx_putmem_signal_nbi_warp(void *dest, const void *source, size_t nelems,
                                                uint64_t *sig_addr, uint64_t signal,
                                                int sig_op, int pe)
{
    gshmemi_dev_lanemask_t mask;
    gshmemi_dev_put_signal("gshmemx_putmem_signal_nbi_warp", dest, source, nelems, sig_addr,
                           signal, sig_op, pe, gshmemi_dev_warp(&mask), false,
                           gshmemi_dev_small_none());
}

GSHMEMI_DEV void gshmemx_putmem_signal_block(void *dest, const void *source, size_t nelems,
                                             uint64_t *sig_addr, uint64_t signal, int sig_op,
                                             int pe)
{
    gshmemi_dev_put_signal("gshmemx_putmem_signal_block", dest, source, nelems, sig_addr,
                           signal, sig_op, pe, gshmemi_dev_block(), true,
                           gshmemi_dev_small_none());
}

GSHMEMI_DEV void gshmemx_putmem_signal_nbi_block(void *dest, const void *source, size_t nelems,
                                                 uint64_t *sig_addr, uint64_t signal,
                                                 int sig_op, int pe)
{
    gshmemi_dev_put_signal("gshmemx_putmem_signal_nbi_block", dest, source, nelems, sig_addr,
                           signal, sig_op, pe, gshmemi_dev_block(), false,
                           gshmemi_dev_small_none());
}

GSHMEMI_DEV void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    const char *call = "gshmemx_signal_op";
    gshmemi_dev_check(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        gshmemi_dev_fail_arg(call, "sig_op", sig_op);
    uint64_t *r = (uint64_t *)gshmemi_dev_peer_addr(sig_addr, pe);
    if (r == NULL)
        gshmemi_devq_signal(call, sig_addr, signal, sig_op, pe);
    else if (sig_op == GSHMEM_SIGNAL_ADD)
        (void)gshmemi_atomic_fetch_add_relaxed_u64(r, signal);
    else
        gshmemi_atomic_store_relaxed_u64(r, signal);
}

GSHMEMI_DEV_API uint64_t gshmem_signal_fetch(const uint64_t *sig_addr)
{
    gshmemi_dev_check_local("gshmem_signal_fetch", "sig_addr", sig_addr, sizeof(uint64_t));
    return gshmemi_atomic_load_acquire_u64(sig_addr);
}

GSHMEMI_DEV_API uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return gshmemi_dev_wait("gshmem_signal_wait_until", (const uint64_t *)sig_addr, cmp,
                            cmp_value);
}

} /* extern "C" */

/* ---- point synchronization ---------------------------------------------------------- */

typedef enum { GSHMEMI_DEV_SET_ALL, GSHMEMI_DEV_SET_ANY, GSHMEMI_DEV_SET_SOME } gshmemi_dev_set_t;

/* What a set call checks first: cmp, the arrays it needs, every included
 * ivar; returns the count of included ones. */
template <typename T>
GSHMEMI_DEV size_t gshmemi_dev_set_check(const char *call, const T *ivars, size_t nelems,
                                         const int *status, int cmp, int mode,
                                         const size_t *indices, const T *vs, bool vector)
{
    (void)gshmemi_dev_cmp(call, (T)0, cmp, (T)0);
    if (nelems > 0 && mode == GSHMEMI_DEV_SET_SOME && indices == NULL)
        gshmemi_dev_fail_arg(call, "indices (NULL) with nelems", (long long)nelems);
    if (nelems > 0 && vector && vs == NULL)
        gshmemi_dev_fail_arg(call, "cmp_values (NULL) with nelems", (long long)nelems);
    size_t active = 0;
    for (size_t i = 0; i < nelems; i++)
        if (status == NULL || status[i] == 0) {
            gshmemi_dev_check_local(call, "ivars[i]", &ivars[i], sizeof(T));
            active++;
        }
    return active;
}

/* Every set form: scans the included ivars (ALL: until one fails; ANY:
 * until one holds; SOME: all, writing the indices that hold), until done
 * (ALL: all hold; ANY, SOME: one holds, or none is included) or once
 * (wait false: the test forms). Returns ALL: 1 when done, else 0; ANY: the
 * lowest index that holds, SIZE_MAX when none is included or (test) none
 * holds; SOME: the count written, 0 when none holds or none is included. */
template <typename T>
GSHMEMI_DEV size_t gshmemi_dev_set(const char *call, int mode, bool wait, const T *ivars,
                                   size_t nelems, size_t *indices, const int *status, int cmp,
                                   T v, const T *vs, bool vector)
{
    size_t active = gshmemi_dev_set_check(call, ivars, nelems, status, cmp, mode, indices, vs,
                                          vector);
    uint32_t spins = 0, backoff = 0;
    for (;;) {
        size_t got = 0, first = SIZE_MAX;
        bool failed = false;
        for (size_t i = 0; i < nelems && !failed; i++) {
            if (status != NULL && status[i] != 0)
                continue;
            if (!gshmemi_dev_cmp(call, gshmemi_dev_ld_acq(&ivars[i]), cmp, vector ? vs[i] : v)) {
                failed = mode == GSHMEMI_DEV_SET_ALL;
                continue;
            }
            if (got++ == 0)
                first = i;
            if (mode == GSHMEMI_DEV_SET_ANY)
                break;
            if (mode == GSHMEMI_DEV_SET_SOME)
                indices[got - 1] = i;
        }
        bool done = mode == GSHMEMI_DEV_SET_ALL ? got == active : active == 0 || got > 0;
        if (done || !wait) {
            if (mode == GSHMEMI_DEV_SET_ALL)
                return done ? 1 : 0;
            return mode == GSHMEMI_DEV_SET_ANY ? first : got;
        }
        gshmemi_dev_pause(&spins, &backoff);
    }
}

extern "C" {

/* One set call and its _vector form: RET name(T *ivars, size_t nelems,
 * [size_t *indices,] const int *status, int cmp, <value or values>). */
#define GSHMEMI_DDEF_SET(T, N, RET, NAME, MODE, WAIT)                                      \
    GSHMEMI_DEV_API RET gshmem_##N##_##NAME(T *ivars, size_t nelems, const int *status,    \
                                            int cmp, T cmp_value)                          \
    {                                                                                      \
        return (RET)gshmemi_dev_set<T>("gshmem_" #N "_" #NAME, MODE, WAIT, ivars, nelems,  \
                                       NULL, status, cmp, cmp_value, NULL, false);         \
    }                                                                                      \
    GSHMEMI_DEV_API RET gshmem_##N##_##NAME##_vector(T *ivars, size_t nelems,              \
                                                     const int *status, int cmp,           \
                                                     T *cmp_values)                        \
    {                                                                                      \
        return (RET)gshmemi_dev_set<T>("gshmem_" #N "_" #NAME "_vector", MODE, WAIT, ivars, \
                                       nelems, NULL, status, cmp, (T)0, cmp_values, true); \
    }
#define GSHMEMI_DDEF_SET_SOME(T, N, NAME, WAIT)                                            \
    GSHMEMI_DEV_API size_t gshmem_##N##_##NAME(T *ivars, size_t nelems, size_t *indices,   \
                                               const int *status, int cmp, T cmp_value)    \
    {                                                                                      \
        return gshmemi_dev_set<T>("gshmem_" #N "_" #NAME, GSHMEMI_DEV_SET_SOME, WAIT, ivars, \
                                  nelems, indices, status, cmp, cmp_value, NULL, false);   \
    }                                                                                      \
    GSHMEMI_DEV_API size_t gshmem_##N##_##NAME##_vector(T *ivars, size_t nelems,           \
                                                        size_t *indices, const int *status, \
                                                        int cmp, T *cmp_values)            \
    {                                                                                      \
        return gshmemi_dev_set<T>("gshmem_" #N "_" #NAME "_vector", GSHMEMI_DEV_SET_SOME,  \
                                  WAIT, ivars, nelems, indices, status, cmp, (T)0,         \
                                  cmp_values, true);                                       \
    }

#define GSHMEMI_DDEF_SYNC(T, N)                                                            \
    GSHMEMI_DEV_API void gshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)            \
    {                                                                                      \
        (void)gshmemi_dev_wait("gshmem_" #N "_wait_until", (const T *)ivar, cmp, cmp_value); \
    }                                                                                      \
    GSHMEMI_DEV_API int gshmem_##N##_test(T *ivar, int cmp, T cmp_value)                   \
    {                                                                                      \
        gshmemi_dev_check_local("gshmem_" #N "_test", "ivar", ivar, sizeof(T));            \
        return gshmemi_dev_cmp("gshmem_" #N "_test", gshmemi_dev_ld_acq((const T *)ivar),  \
                               cmp, cmp_value) ? 1 : 0;                                    \
    }                                                                                      \
    GSHMEMI_DDEF_SET(T, N, void, wait_until_all, GSHMEMI_DEV_SET_ALL, true)                \
    GSHMEMI_DDEF_SET(T, N, size_t, wait_until_any, GSHMEMI_DEV_SET_ANY, true)              \
    GSHMEMI_DDEF_SET_SOME(T, N, wait_until_some, true)                                     \
    GSHMEMI_DDEF_SET(T, N, int, test_all, GSHMEMI_DEV_SET_ALL, false)                      \
    GSHMEMI_DDEF_SET(T, N, size_t, test_any, GSHMEMI_DEV_SET_ANY, false)                   \
    GSHMEMI_DDEF_SET_SOME(T, N, test_some, false)
GSHMEMI_WAIT_EACH_TYPE(GSHMEMI_DDEF_SYNC)
#undef GSHMEMI_DDEF_SYNC
#undef GSHMEMI_DDEF_SET
#undef GSHMEMI_DDEF_SET_SOME

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_SYNC_H */

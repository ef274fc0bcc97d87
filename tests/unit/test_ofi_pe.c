/* test_ofi_pe.c: what each forked PE of the ofi tests runs (see
 * test_ofi.c for the driver and the fake bootstrap). Every check compares a
 * real value with its reference and prints PE, what and where on failure. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_ofi.h"
#include "transports/ofi/ofi.h"

#define OFF_PUT 0u
#define BLK (256u << 10)
#define OFF_SCRATCH (2u << 20)
#define OFF_CNT (4u << 20)
#define OFF_FLAG ((4u << 20) + (64u << 10))
#define OFF_FDATA ((4u << 20) + (128u << 10))
#define FDATA_LEN (256u << 10)
#define OFF_LARGE (8u << 20)
#define LARGE_LEN (16u << 20)
#define OFF_LARGE_SRC (24u << 20)

static unsigned char *hp(tofi_pe_t *p, size_t off)
{
    return (unsigned char *)p->heap.base + off;
}

static unsigned char pat(int from, int to, size_t i, int k)
{
    return (unsigned char)(from * 31 + to * 7 + i * 13 + (i >> 8) + k);
}

static int barrier(tofi_pe_t *p)
{
    return p->boot->ops->barrier(p->boot);
}

static int put(tofi_pe_t *p, int pe, uint64_t off, const void *src, size_t n, int nbi)
{
    return p->tp.ops->put(&p->tp, pe, off, src, n, nbi);
}

static int get(tofi_pe_t *p, int pe, void *dst, uint64_t off, size_t n, int nbi)
{
    return p->tp.ops->get(&p->tp, pe, dst, off, n, nbi);
}

static int amo(tofi_pe_t *p, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt, uint64_t off,
               const void *v, const void *cmp, void *res)
{
    return p->tp.ops->amo(&p->tp, pe, op, dt, off, v, cmp, res);
}

static int quiet(tofi_pe_t *p)
{
    return p->tp.ops->quiet(&p->tp);
}

/* Puts of several sizes to every PE (blocking and nbi, sources in and out of
 * the heap), then gets of the same back. */
int tofi_scenario_put_get(tofi_pe_t *p)
{
    static const size_t sizes[] = {8, 100, 4096, 200000};
    unsigned char *src = malloc((size_t)p->n * BLK), *dst = malloc((size_t)p->n * BLK);
    TOFI_CHECK(p, src && dst, "malloc");
    for (int k = 0; k < 4; k++) {
        size_t sz = sizes[k];
        for (int t = 0; t < p->n; t++) {
            unsigned char *s = (t % 2) ? hp(p, OFF_SCRATCH + t * BLK) : src + t * BLK;
            for (size_t i = 0; i < sz; i++)
                s[i] = pat(p->pe, t, i, k);
            TOFI_OK(p, put(p, t, OFF_PUT + p->pe * BLK, s, sz, (t + k) % 2));
        }
        TOFI_OK(p, quiet(p));
        TOFI_OK(p, barrier(p));
        for (int from = 0; from < p->n; from++)
            for (size_t i = 0; i < sz; i++)
                TOFI_CHECK(p, hp(p, OFF_PUT + from * BLK)[i] == pat(from, p->pe, i, k),
                           "size %zu from PE %d byte %zu: %u", sz, from, i,
                           hp(p, OFF_PUT + from * BLK)[i]);
        memset(dst, 0, (size_t)p->n * BLK);
        for (int t = 0; t < p->n; t++)
            TOFI_OK(p, get(p, t, dst + t * BLK, OFF_PUT + p->pe * BLK, sz, (t + k + 1) % 2));
        TOFI_OK(p, quiet(p));
        for (int t = 0; t < p->n; t++)
            for (size_t i = 0; i < sz; i++)
                TOFI_CHECK(p, dst[t * BLK + i] == pat(p->pe, t, i, k),
                           "get size %zu from PE %d byte %zu: %u", sz, t, i, dst[t * BLK + i]);
        TOFI_OK(p, barrier(p));
    }
    free(src);
    free(dst);
    return 0;
}

/* Every PE: iters fetch_add on a counter at PE 0 and on its own, int32 adds
 * at PE 0, and a compare-swap increment loop at PE 0: exact totals. */
int tofi_scenario_amo_contention(tofi_pe_t *p, int iters)
{
    const uint64_t c0 = OFF_CNT, c1 = OFF_CNT + 8, c2 = OFF_CNT + 16, c3 = OFF_CNT + 24;
    uint64_t one = 1, r, prev = 0;
    int32_t one32 = 1;
    for (int i = 0; i < iters; i++) {
        TOFI_OK(p, amo(p, 0, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_UINT64, c0, &one, NULL, &r));
        TOFI_CHECK(p, i == 0 || r > prev, "fetch_add at PE 0 went back: %llu after %llu",
                   (unsigned long long)r, (unsigned long long)prev);
        prev = r;
        TOFI_OK(p, amo(p, p->pe, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_INT64, c1, &one, NULL, &r));
        TOFI_CHECK(p, r == (uint64_t)i, "self fetch_add %d returned %llu", i,
                   (unsigned long long)r);
        TOFI_OK(p, amo(p, 0, GSHMEMI_AMO_ADD, GSHMEMI_DT_INT32, c2, &one32, NULL, NULL));
    }
    for (int i = 0; i < iters / 20; i++) {
        int64_t v, nv, old;
        TOFI_OK(p, amo(p, 0, GSHMEMI_AMO_FETCH, GSHMEMI_DT_INT64, c3, NULL, NULL, &v));
        for (;;) {
            nv = v + 1;
            TOFI_OK(p, amo(p, 0, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_INT64, c3, &nv, &v, &old));
            if (old == v)
                break;
            v = old;
        }
    }
    TOFI_OK(p, barrier(p));
    uint64_t want = (uint64_t)p->n * iters;
    TOFI_CHECK(p, *(volatile uint64_t *)hp(p, c1) == (uint64_t)iters, "own counter %llu",
               (unsigned long long)*(volatile uint64_t *)hp(p, c1));
    TOFI_OK(p, amo(p, 0, GSHMEMI_AMO_FETCH, GSHMEMI_DT_UINT64, c0, NULL, NULL, &r));
    TOFI_CHECK(p, r == want, "PE 0 counter fetched %llu, want %llu", (unsigned long long)r,
               (unsigned long long)want);
    if (p->pe == 0) {
        TOFI_CHECK(p, *(volatile uint64_t *)hp(p, c0) == want, "c0 %llu",
                   (unsigned long long)*(volatile uint64_t *)hp(p, c0));
        TOFI_CHECK(p, *(volatile int32_t *)hp(p, c2) == (int32_t)want, "int32 c2 %d",
                   *(volatile int32_t *)hp(p, c2));
        TOFI_CHECK(p, *(volatile int64_t *)hp(p, c3) == (int64_t)p->n * (iters / 20),
                   "cswap counter %lld", (long long)*(volatile int64_t *)hp(p, c3));
    }
    return barrier(p);
}

/* SET, FETCH, SWAP, CSWAP (failing and succeeding), FETCH_ADD, ADD on the
 * three types, at the next PE and at this one. */
static int amo_ops_at(tofi_pe_t *p, int t, uint64_t slot)
{
    int64_t v = 0x1234567890ll + p->pe, v2 = -77 - p->pe, v3 = 555, wrong = 1, r;
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_SET, GSHMEMI_DT_INT64, slot, &v, NULL, NULL));
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_FETCH, GSHMEMI_DT_INT64, slot, NULL, NULL, &r));
    TOFI_CHECK(p, r == v, "PE %d fetch after set: %lld", t, (long long)r);
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_SWAP, GSHMEMI_DT_INT64, slot, &v2, NULL, &r));
    TOFI_CHECK(p, r == v, "PE %d swap returned %lld", t, (long long)r);
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_INT64, slot, &v3, &wrong, &r));
    TOFI_CHECK(p, r == v2, "PE %d failing cswap returned %lld", t, (long long)r);
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_FETCH, GSHMEMI_DT_INT64, slot, NULL, NULL, &r));
    TOFI_CHECK(p, r == v2, "PE %d failing cswap changed the value to %lld", t, (long long)r);
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_INT64, slot, &v3, &v2, &r));
    TOFI_CHECK(p, r == v2, "PE %d cswap returned %lld", t, (long long)r);
    int32_t a = -5, b = 7, c = -100, d = 42, r32;
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_SET, GSHMEMI_DT_INT32, slot + 8, &a, NULL, NULL));
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_INT32, slot + 8, &b, NULL, &r32));
    TOFI_CHECK(p, r32 == -5, "PE %d int32 fetch_add returned %d", t, r32);
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_SWAP, GSHMEMI_DT_INT32, slot + 8, &c, NULL, &r32));
    TOFI_CHECK(p, r32 == 2, "PE %d int32 swap returned %d", t, r32);
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_INT32, slot + 8, &d, &c, &r32));
    TOFI_CHECK(p, r32 == -100, "PE %d int32 cswap returned %d", t, r32);
    uint64_t u = 0xfffffffffffffff0ull, add = 0x20, hi = 1ull << 63, wrapped = 0x10, ur;
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_SET, GSHMEMI_DT_UINT64, slot + 16, &u, NULL, NULL));
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, slot + 16, &add, NULL, NULL));
    TOFI_OK(p, amo(p, t, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_UINT64, slot + 16, &hi, &wrapped, &ur));
    TOFI_CHECK(p, ur == 0x10, "PE %d uint64 wrap-around add gave %llx", t,
               (unsigned long long)ur);
    return 0;
}

int tofi_scenario_amo_ops(tofi_pe_t *p)
{
    int t = (p->pe + 1) % p->n, from = (p->pe + p->n - 1) % p->n;
    uint64_t slot = OFF_CNT + 256 + 64 * p->pe, self = OFF_CNT + 1024 + 64 * p->pe;
    if (amo_ops_at(p, t, slot) || amo_ops_at(p, p->pe, self))
        return 1;
    TOFI_OK(p, barrier(p));
    /* The values the previous PE left here, read locally. */
    unsigned char *s = hp(p, OFF_CNT + 256 + 64 * from);
    TOFI_CHECK(p, *(int64_t *)s == 555, "slot of PE %d holds %lld", from,
               (long long)*(int64_t *)s);
    TOFI_CHECK(p, *(int32_t *)(s + 8) == 42, "int32 slot of PE %d holds %d", from,
               *(int32_t *)(s + 8));
    TOFI_CHECK(p, *(uint64_t *)(s + 16) == 1ull << 63, "uint64 slot of PE %d holds %llx", from,
               (unsigned long long)*(uint64_t *)(s + 16));
    return barrier(p);
}

static int wait_u64(tofi_pe_t *p, uint64_t off, uint64_t want, const char *what)
{
    volatile uint64_t *f = (volatile uint64_t *)hp(p, off);
    time_t t0 = time(NULL);
    while (*f != want) {
        p->tp.ops->progress(&p->tp);
        TOFI_CHECK(p, time(NULL) - t0 < 60, "%s stuck at %llu, want %llu", what,
                   (unsigned long long)*f, (unsigned long long)want);
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return 0;
}

/* Data (nbi put) then flag: amo_nbi with after_fence on odd iterations,
 * fence + nbi put of the flag on even ones. The target waits for the flag,
 * checks the data, acknowledges. */
int tofi_scenario_fence_order(tofi_pe_t *p, int iters)
{
    int t = (p->pe + 1) % p->n, from = (p->pe + p->n - 1) % p->n;
    const uint64_t flag = OFF_FLAG, ack = OFF_FLAG + 8, flagsrc = OFF_FLAG + 16;
    ofi_state_t *s = ofi_state(&p->tp);
    if (!s->has_fence && !s->has_waw) {
        /* Without FI_FENCE or ordered writes the earlier put must be
         * complete before the fenced amo_nbi is posted (white-box: the nbi
         * counters). */
        TOFI_OK(p, put(p, t, OFF_LARGE, hp(p, OFF_LARGE_SRC), LARGE_LEN, 1));
        uint64_t posted = s->dchan.nbi.posted;
        TOFI_OK(p, p->tp.ops->amo_nbi(&p->tp, t, GSHMEMI_AMO_SET, GSHMEMI_DT_UINT64, flagsrc,
                                      &posted, 1));
        TOFI_CHECK(p, __atomic_load_n(&s->dchan.nbi.done, __ATOMIC_ACQUIRE) >= posted,
                   "amo_nbi after fence posted before the %llu earlier ops completed (%llu)",
                   (unsigned long long)posted, (unsigned long long)s->dchan.nbi.done);
        TOFI_OK(p, quiet(p));
        TOFI_OK(p, barrier(p));
    }
    for (uint64_t it = 1; it <= (uint64_t)iters; it++) {
        uint64_t *data = (uint64_t *)hp(p, OFF_SCRATCH + (it % 2) * FDATA_LEN);
        for (size_t j = 0; j < FDATA_LEN / 8; j++)
            data[j] = it * 100000 + j + (uint64_t)p->pe * 7;
        TOFI_OK(p, put(p, t, OFF_FDATA, data, FDATA_LEN, 1));
        if (it % 2) {
            TOFI_OK(p, p->tp.ops->amo_nbi(&p->tp, t, GSHMEMI_AMO_SET, GSHMEMI_DT_UINT64, flag,
                                          &it, 1));
        } else {
            *(uint64_t *)hp(p, flagsrc) = it;
            TOFI_OK(p, p->tp.ops->fence(&p->tp));
            TOFI_OK(p, put(p, t, flag, hp(p, flagsrc), 8, 1));
        }
        if (wait_u64(p, flag, it, "flag"))
            return 1;
        const uint64_t *got = (const uint64_t *)hp(p, OFF_FDATA);
        for (size_t j = 0; j < FDATA_LEN / 8; j++)
            TOFI_CHECK(p, got[j] == it * 100000 + j + (uint64_t)from * 7,
                       "iteration %llu: flag seen before data word %zu from PE %d (%llu)",
                       (unsigned long long)it, j, from, (unsigned long long)got[j]);
        TOFI_OK(p, p->tp.ops->amo_nbi(&p->tp, from, GSHMEMI_AMO_SET, GSHMEMI_DT_UINT64, ack,
                                      &it, 0));
        if (wait_u64(p, ack, it, "ack"))
            return 1;
        TOFI_OK(p, quiet(p));
    }
    return barrier(p);
}

/* flag_set around the ring: PE i sets PE i+1's flag to v(k), every byte
 * of which changes with k, and waits until its own flag reaches v(k),
 * k = 1..255; then quiet completes the flags at this PE. */
int tofi_scenario_flags(tofi_pe_t *p)
{
    const uint64_t flag = OFF_FLAG + 24;
    volatile uint64_t *mine = (volatile uint64_t *)hp(p, flag);
    for (uint64_t k = 1; k <= 255; k++) {
        uint64_t v = k * 0x0101010101010101ull;
        TOFI_OK(p, p->tp.ops->flag_set(&p->tp, (p->pe + 1) % p->n, flag, v));
        time_t t0 = time(NULL);
        while (*mine < v) {
            p->tp.ops->progress(&p->tp);
            TOFI_CHECK(p, time(NULL) - t0 < 60, "flag stuck at %llx, want %llx",
                       (unsigned long long)*mine, (unsigned long long)v);
        }
    }
    TOFI_OK(p, quiet(p));
    return barrier(p);
}

/* 16 MiB blocking put from the heap, nbi get into malloc memory. */
int tofi_scenario_large(tofi_pe_t *p)
{
    int t = (p->pe + 1) % p->n, from = (p->pe + p->n - 1) % p->n;
    unsigned char *s = hp(p, OFF_LARGE_SRC), *d = malloc(LARGE_LEN);
    TOFI_CHECK(p, d != NULL, "malloc %u", LARGE_LEN);
    for (size_t i = 0; i < LARGE_LEN; i++)
        s[i] = pat(p->pe, 0, i, 3);
    TOFI_OK(p, put(p, t, OFF_LARGE, s, LARGE_LEN, 0));
    TOFI_OK(p, barrier(p));
    for (size_t i = 0; i < LARGE_LEN; i++)
        TOFI_CHECK(p, hp(p, OFF_LARGE)[i] == pat(from, 0, i, 3), "large put byte %zu", i);
    TOFI_OK(p, get(p, t, d, OFF_LARGE_SRC, LARGE_LEN, 1));
    TOFI_OK(p, quiet(p));
    for (size_t i = 0; i < LARGE_LEN; i++)
        TOFI_CHECK(p, d[i] == pat(t, 0, i, 3), "large get byte %zu", i);
    free(d);
    return barrier(p);
}

/* As an FI_MR_LOCAL provider: bounce buffers (chunked), source reuse right
 * after an nbi put, and a mem_register'd buffer used directly. */
int tofi_scenario_bounce(tofi_pe_t *p)
{
    const size_t n = 300000;
    int t = (p->pe + 1) % p->n, from = (p->pe + p->n - 1) % p->n;
    unsigned char *a = malloc(n), *b = malloc(n), *reg = malloc(n);
    TOFI_CHECK(p, a && b && reg, "malloc");
    gshmemi_ofi_force_bounce = 1;
    for (size_t i = 0; i < n; i++)
        a[i] = pat(p->pe, 1, i, 5);
    TOFI_OK(p, put(p, t, OFF_PUT, a, n, 1));
    memset(a, 0xee, n);   /* bounced: the source is free at once */
    for (size_t i = 0; i < n; i++)
        reg[i] = pat(p->pe, 2, i, 6);
    TOFI_OK(p, p->tp.ops->mem_register(&p->tp, reg, n));
    TOFI_OK(p, put(p, t, OFF_PUT + BLK * 2, reg, n, 0));
    TOFI_OK(p, quiet(p));
    TOFI_OK(p, barrier(p));
    for (size_t i = 0; i < n; i++) {
        TOFI_CHECK(p, hp(p, OFF_PUT)[i] == pat(from, 1, i, 5), "bounced put byte %zu", i);
        TOFI_CHECK(p, hp(p, OFF_PUT + BLK * 2)[i] == pat(from, 2, i, 6), "registered put %zu", i);
    }
    TOFI_OK(p, get(p, t, b, OFF_PUT + BLK * 2, n, 0));
    TOFI_OK(p, get(p, t, a, OFF_PUT + BLK * 2, n, 1));
    memset(reg, 0, n);
    TOFI_OK(p, get(p, t, reg, OFF_PUT, n, 1));
    TOFI_OK(p, quiet(p));
    for (size_t i = 0; i < n; i++) {
        TOFI_CHECK(p, b[i] == pat(p->pe, 2, i, 6) && a[i] == b[i], "bounced get byte %zu", i);
        TOFI_CHECK(p, reg[i] == pat(p->pe, 1, i, 5), "get into registered buffer byte %zu", i);
    }
    TOFI_OK(p, p->tp.ops->mem_unregister(&p->tp, reg));
    TOFI_CHECK(p, p->tp.ops->mem_unregister(&p->tp, reg) == GSHMEM_ERR_INVALID_ARG,
               "second unregister accepted");
    gshmemi_ofi_force_bounce = 0;
    free(a);
    free(b);
    free(reg);
    return barrier(p);
}

/* Channels (contexts): with A's completions held, nbi puts on A and a put
 * on B; B's quiet and the transport's own return, A's puts stay pending
 * (a quiet of A fails at once rather than wait), and once released A's
 * quiet completes them; the data arrive. Deterministic: nothing is timed. */
int tofi_scenario_channels(tofi_pe_t *p)
{
    enum { N = 8, LEN = 4096 };
    int t = (p->pe + 1) % p->n, from = (p->pe + p->n - 1) % p->n;
    gshmemi_transport_t a = p->tp, b = p->tp;
    uint64_t pa = 99, pb = 99;
    TOFI_OK(p, p->tp.ops->chan_open(&p->tp, &a.chan));
    TOFI_OK(p, p->tp.ops->chan_open(&p->tp, &b.chan));
    TOFI_CHECK(p, a.chan != NULL && b.chan != NULL && a.chan != b.chan, "channels %p %p",
               a.chan, b.chan);
    unsigned char *src = hp(p, OFF_SCRATCH);
    for (size_t i = 0; i < (N + 1) * LEN; i++)
        src[i] = pat(p->pe, 4, i, 7);
    TOFI_OK(p, ofi_chan_hold(&a, 1));
    for (int k = 0; k < N; k++)
        TOFI_OK(p, a.ops->put(&a, t, OFF_PUT + (uint64_t)k * LEN, src + k * LEN, LEN, 1));
    TOFI_OK(p, b.ops->put(&b, t, OFF_PUT + (uint64_t)N * LEN, src + N * LEN, LEN, 1));
    TOFI_OK(p, b.ops->quiet(&b));
    TOFI_OK(p, quiet(p));
    TOFI_OK(p, ofi_chan_pending(&a, &pa));
    TOFI_OK(p, ofi_chan_pending(&b, &pb));
    TOFI_CHECK(p, pa == N && pb == 0, "after B's quiet: A %llu pending (want %d), B %llu",
               (unsigned long long)pa, N, (unsigned long long)pb);
    TOFI_CHECK(p, a.ops->quiet(&a) != 0, "a quiet of held A returned success");
    TOFI_OK(p, ofi_chan_hold(&a, 0));
    TOFI_OK(p, a.ops->quiet(&a));
    TOFI_OK(p, ofi_chan_pending(&a, &pa));
    TOFI_CHECK(p, pa == 0, "after A's quiet: %llu pending", (unsigned long long)pa);
    TOFI_OK(p, p->tp.ops->chan_close(&p->tp, a.chan));
    TOFI_OK(p, p->tp.ops->chan_close(&p->tp, b.chan));
    TOFI_OK(p, barrier(p));
    for (size_t i = 0; i < (N + 1) * LEN; i++)
        TOFI_CHECK(p, hp(p, OFF_PUT)[i] == pat(from, 4, i, 7), "channel put byte %zu", i);
    return barrier(p);
}

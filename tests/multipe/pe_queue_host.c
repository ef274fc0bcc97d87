/* pe_queue_host: the proxy engine (src/engine) driven by HOST threads that
 * play the GPU's part: they post queue-path entries (impl/gshmem_dev_queue.h)
 * into an engine started over host-memory channels
 * (gshmemi_proxy_start_host), on a host heap over shm. Runs everywhere (no
 * GPU): the engine's loop, validation, execution, completion, result slots,
 * back-pressure, fence and drain are the same code the GPU path uses.
 *
 *   pe_queue_host ops    puts from many threads, gets, p/g, every AMO with
 *                        contention (exact totals, distinct fetched values),
 *                        put-with-signal litmus, fence litmus, back-pressure
 *   pe_queue_host bad    PE 0 posts a PUT whose range crosses the end of the
 *                        symmetric window (heap.size; the heap's end when
 *                        run with GSHMEM_SYMMETRIC_DATA=0):
 *                        the engine must log it, set the error status, and
 *                        write nothing (PE 1's last heap bytes stay zero)
 *   pe_queue_host drain  nbi puts posted right before the engine stops
 *                        (gshmemi_proxy_stop, as finalize does) all arrive
 *   pe_queue_host exit   puts to the right PE (completed), a barrier, then
 *                        every thread keeps posting puts to this PE (the
 *                        engine issues them through the transport: over
 *                        ofi, loopback RMA) while the main thread calls
 *                        exit(0) without gshmem_finalize: the library's
 *                        exit handler must stop its threads (DEBUG line
 *                        "threads stopped at exit") and the PE exit 0
 *                        with no error printed
 *   pe_queue_host globals  the same entries on global and static variables
 *                        (symmetric data segments): a PUT from a global to
 *                        the right PE's global, a GET into a static, fetch-
 *                        add and compare-swap on a static counter at PE 0,
 *                        a put-with-signal whose signal is a global
 * Prints "pe_queue_host: OK (PE n)" per PE. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gshmem.h"
#include "pe_check.h"
#include "api/core/core.h"   /* gshmemi_engine_start_host, _stop */
#include "engine/proxy.h"

#define NT 8          /* producer threads per PE */
#define SLICE 512     /* uint64 per thread slice */
#define ROUNDS 50     /* put-with-signal rounds */
#define AMO_N 300     /* AMOs per thread */
#define BP_N 5000     /* back-pressure: entries from one thread */

static gshmemi_queue_t *q;
static int me, npes, right, left;

/* ---- a host producer: what gshmem_dev_queue.h does on the GPU -------------- */

typedef struct ticket { uint32_t ch; uint64_t idx, last; } ticket_t;

static gshmemi_wqe_t mk(uint32_t op, uint32_t fl, uint32_t aux, int pe, const void *laddr,
                        uint64_t roff, uint64_t value)
{
    gshmemi_wqe_t w = {.laddr = (uint64_t)(uintptr_t)laddr, .roff = roff, .value = value,
                       .ctrl = gshmemi_wqe_ctrl(op, fl, aux, (uint32_t)pe)};
    return w;
}

static uint64_t off_of(const void *sym)
{
    return (uint64_t)((const char *)sym - (const char *)gshmemi_g.heap.base);
}

static ticket_t post(uint32_t tid, const gshmemi_wqe_t *w, uint32_t n)
{
    ticket_t t = {.ch = tid % q->ch.count};
    int rc = gshmemi_ring_post(&q->ch.rings[t.ch], w, n, NULL, &t.idx);
    PE_CHECK(rc == 0, "post on channel %u: %s", t.ch, gshmem_strerror(rc));
    t.last = t.idx + n - 1;
    return t;
}

static void wait_t(ticket_t t)
{
    int rc = gshmemi_ring_quiet(&q->ch.rings[t.ch], t.last);
    PE_CHECK(rc == 0, "wait for entry %llu: %s", (unsigned long long)t.last,
             gshmem_strerror(rc));
}

static uint64_t take(ticket_t t) { return gshmemi_proxy_host_take(q, t.ch, t.idx); }

/* Every ring up to its head (the device quiet). */
static void quiet_all(void)
{
    uint32_t c = 0;
    int rc = gshmemi_proxy_host_quiet(q, &c);
    PE_CHECK(rc == 0, "quiet of ring %u: %s", c, gshmem_strerror(rc));
}

static uint64_t amo(uint32_t tid, const void *dest, int is32, uint32_t kind, uint64_t v,
                    uint64_t cmp, int pe)
{
    gshmemi_wqe_t w[2];
    uint32_t n = 1;
    w[0] = mk(GSHMEMI_OP_AMO, is32 ? GSHMEMI_WQE_F_AMO32 : 0, kind, pe, NULL, off_of(dest), v);
    if (kind == GSHMEMI_AMO_CSWAP) {
        w[0].value = cmp;
        w[1] = mk(GSHMEMI_OP_EXT, 0, 0, pe, NULL, 0, v);
        n = 2;
    }
    ticket_t t = post(tid, w, n);
    if (!gshmemi_amo_fetching(kind))
        return 0;
    wait_t(t);
    return take(t);
}

/* ---- the symmetric objects ---------------------------------------------------- */

typedef struct sym {
    uint64_t data[NT][SLICE];      /* written by the left PE */
    uint64_t src[NT][SLICE];
    uint64_t got[NT][SLICE];       /* gets land here */
    uint64_t sig[NT], ack[NT];
    uint64_t counter, cas_counter, swap_word, flag[NT];
    int32_t counter32;
    int32_t bits32;                /* bitwise AMOs: bit me * NT + t, OR at PE 0 */
    uint64_t bits_or, bits_xor;    /* the same, 64-bit; fetch-xor at the right PE */
    int32_t p32[NT];
    uint64_t p64[NT];
    uint64_t bp[NT][64];
} sym_t;
static sym_t *S;

static uint64_t pat(int pe, int t, int r, int i)
{
    return ((uint64_t)pe << 48) ^ ((uint64_t)t << 40) ^ ((uint64_t)r << 20) ^ (uint64_t)i;
}

static uint64_t load_acq(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* put-with-signal litmus, ROUNDS rounds: data then signal ADD 1 to the right;
 * check the left's data once its signal came, ack it. */
static int litmus(uint32_t t)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < SLICE; i++)
            S->src[t][i] = pat(me, (int)t, r, i);
        gshmemi_wqe_t w[2] = {
            mk(GSHMEMI_OP_PUT_SIGNAL, 0, 0, right, S->src[t], off_of(S->data[t]),
               sizeof S->data[t]),
            mk(GSHMEMI_OP_EXT, 0, GSHMEM_SIGNAL_ADD, right, NULL, off_of(&S->sig[t]), 1)};
        wait_t(post(t, w, 2));   /* blocking form: src reusable after */
        while (load_acq(&S->sig[t]) < (uint64_t)r + 1)
            sched_yield();
        for (int i = 0; i < SLICE; i++)
            bad += S->data[t][i] != pat(left, (int)t, r, i);
        (void)amo(t, &S->ack[t], 0, GSHMEMI_AMO_ADD, 1, 0, left);
        while (load_acq(&S->ack[t]) < (uint64_t)r + 1)
            sched_yield();
    }
    return bad;
}

/* fence litmus: data (nbi put), FENCE, flag (p) -> right; wait own flag, check. */
static int fence_litmus(uint32_t t)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < SLICE; i++)
            S->src[t][i] = pat(me, (int)t, r + 1000, i);
        gshmemi_wqe_t w = mk(GSHMEMI_OP_PUT, 0, 0, right, S->src[t], off_of(S->data[t]),
                             sizeof S->data[t]);
        (void)post(t, &w, 1);
        w = mk(GSHMEMI_OP_FENCE, 0, 0, 0, NULL, 0, 0);
        (void)post(t, &w, 1);
        w = mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, right, NULL, off_of(&S->flag[t]),
               (uint64_t)r + 1);
        (void)post(t, &w, 1);
        while (load_acq(&S->flag[t]) < (uint64_t)r + 1)
            sched_yield();
        for (int i = 0; i < SLICE; i++)
            bad += S->data[t][i] != pat(left, (int)t, r + 1000, i);
        (void)amo(t, &S->ack[t], 0, GSHMEMI_AMO_ADD, 1, 0, left);
        while (load_acq(&S->ack[t]) < (uint64_t)ROUNDS + r + 1)
            sched_yield();
        quiet_all();   /* src reusable */
    }
    return bad;
}

static uint64_t fetched[NT][AMO_N];
static int errs[NT];

static void *worker(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    errs[t] += litmus(t);
    errs[t] += fence_litmus(t);
    for (int i = 0; i < AMO_N; i++) {   /* contention: everyone on PE 0 */
        fetched[t][i] = amo(t, &S->counter, 0, GSHMEMI_AMO_FETCH_ADD, 1, 0, 0);
        (void)amo(t, &S->counter32, 1, GSHMEMI_AMO_ADD, 1, 0, 0);
        uint64_t old = amo(t, &S->cas_counter, 0, GSHMEMI_AMO_FETCH, 0, 0, right);
        for (;;) {   /* CAS increment at the right PE */
            uint64_t seen = amo(t, &S->cas_counter, 0, GSHMEMI_AMO_CSWAP, old + 1, old, right);
            if (seen == old)
                break;
            old = seen;
        }
        uint64_t prev = amo(t, &S->swap_word, 0, GSHMEMI_AMO_SWAP,
                            ((uint64_t)me << 32) | (t << 16) | (uint64_t)i, 0, right);
        errs[t] += prev != 0 && (prev >> 32) >= (uint64_t)npes;
    }
    /* bitwise AMOs through the engine: non-fetching OR at PE 0, fetch-xor at
     * the right PE (this thread's bit must be clear before its own xor) */
    int bit = me * NT + (int)t;
    (void)amo(t, &S->bits_or, 0, GSHMEMI_AMO_OR, 1ull << bit, 0, 0);
    (void)amo(t, &S->bits32, 1, GSHMEMI_AMO_OR, 1ull << bit, 0, 0);
    errs[t] += (amo(t, &S->bits_xor, 0, GSHMEMI_AMO_FETCH_XOR, 1ull << bit, 0, right) >> bit) & 1;
    /* p (4 and 8 bytes), then g of the same words after a quiet */
    gshmemi_wqe_t w = mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE | GSHMEMI_WQE_F_AMO32, 0, right,
                         NULL, off_of(&S->p32[t]), (uint32_t)(-7 - (int)t));
    (void)post(t, &w, 1);
    w = mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, right, NULL, off_of(&S->p64[t]),
           pat(me, (int)t, 7, 7));
    (void)post(t, &w, 1);
    quiet_all();
    w = mk(GSHMEMI_OP_GET, GSHMEMI_WQE_F_RESULT, 0, right, NULL, off_of(&S->p64[t]), 8);
    ticket_t tk = post(t, &w, 1);
    wait_t(tk);
    errs[t] += take(tk) != pat(me, (int)t, 7, 7);
    w = mk(GSHMEMI_OP_GET, GSHMEMI_WQE_F_RESULT | GSHMEMI_WQE_F_AMO32, 0, right, NULL,
           off_of(&S->p32[t]), 4);
    tk = post(t, &w, 1);
    wait_t(tk);
    errs[t] += (int32_t)take(tk) != -7 - (int)t;
    /* back-pressure: far more entries than a ring holds, from one thread */
    for (int i = 0; i < BP_N; i++) {
        w = mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, right, NULL,
               off_of(&S->bp[t][i % 64]), (uint64_t)i);
        (void)post(t, &w, 1);
    }
    quiet_all();
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[NT];
    for (uintptr_t t = 0; t < NT; t++)
        PE_CHECK(pthread_create(&th[t], NULL, fn, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_ops(void)
{
    for (int t = 0; t < NT; t++)
        PE_CHECK(errs[t] == 0, "thread %d: %d wrong values (litmus, swap, p/g)", t, errs[t]);
    /* this PE's fetched values are distinct */
    uint64_t *f = &fetched[0][0];
    qsort(f, NT * AMO_N, sizeof(uint64_t), cmp_u64);
    for (int i = 1; i < NT * AMO_N; i++)
        PE_CHECK(f[i] != f[i - 1], "fetch-add returned %llu twice", (unsigned long long)f[i]);
    uint64_t total = (uint64_t)npes * NT * AMO_N;
    PE_CHECK(f[NT * AMO_N - 1] < total, "fetched %llu >= total %llu",
             (unsigned long long)f[NT * AMO_N - 1], (unsigned long long)total);
    if (me == 0) {
        PE_CHECK(S->counter == total, "counter %llu, want %llu",
                 (unsigned long long)S->counter, (unsigned long long)total);
        PE_CHECK(S->counter32 == (int32_t)total, "counter32 %d, want %llu", S->counter32,
                 (unsigned long long)total);
    }
    uint64_t all = (1ull << (npes * NT)) - 1;
    if (me == 0)
        PE_CHECK(S->bits_or == all && (uint32_t)S->bits32 == (uint32_t)all,
                 "OR through the engine: %#llx / %#x, want %#llx",
                 (unsigned long long)S->bits_or, (unsigned)S->bits32, (unsigned long long)all);
    PE_CHECK(S->bits_xor == ((1ull << NT) - 1) << (left * NT), "fetch-xor from PE %d through "
             "the engine: %#llx", left, (unsigned long long)S->bits_xor);
    PE_CHECK(S->cas_counter == (uint64_t)NT * AMO_N, "CAS counter %llu, want %d",
             (unsigned long long)S->cas_counter, NT * AMO_N);
    for (int t = 0; t < NT; t++) {
        PE_CHECK(S->p32[t] == -7 - t && S->p64[t] == pat(left, t, 7, 7), "p from PE %d "
                 "thread %d: %d / %llx", left, t, S->p32[t], (unsigned long long)S->p64[t]);
        for (int i = 0; i < 64; i++) {
            uint64_t want = (uint64_t)((BP_N - 1 - i) / 64 * 64 + i);   /* the last write */
            PE_CHECK(S->bp[t][i] == want, "back-pressure word %d of thread %d: %llu, want "
                     "%llu (entries out of order or lost)", i, t,
                     (unsigned long long)S->bp[t][i], (unsigned long long)want);
        }
    }
}

/* Gets: each thread reads the right PE's slice into got (blocking, nbi). */
static void *getter(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    gshmemi_wqe_t w = mk(GSHMEMI_OP_GET, 0, 0, right, S->got[t], off_of(S->data[t]),
                         sizeof S->got[t]);
    wait_t(post(t, &w, 1));
    for (int i = 0; i < SLICE; i++)
        errs[t] += S->got[t][i] != pat(me, (int)t, 1000 + ROUNDS - 1, i);
    return NULL;
}

static void mode_bad(void)
{
    size_t hs = gshmemi_g.heap.size;
    if (me == 0) {
        for (int i = 0; i < SLICE; i++)
            S->src[0][i] = 0xababababababababull;
        printf("pe_queue_host: posting a PUT at offset %zu, 16 bytes (heap %zu)\n", hs - 8, hs);
        gshmemi_wqe_t w = mk(GSHMEMI_OP_PUT, 0, 0, 1, S->src[0], hs - 8, 16);
        (void)post(0, &w, 1);
        uint32_t st = 0;
        for (int spins = 0; spins < 5000000 && st == 0; spins++) {
            st = __atomic_load_n(q->ch.rings[0].status, __ATOMIC_ACQUIRE);
            sched_yield();
        }
        PE_CHECK((int32_t)st == GSHMEM_ERR_OUT_OF_HEAP, "ring status %d, want %d",
                 (int32_t)st, GSHMEM_ERR_OUT_OF_HEAP);
        /* every later post or wait reports the error instead of hanging */
        uint64_t idx;
        int rc = gshmemi_ring_post(&q->ch.rings[1], &w, 1, NULL, &idx);
        if (rc == 0)
            rc = gshmemi_ring_quiet(&q->ch.rings[1], idx);
        PE_CHECK(rc == GSHMEM_ERR_OUT_OF_HEAP, "wait after the error: %d", rc);
        printf("pe_queue_host: engine status %d seen\n", (int32_t)st);
    }
    gshmem_barrier_all();
    const unsigned char *end = (const unsigned char *)gshmemi_g.heap.base + hs - 8;
    for (int i = 0; i < 8; i++)
        PE_CHECK(end[i] == 0, "heap byte %zu was written (0x%x)", hs - 8 + i, end[i]);
}

/* ---- globals: entries on the program's data segment ------------------------- */

static uint64_t g_data[SLICE];   /* written by the left PE */
static uint64_t g_src[SLICE];
static uint64_t g_got[SLICE];
static uint64_t g_counter;       /* at PE 0: fetch-adds of every PE */
static uint64_t g_cas;           /* at PE 0: one compare-swap per PE wins in turn */
uint64_t g_sig;                  /* a global signal word */

/* Window offset of a global (as gshmemi_check_sym computes it). */
static uint64_t seg_off(const void *p, size_t n)
{
    uint64_t off;
    PE_CHECK(gshmemi_heap_offset(&gshmemi_g.heap, p, n, &off), "%p is not symmetric", p);
    PE_CHECK(off >= gshmemi_g.heap.heap_size, "%p has offset %llu, inside the heap", p,
             (unsigned long long)off);
    return off;
}

static void mode_globals(void)
{
    for (int i = 0; i < SLICE; i++)
        g_src[i] = pat(me, 0, 7, i);
    gshmemi_wqe_t w = mk(GSHMEMI_OP_PUT, 0, 0, right, g_src, seg_off(g_data, sizeof g_data),
                         sizeof g_data);
    wait_t(post(0, &w, 1));
    for (int k = 0; k < AMO_N; k++) {
        gshmemi_wqe_t a = mk(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_FETCH_ADD, 0, NULL,
                             seg_off(&g_counter, 8), 1);
        ticket_t t = post(0, &a, 1);
        wait_t(t);
        (void)take(t);
    }
    for (uint64_t seen = UINT64_MAX; seen != (uint64_t)me;) {   /* PE k swaps k -> k + 1 */
        gshmemi_wqe_t c[2] = {mk(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_CSWAP, 0, NULL,
                                 seg_off(&g_cas, 8), (uint64_t)me),
                              mk(GSHMEMI_OP_EXT, 0, 0, 0, NULL, 0, (uint64_t)me + 1)};
        ticket_t t = post(0, c, 2);
        wait_t(t);
        seen = take(t);
        if (seen != (uint64_t)me)
            sched_yield();
    }
    gshmemi_wqe_t s[2] = {
        mk(GSHMEMI_OP_PUT_SIGNAL, 0, 0, right, g_src, seg_off(g_data, 8), 8),
        mk(GSHMEMI_OP_EXT, 0, GSHMEM_SIGNAL_ADD, right, NULL, seg_off(&g_sig, 8), 1)};
    wait_t(post(0, s, 2));
    while (load_acq(&g_sig) < 1)
        sched_yield();
    gshmem_barrier_all();
    for (int i = 0; i < SLICE; i++)
        PE_CHECK(g_data[i] == pat(left, 0, 7, i), "g_data[%d] = %llx from PE %d", i,
                 (unsigned long long)g_data[i], left);
    w = mk(GSHMEMI_OP_GET, 0, 0, right, g_got, seg_off(g_data, sizeof g_data), sizeof g_got);
    wait_t(post(0, &w, 1));
    for (int i = 0; i < SLICE; i++)
        PE_CHECK(g_got[i] == pat(me, 0, 7, i), "GET into a static: [%d] = %llx", i,
                 (unsigned long long)g_got[i]);
    if (me == 0)
        PE_CHECK(g_counter == (uint64_t)npes * AMO_N && g_cas == (uint64_t)npes,
                 "counter %llu (want %llu), compare-swap word %llu (want %d)",
                 (unsigned long long)g_counter, (unsigned long long)npes * AMO_N,
                 (unsigned long long)g_cas, npes);
}

static void *drainer(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    for (int r = 0; r < 40; r++) {
        for (int i = 0; i < SLICE; i += 64) {
            gshmemi_wqe_t w = mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, right, NULL,
                                 off_of(&S->data[t][i + r]), pat(me, (int)t, r, i));
            (void)post(t, &w, 1);
        }
    }
    return NULL;
}

/* exit: traffic to the right PE first, complete before the barrier (so no
 * PE's traffic waits for a PE that exits), then to this PE until the
 * process ends. A post fails (engine status) or waits for ring space once
 * the exit handler stopped the engine: both end quietly here. */
static int exit_phase;   /* atomic: 1 after the barrier */

static void *exiter(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    for (int i = 0; i < SLICE; i++) {
        gshmemi_wqe_t w = mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, right, NULL,
                             off_of(&S->data[t][i]), pat(me, (int)t, 0, i));
        (void)post(t, &w, 1);
    }
    quiet_all();
    __atomic_fetch_add(&exit_phase, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&exit_phase, __ATOMIC_ACQUIRE) < 1000)
        sched_yield();   /* main: the barrier */
    for (uint64_t r = 0;; r++) {
        gshmemi_wqe_t w = mk(GSHMEMI_OP_PUT, 0, 0, me, S->src[t], off_of(S->got[t]),
                             sizeof S->got[t]);
        uint64_t idx;
        if (gshmemi_ring_post(&q->ch.rings[t % q->ch.count], &w, 1, NULL, &idx) != 0)
            return NULL;   /* the engine stopped with an error at exit */
        w = mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, me, NULL, off_of(&S->p64[t]), r);
        if (gshmemi_ring_post(&q->ch.rings[t % q->ch.count], &w, 1, NULL, &idx) != 0)
            return NULL;
    }
}

static void mode_exit(void)
{
    pthread_t th[NT];
    for (uintptr_t t = 0; t < NT; t++)
        PE_CHECK(pthread_create(&th[t], NULL, exiter, (void *)t) == 0, "pthread_create");
    while (__atomic_load_n(&exit_phase, __ATOMIC_ACQUIRE) < NT)
        sched_yield();
    gshmem_barrier_all();
    for (int t = 0; t < NT; t++)
        for (int i = 0; i < SLICE; i++)
            PE_CHECK(S->data[t][i] == pat(left, t, 0, i), "exit: thread %d word %d from PE %d: "
                     "%llx", t, i, left, (unsigned long long)S->data[t][i]);
    __atomic_store_n(&exit_phase, 1000, __ATOMIC_RELEASE);
    struct timespec nap = {0, 20 * 1000 * 1000};   /* traffic flowing */
    nanosleep(&nap, NULL);
    gshmemi_proxy_stats_t st;
    PE_CHECK(gshmemi_proxy_get_stats(&st) == 0 && st.status == 0, "engine status %d",
             st.status);
    printf("pe_queue_host: PE %d: exit(0) without gshmem_finalize, %llu entries taken\n", me,
           (unsigned long long)st.entries);
    exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ops";
    setvbuf(stdout, NULL, _IOLBF, 0);
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    PE_CHECK(npes >= 2, "needs 2 PEs or more");
    S = gshmem_calloc(1, sizeof *S);
    PE_CHECK(S != NULL, "gshmem_calloc(%zu)", sizeof *S);
    int rc = gshmemi_engine_start_host();
    PE_CHECK(rc == 0, "gshmemi_proxy_start_host: %s", gshmem_strerror(rc));
    q = gshmemi_proxy_queue();
    gshmem_barrier_all();
    if (strcmp(mode, "ops") == 0) {
        run_threads(worker);
        gshmem_barrier_all();
        check_ops();
        run_threads(getter);
        for (int t = 0; t < NT; t++)
            PE_CHECK(errs[t] == 0, "thread %d: %d wrong values after get", t, errs[t]);
        gshmemi_proxy_stats_t st;
        PE_CHECK(gshmemi_proxy_get_stats(&st) == 0 && st.status == 0, "engine status %d",
                 st.status);
        printf("pe_queue_host: PE %d: %llu entries, %llu quiets, %llu fences\n", me,
               (unsigned long long)st.entries, (unsigned long long)st.quiets,
               (unsigned long long)st.fences);
    } else if (strcmp(mode, "bad") == 0) {
        mode_bad();
    } else if (strcmp(mode, "globals") == 0) {
        mode_globals();
    } else if (strcmp(mode, "exit") == 0) {
        mode_exit();
    } else if (strcmp(mode, "drain") == 0) {
        run_threads(drainer);     /* posted, not waited for */
        gshmemi_engine_stop();   /* what finalize does first */
        gshmem_barrier_all();
        for (int t = 0; t < NT; t++)
            for (int r = 0; r < 40; r++)
                for (int i = 0; i < SLICE; i += 64)
                    PE_CHECK(S->data[t][i + r] == pat(left, t, r, i),
                             "drain: thread %d round %d word %d: %llx, want %llx", t, r,
                             i + r, (unsigned long long)S->data[t][i + r],
                             (unsigned long long)pat(left, t, r, i));
    } else {
        PE_CHECK(0, "unknown mode %s", mode);
    }
    gshmem_barrier_all();
    printf("pe_queue_host: OK (PE %d)\n", me);
    gshmem_finalize();
    return 0;
}

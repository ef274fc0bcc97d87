/* pe_api_ctx: communication contexts through shmem.h, checked value by value:
 * - two contexts interleaved: puts (blocking, nbi, p), strided puts, AMOs,
 *   a put-with-signal, then nbi gets, each context completed by its own
 *   shmem_ctx_quiet;
 * - isolation, with the test hooks below (ofi's channel counters, no
 *   timing): A's completions held, nbi puts on A and puts on B; B's quiet
 *   and fence and the default context's return with A's puts still
 *   counted pending; once released, A's quiet completes them and the data
 *   arrive. With argument
 *   "isolated" this must hold (ofi's RMA path); with "shared" the hook must
 *   say the transports have no channel per context (shm, p2p, ofi's
 *   active messages);
 * - shmem_ctx_destroy completes the context's operations (the target reads
 *   the data after a flag sent on the default context after the destroy);
 * - threads: four threads issue on one shared context, on the default
 *   context and each on a PRIVATE context of its own at once;
 * - a context left live at finalize (finalize completes it).
 * Prints "pe_api_ctx: OK" on PE 0. */
#include <shmem.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"
#include "api/core/core.h"                   /* gshmemi_g, gshmemi_ctx_get, gshmemi_ctx_tp */
#include "transports/ofi/ofi_test_hooks.h"   /* ofi_chan_pending, ofi_chan_hold */

#define CHECK PE_CHECK

/* The test hooks, on ctx's instances that have channels of their own (the
 * default context's are the transports; a created context's, those whose
 * chan_open gave one) and count completions per channel (ofi's RMA path):
 * with pending_p, *pending_p = their operations whose completion is not
 * counted yet; else hold (1) or release (0) their completions. Returns
 * GSHMEM_ERR_NOT_SUPPORTED where ctx has no such instance. */
static int ctx_hook(shmem_ctx_t ctx, int hold, uint64_t *pending_p)
{
    gshmemi_ctx_t *c = gshmemi_ctx_get("pe_api_ctx hook", ctx);
    int rc = GSHMEM_ERR_NOT_SUPPORTED;

    if (pending_p != NULL)
        *pending_p = 0;
    for (int i = 0; i < gshmemi_g.n_tps; i++) {
        gshmemi_transport_t *tp = gshmemi_ctx_tp(c, &gshmemi_g.tps[i]);
        uint64_t n = 0;
        if ((c != NULL && c->tps[i].chan == NULL) || strcmp(tp->ops->name, "ofi") != 0)
            continue;
        if ((pending_p != NULL ? ofi_chan_pending(tp, &n) : ofi_chan_hold(tp, hold)) != 0)
            continue;
        if (pending_p != NULL)
            *pending_p += n;
        rc = GSHMEM_SUCCESS;
    }
    return rc;
}

static int ctx_hold(shmem_ctx_t ctx, int hold)
{
    return ctx_hook(ctx, hold, NULL);
}

static int ctx_pending(shmem_ctx_t ctx, uint64_t *pending_p)
{
    return ctx_hook(ctx, 0, pending_p);
}

static int me, npes, next, prev;

static long val(int pe, int k)
{
    return (long)pe * 100000 + k;
}

/* ---- two contexts interleaved ------------------------------------------- */

static void interleaved(void)
{
    enum { N = 64 };
    long *a = shmem_calloc(N, sizeof(long)), *b = shmem_calloc(N, sizeof(long));
    long *ctr = shmem_calloc(2, sizeof(long)), *s = shmem_calloc(2 * N, sizeof(long));
    char *sd = shmem_calloc(1, 256);
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    CHECK(a && b && ctr && s && sd && sig, "allocation");
    static long src[N], ga[N], gb[N];
    char ssrc[256];
    for (int k = 0; k < N; k++)
        src[k] = val(me, k);
    for (int i = 0; i < 256; i++)
        ssrc[i] = (char)(i * 3 + me);
    shmem_ctx_t A, B;
    CHECK(shmem_ctx_create(0, &A) == 0 && shmem_ctx_create(SHMEM_CTX_PRIVATE, &B) == 0,
          "ctx_create");
    shmem_barrier_all();
    for (int k = 0; k < N; k += 2) {
        shmem_ctx_long_put_nbi(A, a + k, src + k, 1, next);
        shmem_ctx_long_p(B, b + k, src[k] + 1, next);
        shmem_ctx_long_put_nbi(B, b + k + 1, src + k + 1, 1, next);
        shmem_ctx_long_p(A, a + k + 1, src[k + 1], next);
        shmem_ctx_long_atomic_add(A, ctr, 1, next);
        (void)shmem_ctx_long_atomic_fetch_add(B, ctr + 1, 2, next);
    }
    shmem_ctx_long_iput(A, s, src, 2, 1, N, next);   /* one nbi put per element */
    shmem_ctx_putmem_signal_nbi(B, sd, ssrc, sizeof ssrc, sig, 7, SHMEM_SIGNAL_ADD, next);
    shmem_ctx_quiet(A);
    shmem_ctx_quiet(B);
    shmem_barrier_all();
    for (int k = 0; k < N; k++) {
        CHECK(a[k] == val(prev, k), "A: a[%d] = %ld, want %ld", k, a[k], val(prev, k));
        CHECK(b[k] == val(prev, k) + (k % 2 == 0), "B: b[%d] = %ld", k, b[k]);
        CHECK(s[2 * k] == val(prev, k) && s[2 * k + 1] == 0, "A: iput s[%d] = %ld %ld", 2 * k,
              s[2 * k], s[2 * k + 1]);
    }
    CHECK(ctr[0] == N / 2 && ctr[1] == N, "AMOs: %ld (A), %ld (B)", ctr[0], ctr[1]);
    CHECK(*sig == 7, "B: signal %llu", (unsigned long long)*sig);
    for (int i = 0; i < 256; i++)
        CHECK(sd[i] == (char)(i * 3 + prev), "B: signal data byte %d", i);
    for (int k = 0; k < N; k++) {
        shmem_ctx_long_get_nbi(A, ga + k, a + k, 1, next);
        shmem_ctx_long_get_nbi(B, gb + k, b + k, 1, next);
    }
    shmem_ctx_quiet(A);
    shmem_ctx_quiet(B);
    for (int k = 0; k < N; k++)
        CHECK(ga[k] == val(me, k) && gb[k] == val(me, k) + (k % 2 == 0),
              "gets [%d]: %ld (A) %ld (B)", k, ga[k], gb[k]);
    CHECK(shmem_ctx_long_atomic_fetch(B, ctr, next) == N / 2, "fetch through B");
    shmem_barrier_all();
    shmem_ctx_destroy(A);
    shmem_ctx_destroy(B);
    shmem_free(sig), shmem_free(sd), shmem_free(s), shmem_free(ctr), shmem_free(b), shmem_free(a);
}

/* ---- isolation ------------------------------------------------------------ */

static void isolation(int isolated)
{
    enum { N = 16, LEN = 1024 };
    char *d = shmem_calloc(N + 2, LEN), *src = malloc((N + 2) * LEN);
    CHECK(d && src, "allocation");
    for (int i = 0; i < (N + 2) * LEN; i++)
        src[i] = (char)(i * 7 + me * 13);
    shmem_ctx_t A, B;
    CHECK(shmem_ctx_create(0, &A) == 0 && shmem_ctx_create(0, &B) == 0, "ctx_create");
    shmem_barrier_all();
    int rc = ctx_hold(A, 1);
    if (!isolated) {
        CHECK(rc == GSHMEM_ERR_NOT_SUPPORTED, "hold on a transport without a channel per "
              "context: %d", rc);
        if (me == 0)
            printf("pe_api_ctx: isolation not applicable (one channel shared by contexts)\n");
    } else {
        CHECK(rc == 0, "ctx_hold(A): %s", gshmem_strerror(rc));
        for (int k = 0; k < N; k++)
            shmem_ctx_putmem_nbi(A, d + k * LEN, src + k * LEN, LEN, next);
        shmem_ctx_putmem_nbi(B, d + N * LEN, src + N * LEN, LEN, next);
        shmem_ctx_putmem(B, d + (N + 1) * LEN, src + (N + 1) * LEN, LEN, next);
        /* A quiet that waited for A's held completions would end the job. */
        shmem_ctx_quiet(B);
        shmem_ctx_fence(B);
        shmem_quiet();
        shmem_fence();
        uint64_t pa = 0, pb = 1, pd = 1;
        CHECK(ctx_pending(A, &pa) == 0 && pa == N, "after B's quiet: A has %llu "
              "pending, want %d", (unsigned long long)pa, N);
        CHECK(ctx_pending(B, &pb) == 0 && pb == 0, "B: %llu pending",
              (unsigned long long)pb);
        CHECK(ctx_pending(SHMEM_CTX_DEFAULT, &pd) == 0 && pd == 0,
              "the default context: %llu pending", (unsigned long long)pd);
        CHECK(ctx_hold(A, 0) == 0, "release A");
        shmem_ctx_quiet(A);
        CHECK(ctx_pending(A, &pa) == 0 && pa == 0, "after A's quiet: %llu pending",
              (unsigned long long)pa);
    }
    shmem_ctx_quiet(A);
    shmem_ctx_quiet(B);
    shmem_barrier_all();
    if (isolated)
        for (int i = 0; i < (N + 2) * LEN; i++)
            CHECK(d[i] == (char)(i * 7 + prev * 13), "isolation: byte %d", i);
    shmem_barrier_all();
    shmem_ctx_destroy(A);
    shmem_ctx_destroy(B);
    free(src);
    shmem_free(d);
}

/* ---- destroy completes ------------------------------------------------------- */

static void destroy_completes(void)
{
    enum { LEN = 2 << 20 };
    unsigned char *d = shmem_malloc(LEN), *src = malloc(LEN);
    uint64_t *flag = shmem_calloc(1, sizeof(uint64_t));
    CHECK(d && src && flag, "allocation");
    for (int i = 0; i < LEN; i++)
        src[i] = (unsigned char)(i * 5 + (i >> 12) + me);
    shmem_ctx_t C;
    CHECK(shmem_ctx_create(0, &C) == 0, "ctx_create");
    shmem_barrier_all();
    shmem_ctx_putmem_nbi(C, d, src, LEN, next);
    shmem_ctx_destroy(C);                       /* completes the put */
    shmem_uint64_atomic_set(flag, 1, next);     /* on the default context, after it */
    shmem_uint64_wait_until(flag, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < LEN; i++)
        CHECK(d[i] == (unsigned char)(i * 5 + (i >> 12) + prev), "after destroy: byte %d", i);
    shmem_barrier_all();
    free(src);
    shmem_free(flag);
    shmem_free(d);
}

/* ---- threads -------------------------------------------------------------------- */

enum { NT = 4, K = 64 };
static shmem_ctx_t shared;
static long *tbuf, *tctr;
static long tsrc[NT][3][K];

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t mine;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &mine) == 0, "thread %d: ctx_create", t);
    for (int k = 0; k < K; k++)
        for (int w = 0; w < 3; w++)
            tsrc[t][w][k] = val(me, (w * NT + t) * K + k);
    for (int k = 0; k < K; k++) {
        shmem_ctx_long_put_nbi(shared, tbuf + (0 * NT + t) * K + k, &tsrc[t][0][k], 1, next);
        shmem_long_put_nbi(tbuf + (1 * NT + t) * K + k, &tsrc[t][1][k], 1, next);
        shmem_ctx_long_put_nbi(mine, tbuf + (2 * NT + t) * K + k, &tsrc[t][2][k], 1, next);
        shmem_ctx_long_atomic_inc(shared, tctr, next);
        shmem_long_atomic_add(tctr + 1, 2, next);
        shmem_ctx_long_atomic_add(mine, tctr + 2, 3, next);
    }
    shmem_ctx_quiet(mine);
    shmem_ctx_destroy(mine);
    return NULL;
}

static void threads(void)
{
    tbuf = shmem_calloc(3 * NT * K, sizeof(long));
    tctr = shmem_calloc(3, sizeof(long));
    CHECK(tbuf && tctr, "allocation");
    CHECK(shmem_ctx_create(0, &shared) == 0, "ctx_create");
    shmem_barrier_all();
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0, "thread");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    shmem_ctx_quiet(shared);
    shmem_barrier_all();   /* and the default context's quiet */
    for (int i = 0; i < 3 * NT * K; i++)
        CHECK(tbuf[i] == val(prev, i), "threads: word %d = %ld, want %ld", i, tbuf[i],
              val(prev, i));
    CHECK(tctr[0] == NT * K && tctr[1] == 2 * NT * K && tctr[2] == 3 * NT * K,
          "threads: counters %ld %ld %ld", tctr[0], tctr[1], tctr[2]);
    shmem_barrier_all();
    shmem_ctx_destroy(shared);
    shmem_free(tctr);
    shmem_free(tbuf);
}

int main(int argc, char **argv)
{
    int provided = -1;
    if (argc < 2 || (strcmp(argv[1], "isolated") != 0 && strcmp(argv[1], "shared") != 0)) {
        fprintf(stderr, "usage: pe_api_ctx isolated|shared\n");
        return 2;
    }
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 &&
          provided == SHMEM_THREAD_MULTIPLE, "init_thread: provided %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    interleaved();
    isolation(strcmp(argv[1], "isolated") == 0);
    destroy_completes();
    threads();
    /* Left live, with a put in flight: finalize completes it. */
    shmem_ctx_t left;
    static long one = 1;
    long *x = shmem_calloc(1, sizeof(long));
    CHECK(x != NULL && shmem_ctx_create(0, &left) == 0, "ctx_create");
    shmem_ctx_long_put_nbi(left, x, &one, 1, next);
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_ctx: OK (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}

/* test_shm.c: the shm transport across forked processes. A fake bootstrap
 * (allgather and barrier over a MAP_SHARED anonymous region) stands in for
 * the real one, and each child makes its own memfd heap, so the test
 * depends on nothing but the transport. Children report failures through
 * their exit status (and a line on stderr); the parent asserts them. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/util/log.h"
#include "transports/transport.h"
#include "fake_boot.h"

#define FB_MAX_PES 8
#define FB_SLOT 64       /* fake bootstrap: bytes per allgather contribution */
#define FB_WAIT_S 20     /* and seconds a barrier waits */
#define HEAP_SIZE (1u << 20)

/* ---- one PE ------------------------------------------------------------- */
typedef struct pe_ctx {
    gshmemi_bootstrap_t boot;
    gshmemi_heap_t heap;
    gshmemi_tp_env_t env;
    gshmemi_transport_t tp;
    int me, n;
} pe_ctx_t;

/* One line per failure (one fprintf), so the lines of PEs do not mix. */
#define PE_FAIL(ctx, code, ...)                                                   \
    do {                                                                          \
        char pe_msg_[1024];                                                        \
        snprintf(pe_msg_, sizeof(pe_msg_), __VA_ARGS__);                          \
        fprintf(stderr, "PE %d: %s:%d: %s\n", (ctx)->me, __FILE__, __LINE__,      \
                pe_msg_);                                                         \
        return (code);                                                            \
    } while (0)
#define PE_OK(ctx, cond, ...)                                                     \
    do {                                                                          \
        if (!(cond)) {                                                            \
            char pe_what_[400];                                                   \
            snprintf(pe_what_, sizeof(pe_what_), __VA_ARGS__);                    \
            PE_FAIL(ctx, 1, "check failed: %s: %s", #cond, pe_what_);             \
        }                                                                         \
    } while (0)

/* A host heap of its own: a memfd of heap_size, mapped (file_size may
 * differ, to test the size check). kind CUDA: no fd, private memory. */
static int heap_make(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t heap_size,
                     size_t file_size)
{
    memset(h, 0, sizeof(*h));
    h->kind = kind;
    h->size = heap_size;
    h->cuda_device = -1;
    h->fd = -1;
    if (kind == GSHMEMI_HEAP_HOST) {
        h->fd = memfd_create("gshmem-test-heap", MFD_CLOEXEC);
        if (h->fd < 0 || ftruncate(h->fd, (off_t)file_size) != 0)
            return -1;
        h->base = mmap(NULL, heap_size, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
    } else {
        h->base = mmap(NULL, heap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
    }
    return h->base == MAP_FAILED ? -1 : 0;
}

typedef int (*pe_body_t)(pe_ctx_t *ctx, void *arg);

typedef struct job {
    int n;
    const int *node_of;
    char dirs[FB_MAX_PES][64];     /* node directory of each node */
    gshmemi_heap_kind_t kind;
    int bad_size_pe;               /* PE whose memfd is a page too big, or -1 */
    pe_body_t body;
    void *arg;
    fake_boot_t *sh;
} job_t;

static int pe_main(job_t *job, int me)
{
    pe_ctx_t ctx = {.me = me, .n = job->n};
    size_t file_size = HEAP_SIZE + (me == job->bad_size_pe ? 4096 : 0);

    if (heap_make(&ctx.heap, job->kind, HEAP_SIZE, file_size) != 0)
        PE_FAIL(&ctx, 2, "cannot create the heap");
    fake_boot_attach(job->sh, me, &ctx.boot);
    snprintf(ctx.boot.node_dir, sizeof(ctx.boot.node_dir), "%s", job->dirs[job->node_of[me]]);
    ctx.env = (gshmemi_tp_env_t){.cfg = NULL, .boot = &ctx.boot, .heap = &ctx.heap,
                                 .node_of = job->node_of, .my_pe = me, .n_pes = job->n};
    ctx.tp.ops = &gshmemi_shm_ops;
    return job->body(&ctx, job->arg);
}

/* Fork job->n PEs, wait for all; statuses into st[] (exit code, or 128+sig). */
static void job_run(job_t *job, int *st)
{
    pid_t pids[FB_MAX_PES];
    int n_nodes = 0;

    cr_assert_leq(job->n, FB_MAX_PES);
    for (int pe = 0; pe < job->n; pe++)
        n_nodes = job->node_of[pe] + 1 > n_nodes ? job->node_of[pe] + 1 : n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        snprintf(job->dirs[i], sizeof(job->dirs[i]), "/tmp/gshmem-shm-test-XXXXXX");
        cr_assert_not_null(mkdtemp(job->dirs[i]));
    }
    job->sh = fake_boot_create(job->n, FB_SLOT, FB_WAIT_S);
    cr_assert_not_null(job->sh);
    fflush(NULL);
    for (int pe = 0; pe < job->n; pe++) {
        pids[pe] = fork();
        cr_assert_geq(pids[pe], 0);
        if (pids[pe] == 0)
            _exit(pe_main(job, pe));
    }
    for (int pe = 0; pe < job->n; pe++) {
        int status;
        cr_assert_eq(waitpid(pids[pe], &status, 0), pids[pe]);
        st[pe] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    /* The transport removed its sockets: the directories are empty. */
    for (int i = 0; i < n_nodes; i++)
        cr_assert_eq(rmdir(job->dirs[i]), 0, "node dir %s not empty or missing", job->dirs[i]);
    fake_boot_destroy(job->sh);
}

static void job_expect_success(job_t *job)
{
    int st[FB_MAX_PES];

    job_run(job, st);
    for (int pe = 0; pe < job->n; pe++)
        cr_expect_eq(st[pe], 0, "PE %d exited with %d (see its stderr)", pe, st[pe]);
}


/* ---- heap layout of the tests ----------------------------------------- */
#define BLK 4096                         /* put region of each source PE */
#define PTR_OFF 32768                    /* one uint64 per PE, via ptr() */
#define CNT_OFF 65536                    /* int64 fetch-add counter on PE 0 */
#define CNT32_OFF (CNT_OFF + 64)         /* int32 nbi add counter on PE 1 */
#define U64_OFF (CNT_OFF + 128)          /* uint64 big adds on the last PE */
#define CSW_OFF (CNT_OFF + 192)          /* uint64 cswap word on PE 0 */
#define SWP_OFF (CNT_OFF + 256)          /* int64 swap word on PE 1 */
#define SIG_OFF (CNT_OFF + 320)          /* uint64 signal of the put-signal */
#define DATA2_OFF 131072                 /* 64 KiB put-with-signal payload */
#define DATA2_LEN 65536
#define N_ADDS 100000

static unsigned char pat(int src, int dst, size_t i)
{
    return (unsigned char)(src * 31 + dst * 7 + i * 13 + (i >> 8));
}

static int barrier(pe_ctx_t *c)
{
    return c->boot.ops->barrier(&c->boot);
}

/* Puts a pattern to every reached PE (itself included), checks what
 * arrived from every reached PE, and reads its own puts back with get. */
static int phase_put_get(pe_ctx_t *c)
{
    const gshmemi_transport_ops_t *o = c->tp.ops;
    gshmemi_transport_t *tp = &c->tp;
    unsigned char buf[BLK];
    const unsigned char *mine = c->heap.base;

    for (int dst = 0; dst < c->n; dst++) {
        if (!tp->reach[dst])
            continue;
        for (size_t i = 0; i < BLK; i++)
            buf[i] = pat(c->me, dst, i);
        PE_OK(c, o->put(tp, dst, (uint64_t)c->me * BLK, buf, BLK, dst & 1) == 0, "put to %d", dst);
        uint64_t v = 1000 + (uint64_t)c->me;
        uint64_t *p = o->ptr(tp, dst, PTR_OFF + 8 * (uint64_t)c->me);
        PE_OK(c, p != NULL, "ptr to PE %d", dst);
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    PE_OK(c, o->quiet(tp) == 0, "quiet");
    PE_OK(c, barrier(c) == 0, "barrier");
    for (int src = 0; src < c->n; src++) {
        if (!tp->reach[src])
            continue;
        for (size_t i = 0; i < BLK; i++)
            PE_OK(c, mine[src * BLK + i] == pat(src, c->me, i), "from PE %d byte %zu: %u != %u",
                  src, i, mine[src * BLK + i], pat(src, c->me, i));
        uint64_t v = ((uint64_t *)(void *)(mine + PTR_OFF))[src];
        PE_OK(c, v == 1000 + (uint64_t)src, "ptr store from PE %d: %llu", src,
              (unsigned long long)v);
    }
    for (int dst = 0; dst < c->n; dst++) {
        if (!tp->reach[dst])
            continue;
        memset(buf, 0, sizeof(buf));
        PE_OK(c, o->get(tp, dst, buf, (uint64_t)c->me * BLK, BLK, dst & 1) == 0, "get");
        for (size_t i = 0; i < BLK; i++)
            PE_OK(c, buf[i] == pat(c->me, dst, i), "get from PE %d byte %zu", dst, i);
    }
    return barrier(c) == 0 ? 0 : 3;
}

/* Every PE adds 1 to PE 0's counter N_ADDS times (fetch-add), 1 to PE 1's
 * int32 counter 1000 times (nbi add) and big uint64 values on the last PE. */
static int phase_amo_count(pe_ctx_t *c)
{
    const gshmemi_transport_ops_t *o = c->tp.ops;
    gshmemi_transport_t *tp = &c->tp;
    int64_t one = 1, old, prev = -1, total;
    int32_t one32 = 1, total32;
    uint64_t big = (1ull << 40) + (uint64_t)c->me, total64, want64 = 0;
    int p1 = c->n > 1 ? 1 : 0, last = c->n - 1;

    for (int k = 0; k < N_ADDS; k++) {
        PE_OK(c, o->amo(tp, 0, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_INT64, CNT_OFF, &one, NULL,
                        &old) == 0, "fetch_add");
        PE_OK(c, old > prev, "fetch_add returned %lld after %lld", (long long)old,
              (long long)prev);
        prev = old;
    }
    for (int k = 0; k < 1000; k++)
        PE_OK(c, o->amo_nbi(tp, p1, GSHMEMI_AMO_ADD, GSHMEMI_DT_INT32, CNT32_OFF, &one32,
                            k & 1) == 0, "amo_nbi add");
    for (int k = 0; k < 10; k++)
        PE_OK(c, o->amo(tp, last, GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, U64_OFF, &big, NULL,
                        NULL) == 0, "add u64");
    PE_OK(c, o->quiet(tp) == 0, "quiet");
    PE_OK(c, barrier(c) == 0, "barrier");
    PE_OK(c, o->amo(tp, 0, GSHMEMI_AMO_FETCH, GSHMEMI_DT_INT64, CNT_OFF, NULL, NULL,
                    &total) == 0, "fetch");
    PE_OK(c, total == (int64_t)c->n * N_ADDS, "counter %lld, expected %lld", (long long)total,
          (long long)c->n * N_ADDS);
    PE_OK(c, o->amo(tp, p1, GSHMEMI_AMO_FETCH, GSHMEMI_DT_INT32, CNT32_OFF, NULL, NULL,
                    &total32) == 0, "fetch32");
    PE_OK(c, total32 == c->n * 1000, "int32 counter %d, expected %d", total32, c->n * 1000);
    for (int pe = 0; pe < c->n; pe++)
        want64 += 10 * ((1ull << 40) + (uint64_t)pe);
    PE_OK(c, o->amo(tp, last, GSHMEMI_AMO_FETCH, GSHMEMI_DT_UINT64, U64_OFF, NULL, NULL,
                    &total64) == 0, "fetch64");
    PE_OK(c, total64 == want64, "uint64 sum %llu, expected %llu", (unsigned long long)total64,
          (unsigned long long)want64);
    return barrier(c) == 0 ? 0 : 3;
}

/* CSWAP race on PE 0 (one winner) and SWAP chain on PE 1 (every value
 * comes out exactly once). */
static int phase_cswap_swap(pe_ctx_t *c)
{
    const gshmemi_transport_ops_t *o = c->tp.ops;
    gshmemi_transport_t *tp = &c->tp;
    uint64_t cmp = 0, val = (uint64_t)c->me + 1, old, olds[FB_MAX_PES], fin;
    int64_t sv = 100 + c->me, sold, solds[FB_MAX_PES], sfin, minus1 = -1;
    int p1 = c->n > 1 ? 1 : 0, winner = -1;

    if (c->me == p1)
        PE_OK(c, o->amo(tp, p1, GSHMEMI_AMO_SET, GSHMEMI_DT_INT64, SWP_OFF, &minus1, NULL,
                        NULL) == 0, "set");
    PE_OK(c, barrier(c) == 0, "barrier");
    PE_OK(c, o->amo(tp, 0, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_UINT64, CSW_OFF, &val, &cmp, &old) == 0,
          "cswap");
    PE_OK(c, o->amo(tp, p1, GSHMEMI_AMO_SWAP, GSHMEMI_DT_INT64, SWP_OFF, &sv, NULL, &sold) == 0,
          "swap");
    PE_OK(c, c->boot.ops->allgather(&c->boot, &old, olds, sizeof(old)) == 0, "allgather");
    PE_OK(c, c->boot.ops->allgather(&c->boot, &sold, solds, sizeof(sold)) == 0, "allgather");
    for (int pe = 0; pe < c->n; pe++) {
        if (olds[pe] == 0) {
            PE_OK(c, winner < 0, "PEs %d and %d both won the cswap", winner, pe);
            winner = pe;
        }
    }
    PE_OK(c, winner >= 0, "nobody won the cswap");
    for (int pe = 0; pe < c->n; pe++)
        PE_OK(c, pe == winner || olds[pe] == (uint64_t)winner + 1,
              "PE %d saw %llu in the cswap, winner PE %d", pe, (unsigned long long)olds[pe], winner);
    PE_OK(c, o->amo(tp, 0, GSHMEMI_AMO_FETCH, GSHMEMI_DT_UINT64, CSW_OFF, NULL, NULL, &fin) == 0,
          "fetch");
    PE_OK(c, fin == (uint64_t)winner + 1, "cswap word %llu", (unsigned long long)fin);
    PE_OK(c, o->amo(tp, p1, GSHMEMI_AMO_FETCH, GSHMEMI_DT_INT64, SWP_OFF, NULL, NULL, &sfin) == 0,
          "fetch");
    /* {olds} + {final} == {-1, 100 .. 100+n-1}, each exactly once. */
    for (int64_t want = -1; want < 100 + c->n; want = want == -1 ? 100 : want + 1) {
        int seen = sfin == want;
        for (int pe = 0; pe < c->n; pe++)
            seen += solds[pe] == want;
        PE_OK(c, seen == 1, "swap value %lld seen %d times", (long long)want, seen);
    }
    return barrier(c) == 0 ? 0 : 3;
}

/* Put 64 KiB then a signal (amo_nbi SET after fence) to the next PE; wait
 * for the previous PE's signal, then the data must be all there. */
static int phase_put_signal(pe_ctx_t *c)
{
    const gshmemi_transport_ops_t *o = c->tp.ops;
    gshmemi_transport_t *tp = &c->tp;
    int next = (c->me + 1) % c->n, prev = (c->me + c->n - 1) % c->n;
    static unsigned char buf[DATA2_LEN];
    uint64_t one = 1, *sig = (uint64_t *)(void *)((char *)c->heap.base + SIG_OFF);
    const unsigned char *data = (const unsigned char *)c->heap.base + DATA2_OFF;
    time_t t0 = time(NULL);

    for (size_t i = 0; i < DATA2_LEN; i++)
        buf[i] = pat(c->me, next, i * 3);
    PE_OK(c, o->put(tp, next, DATA2_OFF, buf, DATA2_LEN, 1) == 0, "put");
    PE_OK(c, o->fence(tp) == 0, "fence");
    PE_OK(c, o->amo_nbi(tp, next, GSHMEMI_AMO_SET, GSHMEMI_DT_UINT64, SIG_OFF, &one, 1) == 0,
          "signal");
    while (__atomic_load_n(sig, __ATOMIC_ACQUIRE) != 1)
        PE_OK(c, time(NULL) - t0 < 20, "no signal from PE %d", prev);
    for (size_t i = 0; i < DATA2_LEN; i++)
        PE_OK(c, data[i] == pat(prev, c->me, i * 3), "signalled data from PE %d byte %zu", prev, i);
    PE_OK(c, o->quiet(tp) == 0, "quiet");
    return barrier(c) == 0 ? 0 : 3;
}

static int body_full(pe_ctx_t *c, void *arg)
{
    gshmemi_transport_t *tp = &c->tp;
    int rc;

    (void)arg;
    PE_OK(c, tp->ops->init(tp, &c->env) == 0, "init");
    PE_OK(c, tp->hw_atomics == 1 && tp->reach != NULL, "hw_atomics %d", tp->hw_atomics);
    for (int pe = 0; pe < c->n; pe++)
        PE_OK(c, tp->reach[pe] == 1, "PE %d not reached", pe);
    PE_OK(c, tp->ops->ptr(tp, c->me, 0) == c->heap.base, "ptr to self");
    if ((rc = phase_put_get(c)) != 0 || (rc = phase_amo_count(c)) != 0 ||
        (rc = phase_cswap_swap(c)) != 0 || (rc = phase_put_signal(c)) != 0)
        return rc;
    PE_OK(c, tp->ops->finalize(tp) == 0, "finalize");
    PE_OK(c, tp->priv == NULL, "priv left after finalize");
    return 0;
}

Test(shm, three_pes_one_node, .timeout = 60)
{
    static const int node_of[] = {0, 0, 0};
    job_t job = {.n = 3, .node_of = node_of, .kind = GSHMEMI_HEAP_HOST, .bad_size_pe = -1,
                 .body = body_full};

    job_expect_success(&job);
}

/* Two nodes of two PEs: each PE reaches its node only. */
static int body_two_nodes(pe_ctx_t *c, void *arg)
{
    gshmemi_transport_t *tp = &c->tp;
    const int *node_of = arg;
    char b = 1;
    int rc;

    PE_OK(c, tp->ops->init(tp, &c->env) == 0, "init");
    for (int pe = 0; pe < c->n; pe++) {
        int local = node_of[pe] == node_of[c->me];
        PE_OK(c, tp->reach[pe] == local, "reach[%d] = %d", pe, tp->reach[pe]);
        PE_OK(c, (tp->ops->ptr(tp, pe, 0) != NULL) == local, "ptr to PE %d", pe);
        if (!local) {
            int saved = gshmemi_log_level;
            gshmemi_log_level = GSHMEMI_LOG_NONE;
            rc = tp->ops->put(tp, pe, 0, &b, 1, 0);
            gshmemi_log_level = saved;
            PE_OK(c, rc == GSHMEM_ERR_INVALID_PE, "put to remote PE %d: %d", pe, rc);
        }
    }
    if ((rc = phase_put_get(c)) != 0)
        return rc;
    PE_OK(c, tp->ops->finalize(tp) == 0, "finalize");
    return 0;
}

Test(shm, two_nodes, .timeout = 60)
{
    static const int node_of[] = {0, 0, 1, 1};
    job_t job = {.n = 4, .node_of = node_of, .kind = GSHMEMI_HEAP_HOST, .bad_size_pe = -1,
                 .body = body_two_nodes, .arg = (void *)node_of};

    job_expect_success(&job);
}

/* PE 1's memfd is a page larger than the heap: PE 0 must refuse it with a
 * message naming PE 1 and both sizes, and every PE must fail init. */
static int body_size_mismatch(pe_ctx_t *c, void *arg)
{
    gshmemi_transport_t *tp = &c->tp;
    char log[4096] = "";
    FILE *f = tmpfile();
    int saved = dup(2), rc;

    (void)arg;
    PE_OK(c, f != NULL && saved >= 0, "tmpfile");
    dup2(fileno(f), 2);
    rc = tp->ops->init(tp, &c->env);
    dup2(saved, 2);
    rewind(f);
    log[fread(log, 1, sizeof(log) - 1, f)] = '\0';
    fputs(log, stderr);
    PE_OK(c, rc != 0, "init succeeded with mismatched heaps");
    PE_OK(c, tp->priv == NULL && tp->reach == NULL, "state left after failed init");
    if (c->me == 0) {
        PE_OK(c, rc == GSHMEM_ERR_MISMATCH, "rc %d", rc);
        PE_OK(c, strstr(log, "PE 1") && strstr(log, "1052672") && strstr(log, "1048576"),
              "message does not name the PE and both sizes: %s", log);
    }
    return 0;
}

Test(shm, heap_size_mismatch, .timeout = 60)
{
    static const int node_of[] = {0, 0};
    job_t job = {.n = 2, .node_of = node_of, .kind = GSHMEMI_HEAP_HOST, .bad_size_pe = 1,
                 .body = body_size_mismatch};

    job_expect_success(&job);
}

/* A non-host heap: init succeeds and reaches nothing, not even itself. */
static int body_non_host(pe_ctx_t *c, void *arg)
{
    gshmemi_transport_t *tp = &c->tp;

    (void)arg;
    PE_OK(c, tp->ops->init(tp, &c->env) == 0, "init");
    for (int pe = 0; pe < c->n; pe++) {
        PE_OK(c, tp->reach[pe] == 0, "reach[%d]", pe);
        PE_OK(c, tp->ops->ptr(tp, pe, 0) == NULL, "ptr to %d", pe);
    }
    PE_OK(c, tp->ops->finalize(tp) == 0, "finalize");
    return 0;
}

Test(shm, non_host_heap_reaches_nothing, .timeout = 60)
{
    static const int node_of[] = {0, 0};
    job_t job = {.n = 2, .node_of = node_of, .kind = GSHMEMI_HEAP_CUDA, .bad_size_pe = -1,
                 .body = body_non_host};

    job_expect_success(&job);
}

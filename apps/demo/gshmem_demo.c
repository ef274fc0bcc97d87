/* gshmem_demo.c: gshmem-demo, the short tour of the host API that the
 * README runs first:
 *
 *   gshmemrun -n 4 gshmem-demo
 *
 * On every PE: a ring of put-with-signal (each PE sends to the next and
 * waits for its own), an atomic counter on PE 0, a broadcast from PE 0 and
 * a sum reduction. Each step is checked against the value it must give and
 * timed (the time of a step includes its allocation and checks); PE 0
 * prints a table (operation, result, time) and every PE exits
 * non-zero if any check failed on any PE. It runs on a host heap
 * (GSHMEM_HEAP=host unless set): the CPU touches heap memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gshmem.h"

#define DEMO_ROUNDS 8          /* ring rounds, one slot each */
#define DEMO_RING_WORDS 128    /* int64 words per ring message */
#define DEMO_AMO_PER_PE 100
#define DEMO_BCAST_WORDS 1024
#define DEMO_REDUCE_WORDS 1024

typedef struct demo_step {
    const char *name;
    int (*run)(void);          /* returns the number of wrong values here */
} demo_step_t;

static int me, npes;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int64_t ring_value(int from, int round, int i)
{
    return ((int64_t)from << 32) | ((int64_t)round << 16) | i;
}

/* Each round, every PE puts a message into slot r of the next PE with
 * signal += 1, then waits for its own signal to reach r + 1 and checks the
 * slot the previous PE filled. */
static int demo_ring(void)
{
    size_t slot = DEMO_RING_WORDS * sizeof(int64_t);
    int64_t *inbox = gshmem_malloc(DEMO_ROUNDS * slot);
    int64_t *msg = gshmem_malloc(slot);
    uint64_t *sig = gshmem_malloc(sizeof *sig);
    *sig = 0;
    gshmem_barrier_all();
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes, bad = 0;
    for (int r = 0; r < DEMO_ROUNDS; r++) {
        for (int i = 0; i < DEMO_RING_WORDS; i++)
            msg[i] = ring_value(me, r, i);
        gshmem_putmem_signal(inbox + r * DEMO_RING_WORDS, msg, slot, sig, 1,
                             GSHMEM_SIGNAL_ADD, next);
        gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, (uint64_t)r + 1);
        for (int i = 0; i < DEMO_RING_WORDS; i++) {
            int64_t want = ring_value(prev, r, i);
            if (inbox[r * DEMO_RING_WORDS + i] != want && bad++ == 0)
                fprintf(stderr, "PE %d: ring round %d word %d: got 0x%" PRIx64
                        ", expected 0x%" PRIx64 " from PE %d\n", me, r, i,
                        (uint64_t)inbox[r * DEMO_RING_WORDS + i], (uint64_t)want, prev);
        }
    }
    gshmem_quiet();
    gshmem_barrier_all();
    if (gshmem_signal_fetch(sig) != DEMO_ROUNDS && bad++ == 0)
        fprintf(stderr, "PE %d: ring signal is %" PRIu64 ", expected %d\n", me,
                gshmem_signal_fetch(sig), DEMO_ROUNDS);
    gshmem_free(sig);
    gshmem_free(msg);
    gshmem_free(inbox);
    return bad;
}

/* Every PE fetch-increments a counter on PE 0 DEMO_AMO_PER_PE times; the
 * counter must end at npes * DEMO_AMO_PER_PE and every fetched value must
 * lie below it. */
static int demo_atomic(void)
{
    int64_t *counter = gshmem_malloc(sizeof *counter);
    *counter = 0;
    gshmem_barrier_all();
    int64_t total = (int64_t)npes * DEMO_AMO_PER_PE;
    int bad = 0;
    for (int i = 0; i < DEMO_AMO_PER_PE; i++) {
        int64_t v = gshmem_int64_atomic_fetch_inc(counter, 0);
        if ((v < 0 || v >= total) && bad++ == 0)
            fprintf(stderr, "PE %d: fetch_inc returned %" PRId64 ", outside [0, %" PRId64 ")\n",
                    me, v, total);
    }
    gshmem_barrier_all();
    int64_t final = gshmem_int64_atomic_fetch(counter, 0);
    if (final != total && bad++ == 0)
        fprintf(stderr, "PE %d: counter on PE 0 is %" PRId64 ", expected %" PRId64 "\n", me,
                final, total);
    gshmem_barrier_all();
    gshmem_free(counter);
    return bad;
}

static int demo_broadcast(void)
{
    size_t bytes = DEMO_BCAST_WORDS * sizeof(int64_t);
    int64_t *src = gshmem_malloc(bytes), *dst = gshmem_malloc(bytes);
    for (int i = 0; i < DEMO_BCAST_WORDS; i++) {
        src[i] = me == 0 ? 7 * (int64_t)i + 1 : -1;
        dst[i] = -2;
    }
    gshmem_barrier_all();
    int rc = gshmem_broadcastmem(GSHMEM_TEAM_WORLD, dst, src, bytes, 0);
    int bad = rc != 0;
    if (rc != 0)
        fprintf(stderr, "PE %d: gshmem_broadcastmem returned %d\n", me, rc);
    for (int i = 0; i < DEMO_BCAST_WORDS; i++)
        if (dst[i] != 7 * (int64_t)i + 1 && bad++ == 0)
            fprintf(stderr, "PE %d: broadcast word %d: got %" PRId64 ", expected %" PRId64 "\n",
                    me, i, dst[i], 7 * (int64_t)i + 1);
    gshmem_barrier_all();
    gshmem_free(dst);
    gshmem_free(src);
    return bad;
}

/* src[i] = 1000 * pe + i on every PE, so dst[i] = 1000 * sum(pe) + npes * i. */
static int demo_reduce(void)
{
    size_t bytes = DEMO_REDUCE_WORDS * sizeof(int64_t);
    int64_t *src = gshmem_malloc(bytes), *dst = gshmem_malloc(bytes);
    for (int i = 0; i < DEMO_REDUCE_WORDS; i++) {
        src[i] = 1000 * (int64_t)me + i;
        dst[i] = -1;
    }
    gshmem_barrier_all();
    int rc = gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, dst, src, DEMO_REDUCE_WORDS);
    int bad = rc != 0;
    if (rc != 0)
        fprintf(stderr, "PE %d: gshmem_int64_sum_reduce returned %d\n", me, rc);
    int64_t pesum = (int64_t)npes * (npes - 1) / 2;
    for (int i = 0; i < DEMO_REDUCE_WORDS; i++) {
        int64_t want = 1000 * pesum + (int64_t)npes * i;
        if (dst[i] != want && bad++ == 0)
            fprintf(stderr, "PE %d: sum word %d: got %" PRId64 ", expected %" PRId64 "\n", me,
                    i, dst[i], want);
    }
    gshmem_barrier_all();
    gshmem_free(dst);
    gshmem_free(src);
    return bad;
}

/* Failures anywhere: each PE adds its count to PE 0's tally with an atomic
 * (not with the reduction under test), then everyone reads it. */
static int64_t demo_total_failures(int64_t *tally, int local)
{
    if (local)
        gshmem_int64_atomic_add(tally, local, 0);
    gshmem_barrier_all();
    int64_t total = gshmem_int64_atomic_fetch(tally, 0);
    gshmem_barrier_all();
    return total;
}

/* The demo takes no argument: -h/--help says so, anything else is refused
 * (before init, so that a typo is not a run). 0: go on; else the status. */
static int demo_args(int argc, char **argv)
{
    if (argc < 2)
        return 0;
    int help = strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0;
    if (!help)
        fprintf(stderr, "gshmem-demo: unexpected argument '%s' (it takes none)\n", argv[1]);
    fprintf(help ? stdout : stderr, "usage: gshmemrun -n N gshmem-demo\n"
            "  a short tour of the host API: put-with-signal ring, atomic counter, "
            "broadcast, sum reduction, each checked\n");
    return help ? -1 : 2;
}

int main(int argc, char **argv)
{
    static const demo_step_t steps[] = {
        {.name = "ring put_signal", .run = demo_ring},
        {.name = "atomic counter", .run = demo_atomic},
        {.name = "broadcast", .run = demo_broadcast},
        {.name = "sum reduction", .run = demo_reduce},
    };
    enum { NSTEPS = sizeof steps / sizeof steps[0] };
    int arc = demo_args(argc, argv);
    if (arc != 0)
        return arc < 0 ? 0 : arc;
    /* A host program: the CPU reads and writes heap memory, so a host heap
     * unless the environment names one (GSHMEM_HEAP=auto would give GPU
     * memory in a CUDA build on a GPU machine). */
    setenv("GSHMEM_HEAP", "host", 0);
    int rc = gshmem_init();
    if (rc != 0) {
        fprintf(stderr, "gshmem-demo: gshmem_init failed: %s\n", gshmem_strerror(rc));
        return 1;
    }
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    int64_t *tally = gshmem_malloc(NSTEPS * sizeof *tally);
    memset(tally, 0, NSTEPS * sizeof *tally);
    gshmem_barrier_all();

    int64_t failed[NSTEPS];
    double us[NSTEPS];
    int any = 0;
    for (int k = 0; k < NSTEPS; k++) {
        gshmem_barrier_all();
        double t0 = now_us();
        int bad = steps[k].run();
        us[k] = now_us() - t0;
        failed[k] = demo_total_failures(tally + k, bad);
        any |= failed[k] != 0;
    }
    if (me == 0) {
        printf("gshmem-demo: %d PEs, transports %s\n", npes,
               getenv("GSHMEM_TRANSPORTS") ? getenv("GSHMEM_TRANSPORTS") : "auto");
        /* A step's time covers its allocation, barriers, the operation
         * itself and the check of every value (see apps/perf for timings
         * of single operations). */
        printf("%-18s %-8s %14s\n", "operation", "result", "step time(us)");
        for (int k = 0; k < NSTEPS; k++)
            printf("%-18s %-8s %14.1f\n", steps[k].name, failed[k] ? "FAILED" : "OK", us[k]);
        printf("gshmem-demo: %s\n", any ? "FAILED" : "all OK");
        fflush(stdout);
    }
    gshmem_barrier_all();
    gshmem_free(tally);
    gshmem_finalize();
    return any ? 1 : 0;
}

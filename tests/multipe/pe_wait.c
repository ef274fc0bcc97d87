/* pe_wait: waits that must outlast a slow PE and end when a PE dies.
 *
 *   pe_wait slow S      the last PE computes (sleeps) S seconds before a
 *                       barrier_all that the others already wait in; then a
 *                       reduction, checked. "pe_wait: OK" from PE 0.
 *   pe_wait die WHERE   PE 1 dies (SIGKILL) 1 s after the others began to
 *                       wait in WHERE: barrier, reduce, wait_until or lock
 *                       (PE 1 holds the lock). It prints "pe_wait: PE 1 dies
 *                       at T" first (T: CLOCK_REALTIME seconds), so the
 *                       driver can time how long the others take to end.
 *   pe_wait stuck -     every PE waits for a flag nobody sets (only
 *                       GSHMEM_TIMEOUT ends it).
 *   pe_wait term -      PE 1 raises SIGTERM 1 s after the others began to
 *                       wait in a barrier (its death must be the signal's). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gshmem.h"
#include "pe_check.h"

static int64_t flag;          /* what wait_until waits for (never set) */
static int64_t lock_word;     /* the lock PE 1 dies holding */
static int64_t red_src, red_dst;

static int death_signal = SIGKILL;

static void die_soon(void)
{
    struct timespec ts;
    sleep(1);
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("pe_wait: PE 1 dies at %.3f\n", (double)ts.tv_sec + ts.tv_nsec * 1e-9);
    fflush(stdout);
    raise(death_signal);
}

static void run_die(const char *where)
{
    int me = gshmem_my_pe();

    if (strcmp(where, "lock") == 0 && me == 1)
        gshmem_set_lock(&lock_word);
    gshmem_barrier_all();
    if (me == 1)
        die_soon();
    if (strcmp(where, "barrier") == 0)
        gshmem_barrier_all();
    else if (strcmp(where, "reduce") == 0)
        gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
    else if (strcmp(where, "wait_until") == 0)
        gshmem_int64_wait_until(&flag, GSHMEM_CMP_NE, 0);
    else if (strcmp(where, "lock") == 0)
        gshmem_set_lock(&lock_word);
    PE_CHECK(0, "PE %d left its %s although PE 1 died", me, where);
}

static void run_slow(int seconds)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();

    if (me == n - 1)
        sleep((unsigned)seconds);
    gshmem_barrier_all();
    red_src = me + 1;
    gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
    PE_CHECK(red_dst == (int64_t)n * (n + 1) / 2, "sum %lld, want %lld", (long long)red_dst,
             (long long)n * (n + 1) / 2);
    gshmem_barrier_all();
    if (me == 0)
        printf("pe_wait: OK (%d PEs, PE %d computed %d s first)\n", n, n - 1, seconds);
}

int main(int argc, char **argv)
{
    PE_CHECK(argc == 3, "usage: pe_wait slow S | die barrier|reduce|wait_until|lock | stuck -");
    PE_CHECK_INIT();
    PE_CHECK(gshmem_n_pes() >= 2, "needs 2 PEs or more");
    if (strcmp(argv[1], "slow") == 0)
        run_slow(atoi(argv[2]));
    else if (strcmp(argv[1], "stuck") == 0)
        gshmem_int64_wait_until(&flag, GSHMEM_CMP_NE, 0);
    else if (strcmp(argv[1], "term") == 0 && (death_signal = SIGTERM) != 0)
        run_die("barrier");
    else
        run_die(argv[2]);
    gshmem_finalize();
    return 0;
}

/* pe_kill: one PE fails on purpose while every PE moves data, for
 * gshmemrun's failure reports (scripts/kill-matrix.sh, test_hardening.c).
 *
 *   pe_kill HOW VICTIM WHEN TRAFFIC
 *
 * HOW      exit3 | exit7 (exit(3), exit(7): exit handlers run), kill
 *          (raise SIGKILL), segv (raise SIGSEGV), abort (abort(): SIGABRT),
 *          term (raise SIGTERM), or none (nobody fails: every PE does WHEN
 *          steps of traffic, finalizes and exits 0)
 * VICTIM   the PE that fails (0 .. n-1)
 * WHEN     milliseconds of traffic after init before it fails, or "init":
 *          the victim fails before gshmem_init (the others are in it)
 * TRAFFIC  amo (a 64-byte put to the next PE and an atomic add to a
 *          pseudo-random PE per step, a quiet every 64 steps) or barrier
 *          (barrier_all in a loop)
 *
 * Every PE prints nothing on success. A survivor still running 30 s after
 * init (the job was not ended) exits 99 with a message: the driver reads
 * that as "the death was not reported". */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gshmem.h"
#include "pe_check.h"

#define PK_SURVIVOR_LIMIT_S 30.0

static int64_t counter;     /* atomic adds land here */
static char inbox[64];      /* puts land here */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The failure itself; returns only for "none". */
static void fail_now(const char *how)
{
    fflush(NULL);
    if (strcmp(how, "exit3") == 0)
        exit(3);
    if (strcmp(how, "exit7") == 0)
        exit(7);
    if (strcmp(how, "kill") == 0)
        raise(SIGKILL);
    if (strcmp(how, "segv") == 0)
        raise(SIGSEGV);
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "term") == 0)
        raise(SIGTERM);
}

static int how_known(const char *how)
{
    static const char *const hows[] = {"exit3", "exit7", "kill", "segv", "abort", "term",
                                       "none"};
    for (size_t i = 0; i < sizeof hows / sizeof hows[0]; i++)
        if (strcmp(how, hows[i]) == 0)
            return 1;
    return 0;
}

/* One step of traffic; step counts from 0. */
static void traffic_step(int amo, uint64_t step, int me, int n)
{
    if (!amo) {
        gshmem_barrier_all();
        return;
    }
    char msg[sizeof inbox];
    memset(msg, (int)(step & 0x7f), sizeof msg);
    gshmem_putmem(inbox, msg, sizeof msg, (me + 1) % n);
    gshmem_int64_atomic_add(&counter, 1, (int)((step * 2654435761u + (uint64_t)me) % (uint64_t)n));
    if (step % 64 == 63)
        gshmem_quiet();
}

int main(int argc, char **argv)
{
    PE_CHECK_AT(-1, argc == 5, "usage: pe_kill HOW VICTIM WHEN|init amo|barrier");
    const char *how = argv[1], *when = argv[3], *traffic = argv[4];
    int victim = atoi(argv[2]), amo = strcmp(traffic, "amo") == 0;
    const char *pe_env = getenv("GSHMEMRUN_PE");
    int boot_pe = pe_env ? atoi(pe_env) : -1;
    PE_CHECK_AT(boot_pe, how_known(how), "unknown HOW %s", how);
    PE_CHECK_AT(boot_pe, amo || strcmp(traffic, "barrier") == 0, "unknown TRAFFIC %s", traffic);
    if (strcmp(when, "init") == 0 && boot_pe == victim)
        fail_now(how);
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    PE_CHECK(victim >= 0 && victim < n, "VICTIM %d not in 0..%d", victim, n - 1);
    double ms = strcmp(when, "init") == 0 ? 0 : atof(when);
    gshmem_barrier_all();
    double t0 = now_s(), fail_at = t0 + ms * 1e-3;
    int none = strcmp(how, "none") == 0;
    for (uint64_t step = 0;; step++) {
        double t = now_s();
        if (none ? step >= (uint64_t)ms : me == victim && t >= fail_at)
            break;
        PE_CHECK(t - t0 < PK_SURVIVOR_LIMIT_S, "still running %.0f s after init: the failure "
                 "of PE %d (%s) did not end the job", PK_SURVIVOR_LIMIT_S, victim, how);
        traffic_step(amo, step, me, n);
    }
    if (!none)
        fail_now(how);
    /* none: the same number of steps everywhere; amo traffic may still
     * arrive, so quiet and meet before finalize */
    gshmem_quiet();
    gshmem_barrier_all();
    gshmem_finalize();
    return 0;
}

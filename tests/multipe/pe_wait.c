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
 *                       wait in a barrier (its death must be the signal's).
 *   pe_wait putloop HOW every PE puts 64 KiB to each peer and quiets, over
 *                       and over; 0.5 s in, PE 1 ends mid-loop: HOW exit
 *                       (exit(3), its exit handlers run) or kill (raises
 *                       SIGKILL). The survivors' transport errors must not
 *                       be what the launcher reports.
 *   pe_wait stop SIG    PE 1 raises SIG (19 SIGSTOP, 20 SIGTSTP, 21 SIGTTIN)
 *                       on itself while the others run fetch_incs on its
 *                       counter; nobody continues it (the launcher must end
 *                       the job).
 *   pe_wait stopcont MS the same with SIGSTOP, and the last PE sends PE 1
 *                       SIGCONT MS ms later: the job completes, "pe_wait:
 *                       OK" from PE 1 (slow is not dead). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/types.h>
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

#define PUT_BYTES (64 * 1024)
static char put_buf[PUT_BYTES];   /* what the put loop writes to its peers */
#define STOP_AMOS 2000            /* fetch_incs of each other PE on PE 1 */
static int64_t amo_counter;       /* PE 1's, the target of those */
static int64_t pe1_pid;           /* PE 1's pid, on the last PE (stopcont) */

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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Puts to every peer until PE 1 ends (exit: exit(3); kill: SIGKILL) 0.5 s
 * in; the survivors go on until the launcher or a transport error ends
 * them (30 s at most, then a failed check). */
static void run_putloop(const char *how)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    double start;

    PE_CHECK(strcmp(how, "exit") == 0 || strcmp(how, "kill") == 0, "putloop %s: want exit "
             "or kill", how);
    gshmem_barrier_all();
    start = now_s();
    for (long it = 0;; it++) {
        for (int k = 1; k < n; k++)
            gshmem_putmem_nbi(put_buf, put_buf, PUT_BYTES, (me + k) % n);
        gshmem_quiet();
        if (me == 1 && now_s() - start > 0.5) {
            printf("pe_wait: PE 1 ends its put loop (%s) after %ld rounds\n", how, it + 1);
            fflush(stdout);
            if (strcmp(how, "exit") == 0)
                exit(3);
            raise(SIGKILL);
        }
        PE_CHECK(now_s() - start < 30.0, "PE %d is still in its put loop 30 s after PE 1 "
                 "ended", me);
    }
}

/* PE 1 stops itself with sig while the others run fetch_incs on its
 * counter; cont_ms >= 0: the last PE continues it that many ms later. */
static void run_stop(int sig, int cont_ms)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int64_t mine = (int64_t)getpid();

    if (me == 1)
        gshmem_int64_put(&pe1_pid, &mine, 1, n - 1);
    gshmem_barrier_all();
    if (me == 1) {
        printf("pe_wait: PE 1 (pid %d) stops itself with signal %d\n", (int)getpid(), sig);
        fflush(stdout);
        raise(sig);
    } else {
        if (me == n - 1 && cont_ms >= 0) {
            struct timespec ts = {cont_ms / 1000, (long)(cont_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
            PE_CHECK(kill((pid_t)pe1_pid, SIGCONT) == 0, "kill(PE 1's pid %lld, SIGCONT) "
                     "failed", (long long)pe1_pid);
        }
        for (int i = 0; i < STOP_AMOS; i++)
            (void)gshmem_int64_atomic_fetch_inc(&amo_counter, 1);
    }
    gshmem_barrier_all();
    if (me == 1) {
        PE_CHECK(amo_counter == (int64_t)(n - 1) * STOP_AMOS, "PE 1's counter is %lld, want "
                 "%lld", (long long)amo_counter, (long long)(n - 1) * STOP_AMOS);
        printf("pe_wait: OK (PE 1 was stopped and continued; %lld fetch_incs)\n",
               (long long)amo_counter);
    }
}

int main(int argc, char **argv)
{
    PE_CHECK(argc == 3, "usage: pe_wait slow S | die barrier|reduce|wait_until|lock | "
             "stuck - | term - | putloop exit|kill | stop SIG | stopcont MS");
    PE_CHECK_INIT();
    PE_CHECK(gshmem_n_pes() >= 2, "needs 2 PEs or more");
    if (strcmp(argv[1], "slow") == 0)
        run_slow(atoi(argv[2]));
    else if (strcmp(argv[1], "putloop") == 0)
        run_putloop(argv[2]);
    else if (strcmp(argv[1], "stop") == 0)
        run_stop(atoi(argv[2]), -1);
    else if (strcmp(argv[1], "stopcont") == 0)
        run_stop(SIGSTOP, atoi(argv[2]));
    else if (strcmp(argv[1], "stuck") == 0)
        gshmem_int64_wait_until(&flag, GSHMEM_CMP_NE, 0);
    else if (strcmp(argv[1], "term") == 0 && (death_signal = SIGTERM) != 0)
        run_die("barrier");
    else
        run_die(argv[2]);
    gshmem_finalize();
    return 0;
}

/* test_queue_bench: a smoke run of gshmem-perf-queue-host
 * (apps/perf/host/queue_host.c, the queue path with host threads as
 * producers) on 2 PEs with a host heap and small flags, over shm and over
 * ofi with libfabric's shm provider. The program checks every row's values
 * before timing it and exits 1 naming the wrong one; here: exit 0, one
 * table row per operation, no failure text. The ofi case is skipped, with
 * the program's reason, when this build or libfabric lacks ofi or its shm
 * provider.
 *
 * queue_bench::ofi_target_counts_served: the target of RMA gets no CQ
 * entry, so its progress thread must count what it serves (FI_RMA_EVENT)
 * or it naps between a peer's requests (put + quiet took 114 us instead of
 * 8 us): PE 1, which only serves, must report served accesses.
 *
 * queue_bench::trace_stages: GSHMEM_TRACE over the active-message path (host
 * heap): each PE writes its file, and between them every stage of a put
 * through the engine appears (the engine's on PE 0, the target's on PE 1),
 * each with a plausible clock value (builds without CUDA, which have no
 * active-message path: the engine's stages). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define QB_TIMEOUT_S 60
#define QB_ARGS "-n 3 -w 1 -r 20 -p 100"

/* Lines of the program's output that mean "this transport is not here". */
static const char *qb_missing(const char *out)
{
    static const char *const why[] = {"is not available in this build",
                                      "libfabric provider 'shm' not found"};
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        if (strstr(out, why[i]) != NULL)
            return why[i];
    return NULL;
}

/* One run of the program under env; skips when the transport is missing,
 * fails unless it exited 0. */
static test_run_t qb_exec(const char *env)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n 2 --timeout %d "
             "%%B/apps/perf/host/gshmem-perf-queue-host " QB_ARGS, QB_TIMEOUT_S);
    test_run_t r = test_run(env, cmd, QB_TIMEOUT_S + 10);
    const char *missing = r.status != 0 ? qb_missing(r.output) : NULL;
    if (missing != NULL) {
        test_run_free(&r);
        cr_skip("%s: the transport %s", env, missing);
    }
    cr_assert_eq(r.status, 0, "%s: exited %d after %.1f s:\n%s", env, r.status, r.seconds,
                 test_tail(&r));
    return r;
}

static void qb_run(const char *env)
{
    test_run_t r = qb_exec(env);
    cr_assert(strstr(r.output, "median_us") != NULL, "%s: no table header:\n%s", env,
              test_tail(&r));
    /* rows print the op right-aligned in 12 columns, then the thread count */
    static const char *const ops[] = {"put_quiet", "put_blocking", "fetch_add", "g", "rate"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char row[32];
        snprintf(row, sizeof row, "\n%12s%12d ", ops[i], strcmp(ops[i], "rate") ? 1 : 4);
        cr_assert(strstr(r.output, row) != NULL, "%s: no row '%s':\n%s", env, ops[i],
                  test_tail(&r));
    }
    cr_assert(strstr(r.output, "FAIL") == NULL && strstr(r.output, "mismatch") == NULL,
              "%s: failure text in the output:\n%s", env, test_tail(&r));
    cr_log_info("%s: %.1f s", env, r.seconds);
    test_run_free(&r);
}

Test(queue_bench, host_shm)
{
    qb_run("GSHMEM_HEAP=host GSHMEM_TRANSPORTS=shm");
}

Test(queue_bench, host_ofi_shm)
{
    qb_run("GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm");
}

Test(queue_bench, ofi_target_counts_served)
{
    const char *env = "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm "
                      "GSHMEM_DEBUG=DEBUG GSHMEM_DEBUG_SUBSYS=TRANSPORT";
    test_run_t r = qb_exec(env);
    const char *key = "ofi: PE 1: progress thread: ";
    const char *line = strstr(r.output, key);
    cr_assert(line != NULL, "PE 1 printed no progress-thread line:\n%s", test_tail(&r));
    unsigned long long served = strtoull(line + strlen(key), NULL, 10);
    cr_assert(strstr(line, "FI_RMA_EVENT counter") != NULL && served > 0,
              "PE 1 served PE 0's puts, gets and atomics but its progress thread counted "
              "%llu of them:\n%.200s", served, line);
    test_run_free(&r);
}

/* Count of lines of file f whose stage column is stage (pe,stage,ns). */
static int qb_stage_count(const char *f, const char *stage, unsigned long long *ns_p)
{
    FILE *fp = fopen(f, "r");
    if (fp == NULL)
        return -1;
    char line[128];
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        char *c1 = strchr(line, ',');
        char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (c2 == NULL || (size_t)(c2 - c1 - 1) != strlen(stage) ||
            strncmp(c1 + 1, stage, strlen(stage)) != 0)
            continue;
        *ns_p = strtoull(c2 + 1, NULL, 10);
        n++;
    }
    fclose(fp);
    return n;
}

Test(queue_bench, trace_stages)
{
    char dir[] = "/tmp/gshmem-trace-XXXXXX";
    cr_assert(mkdtemp(dir) != NULL, "mkdtemp failed");
    char env[512], f[2][600];
    snprintf(env, sizeof env, "GSHMEM_HEAP=host GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm "
             "GSHMEM_OFI_AM=1 GSHMEM_TRACE=%s/tr", dir);
    test_run_t r = qb_exec(env);
    test_run_free(&r);
#if defined(GSHMEM_HAVE_CUDA)
    static const char *const stages[] = {"take", "exec", "send", "recv", "apply", "visible",
                                         "ack", "acked", "done", "publish"};
#else   /* the active-message path is built with CUDA only: the engine's stamps */
    static const char *const stages[] = {"take", "exec"};
    cr_log_info("no CUDA in this build: GSHMEM_OFI_AM has no active-message path; the "
                "engine's stages only");
#endif
    for (int pe = 0; pe < 2; pe++)
        snprintf(f[pe], sizeof f[pe], "%s/tr.%d.csv", dir, pe);
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        unsigned long long ns = 0;
        int n0 = qb_stage_count(f[0], stages[i], &ns), n1 = qb_stage_count(f[1], stages[i], &ns);
        cr_assert(n0 >= 0 && n1 >= 0, "GSHMEM_TRACE: %s or %s was not written", f[0], f[1]);
        cr_assert(n0 + n1 > 0, "GSHMEM_TRACE: no '%s' stamp in %s or %s", stages[i], f[0],
                  f[1]);
        cr_assert(ns > 1000000ull, "GSHMEM_TRACE: stage '%s' stamped %llu ns", stages[i], ns);
    }
    for (int pe = 0; pe < 2; pe++)
        unlink(f[pe]);
    rmdir(dir);
}

/* test_perf.c: runs gshmem-demo on 4 PEs and the host benchmarks briefly on
 * 2 PEs under each transport, checking the exit status, the table header,
 * one row per size and the CSV file. The benchmarks check their data
 * before timing and exit non-zero on a wrong byte. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define PERF_TIMEOUT 90

static test_run_t run_app(const char *tp, int n, const char *bin, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %%B/%s %s", n,
             PERF_TIMEOUT, bin, args ? args : "");
    return test_run(test_tp_env(tp), cmd, PERF_TIMEOUT + 10);
}

/* Parameters hold the name by value: the test runs in a re-executed worker
 * whose addresses differ, so a pointer to a string would not survive. */
typedef struct perf_tp {
    char name[16];
} perf_tp_t;

static struct criterion_test_params perf_tp_params(void)
{
    static perf_tp_t tps[] = {{"shm"}, {"ofi-shm"}, {"ofi-tcp"}};
    return cr_make_param_array(perf_tp_t, tps, sizeof tps / sizeof tps[0]);
}

/* Rows of the table print the size right-aligned in 12 columns. */
static int count_rows(const char *out, size_t from, size_t to)
{
    int rows = 0;
    for (size_t s = from; s <= to; s *= 2) {
        char pat[32];
        snprintf(pat, sizeof pat, "\n%12zu ", s);
        rows += strstr(out, pat) != NULL;
    }
    return rows;
}

Test(perf, demo_4pes_shm)
{
    test_run_t r = run_app("shm", 4, "apps/demo/gshmem-demo", NULL);
    cr_assert_eq(r.status, 0, "gshmem-demo exited %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "operation") && strstr(r.output, "time(us)"),
              "no table header:\n%s", test_tail(&r));
    static const char *const ops[] = {"ring put_signal", "atomic counter", "broadcast",
                                      "sum reduction"};
    for (int i = 0; i < 4; i++) {
        const char *row = strstr(r.output, ops[i]);
        cr_assert(row != NULL, "no row '%s':\n%s", ops[i], test_tail(&r));
        cr_assert(strncmp(row + 19, "OK", 2) == 0, "row '%s' not OK:\n%s", ops[i], test_tail(&r));
    }
    cr_assert(strstr(r.output, "gshmem-demo: all OK"), "%s", test_tail(&r));
    cr_assert_null(strstr(r.output, "FAILED"), "%s", test_tail(&r));
    test_run_free(&r);
}

ParameterizedTestParameters(perf, latency)
{
    return perf_tp_params();
}

ParameterizedTest(perf_tp_t *p, perf, latency)
{
    const char *tp = p->name;
    test_run_t r = run_app(tp, 2, "apps/perf/host/gshmem-perf-put-latency",
                           "-b 8 -e 4K -n 20 -w 2");
    cr_assert_eq(r.status, 0, "%s: put-latency exited %d:\n%s", tp, r.status, test_tail(&r));
    cr_assert(strstr(r.output, "size(B)") && strstr(r.output, "median(us)") &&
                  strstr(r.output, "p99(us)"),
              "%s: no table header:\n%s", tp, test_tail(&r));
    cr_assert_eq(count_rows(r.output, 8, 4096), 10, "%s: not one row per size:\n%s", tp,
                 test_tail(&r));
    const char *want = strcmp(tp, "shm") == 0 ? "load/store (shm)" : "network (ofi)";
    cr_assert(strstr(r.output, want), "%s: transport line lacks '%s':\n%s", tp, want,
              test_tail(&r));
    test_run_free(&r);
}

ParameterizedTestParameters(perf, bandwidth)
{
    return perf_tp_params();
}

ParameterizedTest(perf_tp_t *p, perf, bandwidth)
{
    const char *tp = p->name;
    char csv[64], args[160];
    snprintf(csv, sizeof csv, "/tmp/gshmem_perf_bw_%d.csv", (int)getpid());
    snprintf(args, sizeof args, "-b 4K -e 64K -n 20 -w 2 -W 8 -o %s", csv);
    test_run_t r = run_app(tp, 2, "apps/perf/host/gshmem-perf-put-bw", args);
    cr_assert_eq(r.status, 0, "%s: put-bw exited %d:\n%s", tp, r.status, test_tail(&r));
    cr_assert(strstr(r.output, "size(B)") && strstr(r.output, "GB/s"),
              "%s: no table header:\n%s", tp, test_tail(&r));
    cr_assert_eq(count_rows(r.output, 4096, 65536), 5, "%s: not one row per size:\n%s", tp,
                 test_tail(&r));
    FILE *f = fopen(csv, "r");
    cr_assert_not_null(f, "%s: no CSV file %s", tp, csv);
    char line[256];
    int lines = 0;
    while (fgets(line, sizeof line, f))
        lines++;
    fclose(f);
    unlink(csv);
    cr_assert_eq(lines, 6, "%s: CSV has %d lines, expected header + 5 rows", tp, lines);
    test_run_free(&r);
}

Test(perf, bandwidth_bidirectional_shm)
{
    test_run_t r = run_app("shm", 2, "apps/perf/host/gshmem-perf-put-bw",
                           "-b 4K -e 16K -n 20 -w 2 -W 4 -d");
    cr_assert_eq(r.status, 0, "put-bw -d exited %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "bidirectional"), "%s", test_tail(&r));
    cr_assert_eq(count_rows(r.output, 4096, 16384), 3, "%s", test_tail(&r));
    test_run_free(&r);
}

Test(perf, bad_flag_and_help)
{
    test_run_t r = test_run(NULL, "%B/apps/perf/host/gshmem-perf-put-bw -b 4X", 20);
    cr_assert_eq(r.status, 2, "bad -b accepted (status %d):\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "-b '4X'"), "%s", test_tail(&r));
    test_run_free(&r);
    r = test_run(NULL, "%B/apps/perf/host/gshmem-perf-put-latency -h", 20);
    cr_assert_eq(r.status, 0, "-h exited %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "usage:") && strstr(r.output, "-e SIZE"), "%s", test_tail(&r));
    test_run_free(&r);
}

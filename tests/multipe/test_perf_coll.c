/* test_perf_coll.c: runs the collective benchmarks briefly at 2 PEs:
 * gshmem-perf-coll under gshmemrun over shm and ofi-tcp, and
 * gshmem-perf-coll-mpi under mpirun (skipped, saying why, when it was not
 * built or no mpiexec was found). Each must exit 0 and print its table, one
 * row per op and size, and write a CSV file with the same header for both
 * (scripts/perf-coll.sh joins them). The programs check every op's data
 * before timing it and exit non-zero on a wrong byte. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define PC_TIMEOUT 90
#define PC_ARGS "-b 8 -e 4K -f 8 -n 20 -w 2"
#define PC_HEADER "op,size(B),PEs,iters,median(us),mean(us),p99(us),min(us),max(us)"
#define PC_ROWS (2 + 4 * 4)   /* barrier, sync; 4 ops at 8, 64, 512, 4096 B */

static const char *const pc_ops[] = {"broadcast", "fcollect", "alltoall", "sum_reduce"};

/* The table's rows: op and size right-aligned in 12 columns each. */
static void pc_expect_table(const test_run_t *r, const char *what)
{
    char pat[64];
    cr_assert(strstr(r->output, "median(us)") && strstr(r->output, "mean(us)"),
              "%s: no table header:\n%s", what, test_tail(r));
    for (int k = 0; k < 2; k++) {
        snprintf(pat, sizeof pat, "\n%12s%12d%12d", k ? "sync" : "barrier", 0, 2);
        cr_assert(strstr(r->output, pat), "%s: no %s row:\n%s", what, k ? "sync" : "barrier",
                  test_tail(r));
    }
    for (int k = 0; k < 4; k++)
        for (int s = 8; s <= 4096; s *= 8) {
            snprintf(pat, sizeof pat, "\n%12s%12d%12d", pc_ops[k], s, 2);
            cr_assert(strstr(r->output, pat), "%s: no row %s %d B:\n%s", what, pc_ops[k], s,
                      test_tail(r));
        }
    cr_assert_null(strstr(r->output, "FAILED"), "%s:\n%s", what, test_tail(r));
}

/* The CSV file: the shared header, then PC_ROWS rows. Removes it. */
static void pc_expect_csv(const char *csv, const char *what)
{
    FILE *f = fopen(csv, "r");
    cr_assert_not_null(f, "%s: no CSV file %s", what, csv);
    char line[256];
    int lines = 0, header_ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (lines++ == 0)
            header_ok = strncmp(line, PC_HEADER "\n", sizeof PC_HEADER) == 0;
    }
    fclose(f);
    unlink(csv);
    cr_assert(header_ok, "%s: CSV header is not '%s'", what, PC_HEADER);
    cr_assert_eq(lines, 1 + PC_ROWS, "%s: CSV has %d lines, expected header + %d rows", what,
                 lines, PC_ROWS);
}

static void pc_gshmem(const char *tp)
{
    char csv[64], cmd[512];
    snprintf(csv, sizeof csv, "/tmp/gshmem_perf_coll_%d.csv", (int)getpid());
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n 2 --timeout %d "
             "%%B/apps/perf/host/gshmem-perf-coll " PC_ARGS " -o %s", PC_TIMEOUT, csv);
    test_run_t r = test_run(test_tp_env(tp), cmd, PC_TIMEOUT + 10);
    cr_assert_eq(r.status, 0, "gshmem-perf-coll over %s exited %d:\n%s", tp, r.status,
                 test_tail(&r));
    pc_expect_table(&r, tp);
    test_run_free(&r);
    pc_expect_csv(csv, tp);
}

Test(perf_coll, gshmem_shm, .timeout = 120) { pc_gshmem("shm"); }
Test(perf_coll, gshmem_ofi_tcp, .timeout = 120) { pc_gshmem("ofi-tcp"); }

Test(perf_coll, mpi_vader, .timeout = 120)
{
    if (GSHMEM_MPIEXEC[0] == '\0')
        cr_skip_test("no mpiexec found at configure time: gshmem-perf-coll-mpi not run");
    test_run_t probe = test_run(NULL, "test -x %B/apps/perf/host/gshmem-perf-coll-mpi", 10);
    int built = probe.status == 0;
    test_run_free(&probe);
    if (!built)
        cr_skip_test("gshmem-perf-coll-mpi not built (CMake found no MPI)");

    char csv[64], cmd[768];
    snprintf(csv, sizeof csv, "/tmp/gshmem_perf_coll_mpi_%d.csv", (int)getpid());
    snprintf(cmd, sizeof cmd, "%s --allow-run-as-root --oversubscribe -np 2 --mca btl "
             "self,vader %%B/apps/perf/host/gshmem-perf-coll-mpi " PC_ARGS " -o %s",
             GSHMEM_MPIEXEC, csv);
    /* detect_leaks=0: Open MPI's dlopen'd components keep allocations that
     * LeakSanitizer can neither symbolize nor suppress (ASan builds). */
    test_run_t r = test_run("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                            "ASAN_OPTIONS=detect_leaks=0", cmd, PC_TIMEOUT);
    cr_assert_eq(r.status, 0, "gshmem-perf-coll-mpi exited %d:\n%s", r.status, test_tail(&r));
    pc_expect_table(&r, "mpi");
    test_run_free(&r);
    pc_expect_csv(csv, "mpi");
}

Test(perf_coll, bad_op, .timeout = 30)
{
    test_run_t r = test_run(NULL, "%B/apps/perf/host/gshmem-perf-coll -O barrier,gather", 20);
    cr_assert_eq(r.status, 2, "bad -O accepted (status %d):\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "unknown op 'gather'"), "%s", test_tail(&r));
    test_run_free(&r);
}

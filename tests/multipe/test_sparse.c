/* test_sparse: apps/sparse_allreduce end to end. gshmem-sparse-allreduce
 * --check compares every mode (gshmem, gshmem-owner, dense, union,
 * allgather) with a CPU fp64 reference on small cases (duplicates, overlap,
 * an empty PE, identical rows, out-of-range indices...) and exits non-zero
 * on any mismatch. Host PEs (--cpu) at 2 and 4 PEs over shm and ofi; the
 * default kind (GPU PEs where each PE has a GPU, else host PEs) at 2 and 4;
 * and a short benchmark on host PEs whose CSV must hold checked rows. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define SPARSE_BIN "%%B/apps/sparse_allreduce/gshmem-sparse-allreduce"
#define SPARSE_TIMEOUT 120

static test_run_t run_sparse(const char *env, int n, const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d " SPARSE_BIN " %s",
             n, SPARSE_TIMEOUT, args);
    return test_run(env, cmd, SPARSE_TIMEOUT + 20);
}

static void expect_check(const char *env, int n, const char *args)
{
    test_run_t r = run_sparse(env, n, args);
    cr_expect(r.status == 0 && strstr(r.output, "--check: all OK (0 failed)") != NULL,
              "%s %d PEs %s: exit status %d (want 0 and 'all OK'); output (end):\n%s",
              env ? env : "", n, args, r.status, test_tail(&r));
    cr_expect(strstr(r.output, " FAIL") == NULL, "a FAIL line:\n%s", test_tail(&r));
    /* every mode was compared at least once, and the error case ran */
    static const char *const want[] = {" gshmem ", " gshmem-owner ", " dense ", " union ",
                                       " allgather ", "gshmem/error"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(r.output, want[i]) != NULL, "no check line for '%s':\n%s", want[i],
                  test_tail(&r));
    test_run_free(&r);
}

Test(sparse, check_host_pes_shm, .timeout = 300)
{
    expect_check(test_tp_env("shm"), 2, "--check --cpu");
    expect_check(test_tp_env("shm"), 4, "--check --cpu");
}

Test(sparse, check_host_pes_ofi, .timeout = 300)
{
    expect_check(test_tp_env("ofi-shm"), 2, "--check --cpu");
    expect_check(test_tp_env("ofi-tcp"), 4, "--check --cpu");
}

/* The default kind: GPU PEs on a GPU machine (with NCCL for the baselines
 * when it loads), host PEs elsewhere. The program picks the heap that
 * fits: GSHMEM_HEAP=auto counts as unset (and keeps test_run from setting
 * host). */
Test(sparse, check_default_kind, .timeout = 300)
{
    expect_check("GSHMEM_HEAP=auto", 2, "--check");
    expect_check("GSHMEM_HEAP=auto", 4, "--check");
}

Test(sparse, bench_host_csv, .timeout = 200)
{
    char csv[] = "/tmp/gshmem-sparse-XXXXXX";
    int fd = mkstemp(csv);
    cr_assert(fd >= 0, "mkstemp");
    close(fd);
    char args[256];
    snprintf(args, sizeof args, "--cpu -N 20000 -d 16 --density 0.01,0.05 --dist uniform,zipf "
             "-n 3 -w 1 --csv %s", csv);
    test_run_t r = run_sparse(test_tp_env("shm"), 2, args);
    cr_expect(r.status == 0, "exit status %d:\n%s", r.status, test_tail(&r));
    FILE *f = fopen(csv, "r");
    cr_assert(f != NULL, "no CSV at %s", csv);
    char line[1024];
    int rows = 0, header = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "P,N,dim,", 8) == 0)
            header = 1;
        else if (strncmp(line, "2,20000,16,", 11) == 0) {
            rows++;
            cr_expect(strstr(line, ",ok") != NULL, "row not checked ok: %s", line);
        }
    }
    fclose(f);
    unlink(csv);
    cr_expect(header && rows == 4, "CSV: header %d, %d rows (want 4):\n%s", header, rows,
              test_tail(&r));
    test_run_free(&r);
}

/* Values parsed strictly (apps/common/app_args.c): each bad one is named
 * with its flag, status 2, before gshmem_init (no launcher needed; one
 * shell runs them all). They were read by atoi/atof: nan crashed, -0.5 ran
 * out of memory, abc and x ran with 0. The parser's cases:
 * tests/unit/test_app_args.c. */
Test(sparse, bad_values_are_named)
{
    static const char *const args[][2] = {
        {"--density nan", "--density 'nan': not a finite number"},
        {"--density -0.5", "--density '-0.5': out of range"},
        {"-d abc", "-d 'abc': not a number"},
        {"--timeout x", "--timeout 'x': not a number"},
    };
    const size_t n = sizeof args / sizeof args[0];
    char cmd[1024] = "/bin/sh -c 'for a in";
    for (size_t i = 0; i < n; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " \"%s\"", args[i][0]);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "; do " SPARSE_BIN " $a; "
             "echo \"status $?\"; done'");
    test_run_t r = test_run(NULL, cmd, 30);
    cr_expect_eq(test_count_of(r.output, "status 2\n"), (int)n, "want %zu runs with status 2:"
                 "\n%s", n, test_tail(&r));
    for (size_t i = 0; i < n; i++)
        cr_expect(strstr(r.output, args[i][1]) != NULL, "%s: no '%s' in:\n%s", args[i][0],
                  args[i][1], test_tail(&r));
    test_run_free(&r);
}

Test(sparse, bad_option)
{
    test_run_t r = run_sparse(NULL, 1, "--no-such-option");
    cr_expect(r.status != 0 && strstr(r.output, "unknown option --no-such-option") != NULL,
              "exit status %d:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}

/* A results file PE 0 cannot open ends the run, naming it, before any case
 * runs (it exited 0 with nothing written; found by scripts/fuzz-args.py). */
Test(sparse, unwritable_results_file_refused, .timeout = 120)
{
    static const char *const flag[] = {"--csv", "--md"};
    for (size_t i = 0; i < 2; i++) {
        char args[256], want[128];
        snprintf(args, sizeof args, "--cpu -N 2000 -d 4 --density 0.01 -n 1 -w 0 %s "
                 "/nonexistent-gshmem-dir/out", flag[i]);
        test_run_t r = run_sparse(test_tp_env("shm"), 2, args);
        snprintf(want, sizeof want, "cannot write the results: %s /nonexistent-gshmem-dir/out: "
                 "No such file or directory", flag[i]);
        cr_expect(r.status != 0 && strstr(r.output, want) != NULL,
                  "%s: status %d (want non-zero) and '%s':\n%s", flag[i], r.status, want,
                  test_tail(&r));
        test_run_free(&r);
    }
}

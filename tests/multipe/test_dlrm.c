/* test_dlrm.c: gshmem-dlrm (apps/dlrm) end to end on CPU PEs at the tiny
 * size: every mode runs and is checked (fused against baseline, staging
 * against the send buffer, the fp64 reference on every row), on 1, 2, 3
 * and 4 PEs, over shm and over ofi/tcp on loopback, with the variants
 * (oblivious schedule, slice order, fp16/bf16 weights, uneven table split,
 * several slice sizes); CSV and the raw trace format; the input file round
 * trip and a corrupted file; and that the checks do fail when a pooled row
 * is left unwritten (poisoned outputs). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define DLRM_TIMEOUT 120
#define DLRM_BIN "%B/apps/dlrm/gshmem-dlrm"

static test_run_t dlrm_run(const char *tp, int n, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d "
             "%%B/apps/dlrm/gshmem-dlrm --device cpu %s", n, DLRM_TIMEOUT, args);
    return test_run(test_tp_env(tp), cmd, DLRM_TIMEOUT + 10);
}

/* Every result row of the table (lines starting with set) says OK+ref. */
static void expect_rows_ok(const test_run_t *r, const char *set, int rows)
{
    cr_assert(strstr(r->output, "baseline(us)") && strstr(r->output, "hiding"),
              "no table header:\n%s", test_tail(r));
    char pat[32];
    snprintf(pat, sizeof pat, "\n%-6s ", set);
    cr_assert_eq(test_count_of(r->output, pat), rows, "expected %d '%s' rows:\n%s", rows, set,
                 test_tail(r));
    cr_assert_eq(test_count_of(r->output, " OK+ref\n"), rows, "not every row OK+ref:\n%s",
                 test_tail(r));
    cr_assert_null(strstr(r->output, "FAILED"), "%s", test_tail(r));
}

typedef struct dlrm_n {
    int n;
} dlrm_n_t;

ParameterizedTestParameters(dlrm, tiny_check)
{
    static dlrm_n_t ns[] = {{1}, {2}, {4}};
    return cr_make_param_array(dlrm_n_t, ns, sizeof ns / sizeof ns[0]);
}

/* The README's command (on CPU PEs): all modes, checked, one table row. */
ParameterizedTest(dlrm_n_t *p, dlrm, tiny_check)
{
    test_run_t r = dlrm_run("shm", p->n, "--config tiny --check");
    cr_assert_eq(r.status, 0, "n=%d: status %d:\n%s", p->n, r.status, test_tail(&r));
    expect_rows_ok(&r, "tiny", 1);
    cr_assert(strstr(r.output, "CPU PEs"), "%s", test_tail(&r));
    test_run_free(&r);
}

Test(dlrm, variants_uneven_tables)
{
    /* T = 8 over 3 PEs: 3 + 3 + 2 tables; slice sizes 1 (one sample),
     * 5 (a short last slice) and 64 (one slice larger than B/P) */
    test_run_t r = dlrm_run("shm", 3, "--config tiny --check --schedule oblivious --order slice "
                            "--dtype fp16 --slice 1,5,64 --threads 3");
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    expect_rows_ok(&r, "tiny", 3);
    test_run_free(&r);
}

Test(dlrm, network_path_bf16)
{
    test_run_t r = dlrm_run("ofi-tcp", 2, "--config tiny --check --dtype bf16 --iters 5");
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    expect_rows_ok(&r, "tiny", 1);
    test_run_free(&r);
}

/* GPU PEs over the network path at P = 4 (P2P off: the device queue, the
 * engine and libfabric tcp on loopback; NCCL on sockets): fused against
 * baseline on every element. Regression: the checks poisoned a PE's
 * staging while its engine still sent from it to slower peers (NaN rows
 * in every P = 4 case); poisoning now waits for every PE's run. */
Test(dlrm, gpu_network_path_p4, .timeout = 300)
{
    test_require_gpu("pe_app_nccl", "probe 4");
    test_run_t r = test_run("GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=ofi "
                            "GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' FI_TCP_IFACE=lo "
                            "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 "
                            "NCCL_SOCKET_IFNAME=lo GSHMEM_TIMEOUT=60",
                            "%B/tools/gshmemrun/gshmemrun -n 4 --timeout 240 " DLRM_BIN
                            " --device gpu --config G --batch 2048 --tables-per-pe 32,64 "
                            "--iters 2 --warmup 1", 260);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "\nG      "), 2, "expected 2 G rows:\n%s",
                 test_tail(&r));
    cr_assert_eq(test_count_of(r.output, " OK\n"), 2, "not every row OK:\n%s", test_tail(&r));
    cr_assert_null(strstr(r.output, "FAILED"), "%s", test_tail(&r));
    test_run_free(&r);
}

static int count_lines(const char *path, const char *needle, char *first, size_t firstlen)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    if (f == NULL)
        return -1;
    for (int i = 0; fgets(line, sizeof line, f); i++) {
        if (i == 0 && first != NULL)
            snprintf(first, firstlen, "%s", line);
        n += needle == NULL || strstr(line, needle) != NULL;
    }
    fclose(f);
    return n;
}

Test(dlrm, csv_and_trace)
{
    char csv[64], tr[64], args[256], head[512];
    snprintf(csv, sizeof csv, "/tmp/gshmem_dlrm_%d.csv", (int)getpid());
    snprintf(tr, sizeof tr, "/tmp/gshmem_dlrm_%d.trace.csv", (int)getpid());
    unlink(csv);
    snprintf(args, sizeof args, "--config tiny --iters 3 --warmup 1 --csv %s --trace %s", csv, tr);
    test_run_t r = dlrm_run("shm", 2, args);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert_eq(count_lines(csv, NULL, head, sizeof head), 2, "CSV: header + 1 row expected");
    cr_assert(strncmp(head, "set,P,T,B,D,Lmax", 16) == 0, "CSV header: %s", head);
    /* per PE: baseline compute + 2 a2a + unpack rows, fused 2 x 12 slices */
    cr_assert_eq(count_lines(tr, NULL, head, sizeof head), 1 + 2 * (4 + 24), "trace rows");
    cr_assert_str_eq(head, "pe,mode,kind,slice,dst_pe,t_start_ns,t_end_ns,bytes\n");
    cr_assert_eq(count_lines(tr, ",fused,slice,", NULL, 0), 48, "fused slice rows");
    cr_assert_eq(count_lines(tr, ",baseline,a2a,", NULL, 0), 4, "a2a rows");
    unlink(csv);
    unlink(tr);
    test_run_free(&r);
}

Test(dlrm, inputs_file)
{
    char in[64], bad[64], args[256];
    snprintf(in, sizeof in, "/tmp/gshmem_dlrm_%d.bin", (int)getpid());
    snprintf(bad, sizeof bad, "/tmp/gshmem_dlrm_%d.bad", (int)getpid());
    snprintf(args, sizeof args, "--config tiny --lmax 12 --dump-inputs %s", in);
    test_run_t r = dlrm_run("shm", 1, args);
    cr_assert_eq(r.status, 0, "dump: status %d:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
    snprintf(args, sizeof args, "--inputs %s --check --iters 3", in);
    r = dlrm_run("shm", 4, args);
    cr_assert_eq(r.status, 0, "run from file: status %d:\n%s", r.status, test_tail(&r));
    expect_rows_ok(&r, "file", 1);
    cr_assert(strstr(r.output, "   12 "), "Lmax 12 from the file:\n%s", test_tail(&r));
    test_run_free(&r);
    /* the same file with one index out of its table's range */
    FILE *f = fopen(in, "rb"), *g = fopen(bad, "wb");
    cr_assert(f && g);
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    cr_assert(n > 8 && n < sizeof buf, "input file of %zu bytes", n);
    long long huge = 1LL << 40;
    memcpy(buf + n - 8, &huge, 8);   /* the last index of the last table */
    fwrite(buf, 1, n, g);
    fclose(f);
    fclose(g);
    snprintf(args, sizeof args, "--inputs %s", bad);
    r = dlrm_run("shm", 2, args);
    cr_assert_eq(r.status, 2, "corrupt file accepted (status %d):\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "table 7: index") && strstr(r.output, "outside the table"),
              "%s", test_tail(&r));
    test_run_free(&r);
    unlink(in);
    unlink(bad);
}

Test(dlrm, unwritten_row_is_caught)
{
    test_run_t r = dlrm_run("shm", 2, "--config tiny --check --fault --iters 2");
    cr_assert_eq(r.status, 3, "a left-out row passed the checks (status %d):\n%s", r.status,
                 test_tail(&r));
    cr_assert(strstr(r.output, "CHECK FAILED") && strstr(r.output, "never written (poison)"),
              "%s", test_tail(&r));
    test_run_free(&r);
}

Test(dlrm, bad_arguments)
{
    test_run_t r = dlrm_run("shm", 4, "--config tiny --batch 10");
    cr_assert_eq(r.status, 2, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "B=10") && strstr(r.output, "not divisible by the PE count"),
              "%s", test_tail(&r));
    test_run_free(&r);
    r = test_run(NULL, DLRM_BIN " --dim 6", 20);
    cr_assert_eq(r.status, 2, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "--dim '6'") && strstr(r.output, "multiple of 4"), "%s",
              test_tail(&r));
    test_run_free(&r);
    r = test_run(NULL, DLRM_BIN " --help", 20);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "usage:") && strstr(r.output, "--slice"), "%s", test_tail(&r));
    test_run_free(&r);
}

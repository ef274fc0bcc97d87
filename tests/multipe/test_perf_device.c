/* test_perf_device: the device benchmarks of apps/perf/device, each briefly
 * on 2 PEs (gshmemrun, GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p) with tiny
 * sizes: exit status 0 (every benchmark checks its data before timing and
 * exits non-zero on a wrong byte), the table header, one row per size (or
 * per warp count) with plausible values, the CSV file. The queue-path
 * benchmarks may instead say why the queue path is not measured; the
 * doorbell round trip is measured either way. Skipped, with the reason,
 * without a CUDA build or without a GPU ("<prog> probe" decides in its own
 * process: this driver never starts CUDA itself). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define PD_TIMEOUT 150
#define PD_ENV "GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p"
#define PD_DIR "apps/perf/device/"

static test_run_t pd_run(const char *prog, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, PD_DIR "%s", prog);
    test_require_gpu_at(cmd, "probe");
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n 2 --timeout %d %%B/" PD_DIR "%s %s",
             PD_TIMEOUT, prog, args);
    test_run_t r = test_run(PD_ENV, cmd, PD_TIMEOUT + 15);
    cr_assert_eq(r.status, 0, "%s %s: status %d after %.1f s:\n%s", prog, args, r.status,
                 r.seconds, test_tail(&r));
    cr_assert_null(strstr(r.output, "FAILED"), "%s: a check failed:\n%s", prog, test_tail(&r));
    return r;
}

/* The value in column col (0-based) of the table row whose first column is
 * key, or -1 when there is no such row. */
static double pd_cell(const char *out, double key, int col)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\n%12.0f ", key);
    const char *p = strstr(out, pat);
    if (p == NULL)
        return -1;
    p += strlen(pat);
    double v = -1;
    for (int c = 1; c <= col; c++) {
        char *end;
        v = strtod(p, &end);
        if (end == p)
            return -1;
        p = end;
    }
    return v;
}

static int pd_csv_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n++;
    fclose(f);
    return n;
}

Test(perf_device, put_latency)
{
    test_run_t r = pd_run("gshmem-perf-dev-put-latency", "-b 8 -e 64 -n 20 -w 1 -r 5");
    cr_assert(strstr(r.output, "median(us)") && strstr(r.output, "(gshmem)"),
              "no table header:\n%s", test_tail(&r));
    for (double s = 8; s <= 64; s *= 2) {
        double us = pd_cell(r.output, s, 2);
        cr_assert(us > 0 && us < 10000, "size %.0f: median %.3f us not plausible:\n%s", s, us,
                  test_tail(&r));
    }
    test_run_free(&r);
}

/* A bandwidth table of sizes 4K..64K: header column head, plausible GB/s
 * in columns 2 to 4 of every row, the CSV file (removed) with 5 rows. */
static void pd_expect_bw(test_run_t *r, const char *head, const char *csv)
{
    cr_assert(strstr(r->output, head) && strstr(r->output, "memcpyPeer(GB/s)"),
              "no table header:\n%s", test_tail(r));
    for (double s = 4096; s <= 65536; s *= 2)
        for (int col = 2; col <= 4; col++) {
            double g = pd_cell(r->output, s, col);
            cr_assert(g > 0 && g < 10000, "size %.0f column %d: %.2f GB/s not plausible:\n%s",
                      s, col, g, test_tail(r));
        }
    int lines = pd_csv_lines(csv);
    unlink(csv);
    cr_assert_eq(lines, 6, "CSV %s: %d lines, expected header + 5 rows", csv, lines);
}

Test(perf_device, put_bw)
{
    char args[256], csv[64];
    snprintf(csv, sizeof csv, "/tmp/gshmem_perf_dev_bw_%d.csv", (int)getpid());
    snprintf(args, sizeof args, "-b 4K -e 64K -n 20 -w 1 -r 2 -B 8 -o %s", csv);
    test_run_t r = pd_run("gshmem-perf-dev-put-bw", args);
    pd_expect_bw(&r, "grid(GB/s)", csv);
    test_run_free(&r);
}

Test(perf_device, signal_pingpong)
{
    test_run_t r = pd_run("gshmem-perf-dev-signal-pingpong", "-b 8 -e 16 -n 20 -w 1 -r 10");
    cr_assert(strstr(r.output, "median(us)"), "no table header:\n%s", test_tail(&r));
    for (double s = 8; s <= 16; s *= 2) {
        double us = pd_cell(r.output, s, 2);
        cr_assert(us > 0 && us < 10000, "size %.0f: round trip %.3f us not plausible:\n%s", s,
                  us, test_tail(&r));
    }
    test_run_free(&r);
}

Test(perf_device, queue_latency)
{
    test_run_t r = pd_run("gshmem-perf-dev-queue-latency", "-n 20 -w 1 -r 5");
    cr_assert(strstr(r.output, "doorbell_rt(us)"), "no table header:\n%s", test_tail(&r));
    double bell = pd_cell(r.output, 8, 3), q = pd_cell(r.output, 8, 2);
    cr_assert(bell > 0 && bell < 10000, "doorbell round trip %.3f us not plausible:\n%s", bell,
              test_tail(&r));
    int skipped = strstr(r.output, "queue path not measured") != NULL ||
                  strstr(r.output, "queue path not built") != NULL;
    cr_assert(skipped || (q > 0 && q < 100000),
              "neither a queue put latency (%.3f) nor the reason why not:\n%s", q, test_tail(&r));
    if (skipped)
        test_note("queue_latency: queue path not measured in this build (doorbell %.3f us)",
                  bell);
    test_run_free(&r);
}

Test(perf_device, queue_rate)
{
    test_run_t r = pd_run("gshmem-perf-dev-queue-rate", "-W 4 -p 8 -n 20 -w 1");
    if (strstr(r.output, "queue path not measured") || strstr(r.output, "queue path not built")) {
        test_note("queue_rate: queue path not measured in this build");
        test_run_free(&r);
        return;
    }
    cr_assert(strstr(r.output, "Mput/s"), "no table header:\n%s", test_tail(&r));
    /* rows for 1, 2, 4 warps: the first column is the size (8) each time */
    int rows = 0;
    for (const char *p = r.output; (p = strstr(p, "\n           8 ")); p++)
        rows++;
    cr_assert_eq(rows, 3, "%d rows, expected 3 (1, 2, 4 warps):\n%s", rows, test_tail(&r));
    test_run_free(&r);
}

/* The on-stream put: copy engines, SM stores, the run's threshold and
 * cudaMemcpyPeerAsync, every shape checked first (put_signal's data before
 * its signal too); eager and with each sample a CUDA graph. */
static void pd_stream_put(const char *mode)
{
    char args[256], csv[64];
    snprintf(csv, sizeof csv, "/tmp/gshmem_perf_dev_sp_%d.csv", (int)getpid());
    snprintf(args, sizeof args, "-b 4K -e 64K -n 20 -w 1 -r 2 %s -o %s", mode, csv);
    test_run_t r = pd_run("gshmem-perf-dev-stream-put", args);
    pd_expect_bw(&r, "sm(GB/s)", csv);
    test_run_free(&r);
}

Test(perf_device, stream_put) { pd_stream_put(""); }
Test(perf_device, stream_put_graph) { pd_stream_put("-g"); }

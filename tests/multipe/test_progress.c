/* test_progress.c: the apps' progress (apps/common/app_progress.h) and the
 * main job's CSV and plot. gshmem-dlrm on 4 CPU PEs: not a terminal, plain
 * lines per case on stderr and the table alone on stdout; --quiet, none; on
 * a pseudo-terminal (util-linux script), the status line redrawn, the test
 * stamping the arrival of every chunk of output with its own clock: no gap
 * above 2 s while a case of several seconds runs; --csv holds the table's
 * rows; scripts/run-main.sh --cpu --plot writes the table, the CSV and a
 * PNG: its signature and IHDR read here, its pixel rows decompressed (by
 * python3's zlib) and searched for the bars' and the baseline's colours. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests_common.h"

#define PROG_TIMEOUT 50
/* a format: %%B becomes test_run's %B */
#define DLRM "%%B/tools/gshmemrun/gshmemrun -n 4 --timeout 50 %%B/apps/dlrm/gshmem-dlrm " \
             "--config tiny --device cpu "

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Runs gshmem-dlrm with args, stderr into a file; *err_p: its text. */
static test_run_t run_split(const char *args, char **err_p)
{
    char err[] = "/tmp/gshmem-progress-XXXXXX";
    int fd = mkstemp(err);
    cr_assert(fd >= 0, "mkstemp");
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, DLRM "%s 2>%s", args, err);
    test_run_t r = test_run(test_tp_env("shm"), cmd, PROG_TIMEOUT + 10);
    *err_p = slurp(err);
    unlink(err);
    cr_assert(*err_p != NULL, "no stderr file");
    return r;
}

Test(progress, plain_lines_when_not_a_terminal, .timeout = 90)
{
    char *err;
    test_run_t r = run_split("--check --batch 96,192", &err);
    cr_assert_eq(r.status, 0, "status %d:\n%s\nstderr:\n%s", r.status, test_tail(&r), err);
    /* stdout: the table, unchanged, and no progress */
    cr_expect(strstr(r.output, "baseline(us)") != NULL, "%s", test_tail(&r));
    cr_expect_eq(test_count_of(r.output, " OK+ref\n"), 2, "%s", test_tail(&r));
    cr_expect(strstr(r.output, "[1/2]") == NULL, "progress on stdout:\n%s", test_tail(&r));
    /* stderr: a plain line per case, no redraw */
    cr_expect(strstr(err, "[1/2] tiny T=8 B=96 D=16 slice=4 ... done in ") != NULL, "%s", err);
    cr_expect(strstr(err, "[2/2] tiny T=8 B=192 D=16 slice=4 ... done in ") != NULL, "%s", err);
    cr_expect(strstr(err, "ETA ") != NULL && strstr(err, "[2/2] finished in ") != NULL, "%s",
              err);
    cr_expect(strchr(err, '\r') == NULL && strchr(err, '\033') == NULL, "redraws:\n%s", err);
    /* one PE reports */
    cr_expect_eq(test_count_of(err, "[1/2] tiny"), 1, "%s", err);
    free(err);
    test_run_free(&r);
}

Test(progress, quiet_prints_none, .timeout = 90)
{
    char *err;
    test_run_t r = run_split("--check --quiet", &err);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_expect_eq(test_count_of(r.output, " OK+ref\n"), 1, "%s", test_tail(&r));
    cr_expect(strstr(err, "[1/") == NULL && strstr(r.output, "[1/") == NULL, "%s", err);
    free(err);
    test_run_free(&r);
}

/* A long case off a terminal: "running" lines while it runs. */
Test(progress, plain_running_lines_on_long_cases, .timeout = 90)
{
    char *err;
    test_run_t r = run_split("--iters 40000 --warmup 0", &err);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_expect(strstr(err, "[1/1] tiny T=8 B=96 D=16 slice=4 ... running, ") != NULL ||
              r.seconds < 3, "no running line in %.1f s:\n%s", r.seconds, err);
    free(err);
    test_run_free(&r);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The 1-minute load average (0 when unknown). */
static double load_avg(void)
{
    double l = 0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &l) != 1)
            l = 0;
        fclose(f);
    }
    return l;
}

/* On a pseudo-terminal: the status line comes back at least every 2 s, from
 * the first progress bytes to the last, measured here as the chunks of
 * output arrive. The case is made long (many iterations) so that the timer
 * thread, not the case's end, has to keep the line moving. */
Test(progress, terminal_updates_every_2s, .timeout = 90)
{
    if (system("command -v script >/dev/null 2>&1") != 0)
        cr_skip_test("no script(1) (util-linux) to give the run a pseudo-terminal");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "GSHMEM_TRANSPORTS=shm timeout -k 5 %d script -qfec '" DLRM
             "--iters 40000 --warmup 0' /dev/null", PROG_TIMEOUT);
    char *full = test_expand_build(cmd);
    double load = load_avg();
    FILE *p = popen(full, "r");
    free(full);
    cr_assert(p != NULL, "popen: %s", strerror(errno));
    size_t cap = 1 << 20, n = 0;
    char *out = calloc(1, cap);
    double first = 0, last = 0, prev = 0, gap = 0, t0 = now_s();
    for (;;) {
        ssize_t k = read(fileno(p), out + n, cap - n - 1);
        if (k <= 0)
            break;
        double t = now_s();
        n += (size_t)k;
        if (first == 0 && strstr(out, "[1/1]") != NULL)
            first = prev = t;
        if (first > 0 && t - prev > gap)
            gap = t - prev;
        if (first > 0)
            prev = last = t;
        if (strstr(out, "finished in ") != NULL && first > 0)
            break;
    }
    out[n] = '\0';
    int st = pclose(p);
    cr_assert(first > 0 && strstr(out, "finished in ") != NULL,
              "no progress after %.1f s (pclose %d):\n%.3000s", now_s() - t0, st, out);
    cr_expect(strstr(out, " OK") != NULL, "no table row:\n%.3000s", out);
    cr_expect(strstr(out, "\r[1/1] tiny T=8 B=96 D=16 slice=4  [") != NULL,
              "no status line:\n%.3000s", out);
    cr_expect(strstr(out, "\r\033[K[1/1] tiny T=8 B=96 D=16 slice=4 ... done in ") != NULL,
              "no done line:\n%.3000s", out);
    /* the case ran long enough for the timer thread to redraw */
    cr_expect(last - first >= 2.0, "the case took %.2f s only", last - first);
    cr_expect(test_count_of(out, "\r[1/1] tiny") >= 4, "too few redraws:\n%.3000s", out);
    /* On a machine loaded far beyond its cores (a CI build beside the
     * test), neither the reporter's thread nor this reader gets the CPU
     * on time: the 2 s bound is then not checked, said, and a coarse one
     * is. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double end_load = load_avg();
    load = end_load > load ? end_load : load;
    if (load > 2.0 * (double)cores) {
        test_note("load %.1f on %ld cores: gap %.2f s checked against 10 s, not 2 s", load,
                  cores, gap);
        cr_expect(gap <= 10.0, "a gap of %.2f s without progress (load %.1f)", gap, load);
    } else {
        cr_expect(gap <= 2.0, "a gap of %.2f s without progress (load %.1f)", gap, load);
    }
    free(out);
}

/* The CSV holds the table's rows: a header and one line per row, the same
 * P, T, B, D, Lmax, slice and speedup as printed. */
Test(progress, csv_has_the_table_rows, .timeout = 90)
{
    char csv[] = "/tmp/gshmem-progress-csv-XXXXXX", *err;
    int fd = mkstemp(csv);
    cr_assert(fd >= 0, "mkstemp");
    close(fd);
    unlink(csv);   /* --csv appends */
    char args[256];
    snprintf(args, sizeof args, "--check --batch 96,192 --slice 4,8 --quiet --csv %s", csv);
    test_run_t r = run_split(args, &err);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    char *text = slurp(csv);
    cr_assert(text != NULL, "no CSV at %s", csv);
    cr_expect(strncmp(text, "set,P,T,B,D,Lmax,", 17) == 0 && strstr(text, ",speedup,"), "%s",
              text);
    cr_expect_eq(test_count_of(text, "\ntiny,4,8,"), 4, "%s", text);
    /* every table row (stdout) has its CSV line: same B and slice, same
     * speedup to the table's 3 decimals */
    int rows = 0;
    for (const char *t = strstr(r.output, "\ntiny "); t != NULL; t = strstr(t + 1, "\ntiny ")) {
        long long T, B;
        int P, D, L, sl;
        double base, fused, conly, sp;
        cr_assert_eq(sscanf(t + 1, "tiny %d %lld %lld %d %d %d %lf %lf %lf %lf", &P, &T, &B, &D,
                            &L, &sl, &base, &fused, &conly, &sp), 10, "row: %.120s", t + 1);
        char key[96];
        snprintf(key, sizeof key, "\ntiny,%d,%lld,%lld,%d,%d,0,1000,%d,", P, T, B, D, L, sl);
        const char *c = strstr(text, key);
        cr_assert(c != NULL, "no CSV line %s:\n%s", key + 1, text);
        const char *f = c + 1;
        for (int k = 0; k < 16 && f != NULL; k++)   /* speedup: the 17th field */
            f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
        cr_assert(f != NULL, "short CSV line: %.200s", c + 1);
        double csp = atof(f);
        cr_expect(csp > sp - 0.0006 && csp < sp + 0.0006, "speedup %.4f in the CSV, %.3f in the "
                  "table (%s)", csp, sp, key + 1);
        rows++;
    }
    cr_expect_eq(rows, 4, "table rows:\n%s", test_tail(&r));
    unlink(csv);
    free(text);
    free(err);
    test_run_free(&r);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* run-main.sh --cpu --plot: the table, the CSV, and a PNG: signature, an
 * IHDR with a size, pixel rows holding the bar colours and the baseline's
 * red. */
Test(progress, run_main_plot_png, .timeout = 120)
{
    char dir[] = "/tmp/gshmem-progress-main-XXXXXX";
    cr_assert(mkdtemp(dir) != NULL, "mkdtemp");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "bash %s/scripts/run-main.sh %%B --cpu --csv %s/main.csv "
             "--plot %s/main.png --batch 96,192", GSHMEM_SOURCE_DIR, dir, dir);
    test_run_t r = test_run(test_tp_env("shm"), cmd, 100);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_expect_eq(test_count_of(r.output, " OK+ref\n"), 2, "%s", test_tail(&r));
    cr_expect(strstr(r.output, "[2/2] finished in") != NULL, "%s", test_tail(&r));
    char path[128];
    snprintf(path, sizeof path, "%s/main.csv", dir);
    char *text = slurp(path);
    cr_expect(text != NULL && test_count_of(text, "\ntiny,4,8,") == 2, "CSV:\n%s",
              text ? text : "(none)");
    free(text);
    snprintf(path, sizeof path, "%s/main.png", dir);
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "no PNG:\n%s", test_tail(&r));
    unsigned char head[33];
    cr_assert_eq(fread(head, 1, sizeof head, f), sizeof head, "PNG too short");
    fclose(f);
    cr_expect(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0, "no PNG signature");
    cr_expect(memcmp(head + 12, "IHDR", 4) == 0, "no IHDR first");
    uint32_t w = be32(head + 16), h = be32(head + 20);
    cr_expect(w > 0 && h > 0 && w < 10000 && h < 10000, "size %ux%u", w, h);
    cr_expect(head[24] == 8 && head[25] == 2, "not 8-bit RGB");
    /* the pixels: decompressed by zlib (python3's, as the writer's reader
     * would); counts of the bar colours (blue faster, orange slower) and
     * the baseline's red in the rows */
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import zlib,struct,sys\n"
             "d=open('%s','rb').read(); i=8; idat=b''\n"
             "while i<len(d):\n"
             " n,k=struct.unpack('>I4s',d[i:i+8])\n"
             " idat+=d[i+8:i+8+n] if k==b'IDAT' else b''; i+=12+n\n"
             "w,h=struct.unpack('>II',d[16:24]); raw=zlib.decompress(idat)\n"
             "assert len(raw)==h*(1+3*w), 'size'\n"
             "rows=[raw[y*(1+3*w)+1:(y+1)*(1+3*w)] for y in range(h)]\n"
             "c=lambda rgb: sum(r.count(bytes(rgb)) for r in rows)\n"
             "print('bars', c((31,119,180))+c((255,127,14)), 'base', c((214,39,40)))\"",
             path);
    test_run_t py = test_run(NULL, cmd, 30);
    cr_expect_eq(py.status, 0, "decode: %s", test_tail(&py));
    int bars = 0, base = 0;
    const char *s = strstr(py.output, "bars ");
    cr_assert(s && sscanf(s, "bars %d base %d", &bars, &base) == 2, "%s", test_tail(&py));
    cr_expect(bars > 100 && base > 50, "bars %d, baseline %d pixels", bars, base);
    test_run_free(&py);
    test_run_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* The other apps: gshmem-sparse-allreduce's benchmark and a perf program
 * (the driver's rows), each with and without --quiet. */
Test(progress, sparse_and_perf_lines, .timeout = 120)
{
    static const struct {
        const char *cmd, *want;
    } runs[] = {
        {"%B/tools/gshmemrun/gshmemrun -n 2 %B/apps/sparse_allreduce/gshmem-sparse-allreduce "
         "--cpu -N 20000 -d 16 --density 0.01 --dist uniform,zipf -n 3 -w 1",
         "[2/2] dim=16 density=0.01 zipf ... done in "},
        {"%B/tools/gshmemrun/gshmemrun -n 2 %B/apps/perf/host/gshmem-perf-put-latency -b 8 -e 64",
         "[4/4] row 4 ... done in "},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        for (int quiet = 0; quiet < 2; quiet++) {
            char cmd[512];
            snprintf(cmd, sizeof cmd, "%s%s", runs[i].cmd, quiet ? " --quiet" : "");
            test_run_t r = test_run(test_tp_env("shm"), cmd, 60);
            cr_expect_eq(r.status, 0, "%s: status %d:\n%s", cmd, r.status, test_tail(&r));
            if (quiet)
                cr_expect(strstr(r.output, "[1/") == NULL, "%s:\n%s", cmd, test_tail(&r));
            else
                cr_expect(strstr(r.output, runs[i].want) != NULL, "%s: no '%s':\n%s", cmd,
                          runs[i].want, test_tail(&r));
            test_run_free(&r);
        }
    }
}

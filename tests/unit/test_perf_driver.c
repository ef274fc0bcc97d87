/* test_perf_driver.c: the benchmark driver of apps/perf/common: size
 * parser, flags, size sweep, statistics, table/CSV and data checks. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_driver.h"

static void quiet_io(void)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
}

Test(perf_driver, parse_size_plain_and_suffixes)
{
    size_t v = 0;
    cr_assert_eq(perf_parse_size("8", &v), 0);
    cr_assert_eq(v, 8);
    cr_assert_eq(perf_parse_size("4K", &v), 0);
    cr_assert_eq(v, 4096);
    cr_assert_eq(perf_parse_size("4k", &v), 0);
    cr_assert_eq(v, 4096);
    cr_assert_eq(perf_parse_size("64M", &v), 0);
    cr_assert_eq(v, (size_t)64 << 20);
    cr_assert_eq(perf_parse_size("2G", &v), 0);
    cr_assert_eq(v, (size_t)2 << 30);
    cr_assert_eq(perf_parse_size("16KB", &v), 0);
    cr_assert_eq(v, 16384);
    cr_assert_eq(perf_parse_size("0", &v), 0);
    cr_assert_eq(v, 0);
}

Test(perf_driver, parse_size_rejects_bad_values_and_keeps_output)
{
    static const char *const bad[] = {"", "K", "-4", "+4", "4X", "4KK", "4 K", "1.5M",
                                      "99999999999999999999", "17179869184G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t v = 12345;
        cr_assert_eq(perf_parse_size(bad[i], &v), -1, "'%s' accepted", bad[i]);
        cr_assert_eq(v, 12345, "'%s' wrote the output", bad[i]);
    }
    size_t v = 1;
    cr_assert_eq(perf_parse_size(NULL, &v), -1);
}

Test(perf_driver, median_odd_even_unsorted)
{
    double odd[] = {5, 1, 4, 2, 3};
    cr_assert_float_eq(perf_median(odd, 5), 3.0, 1e-12);
    double even[] = {10, 2, 8, 4};
    cr_assert_float_eq(perf_median(even, 4), 6.0, 1e-12);
    double one[] = {7.5};
    cr_assert_float_eq(perf_median(one, 1), 7.5, 1e-12);
    /* the samples are not reordered */
    cr_assert_float_eq(odd[0], 5.0, 0);
    cr_assert_float_eq(odd[4], 3.0, 0);
}

Test(perf_driver, stats_percentiles)
{
    double s[100];
    for (int i = 0; i < 100; i++)
        s[i] = 100 - i;   /* 100..1 */
    perf_stats_t st;
    cr_assert_eq(perf_stats_compute(s, 100, &st), 0);
    cr_assert_float_eq(st.min, 1.0, 1e-12);
    cr_assert_float_eq(st.max, 100.0, 1e-12);
    cr_assert_float_eq(st.mean, 50.5, 1e-12);
    cr_assert_float_eq(st.median, 50.5, 1e-12);
    cr_assert_float_eq(st.p99, 99.01, 1e-9);   /* 1 + 0.99 * 99 */
    perf_stats_t keep = {.median = -1};
    cr_assert_eq(perf_stats_compute(s, 0, &keep), -1);
    cr_assert_float_eq(keep.median, -1.0, 0);
}

Test(perf_driver, size_sweep)
{
    perf_opts_t o;
    perf_opts_init(&o, "t", 8, 64 * 1024);
    size_t expect = 8;
    int n = 0;
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s), n++) {
        cr_assert_eq(s, expect);
        expect *= 2;
    }
    cr_assert_eq(n, 14);   /* 8 .. 64K */
    o.factor = 4;
    o.min_size = o.max_size = 1000;
    cr_assert_eq(perf_size_first(&o), 1000);
    cr_assert_eq(perf_size_next(&o, 1000), 0);
    o.max_size = SIZE_MAX;   /* no overflow at the top */
    cr_assert_eq(perf_size_next(&o, SIZE_MAX / 2), 0);
}

Test(perf_driver, flags, .init = cr_redirect_stderr)
{
    perf_opts_t o;
    perf_opts_init(&o, "t", 8, 64 * 1024);
    char *argv[] = {"t", "-b", "1K", "-e", "1M", "-f", "4", "-n", "30", "-w", "3",
                    "-c", "off", "-o", "/tmp/x.csv", NULL};
    cr_assert_eq(perf_opts_parse(&o, 15, argv, NULL), 0);
    cr_assert_eq(o.min_size, 1024);
    cr_assert_eq(o.max_size, 1 << 20);
    cr_assert_eq(o.factor, 4);
    cr_assert_eq(o.iters, 30);
    cr_assert_eq(o.warmup, 3);
    cr_assert_eq(o.check, 0);
    cr_assert_str_eq(o.csv_path, "/tmp/x.csv");

    char *few[] = {"t", "-n", "3", NULL};
    cr_assert_eq(perf_opts_parse(&o, 3, few, NULL), 0);
    cr_assert_eq(o.iters, PERF_MIN_ITERS);
}

Test(perf_driver, bad_flags, .init = cr_redirect_stderr)
{
    perf_opts_t o;
    perf_opts_init(&o, "t", 8, 64);
    char *a1[] = {"t", "-b", "4X", NULL};
    cr_assert_eq(perf_opts_parse(&o, 3, a1, NULL), -1);
    char *a2[] = {"t", "-f", "1", NULL};
    cr_assert_eq(perf_opts_parse(&o, 3, a2, NULL), -1);
    char *a3[] = {"t", "-b", "1M", "-e", "1K", NULL};
    cr_assert_eq(perf_opts_parse(&o, 5, a3, NULL), -1);
    char *a4[] = {"t", "-q", NULL};
    cr_assert_eq(perf_opts_parse(&o, 2, a4, NULL), -1);
    char *a5[] = {"t", "-c", "maybe", NULL};
    cr_assert_eq(perf_opts_parse(&o, 3, a5, NULL), -1);
    char *a6[] = {"t", "-n", NULL};
    cr_assert_eq(perf_opts_parse(&o, 2, a6, NULL), -1);
}

static int extra_fn(int opt, const char *arg, void *ctx)
{
    int *w = ctx;
    if (opt == 'W')
        *w = atoi(arg);
    else if (opt == 'd')
        w[1] = 1;
    return 0;
}

Test(perf_driver, extra_flags_and_help, .init = cr_redirect_stdout)
{
    int w[2] = {0, 0};
    perf_extra_opts_t extra = {.optstring = "W:d", .help = "  -W N  window\n",
                               .fn = extra_fn, .ctx = w};
    perf_opts_t o;
    perf_opts_init(&o, "t", 8, 64);
    char *argv[] = {"t", "-W", "16", "-d", "-b", "16", NULL};
    cr_assert_eq(perf_opts_parse(&o, 6, argv, &extra), 0);
    cr_assert_eq(w[0], 16);
    cr_assert_eq(w[1], 1);
    cr_assert_eq(o.min_size, 16);
    char *help[] = {"t", "-h", NULL};
    cr_assert_eq(perf_opts_parse(&o, 2, help, &extra), 1);
}

Test(perf_driver, format_size_and_bw)
{
    char b[32];
    cr_assert_str_eq(perf_format_size(4096, b, sizeof b), "4K");
    cr_assert_str_eq(perf_format_size((size_t)64 << 20, b, sizeof b), "64M");
    cr_assert_str_eq(perf_format_size((size_t)1 << 30, b, sizeof b), "1G");
    cr_assert_str_eq(perf_format_size(1000, b, sizeof b), "1000");
    cr_assert_float_eq(perf_bw_gbps(1e9, 1e6), 1.0, 1e-12);   /* 1 GB in 1 s */
    cr_assert_float_eq(perf_bw_gbps(4096, 1.0), 4.096, 1e-12);
}

Test(perf_driver, random_fill_and_check, .init = cr_redirect_stderr)
{
    enum { N = 1001 };
    unsigned char a[N], b[N];
    perf_fill_random(a, N, perf_seed(1, N, 0));
    perf_fill_random(b, N, perf_seed(1, N, 0));
    cr_assert_eq(memcmp(a, b, N), 0, "same seed, different bytes");
    perf_fill_random(b, N, perf_seed(1, N, 1));
    cr_assert_neq(memcmp(a, b, N), 0, "different seeds, same bytes");
    cr_assert_eq(perf_check_random("t", "ctx", a, N, perf_seed(1, N, 0)), 0);
    a[777] ^= 0x10;
    cr_assert_eq(perf_first_diff(a, b, N) <= 777, 1);
    cr_assert_eq(perf_check_random("t", "ctx", a, N, perf_seed(1, N, 0)), -1);
    perf_poison(b, N);
    cr_assert_eq(b[0], 0xa5);
    cr_assert_eq(b[N - 1], 0xa5);
    perf_fill_random(a, N, perf_seed(1, N, 0));
    memcpy(b, a, N);
    b[500] ^= 1;
    cr_assert_eq(perf_first_diff(b, a, N), 500);
    cr_assert_eq(perf_first_diff(a, a, N), N);
}

/* The CSV file's text into buf (NUL-terminated, not empty), then removes it. */
static void slurp_and_unlink(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    cr_assert(f != NULL, "%s: cannot open", path);
    size_t got = fread(buf, 1, cap - 1, f);
    buf[got] = '\0';
    fclose(f);
    unlink(path);
    cr_assert(got > 0, "%s: empty", path);
}

Test(perf_driver, table_and_csv, .init = quiet_io)
{
    char path[] = "/tmp/gshmem_perf_csv_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    static const char *const names[] = {"size(B)", "median(us)"};
    static const int dec[] = {0, 2};
    perf_table_t t;
    cr_assert_eq(perf_table_open(&t, 2, names, dec, path), 0);
    perf_table_header(&t);
    double row[] = {4096, 1.23456};
    perf_table_row(&t, row);
    perf_table_close(&t);
    fflush(stdout);
    cr_assert_stdout_eq_str("#    size(B)  median(us)\n"
                            "        4096        1.23\n");
    char buf[256];
    slurp_and_unlink(path, buf, sizeof buf);
    cr_assert_str_eq(buf, "size(B),median(us)\n4096,1.2346\n");
    perf_table_t t2;
    cr_assert_eq(perf_table_open(&t2, 2, names, dec, "/nonexistent/dir/x.csv"), -1);
}

Test(perf_driver, table_named_row, .init = quiet_io)
{
    char path[] = "/tmp/gshmem_perf_csv_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    static const char *const names[] = {"op", "reps", "median(us)"};
    static const int dec[] = {0, 0, 2};
    perf_table_t t;
    cr_assert_eq(perf_table_open(&t, 3, names, dec, path), 0);
    perf_table_header(&t);
    double row[] = {200, 1.23456};
    perf_table_row_named(&t, "fetch_add", row);
    perf_table_close(&t);
    fflush(stdout);
    cr_assert_stdout_eq_str("#         op        reps  median(us)\n"
                            "   fetch_add         200        1.23\n");
    char buf[256];
    slurp_and_unlink(path, buf, sizeof buf);
    cr_assert_str_eq(buf, "op,reps,median(us)\nfetch_add,200,1.2346\n");
}

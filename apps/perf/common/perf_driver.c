/* perf_driver.c: flags, size sweep, clock, statistics, table/CSV output
 * and data checks shared by every gshmem benchmark. */
#define _GNU_SOURCE
#include "perf_driver.h"

#include "app_progress.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- flags ------------------------------------------------------------- */

/* From the options perf_opts_parse filled last, for the tables' progress:
 * on (no --quiet; -1: nothing parsed, no progress) and the sizes of the
 * sweep. */
static int progress_on = -1, progress_sizes;

static int sweep_count(const perf_opts_t *o);

void perf_opts_init(perf_opts_t *opts, const char *name, size_t min_size,
                    size_t max_size)
{
    memset(opts, 0, sizeof *opts);
    opts->name = name;
    opts->min_size = min_size;
    opts->max_size = max_size;
    opts->factor = 2;
    opts->iters = 100;
    opts->warmup = 10;
    opts->check = 1;
    opts->csv_path = NULL;
}

int perf_parse_size(const char *s, size_t *size_p)
{
    if (s == NULL || !isdigit((unsigned char)*s))   /* strtoull would skip blanks and a '-' */
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b')   /* "4KB" */
        end++;
    if (*end != '\0')
        return -1;
    if (shift && v > (SIZE_MAX >> shift))
        return -1;
    *size_p = (size_t)(v << shift);
    return 0;
}

/* Digits with an optional sign, nothing else (strtol alone takes leading
 * blanks). */
int perf_parse_int(const char *s, long min, long max, long *v_p)
{
    const char *d = s + (*s == '+' || *s == '-');
    if (!isdigit((unsigned char)*d))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *v_p = v;
    return 0;
}

static int parse_int(const char *s, int min, int *v_p)
{
    long v;
    if (perf_parse_int(s, min, 1000000000L, &v) != 0)
        return -1;
    *v_p = (int)v;
    return 0;
}

static int parse_bool(const char *s, int *v_p)
{
    static const char *const yes[] = {"1", "on", "yes", "true"};
    static const char *const no[] = {"0", "off", "no", "false"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *v_p = 1;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *v_p = 0;
            return 0;
        }
    }
    return -1;
}

void perf_opts_usage(const perf_opts_t *o, const perf_extra_opts_t *extra, FILE *f)
{
    char b[32], e[32];
    fprintf(f,
            "usage: %s [flags]\n"
            "  -b SIZE  smallest message size, K/M/G suffixes (default %s)\n"
            "  -e SIZE  largest message size (default %s)\n"
            "  -f N     factor between sizes, >= 2 (default %zu)\n"
            "  -n N     timed iterations per size, at least %d (default %d)\n"
            "  -w N     warm-up iterations per size (default %d)\n"
            "  -c 0|1   check the data of every size before timing it (default %s)\n"
            "  -o FILE  also write the results as CSV to FILE\n"
            "  --quiet  no progress on stderr\n"
            "  -h       this help\n",
            o->name, perf_format_size(o->min_size, b, sizeof b),
            perf_format_size(o->max_size, e, sizeof e), o->factor, PERF_MIN_ITERS,
            o->iters, o->warmup, o->check ? "on" : "off");
    if (extra && extra->help)
        fputs(extra->help, f);
}

/* One of the common flags; returns 0, or -1 with a message. */
static int opts_apply(perf_opts_t *o, int c, const char *arg)
{
    size_t sz;
    int v;
    switch (c) {
    case 'b':
    case 'e':
        if (perf_parse_size(arg, &sz) != 0 || sz == 0) {
            fprintf(stderr, "%s: -%c '%s': expected a size > 0 such as 8, 4K, 64M\n",
                    o->name, c, arg);
            return -1;
        }
        *(c == 'b' ? &o->min_size : &o->max_size) = sz;
        return 0;
    case 'f':
        if (parse_int(arg, 2, &v) != 0) {
            fprintf(stderr, "%s: -f '%s': expected an integer factor >= 2\n", o->name, arg);
            return -1;
        }
        o->factor = (size_t)v;
        return 0;
    case 'n':
    case 'w':
        if (parse_int(arg, c == 'n' ? 1 : 0, &v) != 0) {
            fprintf(stderr, "%s: -%c '%s': expected an integer >= %d\n", o->name, c, arg,
                    c == 'n' ? 1 : 0);
            return -1;
        }
        *(c == 'n' ? &o->iters : &o->warmup) = v;
        return 0;
    case 'c':
        if (parse_bool(arg, &o->check) != 0) {
            fprintf(stderr, "%s: -c '%s': expected 0/1/on/off/yes/no\n", o->name, arg);
            return -1;
        }
        return 0;
    case 'o':
        if (arg[0] == '\0') {
            fprintf(stderr, "%s: -o '': expected a file name\n", o->name);
            return -1;
        }
        o->csv_path = arg;
        return 0;
    default:
        return -1;
    }
}

static int parse_flags(perf_opts_t *o, int argc, char **argv, const char *optstring,
                       const perf_extra_opts_t *extra);

int perf_opts_parse(perf_opts_t *o, int argc, char **argv, const perf_extra_opts_t *extra)
{
    /* "+": no reordering, so that the word of a bad flag is known (below);
     * a stray argument ends the flags and is refused by name */
    char optstring[128] = "+:b:e:f:n:w:c:o:h";
    if (extra && extra->optstring)
        strncat(optstring, extra->optstring, sizeof optstring - strlen(optstring) - 1);
    /* --quiet (a word, no letter: a program's own flags may use any):
     * dropped from a copy of argv that getopt reads */
    char **av = malloc(sizeof *av * (size_t)(argc + 1));
    if (av == NULL)
        return -1;
    int ac = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && strcmp(argv[i], "--quiet") == 0)
            o->quiet = 1;
        else
            av[ac++] = argv[i];
    }
    av[ac] = NULL;
    int rc = parse_flags(o, ac, av, optstring, extra);
    free(av);
    if (rc == 0) {
        progress_on = !o->quiet;
        progress_sizes = sweep_count(o);
    }
    return rc;
}

/* perf_opts_parse's getopt loop and the checks after it. */
static int parse_flags(perf_opts_t *o, int argc, char **argv, const char *optstring,
                       const perf_extra_opts_t *extra)
{
    optind = 0;   /* glibc: full reset, so parse may be called again */
    int c;
    /* at: optind before the call; getopt moves past a word once its last
     * flag is read, so a bad flag's word is argv[optind - 1] when optind
     * moved, else argv[optind] ("--csv" is flag '-' of the word "--csv") */
    for (int at = 1; (c = getopt(argc, argv, optstring)) != -1; at = optind) {
        if (c == 'h') {
            perf_opts_usage(o, extra, stdout);
            return 1;
        }
        if (c == '?' || c == ':') {
            fprintf(stderr, "%s: %s -%c (in '%s')\n", o->name,
                    c == '?' ? "unknown flag" : "missing value of", optopt,
                    argv[optind > at ? optind - 1 : optind]);
            perf_opts_usage(o, extra, stderr);
            return -1;
        }
        int rc = strchr("befnwco", c) ? opts_apply(o, c, optarg)
                 : (extra && extra->fn) ? extra->fn(c, optarg, extra->ctx) : -1;
        if (rc != 0)
            return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", o->name, argv[optind]);
        return -1;
    }
    if (o->min_size > o->max_size) {
        fprintf(stderr, "%s: -b %zu is larger than -e %zu\n", o->name, o->min_size,
                o->max_size);
        return -1;
    }
    if (o->iters < PERF_MIN_ITERS) {
        fprintf(stderr, "%s: note: -n %d raised to %d (the median needs at least %d samples)\n",
                o->name, o->iters, PERF_MIN_ITERS, PERF_MIN_ITERS);
        o->iters = PERF_MIN_ITERS;
    }
    return 0;
}

const char *perf_format_size(size_t size, char *buf, size_t len)
{
    static const char units[] = {'G', 'M', 'K'};
    for (int i = 0; i < 3; i++) {
        size_t unit = (size_t)1 << (30 - 10 * i);
        if (size >= unit && size % unit == 0) {
            snprintf(buf, len, "%zu%c", size / unit, units[i]);
            return buf;
        }
    }
    snprintf(buf, len, "%zu", size);
    return buf;
}

/* ---- size sweep and clock ------------------------------------------------ */

size_t perf_size_first(const perf_opts_t *o)
{
    return o->min_size <= o->max_size ? o->min_size : 0;
}

size_t perf_size_next(const perf_opts_t *o, size_t size)
{
    if (o->factor < 2 || size > o->max_size / o->factor)
        return 0;
    return size * o->factor;
}

double perf_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* ---- statistics ------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double perf_percentile(const double *sorted, int n, double p)
{
    if (n <= 0)
        return 0.0;
    if (p <= 0)
        return sorted[0];
    if (p >= 100)
        return sorted[n - 1];
    double pos = p / 100.0 * (n - 1);
    int lo = (int)pos;
    double frac = pos - lo;
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int perf_stats_compute(const double *samples, int n, perf_stats_t *stats_p)
{
    if (n <= 0)
        return -1;
    double *s = malloc(sizeof *s * (size_t)n);
    if (s == NULL)
        return -1;
    memcpy(s, samples, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    perf_stats_t st = {
        .min = s[0],
        .max = s[n - 1],
        .mean = sum / n,
        .median = perf_percentile(s, n, 50.0),
        .p99 = perf_percentile(s, n, 99.0),
    };
    free(s);
    *stats_p = st;
    return 0;
}

double perf_median(const double *samples, int n)
{
    perf_stats_t st;
    return perf_stats_compute(samples, n, &st) == 0 ? st.median : 0.0;
}

double perf_bw_gbps(double bytes, double us)
{
    return us > 0 ? bytes / (us * 1e3) : 0.0;
}

/* ---- table and CSV ----------------------------------------------------------- */

/* The sizes of o's sweep. */
static int sweep_count(const perf_opts_t *o)
{
    int n = 0;
    for (size_t s = perf_size_first(o); s; s = perf_size_next(o, s))
        n++;
    return n;
}

/* Row k (from 0) begins: its case in the progress. */
static void progress_row(perf_table_t *t, int k)
{
    char name[32];
    snprintf(name, sizeof name, "row %d", k + 1);
    app_progress_case(t->progress, name);
}

int perf_table_open(perf_table_t *t, int ncols, const char *const *names,
                    const int *decimals, const char *csv_path)
{
    memset(t, 0, sizeof *t);
    if (ncols <= 0 || ncols > PERF_MAX_COLS)
        return -1;
    t->ncols = ncols;
    t->out = stdout;
    for (int k = 0; k < ncols; k++) {
        int len = (int)strlen(names[k]);
        t->names[k] = names[k];
        t->decimals[k] = decimals[k];
        t->widths[k] = len + 2 > 12 ? len + 2 : 12;
    }
    if (csv_path) {
        t->csv = fopen(csv_path, "w");
        if (t->csv == NULL) {
            fprintf(stderr, "perf: cannot open CSV file '%s': %s\n", csv_path,
                    strerror(errno));
            return -1;
        }
    }
    if (progress_on > 0) {
        t->progress = app_progress_start(progress_sizes, 1);
        progress_row(t, 0);
    }
    return 0;
}

void perf_table_header(perf_table_t *t)
{
    /* The first column starts with '#', like nccl-tests: easy to grep out. */
    fprintf(t->out, "#%*s", t->widths[0] - 1, t->names[0]);
    for (int k = 1; k < t->ncols; k++)
        fprintf(t->out, "%*s", t->widths[k], t->names[k]);
    fputc('\n', t->out);
    fflush(t->out);
    if (t->csv) {
        for (int k = 0; k < t->ncols; k++)
            fprintf(t->csv, "%s%s", k ? "," : "", t->names[k]);
        fputc('\n', t->csv);
        fflush(t->csv);
    }
}

/* Column k >= first from values[k - first]; column 0 is name when first is 1. */
static void table_row(perf_table_t *t, const char *name, const double *values, int first)
{
    if (t->progress && first && t->rows == 0)
        app_progress_set_total(t->progress, 0);   /* named rows: not one per size */
    app_progress_done(t->progress);
    if (first)
        fprintf(t->out, "%*s", t->widths[0], name);
    for (int k = first; k < t->ncols; k++)
        fprintf(t->out, "%*.*f", t->widths[k], t->decimals[k], values[k - first]);
    fputc('\n', t->out);
    fflush(t->out);
    if (t->csv) {
        if (first)
            fputs(name, t->csv);
        for (int k = first; k < t->ncols; k++)
            fprintf(t->csv, "%s%.*f", k ? "," : "",
                    t->decimals[k] ? t->decimals[k] + 2 : 0, values[k - first]);
        fputc('\n', t->csv);
        fflush(t->csv);
    }
    t->rows++;
    if (t->progress && (first || t->rows < progress_sizes))
        progress_row(t, t->rows);
}

void perf_table_row(perf_table_t *t, const double *values)
{
    table_row(t, NULL, values, 0);
}

void perf_table_row_named(perf_table_t *t, const char *name, const double *values)
{
    table_row(t, name, values, 1);
}

void perf_table_close(perf_table_t *t)
{
    app_progress_end(t->progress);   /* a row begun and never written is not counted */
    t->progress = NULL;
    if (t->csv)
        fclose(t->csv);
    t->csv = NULL;
}

/* ---- data checks ---------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t perf_seed(uint64_t run, uint64_t size, uint64_t who)
{
    uint64_t x = run * 0x100000001b3ull ^ size * 0x9e3779b97f4a7c15ull ^ (who + 1);
    return splitmix64(&x);
}

void perf_fill_random(void *buf, size_t len, uint64_t seed)
{
    unsigned char *p = buf;
    uint64_t x = seed;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t v = splitmix64(&x);
        memcpy(p + i, &v, 8);
    }
    if (i < len) {
        uint64_t v = splitmix64(&x);
        memcpy(p + i, &v, len - i);
    }
}

void perf_poison(void *buf, size_t len)
{
    memset(buf, 0xa5, len);
}

size_t perf_first_diff(const void *got, const void *expect, size_t len)
{
    const unsigned char *g = got, *e = expect;
    if (memcmp(g, e, len) == 0)
        return len;
    size_t i = 0;
    while (i < len && g[i] == e[i])
        i++;
    return i;
}

int perf_check_random(const char *name, const char *context, const void *got,
                      size_t len, uint64_t seed)
{
    unsigned char *expect = malloc(len ? len : 1);
    if (expect == NULL) {
        fprintf(stderr, "%s: check: out of memory for %zu bytes\n", name, len);
        return -1;
    }
    perf_fill_random(expect, len, seed);
    size_t bad = perf_first_diff(got, expect, len);
    int rc = 0;
    if (bad < len) {
        fprintf(stderr,
                "%s: check FAILED at size %zu (%s): first wrong index %zu "
                "(got 0x%02x, expected 0x%02x)\n",
                name, len, context ? context : "", bad,
                ((const unsigned char *)got)[bad], expect[bad]);
        rc = -1;
    }
    free(expect);
    return rc;
}

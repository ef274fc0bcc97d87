/* test_heap_auto: GSHMEM_HEAP=auto as users meet it, in runs with no
 * GSHMEM_* variable but those a test names (test_run_bare). The rule case
 * by case: tests/unit/test_heap_kind.c.
 *  - readme_*: the README's first device example (tests/gpu/pe_readme.cu,
 *    the README's text checked to be that file) at 1, 2 and 4 PEs with no
 *    GSHMEM_* variable: auto must give the CUDA heap its kernel needs (GPU
 *    machines; skipped with the reason elsewhere), and GSHMEM_INFO=1 names
 *    the heap and why;
 *  - info_*: GSHMEM_INFO's heap line where no GPU is visible (everywhere)
 *    and for an explicit setting;
 *  - host programs (gshmem-demo, the host benchmarks) run with no GSHMEM_*
 *    variable: they ask for their host heap themselves;
 *  - harness_environments: what test_run and test_run_bare hand on. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests_common.h"

#define HA_TIMEOUT_S 90

/* gshmemrun -n n <build>/<prog> args with no GSHMEM_* but env's. */
static test_run_t ha_run(const char *env, int n, const char *prog, const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %%B/%s %s", n,
             HA_TIMEOUT_S - 10, prog, args ? args : "");
    return test_run_bare(env, cmd, HA_TIMEOUT_S);
}

/* The contents of <source>/rel (malloc'd), or fail. */
static char *ha_read_source(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GSHMEM_SOURCE_DIR, rel);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n, "cannot read %s", path);
    fclose(f);
    return buf;
}

/* The README's first ```cuda block is tests/gpu/pe_readme.cu, byte for
 * byte: what the GPU tests below run is what the README shows. */
Test(heap_auto, readme_example_is_the_tested_program)
{
    char *readme = ha_read_source("README.md");
    char *prog = ha_read_source("tests/gpu/pe_readme.cu");
    const char *open = strstr(readme, "\n```cuda\n");
    cr_assert_not_null(open, "README.md has no ```cuda block");
    open += strlen("\n```cuda\n");
    const char *close = strstr(open, "\n```\n");
    cr_assert_not_null(close, "README.md: the ```cuda block does not end");
    size_t n = (size_t)(close - open) + 1;   /* with its last newline */
    cr_expect(n == strlen(prog) && strncmp(open, prog, n) == 0,
              "README.md's first ```cuda block differs from tests/gpu/pe_readme.cu: "
              "change both");
    free(readme);
    free(prog);
}

/* Every PE of pe_readme at n PEs prints what the previous PE sent it. */
static void ha_readme_expect(const test_run_t *r, int n, const char *how)
{
    cr_expect_eq(r->status, 0, "pe_readme at %d PE(s) %s: status %d after %.1f s:\n%s", n, how,
                 r->status, r->seconds, test_tail(r));
    for (int pe = 0; pe < n; pe++) {
        char want[64];
        snprintf(want, sizeof want, "PE %d of %d got %d\n", pe, n, (pe + n - 1) % n);
        cr_expect_not_null(strstr(r->output, want), "pe_readme at %d PE(s) %s: no \"%.*s\":\n%s",
                           n, how, want, (int)strlen(want) - 1, test_tail(r));
    }
}

static void ha_readme(int n)
{
    test_require_built("tests/pe/pe_readme");
    test_require_gpu("pe_dev_rma", "probe");
    test_run_t r = ha_run(NULL, n, "tests/pe/pe_readme", NULL);
    ha_readme_expect(&r, n, "with no GSHMEM_* variable");
    test_run_free(&r);
}

Test(heap_auto, readme_example_n2, .timeout = 120) { ha_readme(2); }
Test(heap_auto, readme_example_n4, .timeout = 120) { ha_readme(4); }

/* One PE, no launcher: the self bootstrap, as "./shift" in a shell. */
Test(heap_auto, readme_example_alone, .timeout = 120)
{
    test_require_built("tests/pe/pe_readme");
    test_require_gpu("pe_dev_rma", "probe");
    test_run_t r = test_run_bare(NULL, "%B/tests/pe/pe_readme", HA_TIMEOUT_S);
    ha_readme_expect(&r, 1, "without gshmemrun");
    test_run_free(&r);
}

/* GSHMEM_INFO=1 alone: each PE names its CUDA heap, its GPU and why. */
Test(heap_auto, info_names_cuda, .timeout = 120)
{
    test_require_built("tests/pe/pe_readme");
    test_require_gpu("pe_dev_rma", "probe");
    test_run_t r = ha_run("GSHMEM_INFO=1", 2, "tests/pe/pe_readme", NULL);
    ha_readme_expect(&r, 2, "with GSHMEM_INFO=1");
    cr_expect_eq(test_count_of(r.output, "gshmem INFO [HEAP] heap: cuda on GPU "), 2,
                 "not one cuda heap line per PE:\n%s", test_tail(&r));
    cr_expect_eq(test_count_of(r.output, "(auto: built with CUDA and "), 2,
                 "no auto reason per PE:\n%s", test_tail(&r));
    cr_expect_eq(test_count_of(r.output, " visible -> cuda)"), 2,
                 "no auto reason per PE:\n%s", test_tail(&r));
    test_run_free(&r);
}

/* pe_api_rma at 2 PEs under env: each PE prints a host heap line with
 * why in it. */
static void ha_info_host(const char *env, const char *why)
{
    test_run_t r = ha_run(env, 2, "tests/pe/pe_api_rma", NULL);
    cr_expect_eq(r.status, 0, "pe_api_rma with %s: status %d:\n%s", env, r.status,
                 test_tail(&r));
    cr_expect_eq(test_count_of(r.output, "gshmem INFO [HEAP] heap: host, "), 2,
                 "not one host heap line per PE with %s:\n%s", env, test_tail(&r));
    cr_expect_eq(test_count_of(r.output, why), 2, "no \"%s\" per PE with %s:\n%s", why, env,
                 test_tail(&r));
    test_run_free(&r);
}

/* No GPU visible (CUDA_VISIBLE_DEVICES empty; none at all on CPU
 * machines): a host heap, and GSHMEM_INFO says why. */
Test(heap_auto, info_host_without_gpu, .timeout = 120)
{
#ifdef GSHMEM_HAVE_CUDA
    ha_info_host("GSHMEM_INFO=1 CUDA_VISIBLE_DEVICES=", "(auto: no GPU visible");
#else
    ha_info_host("GSHMEM_INFO=1 CUDA_VISIBLE_DEVICES=", "(auto: built without CUDA -> host)");
#endif
}

Test(heap_auto, info_explicit_setting, .timeout = 120)
{
    ha_info_host("GSHMEM_INFO=1 GSHMEM_HEAP=host", " bytes (GSHMEM_HEAP=host)");
}

/* The harness itself: test_run gives the suite's host programs a host
 * heap unless the test names one; test_run_bare passes no GSHMEM_*
 * variable of the caller's on. */
Test(heap_auto, harness_environments)
{
    cr_assert_eq(setenv("GSHMEM_TIMEOUT", "55", 1), 0);
    test_run_t r = test_run(NULL, "printenv GSHMEM_HEAP GSHMEM_TIMEOUT", 10);
    cr_expect_str_eq(r.output, "host\n55\n", "test_run: GSHMEM_HEAP=host, the caller's "
                     "GSHMEM_TIMEOUT=55 expected");
    test_run_free(&r);
    r = test_run("GSHMEM_HEAP=cuda", "printenv GSHMEM_HEAP", 10);
    cr_expect_str_eq(r.output, "cuda\n", "test_run with GSHMEM_HEAP=cuda");
    test_run_free(&r);
    r = test_run_bare("GSHMEM_INFO=1", "env", 10);
    cr_expect(strstr(r.output, "GSHMEM_INFO=1\n") && test_count_of(r.output, "GSHMEM_") == 1,
              "test_run_bare: a GSHMEM_* variable but GSHMEM_INFO=1:\n%s", test_tail(&r));
    test_run_free(&r);
}

/* Host programs dereference heap memory: with no GSHMEM_* variable they
 * must still get a host heap, GPU or not. */
Test(heap_auto, demo_without_settings, .timeout = 120)
{
    test_run_t r = ha_run(NULL, 2, "apps/demo/gshmem-demo", NULL);
    cr_expect(r.status == 0 && strstr(r.output, "gshmem-demo: all OK"),
              "gshmem-demo with no GSHMEM_* variable: status %d:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}

Test(heap_auto, host_benchmark_without_settings, .timeout = 120)
{
    test_run_t r = ha_run(NULL, 2, "apps/perf/host/gshmem-perf-put-latency",
                          "-b 8 -e 64 -n 5 -w 1");
    cr_expect_eq(r.status, 0, "gshmem-perf-put-latency with no GSHMEM_* variable: status "
                 "%d:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}

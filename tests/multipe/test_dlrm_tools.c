/* test_dlrm_tools.c: the Python tools of apps/dlrm (tools/dlrm_trace.py and
 * tools/gen_vectors.py). Runs their unittest suites, and compares every
 * value gen_vectors.py prints with the app's own C generator
 * (apps/dlrm/dlrm_gen.h), so the Python generator (which torch_baseline.py
 * asserts it reproduces) and gshmem-dlrm's agree bit for bit.
 * Skips, saying so, when python3 is not installed. */
#define _GNU_SOURCE   /* strtok_r */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/dlrm/dlrm_gen.h"
#include "tests_common.h"

#define TOOLS_DIR GSHMEM_SOURCE_DIR "/apps/dlrm/tools"
#define PY_ENV "PYTHONDONTWRITEBYTECODE=1"

static void require_python3(void)
{
    test_run_t r = test_run(NULL, "sh -c 'command -v python3'", 20);
    int ok = r.status == 0;
    test_run_free(&r);
    if (!ok)
        cr_skip_test("python3 not found on PATH: the apps/dlrm Python tools cannot run");
}

/* ---- the app's generator (apps/dlrm/dlrm_gen.h) against gen_vectors.py --- */

static uint32_t gen_seed(uint32_t seed, uint32_t which)
{
    dlrm_seeds_t s = dlrm_seeds(seed);
    return which == 1 ? s.len : which == 2 ? s.idx : s.w;   /* 1: s_len, 2: s_idx, 3: s_w */
}

/* Checks one line of gen_vectors.py output; returns its kind's index
 * (0 seed, 1 lowbias32, 2 mix, 3 L, 4 off, 5 idx, 6 w) or fails. */
static int check_line(const char *ln, uint32_t seed)
{
    uint64_t a, b, c, d, e;
    char hex[64];
    if (sscanf(ln, "seed %" SCNu64 " s_len %" SCNu64 " s_idx %" SCNu64 " s_w %" SCNu64, &a, &b,
               &c, &d) == 4) {
        cr_assert(a == seed && b == gen_seed(seed, 1) && c == gen_seed(seed, 2) &&
                      d == gen_seed(seed, 3),
                  "seeds differ: %s", ln);
        return 0;
    }
    if (sscanf(ln, "lowbias32 %" SCNu64 " %" SCNu64, &a, &b) == 2) {
        cr_assert_eq(dlrm_lowbias32((uint32_t)a), b, "%s: C gives %" PRIu32, ln,
                     dlrm_lowbias32((uint32_t)a));
        return 1;
    }
    if (sscanf(ln, "mix %" SCNu64 " %" SCNu64 " %" SCNu64, &a, &b, &c) == 3) {
        cr_assert_eq(dlrm_mix((uint32_t)a, (uint32_t)b), c, "%s", ln);
        return 2;
    }
    if (sscanf(ln, "L %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &a, &b, &c, &d) == 4) {
        uint64_t want = (uint64_t)dlrm_gen_len(dlrm_seeds(seed), (int64_t)a, (int64_t)b, (int)c, 0);
        cr_assert_eq(want, d, "%s: C gives %" PRIu64, ln, want);
        return 3;
    }
    if (sscanf(ln, "off %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &a, &b, &c, &d) == 4) {
        uint64_t off = 0;   /* exclusive prefix sum of L(t, 0..b-1) */
        for (uint64_t i = 0; i < b; i++)
            off += (uint64_t)dlrm_gen_len(dlrm_seeds(seed), (int64_t)a, (int64_t)i, (int)c, 0);
        cr_assert_eq(off, d, "%s: C gives %" PRIu64, ln, off);
        return 4;
    }
    if (sscanf(ln, "idx %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &a, &b, &c, &d) == 4) {
        uint64_t row = (uint64_t)dlrm_gen_idx(dlrm_seeds(seed), (int64_t)a, (int64_t)b, (int64_t)c);
        cr_assert_eq(row, d, "%s: C gives %" PRIu64, ln, row);
        return 5;
    }
    if (sscanf(ln, "w %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %63s", &a, &b,
               &c, &d, &e, hex) == 6) {
        uint32_t elem = (uint32_t)(b * d + c);   /* r*D + d mod 2^32 */
        uint32_t m = dlrm_mix(dlrm_mix(gen_seed(seed, 3), (uint32_t)a), elem) >> 8;
        float w = dlrm_gen_w(dlrm_seeds(seed), (int64_t)a, (int64_t)b, (int)d, (int)c);
        double printed = strtod(hex, NULL);
        cr_assert_eq(m, e, "%s: C gives M = %" PRIu32, ln, m);
        cr_assert(w == (float)printed && (double)w == printed, "%s: C gives w = %a", ln, (double)w);
        return 6;
    }
    cr_assert_fail("gen_vectors.py: unexpected line \"%s\"", ln);
    return -1;
}

Test(dlrm_tools, gen_vectors_match_c, .timeout = 120)
{
    require_python3();
    test_run_t r = test_run(PY_ENV, "python3 " TOOLS_DIR "/gen_vectors.py --seed 1", 60);
    cr_assert_eq(r.status, 0, "gen_vectors.py: status %d, output:\n%s", r.status, test_tail(&r));
    int counts[7] = {0};
    char *save = NULL;
    for (char *ln = strtok_r(r.output, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save))
        counts[check_line(ln, 1)]++;
    test_run_free(&r);
    cr_assert_eq(counts[0], 1, "one seed line");
    for (int k = 1; k < 7; k++)
        cr_assert_gt(counts[k], 0, "gen_vectors.py printed no line of kind %d", k);
}

Test(dlrm_tools, python_unittests, .timeout = 180)
{
    require_python3();
    test_run_t r = test_run(PY_ENV, "python3 -m unittest discover -s " TOOLS_DIR
                                    " -p 'test_*.py' -v", 150);
    cr_assert_eq(r.status, 0, "python3 -m unittest (apps/dlrm/tools): status %d, output:\n%s",
                 r.status, test_tail(&r));
    cr_expect(strstr(r.output, "\nOK") != NULL, "no OK line:\n%s", test_tail(&r));
    cr_expect(test_count_of(r.output, " ... ok") >= 8, "fewer tests ran than written:\n%s",
              test_tail(&r));
    test_run_free(&r);
}

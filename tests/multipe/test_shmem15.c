/* test_shmem15: the OpenSHMEM 1.5 calls of shmem.h (pe_api_shmem15) at 2
 * and 4 PEs over shm, ofi with the shm provider, ofi with tcp;ofi_rxm on
 * loopback, and ofi's active messages on the host heap (where the bitwise
 * AMOs are compare-and-swap loops); then its misuse modes: each must end
 * the job, before the time limit, with a message naming the call and the
 * offending argument or address. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define S15_TIMEOUT_S 120
static test_run_t s15_run(const char *env, int n, const char *mode)
{
    return test_run_env_pes(env, n, "pe_api_shmem15", mode, S15_TIMEOUT_S);
}

static void s15_ok(const char *env, const char *what)
{
    test_expect_ok_2_4(env, what, "pe_api_shmem15", S15_TIMEOUT_S);
}

Test(shmem15, shm, .timeout = 400) { s15_ok(test_tp_env("shm"), "shm"); }
Test(shmem15, ofi_shm, .timeout = 400) { s15_ok(test_tp_env("ofi-shm"), "ofi-shm"); }
Test(shmem15, ofi_tcp, .timeout = 400) { s15_ok(test_tp_env("ofi-tcp"), "ofi-tcp"); }
Test(shmem15, ofi_am_tcp, .timeout = 400) { s15_ok(TEST_AM_HOST_ENV, "ofi active messages"); }

/* pe_api_shmem15_dep: the deprecated names the specification lists, the
 * sized context forms and put<N>_signal; pe_api_shmem15_start: start_pes
 * (a program of its own: init happens once per process). */
static void s15_dep_ok(const char *env, const char *what)
{
    test_expect_ok_2_4(env, what, "pe_api_shmem15_dep", S15_TIMEOUT_S);
    test_expect_ok_2_4(env, what, "pe_api_shmem15_start", S15_TIMEOUT_S);
}

Test(shmem15_dep, shm, .timeout = 400) { s15_dep_ok(test_tp_env("shm"), "shm"); }
Test(shmem15_dep, ofi_tcp, .timeout = 400) { s15_dep_ok(test_tp_env("ofi-tcp"), "ofi-tcp"); }
Test(shmem15_dep, ofi_am_tcp, .timeout = 400)
{
    s15_dep_ok(TEST_AM_HOST_ENV, "ofi active messages");
}

/* mode must end the job (not by the timeout) with every string of want[]
 * in the output; "@stack" in a string stands for the stack address one PE
 * printed ("stack=<addr>"). */
static void s15_bad(const char *tp, int n, const char *mode, const char *const *want)
{
    test_run_t r = s15_run(test_tp_env(tp), n, mode);
    cr_expect(r.status != 0 && r.status != 124 && r.seconds < S15_TIMEOUT_S,
              "pe_api_shmem15 %s over %s: exit status %d after %.1f s (want non-zero before "
              "the timeout); output:\n%s", mode, tp, r.status, r.seconds, test_tail(&r));
    cr_expect(strstr(r.output, "was not stopped") == NULL, "pe_api_shmem15 %s over %s: a PE "
              "went on:\n%s", mode, tp, test_tail(&r));
    for (; *want; want++) {
        if (strcmp(*want, "@stack") != 0) {
            cr_expect(strstr(r.output, *want) != NULL, "pe_api_shmem15 %s over %s: no '%s' in "
                      "the output:\n%s", mode, tp, *want, test_tail(&r));
            continue;
        }
        int named = 0;   /* some PE's message names its stack address */
        for (const char *at = strstr(r.output, "stack="); at && !named;
             at = strstr(at + 1, "stack=")) {
            char addr[64] = "", line[80];
            if (sscanf(at + 6, "%63s", addr) != 1)
                continue;
            snprintf(line, sizeof line, " %s", addr);
            named = test_count_of(r.output, addr) >= 2 && strstr(r.output, line) != NULL;
        }
        cr_expect(named, "pe_api_shmem15 %s over %s: no message names a printed stack "
                  "address:\n%s", mode, tp, test_tail(&r));
    }
    test_run_free(&r);
}

Test(shmem15_bad, null_arrays, .timeout = 200)
{
    static const char *const tps[] = {"shm", "ofi-tcp"};
    for (int i = 0; i < 2; i++) {
        const char *idx[] = {"gshmem_int64_wait_until_some", "indices is NULL", NULL};
        s15_bad(tps[i], 2, "null_indices", idx);
        const char *iv[] = {"gshmem_int64_test_all", "ivars is NULL with nelems 4", NULL};
        s15_bad(tps[i], 2, "null_ivars", iv);
        const char *fetch[] = {"gshmem_int64_atomic_fetch_add_nbi", "fetch is NULL", NULL};
        s15_bad(tps[i], 4, "null_fetch", fetch);
    }
}

Test(shmem15_bad, outside_heap, .timeout = 300)
{
    static const char *const tps[] = {"shm", "ofi-tcp"};
    for (int i = 0; i < 2; i++) {
        const char *iput[] = {"gshmem_int64_iput", "dest", "@stack", NULL};
        s15_bad(tps[i], 2, "iput_stack", iput);
        const char *iget[] = {"gshmem_int64_iget", "source", "@stack", NULL};
        s15_bad(tps[i], 2, "iget_stack", iget);
        const char *set[] = {"gshmem_int64_wait_until_all", "ivars", "@stack", NULL};
        s15_bad(tps[i], 2, "set_stack", set);
        const char *band[] = {"gshmem_uint64_atomic_fetch_and", "dest", "@stack", NULL};
        s15_bad(tps[i], 4, "amo_and_stack", band);
        const char *swap[] = {"gshmem_double_atomic_swap_nbi", "dest", "@stack", NULL};
        s15_bad(tps[i], 2, "amo_float_stack", swap);
    }
}

/* The generic names: every type of their lists compiles as strict C11
 * (tests/compile/shmem_generic_check.c), a type outside a list does not,
 * and shmem.h compiles as C++ (where the generic names are absent). */
Test(shmem15, generic_names_compile, .timeout = 120)
{
    const char *flags = "-std=c11 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I"
                        GSHMEM_SOURCE_DIR "/include";
    const char *file = GSHMEM_SOURCE_DIR "/tests/compile/shmem_generic_check.c";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s %s", GSHMEM_C_COMPILER, flags, file);
    test_run_t r = test_run(NULL, cmd, 100);
    cr_expect(r.status == 0, "the generic names do not compile (status %d):\n%s", r.status,
              test_tail(&r));
    test_run_free(&r);
    snprintf(cmd, sizeof cmd, "%s %s -DSHMEM_GENERIC_WRONG %s", GSHMEM_C_COMPILER, flags, file);
    r = test_run(NULL, cmd, 100);
    cr_expect(r.status != 0 && strstr(r.output, "_Generic") != NULL,
              "shmem_atomic_and on a double * compiled (status %d):\n%s", r.status,
              test_tail(&r));
    test_run_free(&r);
    r = test_run(NULL, "sh -c 'command -v c++ >/dev/null || exit 77; c++ -std=c++11 -Wall "
                 "-Wextra -pedantic-errors -Werror -fsyntax-only -I" GSHMEM_SOURCE_DIR
                 "/include -x c++ -include shmem.h /dev/null'", 100);
    if (r.status == 77) {
        test_run_free(&r);
        cr_skip_test("no c++ compiler: shmem.h was not compiled as C++");
    }
    cr_expect(r.status == 0, "shmem.h does not compile as C++ (status %d):\n%s", r.status,
              test_tail(&r));
    test_run_free(&r);
}

/* test_shmem15: the OpenSHMEM 1.5 calls of shmem.h (pe_api_shmem15) at 2
 * and 4 PEs over shm, ofi with the shm provider, ofi with tcp;ofi_rxm on
 * loopback, and ofi's active messages on the host heap (where the bitwise
 * AMOs are compare-and-swap loops); the deprecated ones (pe_api_shmem15_dep,
 * pe_api_shmem15_start) and the active-set collectives
 * (pe_api_shmem15_coll_dep); then the misuse modes: each must end the job,
 * before the time limit, with a message naming the call and the offending
 * argument, values or address. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define S15_TIMEOUT_S 120

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

/* pe_api_shmem15_coll_dep: the active-set collectives (barrier counters in
 * pSync: AMOs, to the calling PE too, on every transport). */
static void s15_aset_ok(const char *env, const char *what)
{
    test_expect_ok_2_4(env, what, "pe_api_shmem15_coll_dep", S15_TIMEOUT_S);
}

Test(shmem15_aset, shm, .timeout = 400) { s15_aset_ok(test_tp_env("shm"), "shm"); }
Test(shmem15_aset, ofi_shm, .timeout = 400) { s15_aset_ok(test_tp_env("ofi-shm"), "ofi-shm"); }
Test(shmem15_aset, ofi_tcp, .timeout = 400) { s15_aset_ok(test_tp_env("ofi-tcp"), "ofi-tcp"); }
Test(shmem15_aset, ofi_am_tcp, .timeout = 400)
{
    s15_aset_ok(TEST_AM_HOST_ENV, "ofi active messages");
}

/* prog's mode must end the job (not by the timeout) with every string of
 * want[] in the output; "@stack" in a string stands for the stack address
 * one PE printed ("stack=<addr>"). */
static void s15_bad_prog(const char *prog, const char *tp, int n, const char *mode,
                         const char *const *want)
{
    test_run_t r = test_run_env_pes(test_tp_env(tp), n, prog, mode, S15_TIMEOUT_S);
    cr_expect(r.status != 0 && r.status != 124 && r.seconds < S15_TIMEOUT_S,
              "%s %s over %s: exit status %d after %.1f s (want non-zero before the timeout); "
              "output:\n%s", prog, mode, tp, r.status, r.seconds, test_tail(&r));
    cr_expect(strstr(r.output, "was not stopped") == NULL && strstr(r.output, "went on") == NULL,
              "%s %s over %s: a PE went on:\n%s", prog, mode, tp, test_tail(&r));
    for (; *want; want++) {
        if (strcmp(*want, "@stack") != 0) {
            cr_expect(strstr(r.output, *want) != NULL, "%s %s over %s: no '%s' in the "
                      "output:\n%s", prog, mode, tp, *want, test_tail(&r));
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
        cr_expect(named, "%s %s over %s: no message names a printed stack address:\n%s",
                  prog, mode, tp, test_tail(&r));
    }
    test_run_free(&r);
}

static void s15_bad(const char *tp, int n, const char *mode, const char *const *want)
{
    s15_bad_prog("pe_api_shmem15", tp, n, mode, want);
}

/* The active-set collectives' misuse, at n PEs: the strings its message
 * must hold; all over shm, the first three over ofi-tcp too. */
static const struct {
    const char *mode;
    int n;
    const char *want[4];
} s15_aset_misuse[] = {
    {"nonmember", 4, {"gshmem_collect64", "is not in the active set PE_start 0, logPE_stride 1, "
                      "PE_size 2 (PEs 0 to 2 by 2)", "only its members may call"}},
    {"stack_psync", 2, {"gshmem_alltoall32", "pSync", "@stack"}},
    {"neg_nreduce", 2, {"gshmem_int32_sum_to_all", "nreduce -1 is negative"}},
    {"bad_stride", 2, {"gshmem_barrier_aset", "PE_start 0, logPE_stride -1, PE_size 2 is not an "
                       "active set of the 2 PEs"}},
    {"bad_size", 4, {"gshmem_int64_sum_to_all", "PE_size 5 is not an active set of the 4 PEs"}},
    {"zero_size", 2, {"gshmem_broadcast64", "PE_size 0 is not an active set"}},
    {"bad_last", 4, {"gshmem_fcollect32", "PE_start 1, logPE_stride 1, PE_size 3 is not an "
                     "active set of the 4 PEs", "PE_start + (PE_size - 1) * 2^logPE_stride < 4"}},
    {"bad_root", 2, {"gshmem_broadcast32", "PE_root 2 is not in [0, PE_size 2)"}},
    {"null_psync", 2, {"gshmem_sync_aset", "pSync is NULL"}},
    {"bad_strides", 2, {"gshmem_alltoalls64", "dst 0, sst 1 (strides must be >= 1)"}},
};

Test(shmem15_bad, active_sets, .timeout = 400)
{
    for (size_t k = 0; k < sizeof s15_aset_misuse / sizeof s15_aset_misuse[0]; k++)
        for (int i = 0; i < (k < 3 ? 2 : 1); i++) {
            const char *want[5] = {NULL};
            memcpy(want, s15_aset_misuse[k].want, sizeof s15_aset_misuse[k].want);
            s15_bad_prog("pe_api_shmem15_coll_dep", i == 0 ? "shm" : "ofi-tcp",
                         s15_aset_misuse[k].n, s15_aset_misuse[k].mode, want);
        }
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
 * nor shmem_sync with neither one argument (a team) nor four (an active
 * set), and shmem.h compiles as C++ (where the generic names are absent)
 * with the names C++ gets (tests/compile/shmem_cxx_check.cc). */
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
    snprintf(cmd, sizeof cmd, "%s %s -DSHMEM_GENERIC_WRONG_SYNC %s", GSHMEM_C_COMPILER, flags,
             file);
    r = test_run(NULL, cmd, 100);
    cr_expect(r.status != 0 && strstr(r.output, "shmem_sync_takes_1_or_4_arguments") != NULL,
              "shmem_sync with two arguments compiled (status %d):\n%s", r.status,
              test_tail(&r));
    test_run_free(&r);
    r = test_run(NULL, "sh -c 'command -v c++ >/dev/null || exit 77; c++ -std=c++11 -Wall "
                 "-Wextra -pedantic-errors -Werror -fsyntax-only -I" GSHMEM_SOURCE_DIR
                 "/include " GSHMEM_SOURCE_DIR "/tests/compile/shmem_cxx_check.cc'", 100);
    if (r.status == 77) {
        test_run_free(&r);
        cr_skip_test("no c++ compiler: shmem.h was not compiled as C++");
    }
    cr_expect(r.status == 0, "shmem.h does not compile as C++ with the names of "
              "shmem_cxx_check.cc (status %d):\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}

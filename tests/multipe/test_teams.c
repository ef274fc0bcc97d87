/* test_teams: teams, contexts and collectives on any team (pe_api_teams)
 * at 2 and 4 PEs over shm, ofi with the shm provider, ofi with
 * tcp;ofi_rxm on loopback and ofi's active messages; its misuse modes,
 * each of which must end the job before the time limit with a message
 * naming the call and the values; and
 * the generic names of teams and contexts at compile time (wrong types must
 * not compile). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define TEAMS_TIMEOUT_S 120

static void teams_ok(const char *env, const char *what)
{
    test_expect_ok_2_4(env, what, "pe_api_teams", TEAMS_TIMEOUT_S);
}

Test(teams, shm, .timeout = 400) { teams_ok(test_tp_env("shm"), "shm"); }
Test(teams, ofi_shm, .timeout = 400) { teams_ok(test_tp_env("ofi-shm"), "ofi-shm"); }
Test(teams, ofi_tcp, .timeout = 400) { teams_ok(test_tp_env("ofi-tcp"), "ofi-tcp"); }
/* ofi active messages: the barrier counters' AMOs and the gets of the
 * reductions as messages. */
Test(teams, ofi_am_tcp, .timeout = 400) { teams_ok(TEST_AM_HOST_ENV, "ofi active messages"); }

/* mode must end the job (not by the timeout, not with status 9: the call
 * accepted the misuse) with every string of want[] in the output. */
static void teams_bad(const char *tp, int n, const char *mode, const char *const *want)
{
    test_run_t r = test_run_pes(tp, n, "pe_api_teams", mode, TEAMS_TIMEOUT_S);
    cr_expect(r.status != 0 && r.status != 9 && r.status != 124 && r.seconds < TEAMS_TIMEOUT_S,
              "pe_api_teams %s over %s with %d PEs: exit status %d after %.1f s (want non-zero "
              "before the timeout); output:\n%s", mode, tp, n, r.status, r.seconds,
              test_tail(&r));
    cr_expect(strstr(r.output, "went on") == NULL, "pe_api_teams %s over %s: a PE went on:\n%s",
              mode, tp, test_tail(&r));
    for (; *want; want++)
        cr_expect(strstr(r.output, *want) != NULL, "pe_api_teams %s over %s with %d PEs: no "
                  "'%s' in the output:\n%s", mode, tp, n, *want, test_tail(&r));
    test_run_free(&r);
}

/* Each misuse, at n PEs: the strings its message must hold. */
static const struct {
    const char *mode;
    int n;
    const char *want[4];
} teams_misuse[] = {
    {"bad_team", 2, {"gshmem_broadcastmem", "team 40 is not a live team"}},
    {"nonmember", 4, {"gshmem_int64_sum_reduce", "GSHMEM_TEAM_INVALID"}},
    {"bad_root", 4, {"gshmem_broadcastmem", "invalid root PE 3", "has 2 PEs"}},
    {"bad_split", 4, {"gshmem_team_split_strided", "size 5 do not fit parent team 0 of 4 PEs"}},
    {"too_many_teams", 2, {"gshmem_team_split_strided", "no free team", "GSHMEM_TEAM_MAX = 64",
                           "split 61 refused"}},
    {"destroy_world", 2, {"gshmem_team_destroy", "team 0 is predefined"}},
    {"ctx_destroyed", 2, {"gshmem_ctx_int64_p", "context 0x2 (slot 0, generation 0)",
                          "was destroyed"}},
    {"ctx_destroyed_twice", 2, {"gshmem_ctx_destroy", "context 0x", "was destroyed"}},
    {"ctx_team_destroyed", 2, {"gshmem_ctx_int32_atomic_add", "was destroyed",
                               "the destroy of its team"}},
    {"ctx_foreign", 2, {"gshmem_ctx_quiet", "context 0x500000007",
                        "not a context of this PE"}},
    {"ctx_destroy_default", 2, {"gshmem_ctx_destroy", "GSHMEM_CTX_DEFAULT cannot be destroyed"}},
    {"ctx_invalid", 2, {"gshmem_ctx_putmem", "GSHMEM_CTX_INVALID"}},
};

Test(teams_bad, misuse, .timeout = 600)
{
    static const char *const tps[] = {"shm", "ofi-tcp"};
    for (int i = 0; i < 2; i++)
        for (size_t k = 0; k < sizeof teams_misuse / sizeof teams_misuse[0]; k++) {
            const char *want[5] = {NULL};
            memcpy(want, teams_misuse[k].want, sizeof teams_misuse[k].want);
            teams_bad(tps[i], teams_misuse[k].n, teams_misuse[k].mode, want);
        }
}

/* Every generic name of teams and contexts with every type of its list
 * compiles as strict C11; and on double and min on complex do not. */
Test(teams, generic_names_compile, .timeout = 120)
{
    const char *flags = "-std=c11 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I"
                        GSHMEM_SOURCE_DIR "/include";
    const char *file = GSHMEM_SOURCE_DIR "/tests/compile/shmem_team_generic_check.c";
    static const char *const wrong[] = {"", "-DSHMEM_GENERIC_WRONG_AND",
                                        "-DSHMEM_GENERIC_WRONG_MIN"};
    for (int i = 0; i < 3; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s %s %s %s", GSHMEM_C_COMPILER, flags, wrong[i], file);
        test_run_t r = test_run(NULL, cmd, 100);
        if (i == 0)
            cr_expect(r.status == 0, "the generic names do not compile (status %d):\n%s",
                      r.status, test_tail(&r));
        else
            cr_expect(r.status != 0 && strstr(r.output, "_Generic") != NULL,
                      "%s compiled (status %d):\n%s", wrong[i], r.status, test_tail(&r));
        test_run_free(&r);
    }
}

/* test_uid.c: the unique-ID bootstrap (GSHMEM_INIT_WITH_UNIQUEID and
 * GSHMEM_BOOTSTRAP_UID), PEs started by hand as tests/multipe/uid-run.sh
 * does, on this machine's loopback (GSHMEM_BOOTSTRAP_UID_IFACE=lo):
 * pe_uid's own checks through the API (the ID handed over a file), the
 * suite's PE programs unchanged with a hand-made ID, and the failures:
 * refusals at once (stale ID, not an ID, PE out of range, a wrong token),
 * a PE 0 that never listens, a PE that never joins, a dead PE and
 * gshmem_global_exit ending every PE. Across simulated nodes: test_cluster.c. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define UID_RUN "bash " GSHMEM_SOURCE_DIR "/tests/multipe/uid-run.sh"
#define UID_ENV "GSHMEM_BOOTSTRAP_UID_IFACE=lo"
#define UID_TIMEOUT_S 60

/* In sanitizer builds the bootstrap's own paths run (api, refusals, token,
 * death, global_exit); the unchanged programs and the join retries do not. */
#define UID_SAN "the unchanged programs and the join retries run in the normal build's suite"

/* uid-run.sh FORM N ARGS, status and output. */
static test_run_t uid_run(const char *xenv, const char *form, int n, const char *args)
{
    char cmd[1024], env[512];
    snprintf(cmd, sizeof cmd, UID_RUN " %s %d %s", form, n, args);
    snprintf(env, sizeof env, UID_ENV "%s%s", xenv ? " " : "", xenv ? xenv : "");
    return test_run(env, cmd, UID_TIMEOUT_S);
}

/* uid-run.sh's line for pe has status want. */
static void uid_expect_status(const test_run_t *r, int pe, int want, const char *what)
{
    char line[64];
    snprintf(line, sizeof line, "uid-run: PE %d status %d\n", pe, want);
    cr_expect(strstr(r->output, line) != NULL, "%s: PE %d did not end with status %d:\n%s",
              what, pe, want, test_tail(r));
}

static void uid_expect_text(const test_run_t *r, const char *text, int at_least,
                            const char *what)
{
    cr_expect(test_count_of(r->output, text) >= at_least, "%s: '%s' printed fewer than %d "
              "times:\n%s", what, text, at_least, test_tail(r));
}

static void uid_api(int n)
{
    test_run_t r = uid_run(NULL, "file", n, "%B/tests/pe/pe_uid api");
    cr_expect(r.status == 0 && test_count_of(r.output, "pe_uid: OK (PE ") == n,
              "pe_uid api at %d PEs: status %d, want 0 and %d OK lines:\n%s", n, r.status, n,
              test_tail(&r));
    test_run_free(&r);
}

Test(uid, api_n2, .timeout = 90) { uid_api(2); }
Test(uid, api_n4, .timeout = 90) { uid_api(4); }

/* Programs of the suite, unchanged (gshmem_init), with a hand-made ID. */
Test(uid, env_suites_n4, .timeout = 180)
{
    test_skip_in_sanitizer(UID_SAN);
    static const char *const progs[] = {"pe_api_rma", "pe_api_amo", "pe_api_coll",
                                        "pe_api_teams"};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        char args[128], ok[64];
        snprintf(args, sizeof args, "%%B/tests/pe/%s", progs[i]);
        snprintf(ok, sizeof ok, "%s: OK", progs[i]);
        test_run_t r = uid_run("GSHMEM_DEBUG=INFO GSHMEM_DEBUG_SUBSYS=BOOTSTRAP", "env", 4,
                               args);
        cr_expect(r.status == 0 && strstr(r.output, ok) != NULL &&
                      test_count_of(r.output, "bootstrap uid picked") == 4,
                  "%s at 4 PEs under GSHMEM_BOOTSTRAP_UID: status %d, want 0, '%s' and 4 PEs "
                  "on the uid bootstrap:\n%s", progs[i], r.status, ok, test_tail(&r));
        test_run_free(&r);
    }
}

Test(uid, env_ofi_tcp_n4, .timeout = 90)
{
    test_skip_in_sanitizer(UID_SAN);
    test_run_t r = uid_run(test_tp_env("ofi-tcp"), "env", 4, "%B/tests/pe/pe_api_amo");
    cr_expect(r.status == 0 && strstr(r.output, "pe_api_amo: OK") != NULL,
              "pe_api_amo over ofi/tcp under GSHMEM_BOOTSTRAP_UID: status %d:\n%s", r.status,
              test_tail(&r));
    test_run_free(&r);
}

/* One process: each refusal comes at once (pe_uid checks the time). */
Test(uid, refusals, .timeout = 60)
{
    test_run_t r = test_run(UID_ENV, "%B/tests/pe/pe_uid refusals", 30);
    cr_expect(r.status == 0 && strstr(r.output, "pe_uid: OK (refusals)") != NULL,
              "pe_uid refusals: status %d:\n%s", r.status, test_tail(&r));
    uid_expect_text(&r, "nothing listens there: a stale ID", 1, "stale ID");
    uid_expect_text(&r, "is not a unique ID", 1, "not an ID");
    uid_expect_text(&r, "ADDR \"node-a\" is not a numeric IP address", 1, "a host name");
    uid_expect_text(&r, "PE 2 of 2 PEs", 1, "set_attr out of range");
    uid_expect_text(&r, "PE 3 of 2 PEs", 1, "init out of range");
    uid_expect_text(&r, "GSHMEM_INIT_WITH_MPI_COMM and GSHMEM_INIT_WITH_UNIQUEID", 1,
                    "both flags");
    test_run_free(&r);
}

/* PE 1 has the ID with another token: refused at once (pe_uid checks),
 * naming it; PE 0 goes on waiting, then names PE 1 as never joined. */
Test(uid, wrong_token, .timeout = 60)
{
    test_run_t r = uid_run("GSHMEM_BOOTSTRAP_UID_TIMEOUT=2", "file", 2,
                           "%B/tests/pe/pe_uid badtoken");
    cr_expect(r.status == 0 && test_count_of(r.output, "pe_uid: refused (") == 2,
              "badtoken: status %d, want 0 and two refusals:\n%s", r.status, test_tail(&r));
    uid_expect_text(&r, "was not let in by PE 0 at 127.0.0.1:", 1, "PE 1's refusal");
    uid_expect_text(&r, "wrong token", 2, "the reason, at both PEs");
    uid_expect_text(&r, "waited 2 s (GSHMEM_BOOTSTRAP_UID_TIMEOUT) for 1 of the 2 PEs, which "
                    "never joined: 1", 1, "PE 0's timeout");
    test_run_free(&r);
}

/* A hand-made ID: the others may start before PE 0 listens (they try
 * again), and give up naming it when PE 0 never comes. */
Test(uid, hand_made_id_pe0_late_or_never, .timeout = 60)
{
    test_skip_in_sanitizer(UID_SAN);
    const char *id = "GSHMEM_BOOTSTRAP_UID='gshmem-uid1 127.0.0.1 1 "
                     "00112233445566778899aabbccddeeff' GSHMEM_BOOTSTRAP_UID_N_PES=2";
    char env[512];
    snprintf(env, sizeof env, UID_ENV " %s GSHMEM_BOOTSTRAP_UID_TIMEOUT=1", id);
    test_run_t r = test_run(env, "env GSHMEM_BOOTSTRAP_UID_PE=1 %B/tests/pe/pe_api_amo", 30);
    cr_expect(r.status != 0 && r.seconds >= 5 && r.seconds < 15 &&
                  strstr(r.output, "PE 0 never listened there") != NULL,
              "PE 1 alone: status %d after %.1f s, want an error after 1 + 5 s naming PE 0:\n%s",
              r.status, r.seconds, test_tail(&r));
    test_run_free(&r);
    /* PE 0 a second late, on a port of its own: the job runs */
    r = test_run(UID_ENV, "bash -c 'p=$(python3 -c \"import socket; s = socket.socket(); "
                 "s.bind((\\\"127.0.0.1\\\", 0)); print(s.getsockname()[1])\"); "
                 "export GSHMEM_BOOTSTRAP_UID=\"gshmem-uid1 127.0.0.1 $p "
                 "00112233445566778899aabbccddeeff\" GSHMEM_BOOTSTRAP_UID_N_PES=2; "
                 "GSHMEM_BOOTSTRAP_UID_PE=1 %B/tests/pe/pe_api_amo & sleep 1; "
                 "GSHMEM_BOOTSTRAP_UID_PE=0 %B/tests/pe/pe_api_amo; a=$?; wait $!; "
                 "exit $((a | $?))'", 60);
    cr_expect(r.status == 0 && strstr(r.output, "pe_api_amo: OK") != NULL,
              "PE 0 a second after PE 1: status %d:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}

/* GSHMEM_BOOTSTRAP=uid without an ID names what is missing. */
Test(uid, bootstrap_uid_without_id, .timeout = 30)
{
    test_run_t r = test_run(UID_ENV " GSHMEM_BOOTSTRAP=uid", "%B/tests/pe/pe_api_amo", 20);
    cr_expect(r.status != 0 && strstr(r.output, "no ID given: call gshmem_init_attr with "
                                      "GSHMEM_INIT_WITH_UNIQUEID, or set GSHMEM_BOOTSTRAP_UID")
                                   != NULL,
              "GSHMEM_BOOTSTRAP=uid, no ID: status %d:\n%s", r.status, test_tail(&r));
    test_run_free(&r);
}

/* PE 2 dies (SIGKILL) while PEs 0 and 1 wait in a barrier: both end at
 * once with status 1, naming PE 2. */
Test(uid, dead_pe_ends_the_job, .timeout = 60)
{
    test_run_t r = uid_run(NULL, "file", 3, "%B/tests/pe/pe_uid kill");
    uid_expect_status(&r, 0, 1, "kill");
    uid_expect_status(&r, 1, 1, "kill");
    uid_expect_status(&r, 2, 128 + 9, "kill");
    uid_expect_text(&r, "the job is ending: PE 2 (host ", 2, "the survivors' message");
    uid_expect_text(&r, "lost its connection to PE 0 without finalizing", 2, "the cause");
    cr_expect(r.seconds < 10, "the job took %.1f s to end after PE 2 died", r.seconds);
    test_run_free(&r);
}

/* PE 1's gshmem_global_exit(7) ends all three with 7, silently. */
Test(uid, global_exit_ends_every_pe, .timeout = 60)
{
    test_run_t r = uid_run(NULL, "file", 3, "%B/tests/pe/pe_uid exit");
    for (int pe = 0; pe < 3; pe++)
        uid_expect_status(&r, pe, 7, "global_exit");
    cr_expect(strstr(r.output, "the job is ending") == NULL,
              "gshmem_global_exit should end the PEs silently:\n%s", test_tail(&r));
    test_run_free(&r);
}

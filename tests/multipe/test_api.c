/* test_api: runs the host API PE programs (pe_api_*) at 2 and 4 PEs over
 * the three transport variants: shm, ofi over the shm provider, ofi over
 * tcp;ofi_rxm on loopback. A run passes when it exits 0 and PE 0 printed
 * "<prog>: OK"; a failure names the program, transport, PE count, exit
 * status and shows the end of the output (the PE's check message). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define API_TIMEOUT_S 90

static test_run_t api_run_pes(const char *tp, int n, const char *prog, const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %%B/tests/pe/%s %s",
             n, API_TIMEOUT_S, prog, args ? args : "");
    return test_run(test_tp_env(tp), cmd, API_TIMEOUT_S + 10);
}

static void run_api(const char *prog, const char *tp, const char *args, const char *must_have)
{
    static const int pes[] = {2, 4};
    char ok[128];
    snprintf(ok, sizeof ok, "%s: OK", prog);
    for (size_t i = 0; i < sizeof pes / sizeof pes[0]; i++) {
        test_run_t r = api_run_pes(tp, pes[i], prog, args);
        cr_expect(r.status == 0 && strstr(r.output, ok) != NULL,
                  "%s over %s with %d PEs: exit status %d after %.1f s (want 0 and '%s'); "
                  "output (end):\n%s", prog, tp, pes[i], r.status, r.seconds, ok,
                  test_tail(&r));
        if (must_have != NULL)
            cr_expect(strstr(r.output, must_have) != NULL,
                      "%s over %s with %d PEs: output lacks '%s'; output (end):\n%s", prog,
                      tp, pes[i], must_have, test_tail(&r));
        test_run_free(&r);
    }
}

/* Iterations of the ordering litmus tests: many over shm, fewer over tcp. */
static const char *order_iters(const char *tp)
{
    if (strcmp(tp, "shm") == 0)
        return "5000";
    if (strcmp(tp, "ofi-shm") == 0)
        return "2000";
    return "1000";
}

#define API_SUITE(name, prog, args_of, must_have)                                      \
    Test(api_##name, shm, .timeout = 400)                                             \
    {                                                                                 \
        run_api(prog, "shm", args_of("shm"), must_have);                              \
    }                                                                                 \
    Test(api_##name, ofi_shm, .timeout = 400)                                         \
    {                                                                                 \
        run_api(prog, "ofi-shm", args_of("ofi-shm"), must_have);                      \
    }                                                                                 \
    Test(api_##name, ofi_tcp, .timeout = 400)                                         \
    {                                                                                 \
        run_api(prog, "ofi-tcp", args_of("ofi-tcp"), must_have);                      \
    }

#define NO_ARGS(tp) ((void)(tp), (const char *)NULL)

API_SUITE(rma, "pe_api_rma", NO_ARGS, NULL)
API_SUITE(order, "pe_api_order", order_iters, NULL)
API_SUITE(amo, "pe_api_amo", NO_ARGS, NULL)
API_SUITE(coll, "pe_api_coll", NO_ARGS, NULL)
/* The exhaustion case of pe_api_mem asks for 1 TiB: the log names it. */
API_SUITE(mem, "pe_api_mem", NO_ARGS, "1099511627776")
API_SUITE(shmem_h, "pe_api_shmem", NO_ARGS, NULL)
/* Global and static variables as symmetric objects (more in test_symdata.c). */
API_SUITE(symdata, "pe_api_symdata", NO_ARGS, NULL)

/* GSHMEM_INFO=1: PE 0 prints the settings table, every PE its transport
 * per peer. */
Test(api_info, table_and_transports, .timeout = 60)
{
    char env[256];
    snprintf(env, sizeof env, "%s GSHMEM_INFO=1", test_tp_env("shm"));
    test_run_t r = test_run(env, "%B/tools/gshmemrun/gshmemrun -n 2 --timeout 30 "
                            "%B/tests/pe/pe_api_rma", 40);
    cr_expect(r.status == 0, "pe_api_rma with GSHMEM_INFO=1: exit status %d:\n%s", r.status,
              test_tail(&r));
    cr_expect(strstr(r.output, "GSHMEM_SYMMETRIC_SIZE") && strstr(r.output, "GSHMEM_TRANSPORTS"),
              "no settings table in the output:\n%s", test_tail(&r));
    cr_expect(strstr(r.output, "PE0 gshmem INFO [TRANSPORT] transport per PE: 0:shm 1:shm") &&
              strstr(r.output, "PE1 gshmem INFO [TRANSPORT] transport per PE: 0:shm 1:shm"),
              "no per-PE transport lines:\n%s", test_tail(&r));
    test_run_free(&r);
}

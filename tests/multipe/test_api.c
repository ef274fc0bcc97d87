/* test_api: runs the host API PE programs (pe_api_*) at 2 and 4 PEs over
 * the three transport variants: shm, ofi over the shm provider, ofi over
 * tcp;ofi_rxm on loopback. A run passes when it exits 0 and PE 0 printed
 * "<prog>: OK"; a failure names the program, transport, PE count, exit
 * status and shows the end of the output (the PE's check message). The
 * same programs under mpirun: test_conform_mpirun.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define API_TIMEOUT_S 90

static void run_api(const char *prog, const char *tp, const char *args, const char *must_have)
{
    static const int pes[] = {2, 4};
    for (size_t i = 0; i < sizeof pes / sizeof pes[0]; i++) {
        test_run_t r = test_run_pes(tp, pes[i], prog, args, API_TIMEOUT_S);
        test_expect_ok(&r, prog, tp, pes[i], must_have);
    }
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
API_SUITE(order, "pe_api_order", test_order_iters, NULL)
API_SUITE(amo, "pe_api_amo", NO_ARGS, NULL)
/* Every typed RMA, AMO and wait call on every type of the tables
 * (include/gshmem/impl/gshmem_coll_types.h). */
API_SUITE(types, "pe_api_types", NO_ARGS, NULL)
API_SUITE(coll, "pe_api_coll", NO_ARGS, NULL)
/* The host reduce-scatters on every type and op, both algorithms. */
API_SUITE(reducescatter, "pe_api_reducescatter", NO_ARGS, NULL)
API_SUITE(mem, "pe_api_mem", NO_ARGS, TEST_API_MEM_LOG)
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

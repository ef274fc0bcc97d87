/* test_conform_mpirun: the conformance programs (the pe_api_* that
 * test_shmem15.c, test_teams.c, test_ctx.c and test_api.c run under
 * gshmemrun) under mpirun on loopback, with the same checks: exit status 0,
 * "<prog>: OK", pe_api_mem's log line. Each runs with the arguments the
 * gshmemrun drivers give it (pe_api_order's iterations, pe_api_ctx's mode),
 * which need nothing of gshmemrun's. Left to gshmemrun: the misuse modes
 * (test_bad.c ends a job under mpirun), pe_api_symdata's lib and mismatch
 * modes (GSHMEMRUN_PE picks the executable) and ofi's active messages.
 * With GSHMEM_BOOTSTRAP=mpi: shm at 2 and 4 PEs, ofi over tcp;ofi_rxm at 2
 * (at 4 too the suite took 57 s instead of about 35 at -j2 on 2 cores; the
 * transport does not see the launcher, and the gshmemrun drivers run
 * ofi/tcp at 4). With the bootstrap mpirun gets by default (auto: pmix
 * under Open MPI): shm at 4 PEs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define CM_TIMEOUT_S 120

static const struct {
    const char *prog;
    const char *(*args_of)(const char *tp);   /* its arguments over tp; NULL: none */
    const char *must_have;                    /* besides "<prog>: OK" */
} cm_progs[] = {
    {.prog = "pe_api_shmem15"},
    {.prog = "pe_api_shmem15_dep"},
    {.prog = "pe_api_shmem15_start"},
    {.prog = "pe_api_shmem15_coll_dep"},
    {.prog = "pe_api_teams"},
    {.prog = "pe_api_ctx", .args_of = test_ctx_mode},
    {.prog = "pe_api_rma"},
    {.prog = "pe_api_order", .args_of = test_order_iters},
    {.prog = "pe_api_amo"},
    {.prog = "pe_api_coll"},
    {.prog = "pe_api_mem", .must_have = TEST_API_MEM_LOG},
    {.prog = "pe_api_shmem"},
    {.prog = "pe_api_symdata"},
};

/* Every program at n PEs over tp (test_tp_env's names) with
 * GSHMEM_BOOTSTRAP=boot. */
static void cm_run_all(const char *boot, const char *tp, int n)
{
    char xenv[512], what[128];

    if (strcmp(boot, "mpi") == 0 && !TEST_HAVE_MPI)
        cr_skip_test("gshmem was built without MPI (GSHMEM_ENABLE_MPI=OFF)");
    if (!TEST_HAVE_MPI && !TEST_HAVE_PMIX)
        cr_skip_test("gshmem was built without MPI and PMIx");
    snprintf(xenv, sizeof xenv, "GSHMEM_BOOTSTRAP=%s %s", boot, test_tp_env(tp));
    snprintf(what, sizeof what, "%s under mpirun (GSHMEM_BOOTSTRAP=%s)", tp, boot);
    for (size_t i = 0; i < sizeof cm_progs / sizeof cm_progs[0]; i++) {
        const char *args = cm_progs[i].args_of ? cm_progs[i].args_of(tp) : NULL;
        test_run_t r = test_run_mpirun(n, xenv, cm_progs[i].prog, args, CM_TIMEOUT_S);
        test_expect_ok(&r, cm_progs[i].prog, what, n, cm_progs[i].must_have);
    }
}

Test(conform_mpirun, shm_n2, .timeout = 600) { cm_run_all("mpi", "shm", 2); }
#define CM_N4_SAN "the 4-PE runs under mpirun repeat shm_n2's code (CI's time)"
Test(conform_mpirun, shm_n4, .timeout = 600)
{
    test_skip_in_sanitizer(CM_N4_SAN);
    cm_run_all("mpi", "shm", 4);
}
Test(conform_mpirun, ofi_tcp_n2, .timeout = 600) { cm_run_all("mpi", "ofi-tcp", 2); }
Test(conform_mpirun, auto_shm_n4, .timeout = 600)
{
    test_skip_in_sanitizer(CM_N4_SAN);
    cm_run_all("auto", "shm", 4);
}

/* test_stopped.c: a PE stopped by a signal ends the job under mpirun too,
 * where no launcher watches for stopped ranks: the PEs of its node that
 * wait for it (here: fetch_incs on its counter over ofi/tcp, a wait over
 * shm) look at it in /proc after GSHMEM_STOPPED_TIMEOUT seconds and give
 * up, naming it (src/base/util/peers.c). gshmemrun's own watch of stopped
 * PEs is tested in test_wait.c. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

static void stopped_under_mpirun(const char *boot, const char *tp)
{
    char env[512];
    if (!(strcmp(boot, "mpi") == 0 ? TEST_HAVE_MPI : TEST_HAVE_PMIX))
        cr_skip_test("gshmem was built without the %s bootstrap", boot);
    snprintf(env, sizeof env, "GSHMEM_BOOTSTRAP=%s GSHMEM_STOPPED_TIMEOUT=1 %s", boot,
             test_tp_env(tp));
    test_run_t r = test_run_mpirun(3, env, "pe_wait", "stop 19", 40);
    cr_expect(strstr(r.output, "PE 1 (pid ") &&
                  strstr(r.output, "on this node has been stopped by a signal for 1 s "
                         "(GSHMEM_STOPPED_TIMEOUT=1): it will not answer"),
              "%s/%s: a PE waiting for the stopped PE 1 should name it:\n%s", boot, tp,
              test_tail(&r));
    cr_expect(r.status != 0 && r.status != 124, "%s/%s: status %d:\n%s", boot, tp, r.status,
              test_tail(&r));
    cr_expect_lt(r.seconds, 20.0, "%s/%s: took %.1f s", boot, tp, r.seconds);
    test_run_free(&r);
}

Test(stopped, mpirun_pmix_ofi_tcp, .timeout = 60) { stopped_under_mpirun("pmix", "ofi-tcp"); }
Test(stopped, mpirun_mpi_ofi_tcp, .timeout = 60) { stopped_under_mpirun("mpi", "ofi-tcp"); }
Test(stopped, mpirun_pmix_shm, .timeout = 60) { stopped_under_mpirun("pmix", "shm"); }

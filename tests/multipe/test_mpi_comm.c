/* test_mpi_comm.c: gshmem_init_attr with GSHMEM_INIT_WITH_MPI_COMM, through
 * the MPI program pe_mpi_comm under mpirun at 2 and 4 ranks (GSHMEM_HEAP=host:
 * the program reads its table with the CPU): a duplicate of MPI_COMM_WORLD,
 * a split with the ranks reversed (gshmem's PE numbers must follow the
 * communicator, not the world), two half communicators running two gshmem
 * jobs side by side; and the refusals: no attr or attr->mpi_comm NULL,
 * MPI_COMM_NULL, a communicator with GSHMEM_BOOTSTRAP=self. A refusal must
 * be a logged error naming the cause and an error status, not a crash. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define MC_TIMEOUT_S 120
#define MC_ENV "GSHMEM_HEAP=host"

static void mc_require_mpi(void)
{
    if (!TEST_HAVE_MPI)
        cr_skip_test("gshmem was built without MPI (GSHMEM_ENABLE_MPI=OFF)");
}

/* mode at n ranks: status 0, want_ok "OK" lines and want_refused "refused"
 * lines, and each of msgs (NULL-terminated) in the output. */
static void mc_run(const char *mode, int n, const char *xenv, int want_ok, int want_refused,
                   const char *const *msgs)
{
    char env[256];

    mc_require_mpi();
    snprintf(env, sizeof env, "%s%s%s", MC_ENV, xenv ? " " : "", xenv ? xenv : "");
    test_run_t r = test_run_mpirun(n, env, "pe_mpi_comm", mode, MC_TIMEOUT_S);
    int ok = test_count_of(r.output, "pe_mpi_comm: OK ("),
        ref = test_count_of(r.output, "pe_mpi_comm: refused (");
    cr_assert(r.status == 0 && ok == want_ok && ref == want_refused,
              "mpirun -np %d pe_mpi_comm %s (%s): status %d, %d OK lines (want %d), %d refused "
              "(want %d); output (end):\n%s", n, mode, env, r.status, ok, want_ok, ref,
              want_refused, test_tail(&r));
    for (int i = 0; msgs && msgs[i]; i++)
        cr_assert(test_count_of(r.output, msgs[i]) >= n, "pe_mpi_comm %s at %d: \"%s\" not "
                  "printed by every rank; output (end):\n%s", mode, n, msgs[i], test_tail(&r));
    test_run_free(&r);
}

static void mc_good(const char *mode, int n)
{
    char want[64];
    const char *msgs[] = {want, NULL};
    snprintf(want, sizeof want, "of %d, %s)", strcmp(mode, "halves") == 0 ? n / 2 : n, mode);
    mc_run(mode, n, NULL, n, 0, msgs);
}

Test(mpi_comm, dup_n2, .timeout = 150) { mc_good("dup", 2); }
Test(mpi_comm, dup_n4, .timeout = 150)
{
    test_skip_in_sanitizer("dup_n2 and halves_n4 run this code (CI's time)");
    mc_good("dup", 4);
}
Test(mpi_comm, reverse_n2, .timeout = 150) { mc_good("reverse", 2); }
Test(mpi_comm, reverse_n4, .timeout = 150)
{
    test_skip_in_sanitizer("reverse_n2 and halves_n4 run this code (CI's time)");
    mc_good("reverse", 4);
}
Test(mpi_comm, halves_n4, .timeout = 150) { mc_good("halves", 4); }

Test(mpi_comm, refuse_null, .timeout = 150)
{
    const char *msgs[] = {"gshmem_init_attr: GSHMEM_INIT_WITH_MPI_COMM needs attr->mpi_comm",
                          "OK (world rank", NULL};
    mc_run("null", 2, NULL, 2, 4, msgs);
}

Test(mpi_comm, refuse_comm_null, .timeout = 150)
{
    const char *msgs[] = {"the communicator given to gshmem_init_attr "
                          "(GSHMEM_INIT_WITH_MPI_COMM) is MPI_COMM_NULL", NULL};
    mc_run("comm_null", 2, NULL, 2, 2, msgs);
}

Test(mpi_comm, refuse_other_bootstrap, .timeout = 150)
{
    const char *msgs[] = {"GSHMEM_BOOTSTRAP=self, but an MPI communicator was given", NULL};
    mc_run("conflict", 2, "GSHMEM_BOOTSTRAP=self", 0, 2, msgs);
}

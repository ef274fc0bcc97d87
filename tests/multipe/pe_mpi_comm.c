/* pe_mpi_comm: an MPI program that hands gshmem its own communicator
 * (gshmem_init_attr with GSHMEM_INIT_WITH_MPI_COMM), then uses MPI and
 * gshmem side by side. Run under mpirun (tests/multipe/test_mpi_comm.c)
 * with GSHMEM_HEAP=host. Modes (argv[1]):
 *   dup      a duplicate of MPI_COMM_WORLD;
 *   reverse  MPI_Comm_split of WORLD with one colour and the ranks reversed
 *            (PE i must be world rank n - 1 - i);
 *   halves   MPI_Comm_split by world rank parity, reversed within: two
 *            gshmem jobs of n / 2 PEs side by side in one mpirun;
 *   null     refusals first (flag without attr, attr->mpi_comm NULL), then
 *            a good init with a duplicate;
 *   comm_null  attr->mpi_comm points to MPI_COMM_NULL: refused, then a good
 *            init with a duplicate;
 *   conflict   a communicator with GSHMEM_BOOTSTRAP=self (set by the driver):
 *            refused.
 * Checks, after init: gshmem_my_pe()/n_pes() are the communicator's rank and
 * size; every PE puts its world rank into slot my_pe of every PE's table
 * (gshmem_int64_p, barrier_all), which must match MPI_Allgather's over the
 * communicator; int64 sum and max reductions on GSHMEM_TEAM_WORLD equal
 * MPI_Allreduce's over the communicator; MPI_Allreduce over MPI_COMM_WORLD
 * works while gshmem is live and after gshmem_finalize. Prints
 * "pe_mpi_comm: OK (world rank r, PE p of n, mode)" per rank, or
 * "pe_mpi_comm: refused (...)" per refusal. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

#define NR 37   /* elements reduced */

static int wrank, wsize;

#define CHECK(cond, ...) PE_CHECK_AT(wrank, cond, __VA_ARGS__)

static int init_with(MPI_Comm *comm)
{
    gshmem_init_attr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.mpi_comm = comm;
    return gshmem_init_attr(GSHMEM_INIT_WITH_MPI_COMM, &attr);
}

static void refused(int rc, const char *what)
{
    CHECK(rc != 0 && !gshmem_initialized(), "%s: gshmem_init_attr returned %d (want an error)",
          what, rc);
    printf("pe_mpi_comm: refused (world rank %d, %s: %s)\n", wrank, what, gshmem_strerror(rc));
    fflush(stdout);
}

/* PE numbering: slot i of every PE's table holds PE i's world rank. */
static void check_numbering(MPI_Comm comm, int crank, int csize)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    CHECK(me == crank && n == csize, "gshmem PE %d of %d, communicator rank %d of %d", me, n,
          crank, csize);
    int *wr = malloc(sizeof(int) * (size_t)csize);
    int64_t *table = gshmem_calloc((size_t)csize, sizeof(int64_t));
    CHECK(wr != NULL && table != NULL, "allocation of %d slots", csize);
    CHECK(MPI_Allgather(&wrank, 1, MPI_INT, wr, 1, MPI_INT, comm) == MPI_SUCCESS,
          "MPI_Allgather");
    for (int pe = 0; pe < n; pe++)
        gshmem_int64_p(&table[me], wrank, pe);
    gshmem_barrier_all();
    for (int i = 0; i < n; i++)
        CHECK(table[i] == wr[i], "PE %d's slot holds world rank %lld; MPI says rank %d of the "
              "communicator is world rank %d", i, (long long)table[i], i, wr[i]);
    gshmem_barrier_all();   /* nobody frees the table while another still reads it */
    gshmem_free(table);
    free(wr);
}

/* gshmem reductions against MPI_Allreduce over the same communicator. */
static void check_reductions(MPI_Comm comm)
{
    int64_t *src = gshmem_malloc(NR * sizeof(int64_t)), *dst = gshmem_malloc(NR * sizeof(int64_t));
    int64_t mine[NR], want[NR];
    CHECK(src != NULL && dst != NULL, "gshmem_malloc of %d int64", NR);
    for (int k = 0; k < NR; k++)
        mine[k] = src[k] = (int64_t)wrank * (k + 1) - 3 * k;
    static const struct { MPI_Op op; const char *name; } ops[] = {{MPI_SUM, "sum"},
                                                                   {MPI_MAX, "max"}};
    for (int o = 0; o < 2; o++) {
        int rc = o == 0 ? gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, dst, src, NR)
                        : gshmem_int64_max_reduce(GSHMEM_TEAM_WORLD, dst, src, NR);
        CHECK(rc == 0, "gshmem_int64_%s_reduce: %s", ops[o].name, gshmem_strerror(rc));
        CHECK(MPI_Allreduce(mine, want, NR, MPI_INT64_T, ops[o].op, comm) == MPI_SUCCESS,
              "MPI_Allreduce(%s)", ops[o].name);
        for (int k = 0; k < NR; k++)
            CHECK(dst[k] == want[k], "%s [%d]: gshmem %lld, MPI %lld", ops[o].name, k,
                  (long long)dst[k], (long long)want[k]);
        MPI_Barrier(comm);   /* MPI between gshmem collectives */
    }
    gshmem_free(dst);
    gshmem_free(src);
}

static void world_allreduce(const char *when)
{
    int one = 1, total = 0;
    CHECK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
          total == wsize, "MPI_Allreduce over MPI_COMM_WORLD %s: %d (want %d)", when, total,
          wsize);
}

static void run(MPI_Comm comm, const char *mode)
{
    int crank, csize;
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    int rc = init_with(&comm);
    CHECK(rc == 0, "gshmem_init_attr(GSHMEM_INIT_WITH_MPI_COMM): %s", gshmem_strerror(rc));
    check_numbering(comm, crank, csize);
    check_reductions(comm);
    world_allreduce("while gshmem is live");
    int pe = gshmem_my_pe(), n = gshmem_n_pes();
    gshmem_finalize();
    world_allreduce("after gshmem_finalize");
    printf("pe_mpi_comm: OK (world rank %d, PE %d of %d, %s)\n", wrank, pe, n, mode);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "dup";
    MPI_Comm comm = MPI_COMM_NULL;

    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (strcmp(mode, "reverse") == 0 || strcmp(mode, "halves") == 0) {
        int colour = strcmp(mode, "halves") == 0 ? wrank % 2 : 0;
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, colour, wsize - wrank, &comm) == MPI_SUCCESS,
              "MPI_Comm_split");
    } else if (strcmp(mode, "comm_null") == 0) {
        refused(init_with(&comm), "attr->mpi_comm points to MPI_COMM_NULL");
    } else if (strcmp(mode, "null") == 0) {
        gshmem_init_attr_t attr;
        memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        refused(gshmem_init_attr(GSHMEM_INIT_WITH_MPI_COMM, NULL), "attr NULL");
        refused(gshmem_init_attr(GSHMEM_INIT_WITH_MPI_COMM, &attr), "attr->mpi_comm NULL");
    } else if (strcmp(mode, "conflict") == 0) {
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS, "MPI_Comm_dup");
        refused(init_with(&comm), "a communicator with GSHMEM_BOOTSTRAP set to another");
        MPI_Comm_free(&comm);
        MPI_Finalize();
        return 0;
    } else {
        CHECK(strcmp(mode, "dup") == 0, "unknown mode %s", mode);
    }
    if (comm == MPI_COMM_NULL)
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS, "MPI_Comm_dup");
    run(comm, mode);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}

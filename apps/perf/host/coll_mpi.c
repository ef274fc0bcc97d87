/* coll_mpi.c: gshmem-perf-coll-mpi. The MPI counterparts of
 * gshmem-perf-coll's rows on MPI_COMM_WORLD, checked and timed by the same
 * coll_common.c: MPI_Barrier (the barrier and the sync rows), MPI_Bcast
 * (root 0), MPI_Allgather, MPI_Alltoall (MPI_BYTE) and MPI_Allreduce
 * (MPI_INT64_T, MPI_SUM). No gshmem.
 *
 *   mpirun -n 4 gshmem-perf-coll-mpi [-b 8] [-e 1M] [-f 8] [-n 200] [-O LIST] ...
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll_common.h"

#define NAME "gshmem-perf-coll-mpi"

static int cm_me;   /* this rank, for the broadcast's buffer */

/* MPI counts are int: every size of the sweep must fit. */
static int cm_count(size_t n)
{
    return n > (size_t)0x7fffffff ? -1 : (int)n;
}

/* The operation on MPI_COMM_WORLD. MPI_Barrier serves both the barrier and
 * the sync rows. MPI_Bcast has one buffer: the root sends from src, the
 * others receive into dst, so the root's dst is not written. */
static int cm_call(coll_op_t op, void *d, void *s, size_t n)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int c = cm_count(n);
    switch (op) {
    case COLL_BARRIER:
    case COLL_SYNC: return MPI_Barrier(w);
    case COLL_BROADCAST: return MPI_Bcast(cm_me == 0 ? s : d, c, MPI_BYTE, 0, w);
    case COLL_FCOLLECT: return MPI_Allgather(s, c, MPI_BYTE, d, c, MPI_BYTE, w);
    case COLL_ALLTOALL: return MPI_Alltoall(s, c, MPI_BYTE, d, c, MPI_BYTE, w);
    case COLL_SUM_REDUCE:
        return MPI_Allreduce(s, d, c / (int)sizeof(int64_t), MPI_INT64_T, MPI_SUM, w);
    default: return -1;
    }
}

static void cm_separate(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void cm_gather(double *all, const double *mine, int n)
{
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static void __attribute__((noreturn)) cm_fail(void)
{
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static const coll_lib_t cm_lib = {.name = NAME, .bcast_root_dest = 0, .call = cm_call,
                                  .separate = cm_separate, .gather = cm_gather,
                                  .fail = cm_fail};

/* "Open MPI v4.1.4, ..." up to the first comma or line end. */
static void cm_what(char *buf, size_t len)
{
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;
    MPI_Get_library_version(ver, &vlen);
    size_t cut = 0;
    while (ver[cut] && ver[cut] != ',' && ver[cut] != '\n')
        cut++;
    ver[cut] = '\0';
    snprintf(buf, len, "MPI counterparts on MPI_COMM_WORLD; %.160s", ver);
}

int main(int argc, char **argv)
{
    perf_opts_t o;
    unsigned ops;
    MPI_Init(&argc, &argv);
    int prc = coll_opts_parse(&o, &ops, NAME, argc, argv);
    if (prc != 0) {
        MPI_Finalize();
        return prc > 0 ? 0 : 2;
    }
    coll_lib_t lib = cm_lib;
    MPI_Comm_rank(MPI_COMM_WORLD, &lib.me);
    MPI_Comm_size(MPI_COMM_WORLD, &lib.npes);
    cm_me = lib.me;
    if (cm_count(o.max_size) < 0) {
        if (lib.me == 0)
            fprintf(stderr, NAME ": -e %zu is beyond MPI's int counts\n", o.max_size);
        MPI_Finalize();
        return 2;
    }
    size_t bytes = coll_buf_bytes(&lib, &o);
    void *dst = malloc(bytes), *src = malloc(bytes);
    if (dst == NULL || src == NULL) {
        fprintf(stderr, NAME ": rank %d: out of memory for 2 x %zu bytes\n", lib.me, bytes);
        cm_fail();
    }
    char what[256];
    cm_what(what, sizeof what);
    coll_banner(&lib, &o, ops, what);
    coll_run(&lib, &o, ops, dst, src);

    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}

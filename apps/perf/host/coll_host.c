/* coll_host.c: gshmem-perf-coll. Host collectives of gshmem on
 * GSHMEM_TEAM_WORLD: barrier_all, sync_all, broadcastmem (root 0),
 * fcollectmem, alltoallmem and int64_sum_reduce (8 B = one element), each
 * checked, then timed by coll_common.c; gshmem-perf-coll-mpi times the MPI
 * counterparts the same way.
 *
 *   gshmemrun -n 4 gshmem-perf-coll [-b 8] [-e 1M] [-f 8] [-n 200] [-O LIST] ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host.h"
#include "coll_common.h"

#define NAME "gshmem-perf-coll"

static double *ch_times;   /* symmetric: npes * coll_gather_need, on PE 0 */

/* The operation, on WORLD; sum_reduce: n / 8 int64 elements. */
static int ch_call(coll_op_t op, void *d, void *s, size_t n)
{
    switch (op) {
    case COLL_BARRIER: gshmem_barrier_all(); return 0;
    case COLL_SYNC: gshmem_sync_all(); return 0;
    case COLL_BROADCAST: return gshmem_broadcastmem(GSHMEM_TEAM_WORLD, d, s, n, 0);
    case COLL_FCOLLECT: return gshmem_fcollectmem(GSHMEM_TEAM_WORLD, d, s, n);
    case COLL_ALLTOALL: return gshmem_alltoallmem(GSHMEM_TEAM_WORLD, d, s, n);
    case COLL_SUM_REDUCE:
        return gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, d, s, n / sizeof(int64_t));
    default: return -1;
    }
}

static void ch_separate(void)
{
    gshmem_barrier_all();
}

/* Every PE puts its times into PE 0's array: no collective under test but
 * the barrier. The first barrier keeps a PE from overwriting what PE 0 has
 * not read yet. */
static void ch_gather(double *all, const double *mine, int n)
{
    int me = gshmem_my_pe();
    size_t bytes = sizeof *mine * (size_t)n;
    gshmem_barrier_all();
    gshmem_putmem(ch_times + (size_t)me * (size_t)n, mine, bytes, 0);
    gshmem_barrier_all();
    if (me == 0)
        memcpy(all, ch_times, bytes * (size_t)gshmem_n_pes());
}

static const coll_lib_t ch_lib = {.name = NAME, .bcast_root_dest = 1, .call = ch_call,
                                  .separate = ch_separate, .gather = ch_gather,
                                  .fail = bench_fail};

int main(int argc, char **argv)
{
    perf_opts_t o;
    unsigned ops;
    int prc = coll_opts_parse(&o, &ops, NAME, argc, argv);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (bench_init(NAME, 1) != 0)
        return 1;
    coll_lib_t lib = ch_lib;
    lib.me = gshmem_my_pe();
    lib.npes = gshmem_n_pes();
    size_t bytes = coll_buf_bytes(&lib, &o);
    void *dst = bench_malloc(NAME, bytes), *src = bench_malloc(NAME, bytes);
    size_t tbytes = sizeof *ch_times * (size_t)lib.npes * (size_t)coll_gather_need(&o);
    ch_times = bench_malloc(NAME, tbytes);
    gshmem_barrier_all();

    const char *tps = getenv("GSHMEM_TRANSPORTS"), *prov = getenv("GSHMEM_OFI_PROVIDER");
    char what[256];
    snprintf(what, sizeof what, "gshmem host collectives on WORLD; to PE %d: %s; "
             "GSHMEM_TRANSPORTS=%s GSHMEM_OFI_PROVIDER=%s", 1 % lib.npes,
             bench_transport_name(dst, 1 % lib.npes), tps ? tps : "(unset: auto)",
             prov ? prov : "(unset)");
    coll_banner(&lib, &o, ops, what);
    coll_run(&lib, &o, ops, dst, src);

    gshmem_barrier_all();
    gshmem_free(ch_times);
    gshmem_free(src);
    gshmem_free(dst);
    gshmem_finalize();
    return 0;
}

/* pe_dev_team_stream: the on-stream team calls of gshmemx.h (one kernel
 * each, running the device call's block form), on one non-blocking
 * stream, at any number of PEs, P2P or (GSHMEM_DEVICE_QUEUE_ONLY=1 /
 * GSHMEM_DISABLE_P2P=1) the queue path. Teams: WORLD, "all" (a split of
 * every PE) and "part" (P >= 4: the odd PEs; else the last PE alone).
 * (1) each call once per team, checked by a kernel on the stream:
 *     typed broadcast (root the last team PE), fcollect, alltoall and
 *     broadcastmem / fcollectmem / alltoallmem, reductions (int sum,
 *     float min, double sum in place, uint64 xor), each followed by a
 *     barrier, then team_sync; sync_all after each team (every PE); at
 *     P <= 4 also large enough for the grid forms on a team the device
 *     maps (src/api/stream/stream_impl.h: from 512 KiB stored per member,
 *     a relayed broadcast from 2 MiB): 800 KB broadcast (relayed from 3
 *     team PEs) and reductions, 1.6 MB in place, 320 KB fcollect parts
 *     and alltoall blocks;
 * (2) a CUDA graph: the sources come from a device round counter, then a
 *     reduction on WORLD, a broadcast on "all" with the last PE as root,
 *     an fcollect and an alltoall, the three syncs, a kernel checking
 *     every result against the counter's round and advancing it, and a
 *     barrier (dest reuse); captured once, replayed REPLAYS times; the
 *     counter must have advanced once per run;
 * (3) refused calls return an error and enqueue nothing: a team that is
 *     not live (GSHMEM_TEAM_MAX - 1, GSHMEM_TEAM_INVALID, "part" on a PE
 *     outside it) and a root out of range.
 * Prints "pe_dev_team_stream: OK (PE n of N)". */
#include "gshmemx.h"
#include "pe_dev_team.h"

#define NT 256
#define N 1000
#define REPLAYS 8

static int me, npes;
static cudaStream_t st;
static int *errs;

static void sync_check(const char *what)
{
    CU(cudaGetLastError());
    CU(cudaStreamSynchronize(st));
    pe_dev_errs_check(errs, what);
    fprintf(stderr, "pe_dev_team_stream: PE %d: %s done\n", me, what);   /* how far, if it hangs */
    gshmem_barrier_all();
}

template <typename T>
__global__ void k_fill(int kind, gshmem_team_t t, T *src, size_t n, const int *round)
{
    tfill<T>(kind, t, src, n, *round);
}

template <typename T>
__global__ void k_check(int kind, int op, gshmem_team_t t, const T *dst, size_t n, int root,
                        const int *round, int *errs)
{
    tcheck<T>(kind, op, t, dst, n, root, *round, errs, "on stream");
}

#define OK(call)                                                                    \
    do {                                                                            \
        int rc_ = (call);                                                           \
        PE_CHECK(rc_ == 0, "%s returned %d", #call, rc_);                           \
    } while (0)

/* ---- (1) every call once ----------------------------------------------------------- */

/* Fills the source of kind, enqueues call (an on-stream call returning its
 * status), checks dest after it, then a barrier of t (dest is reused). */
template <typename T, typename Call>
static void one(int kind, int op, gshmem_team_t t, T *dst, T *src, size_t n, int root,
                int *round, Call call)
{
    const char *tr = getenv("PE_DEV_TRACE");   /* a line per call and a wait after it */
    if (tr != NULL && atoi(tr) != 0)
        fprintf(stderr, "pe_dev_team_stream: PE %d: kind %d op %d n %zu team %d\n", me, kind, op,
                n, t);
    k_fill<T><<<1, NT, 0, st>>>(kind, t, src, n, round);
    int rc = call();
    if (tr != NULL && atoi(tr) != 0)
        CU(cudaStreamSynchronize(st));
    PE_CHECK(rc == 0, "on-stream call (collective %d, op %d, team %d, %zu elements) returned "
             "%d", kind, op, t, n, rc);
    k_check<T><<<1, NT, 0, st>>>(kind, op, t, dst, n, root, round, errs);
    OK(gshmemx_barrier_on_stream(t, st));
}

static void t_calls(gshmem_team_t t, char *dst, char *src, int *round)
{
    int tn = gshmem_team_n_pes(t);
    int *di = (int *)dst, *si = (int *)src;
    double *dd = (double *)dst, *sd = (double *)src;
    uint64_t *du = (uint64_t *)dst, *su = (uint64_t *)src;
    float *df = (float *)dst, *sf = (float *)src;

    one(C_BCAST, 0, t, di, si, N, tn - 1, round,
        [&] { return gshmemx_int_broadcast_on_stream(t, di, si, N, tn - 1, st); });
    one(C_BCAST, 0, t, dd, sd, N, 0, round, [&] {
        return gshmemx_broadcastmem_on_stream(t, dst, src, N * sizeof(double), 0, st);
    });
    one(C_FCOLLECT, 0, t, dd, sd, N, 0, round,
        [&] { return gshmemx_double_fcollect_on_stream(t, dd, sd, N, st); });
    one(C_FCOLLECT, 0, t, di, si, 7, 0, round,
        [&] { return gshmemx_fcollectmem_on_stream(t, dst, src, 7 * sizeof(int), st); });
    one(C_ALLTOALL, 0, t, du, su, N, 0, round,
        [&] { return gshmemx_uint64_alltoall_on_stream(t, du, su, N, st); });
    one(C_ALLTOALL, 0, t, df, sf, 1, 0, round,
        [&] { return gshmemx_alltoallmem_on_stream(t, dst, src, sizeof(float), st); });
    one(C_REDUCE, R_SUM, t, di, si, N, 0, round,
        [&] { return gshmemx_int_sum_reduce_on_stream(t, di, si, N, st); });
    one(C_REDUCE, R_MIN, t, df, sf, N, 0, round,
        [&] { return gshmemx_float_min_reduce_on_stream(t, df, sf, N, st); });
    one(C_REDUCE, R_SUM, t, sd, sd, N, 0, round,   /* in place */
        [&] { return gshmemx_double_sum_reduce_on_stream(t, sd, sd, N, st); });
    one(C_REDUCE, R_XOR, t, du, su, N, 0, round,
        [&] { return gshmemx_uint64_xor_reduce_on_stream(t, du, su, N, st); });
    if (npes <= 4) {   /* the grid forms on a team the device maps (P2P) */
        const size_t B = 200000, F = 40000, A = 40000;
        one(C_BCAST, 0, t, di, si, B, tn - 1, round,
            [&] { return gshmemx_int_broadcast_on_stream(t, di, si, B, tn - 1, st); });
        one(C_FCOLLECT, 0, t, dd, sd, F, 0, round,
            [&] { return gshmemx_double_fcollect_on_stream(t, dd, sd, F, st); });
        one(C_ALLTOALL, 0, t, du, su, A, 0, round,
            [&] { return gshmemx_uint64_alltoall_on_stream(t, du, su, A, st); });
        one(C_REDUCE, R_SUM, t, di, si, B, 0, round,
            [&] { return gshmemx_int_sum_reduce_on_stream(t, di, si, B, st); });
        one(C_REDUCE, R_MAX, t, df, sf, B + 3, 0, round,
            [&] { return gshmemx_float_max_reduce_on_stream(t, df, sf, B + 3, st); });
        one(C_REDUCE, R_SUM, t, sd, sd, B, 0, round,   /* in place */
            [&] { return gshmemx_double_sum_reduce_on_stream(t, sd, sd, B, st); });
    }
    OK(gshmemx_team_sync_on_stream(t, st));
}

/* ---- (2) a CUDA graph ---------------------------------------------------------------- */

typedef struct gbufs {
    int *rs, *rd;            /* reduction on WORLD */
    double *bs, *bd;         /* broadcast on "all" */
    float *fs, *fd;          /* fcollect on WORLD */
    uint64_t *as, *ad;       /* alltoall on "all" */
    int *round;              /* local: the replay's round */
    gshmem_team_t all;
} gbufs_t;

__global__ void k_graph_fill(gbufs_t b)
{
    int r = *b.round;
    gshmem_team_t all = b.all;
    tfill<int>(C_REDUCE, GSHMEM_TEAM_WORLD, b.rs, N, r);
    tfill<double>(C_BCAST, all, b.bs, N, r);
    tfill<float>(C_FCOLLECT, GSHMEM_TEAM_WORLD, b.fs, 3, r);
    tfill<uint64_t>(C_ALLTOALL, all, b.as, 5, r);
}

__global__ void k_graph_check(gbufs_t b, int *errs)
{
    gshmem_team_t all = b.all;
    int r = *b.round, root = gshmem_team_n_pes(all) - 1;
    tcheck<int>(C_REDUCE, R_SUM, GSHMEM_TEAM_WORLD, b.rd, N, 0, r, errs, "graph reduction");
    tcheck<double>(C_BCAST, 0, all, b.bd, N, root, r, errs, "graph broadcast");
    tcheck<float>(C_FCOLLECT, 0, GSHMEM_TEAM_WORLD, b.fd, 3, 0, r, errs, "graph fcollect");
    tcheck<uint64_t>(C_ALLTOALL, 0, all, b.ad, 5, 0, r, errs, "graph alltoall");
    __syncthreads();
    if (threadIdx.x == 0)
        *b.round = r + 1;
}

static void enqueue_graph_sequence(void *arg)
{
    const gbufs_t *b = (const gbufs_t *)arg;
    gshmem_team_t all = b->all;
    int tn = gshmem_team_n_pes(all);
    k_graph_fill<<<1, NT, 0, st>>>(*b);
    OK(gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, b->rd, b->rs, N, st));
    OK(gshmemx_double_broadcast_on_stream(all, b->bd, b->bs, N, tn - 1, st));
    OK(gshmemx_float_fcollect_on_stream(GSHMEM_TEAM_WORLD, b->fd, b->fs, 3, st));
    OK(gshmemx_uint64_alltoall_on_stream(all, b->ad, b->as, 5, st));
    OK(gshmemx_team_sync_on_stream(all, st));
    gshmemx_sync_all_on_stream(st);
    k_graph_check<<<1, NT, 0, st>>>(*b, errs);
    OK(gshmemx_barrier_on_stream(GSHMEM_TEAM_WORLD, st));   /* every dest is reused */
}

static void t_graph(gshmem_team_t all)
{
    gbufs_t b;
    b.rs = (int *)pe_dev_sym(N * sizeof(int)), b.rd = (int *)pe_dev_sym(N * sizeof(int));
    b.bs = (double *)pe_dev_sym(N * sizeof(double));
    b.bd = (double *)pe_dev_sym(N * sizeof(double));
    b.fs = (float *)pe_dev_sym(3 * sizeof(float));
    b.fd = (float *)pe_dev_sym((size_t)3 * npes * sizeof(float));
    b.as = (uint64_t *)pe_dev_sym((size_t)5 * npes * sizeof(uint64_t));
    b.ad = (uint64_t *)pe_dev_sym((size_t)5 * npes * sizeof(uint64_t));
    CU(cudaMalloc((void **)&b.round, sizeof(int)));
    CU(cudaMemset(b.round, 0, sizeof(int)));
    gshmem_barrier_all();

    b.all = all;
    enqueue_graph_sequence(&b);   /* once, eagerly: round 0 */
    sync_check("graph sequence, eager run");

    size_t nodes = pe_dev_graph_replay(st, enqueue_graph_sequence, &b, REPLAYS);
    sync_check("graph replays");
    int round = -1;
    CU(cudaMemcpy(&round, b.round, sizeof round, cudaMemcpyDeviceToHost));
    PE_CHECK(round == REPLAYS + 1, "round counter %d after %d runs", round, REPLAYS + 1);
    PE_CHECK(nodes == 9, "the graph has %zu nodes, want 9 (one per call)", nodes);
    if (me == 0)
        printf("graph: %zu nodes, %d replays checked\n", nodes, REPLAYS);

    CU(cudaFree(b.round));
    void *sym[] = {b.ad, b.as, b.fd, b.fs, b.bd, b.bs, b.rd, b.rs};
    for (int i = 0; i < 8; i++)
        gshmem_free(sym[i]);
}

/* ---- (3) refused calls ---------------------------------------------------------------- */

static void t_refused(gshmem_team_t part, char *dst, char *src)
{
    int bad[] = {GSHMEM_TEAM_MAX - 1, GSHMEM_TEAM_INVALID, part};
    for (int i = 0; i < 3; i++) {
        gshmem_team_t t = bad[i];
        if (t == part && part != GSHMEM_TEAM_INVALID)
            continue;   /* a member */
        int rc[] = {gshmemx_int_sum_reduce_on_stream(t, (int *)dst, (int *)src, 1, st),
                    gshmemx_int_broadcast_on_stream(t, (int *)dst, (int *)src, 1, 0, st),
                    gshmemx_fcollectmem_on_stream(t, dst, src, 1, st),
                    gshmemx_alltoallmem_on_stream(t, dst, src, 1, st),
                    gshmemx_barrier_on_stream(t, st), gshmemx_team_sync_on_stream(t, st)};
        for (int k = 0; k < 6; k++)
            PE_CHECK(rc[k] == GSHMEM_ERR_INVALID_ARG, "call %d on team %d returned %d, want %d",
                     k, t, rc[k], GSHMEM_ERR_INVALID_ARG);
    }
    int rc = gshmemx_double_broadcast_on_stream(GSHMEM_TEAM_WORLD, (double *)dst, (double *)src,
                                                1, npes, st);
    PE_CHECK(rc == GSHMEM_ERR_INVALID_PE, "broadcast with root %d returned %d, want %d", npes,
             rc, GSHMEM_ERR_INVALID_PE);
    rc = gshmemx_broadcastmem_on_stream(GSHMEM_TEAM_WORLD, dst, src, 1, -1, st);
    PE_CHECK(rc == GSHMEM_ERR_INVALID_PE, "broadcastmem with root -1 returned %d", rc);
    sync_check("refused calls");
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    me = gshmem_my_pe(), npes = gshmem_n_pes();
    errs = pe_dev_errs_new();
    CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    gshmem_team_t all = tsplit(0, 1, npes), part = tsplit_part();
    size_t max = (size_t)4 << 20;   /* the grid calls' largest: 4 x 320 KB, 1.6 MB */
    char *dst = (char *)pe_dev_sym(max), *src = (char *)pe_dev_sym(max);
    int *round = NULL;
    CU(cudaMalloc((void **)&round, sizeof(int)));
    CU(cudaMemset(round, 0, sizeof(int)));
    PE_CHECK(npes <= 64, "at most 64 PEs here");
    gshmem_barrier_all();

    gshmem_team_t teams[] = {GSHMEM_TEAM_WORLD, all, part};
    for (int i = 0; i < 3; i++) {
        if (teams[i] != GSHMEM_TEAM_INVALID)
            t_calls(teams[i], dst, src, round);
        gshmemx_sync_all_on_stream(st);   /* WORLD: every PE, members of teams[i] or not */
        sync_check("on-stream team calls");
    }
    t_graph(all);
    t_refused(part, dst, src);

    if (part != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(part);
    gshmem_team_destroy(all);
    CU(cudaStreamSynchronize(st));
    CU(cudaStreamDestroy(st));
    CU(cudaFree(round));
    void *sym[] = {src, dst};
    return pe_dev_finish("pe_dev_team_stream", sym, 2, errs);
}

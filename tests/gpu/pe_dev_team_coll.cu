/* pe_dev_team_coll: the device API's teams and team collectives
 * (impl/gshmem_dev_team.h, _coll.h, _reduce.h), at any number of PEs, on
 * the P2P path or (run with GSHMEM_DEVICE_QUEUE_ONLY=1, or
 * GSHMEM_DISABLE_P2P=1 over ofi) the queue path. Teams: WORLD, "all" (a
 * split of every PE: another slot), "part" (P >= 4: the odd PEs, stride 2;
 * else the last PE alone) and, after those are destroyed, teams split
 * again on their slots.
 * (1) queries: gshmem_team_my_pe, _n_pes, _translate_pe on the device
 *     against the host's answers (every team PE and world PE, out of range
 *     ones, GSHMEM_TEAM_INVALID and a handle that is not live);
 * (2) barrier and sync, 100 rounds each team, forms in turn: each member
 *     stores a value at its right neighbour and counts itself at team PE
 *     0; after gshmem_barrier the left neighbour's value is there and the
 *     count is exactly every arrival so far; then gshmem_team_sync;
 * (3) broadcast (root the last team PE or 0), fcollect, alltoall, typed
 *     (int, double, uint64) and *mem (on int), thread / warp / block, 1
 *     and 1000 elements, every element checked;
 * (4) reductions: int sum/min/max, float sum/min, double sum/prod, uint64
 *     and/or/xor/max: thread form on 1 element, warp on 2049 (a partial
 *     second round of the scratch), block on 1000 and in place; over 1 MiB
 *     (float and int sum block form, uint64 xor warp form) on WORLD; float
 *     results bit for bit against the sum in team order;
 * (5) 100 rounds in one kernel: a reduction, a broadcast with a moving
 *     root, an fcollect and an alltoall, alternating WORLD and "all" and
 *     the forms, a barrier after each round (dest reuse);
 * (6) slot reuse: "all" and "part" destroyed, a half-size team and a new
 *     split of every PE made on the freed slots run (2), (4) and (5).
 * Prints "pe_dev_team_coll: OK (PE n of N)". */
#include "pe_dev_team.h"

#define NT 128
#define ROUNDS 100
#define NBIG 300000   /* > 1 MiB of float or int, 2.4 MB of uint64 */

static int me, npes;
static int *errs;

static int round_no = 1;

/* Ends a phase: its kernels finished and checked, every PE here. The
 * round numbers restart from the phase's base on every PE: a PE outside a
 * team skips that team's calls, so counting on would give the members of
 * the next team different rounds (and sources filled for different
 * rounds). The line says how far a PE got when a run hangs. */
/* PE_DEV_TRACE=1: a line before each collective's kernel and a wait
 * after it (which call a hang is in; scripts/gpu-team.sh sets it). */
static void trace(const char *what, int kind, int f, size_t n, int extra, gshmem_team_t t)
{
    static int on = -1;
    if (on < 0)
        on = getenv("PE_DEV_TRACE") != NULL && atoi(getenv("PE_DEV_TRACE")) != 0;
    if (!on)
        return;
    if (kind < 0) {   /* after the launch */
        CU_SYNC();
        return;
    }
    fprintf(stderr, "pe_dev_team_coll: PE %d: %s kind %d form %d n %zu (%d) team %d\n", me, what,
            kind, f, n, extra, t);
}

static void done(const char *what)
{
    static int phase;
    CU_SYNC();
    pe_dev_errs_check(errs, what);
    fprintf(stderr, "pe_dev_team_coll: PE %d: %s done\n", me, what);
    gshmem_barrier_all();
    round_no = ++phase * 1000;
}

/* ---- (1) queries ---------------------------------------------------------------- */

/* out: my_pe, n_pes, translate(t, i, WORLD) for i in [-1, npes], then
 * translate(WORLD, p, t) for p in [0, npes). */
__global__ void k_query(gshmem_team_t t, int npes, int *out)
{
    if (threadIdx.x != 0)
        return;
    out[0] = gshmem_team_my_pe(t);
    out[1] = gshmem_team_n_pes(t);
    for (int i = -1; i <= npes; i++)
        out[3 + i] = gshmem_team_translate_pe(t, i, GSHMEM_TEAM_WORLD);
    for (int p = 0; p < npes; p++)
        out[4 + npes + p] = gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, p, t);
}

static void t_query(gshmem_team_t t, int live)
{
    int n = 4 + 2 * npes, *d = NULL, h[4 + 2 * 64];
    PE_CHECK(npes <= 64, "at most 64 PEs here");
    CU(cudaMalloc((void **)&d, n * sizeof(int)));
    k_query<<<1, 1>>>(t, npes, d);
    CU_SYNC();
    CU(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    CU(cudaFree(d));
    int hn = live ? gshmem_team_n_pes(t) : -1, hme = live ? gshmem_team_my_pe(t) : -1;
    PE_CHECK(h[0] == hme && h[1] == hn, "team %d: device my_pe %d, n_pes %d; host %d, %d", t,
             h[0], h[1], hme, hn);
    for (int i = -1; i <= npes; i++) {
        int want = live ? gshmem_team_translate_pe(t, i, GSHMEM_TEAM_WORLD) : -1;
        PE_CHECK(h[3 + i] == want, "team %d: device translate_pe(team PE %d) = %d, host %d", t,
                 i, h[3 + i], want);
    }
    for (int p = 0; p < npes; p++) {
        int want = live ? gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, p, t) : -1;
        PE_CHECK(h[4 + npes + p] == want, "team %d: device translate_pe(world PE %d) = %d, "
                 "host %d", t, p, h[4 + npes + p], want);
    }
}

/* ---- (2) barrier and sync rounds ---------------------------------------------------- */

__global__ void k_rounds(gshmem_team_t t, int32_t *arr, uint64_t *count, int rounds, int *errs)
{
    int me = gshmem_my_pe(), tn = gshmem_team_n_pes(t), tme = gshmem_team_my_pe(t);
    int right = wpe(t, (tme + 1) % tn), left = (tme + tn - 1) % tn, root = wpe(t, 0);
    for (int r = 0; r < rounds; r++) {
        int f = r % 3, rc = 0;
        if (threadIdx.x == 0) {
            gshmem_int32_p(&arr[tme], tval<int>(me, 0, r), right);
            gshmem_uint64_atomic_inc(count, root);
        }
        __syncthreads();
        if (tcaller(f))
            rc = TFORM3(f, barrier, t);
        __syncthreads();
        DEV_EXPECT(errs, rc == 0, "barrier form %d returned %d", f, rc);
        DEV_EXPECT(errs, arr[left] == tval<int>(wpe(t, left), 0, r),
                   "team %d round %d form %d: the left neighbour's value is %d, want %d", t, r,
                   f, arr[left], tval<int>(wpe(t, left), 0, r));
        if (threadIdx.x == 0 && tme == 0) {
            uint64_t c = gshmem_uint64_atomic_fetch(count, me);
            DEV_EXPECT(errs, c == (uint64_t)(r + 1) * tn,
                       "team %d round %d form %d: %llu arrivals after the barrier, want %llu",
                       t, r, f, (unsigned long long)c, (unsigned long long)(r + 1) * tn);
        }
        f = (r + 1) % 3;
        if (tcaller(f))
            rc = TFORM3(f, team_sync, t);   /* nobody stores again before all have read */
        __syncthreads();
        DEV_EXPECT(errs, rc == 0, "team_sync form %d returned %d", f, rc);
    }
}

static void t_rounds(gshmem_team_t t)
{
    int32_t *arr = (int32_t *)pe_dev_sym(64 * sizeof(int32_t));
    uint64_t *count = (uint64_t *)pe_dev_sym(sizeof(uint64_t));
    if (t != GSHMEM_TEAM_INVALID)
        k_rounds<<<1, NT>>>(t, arr, count, ROUNDS, errs);
    done("barrier and sync rounds");
    gshmem_free(count);
    gshmem_free(arr);
}

/* ---- (3), (4) one collective in one kernel ------------------------------------------------ */

template <typename T>
__global__ void k_data(int kind, int f, bool mem, gshmem_team_t t, T *dst, T *src, size_t n,
                       int root, int r, int *errs)
{
    tfill<T>(kind, t, src, n, r);
    __syncthreads();
    int rc = 0;
    if (tcaller(f))
        rc = trun_data(kind, f, mem, t, dst, src, n, root);
    __syncthreads();
    DEV_EXPECT(errs, rc == 0, "collective %d form %d returned %d", kind, f, rc);
    tcheck<T>(kind, 0, t, dst, n, root, r, errs, mem ? "mem form" : "typed form");
    gshmemx_barrier_block(t);   /* dst is reused by the next call */
}

template <typename T>
__global__ void k_reduce(int op, int f, gshmem_team_t t, T *dst, T *src, size_t n, int r,
                         int *errs)
{
    tfill<T>(C_REDUCE, t, src, n, r);
    __syncthreads();
    int rc = 0;
    if (tcaller(f))
        rc = trun_reduce(op, f, t, dst, src, n);
    __syncthreads();
    DEV_EXPECT(errs, rc == 0, "reduction %d form %d returned %d", op, f, rc);
    tcheck<T>(C_REDUCE, op, t, dst, n, 0, r, errs, dst == src ? "in place" : "reduction");
    gshmemx_team_sync_block(t);   /* nobody refills src before all have checked */
}

static const size_t dsizes[] = {1, 1000};

/* Every kind and form at 1 and 1000 elements; mem: the *mem forms too. */
template <typename T> static void data_all(gshmem_team_t t, char *dst, char *src, int mem)
{
    int tn = gshmem_team_n_pes(t);
    for (int kind = C_BCAST; kind <= C_ALLTOALL; kind++)
        for (int f = F_THREAD; f <= F_BLOCK; f++)
            for (int k = 0; k < 2; k++)
                for (int m = 0; m <= mem; m++) {
                    int root = (kind == C_BCAST && (f + k + m) % 2 == 0) ? tn - 1 : 0;
                    trace("data", kind, f, dsizes[k], m, t);
                    k_data<T><<<1, NT>>>(kind, f, m, t, (T *)dst, (T *)src, dsizes[k], root,
                                         round_no++, errs);
                    trace("", -1, 0, 0, 0, t);
                }
}

static void t_data(gshmem_team_t t, char *dst, char *src)
{
    if (t != GSHMEM_TEAM_INVALID) {
        data_all<int>(t, dst, src, 1);
        data_all<double>(t, dst, src, 0);
        data_all<uint64_t>(t, dst, src, 0);
    }
    done("broadcast / fcollect / alltoall");
}

/* One op: thread form on 1 element, warp on 2049 (a partial second round
 * of the scratch), block on 1000, and block in place. */
template <typename T> static void red_one(int op, gshmem_team_t t, char *dst, char *src)
{
    static const size_t rsizes[] = {1, 2049, 1000};
    for (int f = F_THREAD; f <= F_BLOCK; f++) {
        trace("reduce", op, f, rsizes[f], (int)sizeof(T), t);
        k_reduce<T><<<1, NT>>>(op, f, t, (T *)dst, (T *)src, rsizes[f], round_no++, errs);
        trace("", -1, 0, 0, 0, t);
    }
    k_reduce<T><<<1, NT>>>(op, F_BLOCK, t, (T *)src, (T *)src, 1000, round_no++, errs);
}

static void t_reduce(gshmem_team_t t, char *dst, char *src)
{
    if (t != GSHMEM_TEAM_INVALID) {
        red_one<int>(R_SUM, t, dst, src);
        red_one<int>(R_MIN, t, dst, src);
        red_one<int>(R_MAX, t, dst, src);
        red_one<float>(R_SUM, t, dst, src);
        red_one<float>(R_MIN, t, dst, src);
        red_one<double>(R_SUM, t, dst, src);
        red_one<double>(R_PROD, t, dst, src);
        for (int op = R_AND; op <= R_XOR; op++)
            red_one<uint64_t>(op, t, dst, src);
        red_one<uint64_t>(R_MAX, t, dst, src);
    }
    done("reductions");
}

static void t_reduce_big(char *dst, char *src)
{
    gshmem_team_t w = GSHMEM_TEAM_WORLD;
    k_reduce<float><<<1, NT>>>(R_SUM, F_BLOCK, w, (float *)dst, (float *)src, NBIG, 7, errs);
    k_reduce<int><<<1, NT>>>(R_SUM, F_BLOCK, w, (int *)dst, (int *)src, NBIG + 3, 8, errs);
    k_reduce<uint64_t><<<1, NT>>>(R_XOR, F_WARP, w, (uint64_t *)dst, (uint64_t *)src, NBIG, 9,
                                  errs);
    done("reductions over 1 MiB");
}

/* ---- (5) repeated calls ------------------------------------------------------------------ */

struct rbufs {
    int *ri, *rd;            /* reduction: src, dst */
    double *bs, *bd;         /* broadcast */
    int *fs, *fd;            /* fcollect */
    uint64_t *as, *ad;       /* alltoall */
};

__global__ void k_repeat(gshmem_team_t ta, gshmem_team_t tb, rbufs b, int rounds, int *errs)
{
    for (int r = 0; r < rounds; r++) {
        gshmem_team_t t = (r & 1) ? tb : ta;
        int f = r % 3, tn = gshmem_team_n_pes(t), root = r % tn, rc = 0;
        tfill<int>(C_REDUCE, t, b.ri, 3, r);
        tfill<double>(C_BCAST, t, b.bs, 5, r);
        tfill<int>(C_FCOLLECT, t, b.fs, 2, r);
        tfill<uint64_t>(C_ALLTOALL, t, b.as, 2, r);
        __syncthreads();
        if (tcaller(f)) {
            rc |= trun_reduce(R_SUM, f, t, b.rd, b.ri, 3);
            rc |= trun_data(C_BCAST, f, false, t, b.bd, b.bs, 5, root);
            rc |= trun_data(C_FCOLLECT, f, false, t, b.fd, b.fs, 2, 0);
            rc |= trun_data(C_ALLTOALL, f, false, t, b.ad, b.as, 2, 0);
        }
        __syncthreads();
        DEV_EXPECT(errs, rc == 0, "round %d: a collective returned %d", r, rc);
        tcheck<int>(C_REDUCE, R_SUM, t, b.rd, 3, 0, r, errs, "repeated reduction");
        tcheck<double>(C_BCAST, 0, t, b.bd, 5, root, r, errs, "repeated broadcast");
        tcheck<int>(C_FCOLLECT, 0, t, b.fd, 2, 0, r, errs, "repeated fcollect");
        tcheck<uint64_t>(C_ALLTOALL, 0, t, b.ad, 2, 0, r, errs, "repeated alltoall");
        if (tcaller(f))
            rc = TFORM3(f, barrier, t);   /* every dest is reused next round */
        __syncthreads();
    }
}

static void t_repeat(gshmem_team_t ta, gshmem_team_t tb, int rounds)
{
    rbufs b;
    b.ri = (int *)pe_dev_sym(64), b.rd = (int *)pe_dev_sym(64);
    b.bs = (double *)pe_dev_sym(64), b.bd = (double *)pe_dev_sym(64);
    b.fs = (int *)pe_dev_sym(64), b.fd = (int *)pe_dev_sym(8 * 64 * sizeof(int));
    b.as = (uint64_t *)pe_dev_sym(2 * 64 * sizeof(uint64_t));
    b.ad = (uint64_t *)pe_dev_sym(2 * 64 * sizeof(uint64_t));
    k_repeat<<<1, NT>>>(ta, tb, b, rounds, errs);
    done("repeated collectives");
    void *all[] = {b.ad, b.as, b.fd, b.fs, b.bd, b.bs, b.rd, b.ri};
    for (int i = 0; i < 8; i++)
        gshmem_free(all[i]);
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    me = gshmem_my_pe(), npes = gshmem_n_pes();
    errs = pe_dev_errs_new();

    gshmem_team_t all = tsplit(0, 1, npes), part = tsplit_part();
    gshmem_team_t teams[] = {GSHMEM_TEAM_WORLD, all, part};

    for (int i = 0; i < 3; i++)
        t_query(teams[i], teams[i] != GSHMEM_TEAM_INVALID);
    t_query(GSHMEM_TEAM_SHARED, 1);
    t_query(GSHMEM_TEAM_INVALID, 0);
    t_query(GSHMEM_TEAM_MAX - 1, 0);   /* not live */
    gshmem_barrier_all();

    for (int i = 0; i < 3; i++)
        t_rounds(teams[i]);

    size_t big = (size_t)(NBIG + 3) * sizeof(uint64_t);
    char *dst = (char *)pe_dev_sym(big), *src = (char *)pe_dev_sym(big);
    gshmem_barrier_all();
    for (int i = 0; i < 3; i++) {
        t_data(teams[i], dst, src);
        t_reduce(teams[i], dst, src);
    }
    t_reduce_big(dst, src);
    t_repeat(GSHMEM_TEAM_WORLD, all, ROUNDS);

    /* (6) the slots again, other teams on them */
    if (part != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(part);
    gshmem_team_destroy(all);
    gshmem_barrier_all();
    gshmem_team_t half = tsplit(0, 1, (npes + 1) / 2), all2 = tsplit(0, 1, npes);
    t_query(half, half != GSHMEM_TEAM_INVALID);
    t_rounds(half);
    t_reduce(half, dst, src);
    t_repeat(all2, GSHMEM_TEAM_WORLD, 20);
    if (half != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(half);
    gshmem_team_destroy(all2);

    void *sym[] = {src, dst};
    return pe_dev_finish("pe_dev_team_coll", sym, 2, errs);
}

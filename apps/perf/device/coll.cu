/* coll.cu: gshmem-perf-dev-coll. Team collectives over GSHMEM_TEAM_WORLD,
 * the rows that scripts/nccl_coll.py times for NCCL (docs/BENCHMARKS.md,
 * team collectives): all-reduce, broadcast from PE 0 and fcollect (NCCL's
 * all_gather), in one of two forms (-F):
 *   stream  the on-stream calls (gshmemx_float_sum_reduce_on_stream,
 *           gshmemx_broadcastmem_on_stream, gshmemx_fcollectmem_on_stream);
 *   block   the device calls' block forms (gshmemx_float_sum_reduce_block,
 *           gshmemx_broadcastmem_block, gshmemx_fcollectmem_block) made by
 *           one block of CB_BLOCK_NT threads of the benchmark's own kernel:
 *           what a kernel writer gets from one block (one SM's stores).
 * SIZE is the bytes each PE contributes (all-reduce, fcollect) or the root
 * sends (broadcast).
 *
 * A sample is one call between two events on the benchmark's stream, after
 * a barrier (every PE enters together, and dest is free); the sample is the
 * max over PEs of that call; a row is the median of -n samples after -w.
 * Each size and operation is checked first: all-reduce on values whose sum
 * is exact in float (PE p's element i: (p + 1) * (i % 61 + 1)), broadcast
 * and fcollect on fresh random bytes, every element of every PE's dest.
 *
 *   gshmemrun -n P gshmem-perf-dev-coll [-b 8] [-e 256M] [-f 4] [-O reduce,bcast,fcollect]
 *                                       [-P 4] [-F stream|block]
 */
#include <string.h>
#include <vector>

#include <gshmem.h>
#include <gshmem_device.h>
#include <gshmemx.h>

#include "bench_dev.h"

#define CB_NAME "gshmem-perf-dev-coll"
#define CB_SEED 0x636f6c6cull   /* "coll" */
#define CB_BLOCK_NT 512            /* -F block: threads of the one block (the on-stream kernels' count) */

typedef enum { CB_REDUCE, CB_BCAST, CB_FCOLLECT, CB_NOPS } cb_op_t;
static const char *const cb_op_names[CB_NOPS] = {"reduce", "bcast", "fcollect"};

typedef struct cb_ctx {
    int want[CB_NOPS];
    int max_pes;             /* -P: the heap holds dest for this many PEs */
    int block_form;          /* -F block: the device calls' block forms in our own kernel */
    char *src, *dst;         /* symmetric: max_size, n_pes x max_size */
    bdev_timer_t timer;
} cb_ctx_t;

static int cb_opt(int opt, const char *arg, void *ctx)
{
    cb_ctx_t *c = (cb_ctx_t *)ctx;
    if (opt == 'P')
        return bdev_parse_int(CB_NAME, opt, arg, 2, &c->max_pes);
    if (opt == 'F') {
        if (strcmp(arg, "stream") != 0 && strcmp(arg, "block") != 0) {
            fprintf(stderr, "%s: -F %s: unknown form (stream, block)\n", CB_NAME, arg);
            return -1;
        }
        c->block_form = strcmp(arg, "block") == 0;
        return 0;
    }
    memset(c->want, 0, sizeof c->want);
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ",")) {
        int k = 0;
        while (k < CB_NOPS && strcmp(t, cb_op_names[k]) != 0)
            k++;
        if (k == CB_NOPS) {
            fprintf(stderr, "%s: -O %s: unknown operation '%s' (reduce, bcast, fcollect)\n",
                    CB_NAME, arg, t);
            return -1;
        }
        c->want[k] = 1;
    }
    return 0;
}

/* -F block: one block makes the device call (every thread, block form). */
__global__ void cb_block_k(cb_op_t op, char *dst, const char *src, size_t s)
{
    if (op == CB_REDUCE)
        (void)gshmemx_float_sum_reduce_block(GSHMEM_TEAM_WORLD, (float *)dst, (const float *)src,
                                             s / sizeof(float));
    else if (op == CB_BCAST)
        (void)gshmemx_broadcastmem_block(GSHMEM_TEAM_WORLD, dst, src, s, 0);
    else
        (void)gshmemx_fcollectmem_block(GSHMEM_TEAM_WORLD, dst, src, s);
}

static void cb_call(cb_ctx_t *c, cb_op_t op, size_t s)
{
    int rc = 0;
    cudaStream_t st = c->timer.stream;
    if (c->block_form) {
        cb_block_k<<<1, CB_BLOCK_NT, 0, st>>>(op, c->dst, c->src, s);
        BCU(cudaGetLastError());
    } else if (op == CB_REDUCE)
        rc = gshmemx_float_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, (float *)c->dst,
                                                (const float *)c->src, s / sizeof(float), st);
    else if (op == CB_BCAST)
        rc = gshmemx_broadcastmem_on_stream(GSHMEM_TEAM_WORLD, c->dst, c->src, s, 0, st);
    else
        rc = gshmemx_fcollectmem_on_stream(GSHMEM_TEAM_WORLD, c->dst, c->src, s, st);
    if (rc != 0) {
        fprintf(stderr, "%s: %s of %zu bytes: status %d\n", CB_NAME, cb_op_names[op], s, rc);
        brt_fail();
    }
}

__global__ void cb_reduce_fill(float *src, size_t n, int pe)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        src[i] = (float)((pe + 1) * (int)(i % 61 + 1));
}

/* Counts the elements of dst that are not the exact sum over npes PEs. */
__global__ void cb_reduce_check(const float *dst, size_t n, int npes, unsigned long long *bad)
{
    float k = (float)(npes * (npes + 1) / 2);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (dst[i] != k * (float)(int)(i % 61 + 1))
            atomicAdd(bad, 1ull);
}

static void cb_check(cb_ctx_t *c, cb_op_t op, size_t s)
{
    int me = brt_my_pe(), n = brt_n_pes();
    char ctx[96];
    snprintf(ctx, sizeof ctx, "%s of %zu bytes per PE, %d PEs", cb_op_names[op], s, n);
    if (op == CB_REDUCE) {
        size_t ne = s / sizeof(float);
        cb_reduce_fill<<<256, 256>>>((float *)c->src, ne, me);
        bdev_poison(c->dst, s);
    } else if (op == CB_BCAST) {
        if (me == 0)
            bdev_fill_random(c->src, s, perf_seed(CB_SEED, s, 0));
        bdev_poison(c->dst, s);
    } else {
        bdev_fill_random(c->src, s, perf_seed(CB_SEED, s, (uint64_t)me));
        bdev_poison(c->dst, s * (size_t)n);
    }
    BCU(cudaDeviceSynchronize());
    brt_barrier();
    cb_call(c, op, s);
    BCU(cudaStreamSynchronize(c->timer.stream));
    brt_barrier();
    if (op == CB_REDUCE) {
        unsigned long long *bad;
        BCU(cudaMallocManaged((void **)&bad, sizeof *bad));
        *bad = 0;
        cb_reduce_check<<<256, 256>>>((const float *)c->dst, s / sizeof(float), n, bad);
        BCU(cudaDeviceSynchronize());
        if (*bad != 0) {
            fprintf(stderr, "%s: PE %d: %s: %llu wrong sums\n", CB_NAME, me, ctx, *bad);
            brt_fail();
        }
        BCU(cudaFree(bad));
    } else if (op == CB_BCAST) {
        if (me != 0)   /* the root's dest is not part of the contract checked here */
            bdev_check(CB_NAME, ctx, c->dst, s, perf_seed(CB_SEED, s, 0));
    } else {
        for (int p = 0; p < n; p++)
            bdev_check(CB_NAME, ctx, c->dst + (size_t)p * s, s, perf_seed(CB_SEED, s, (uint64_t)p));
    }
    brt_barrier();
}

static void cb_row(cb_ctx_t *c, const perf_opts_t *o, cb_op_t op, size_t s, perf_table_t *t)
{
    if (o->check)
        cb_check(c, op, s);
    std::vector<double> v((size_t)o->iters, 0.0);
    for (int i = -o->warmup; i < o->iters; i++) {
        brt_barrier();
        bdev_timer_start(&c->timer);
        cb_call(c, op, s);
        double us = bdev_timer_stop(&c->timer);
        brt_max_over_pes(&us, 1);
        if (i >= 0)
            v[(size_t)i] = us;
    }
    double med = perf_median(v.data(), o->iters);
    double row[] = {(double)s, (double)op, med, perf_bw_gbps((double)s, med)};
    bdev_table_row(t, row);
}

int main(int argc, char **argv)
{
    bdev_probe(argc, argv);
    perf_opts_t o;
    cb_ctx_t c = {};
    for (int k = 0; k < CB_NOPS; k++)
        c.want[k] = 1;
    perf_opts_init(&o, CB_NAME, 8, 256u << 20);
    o.factor = 4;
    o.iters = 20;
    o.warmup = 3;
    c.max_pes = 4;
    perf_extra_opts_t extra = {"O:P:F:",
                               "  -O LIST  operations, comma-separated: reduce, bcast, fcollect "
                               "(default all)\n"
                               "  -P N     most PEs the heap is sized for (default 4)\n"
                               "  -F FORM  stream: the on-stream calls (default); block: the device "
                               "calls' block forms, one block of 512 threads\n",
                               cb_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (brt_init(CB_NAME, o.max_size * (size_t)(c.max_pes + 1) + (64u << 20)) != 0)
        return 1;
    int n = brt_n_pes();
    if (n > c.max_pes) {
        if (brt_my_pe() == 0)
            fprintf(stderr, "%s: %d PEs, the heap is sized for -P %d\n", CB_NAME, n, c.max_pes);
        brt_fail();
    }
    c.src = (char *)brt_malloc(o.max_size);
    c.dst = (char *)brt_malloc(o.max_size * (size_t)n);
    bdev_timer_init(&c.timer);
    char line[200];
    char form[64] = "on a stream";
    if (c.block_form)
        snprintf(form, sizeof form, "block forms in one block of %d threads", CB_BLOCK_NT);
    snprintf(line, sizeof line, "GSHMEM_TEAM_WORLD, %s; op 0 = float sum all-reduce, "
             "1 = broadcast from PE 0, 2 = fcollect; GB/s = bytes per PE / time", form);
    bdev_banner(&o, c.block_form ? "team collectives, device block forms" :
                                   "team collectives on a stream", line);
    static const char *const names[] = {"size(B)", "op", "median(us)", "GB/s"};
    static const int decimals[] = {0, 0, 2, 3};
    perf_table_t t;
    bdev_table_open(&t, &o, 4, names, decimals);
    for (int k = 0; k < CB_NOPS; k++)
        for (size_t s = perf_size_first(&o); c.want[k] && s; s = perf_size_next(&o, s))
            if (k != CB_REDUCE || s >= sizeof(float))
                cb_row(&c, &o, (cb_op_t)k, s, &t);
    bdev_table_close(&t);
    bdev_timer_destroy(&c.timer);
    brt_barrier();
    brt_free(c.dst);
    brt_free(c.src);
    brt_finalize();
    return 0;
}

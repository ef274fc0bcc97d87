/* bench_dev.cu: the runtime-neutral helpers of the device benchmarks (see
 * bench_dev.h): probe, event timer, device buffer fill/poison/check,
 * banner, table on PE 0. */
#include "bench_dev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

void bdev_probe(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "probe") != 0)
        return;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 CUDA devices");
        exit(77);
    }
    printf("probe: %d CUDA device(s)\n", n);
    exit(0);
}

/* ---- timer ------------------------------------------------------------------ */

void bdev_timer_init(bdev_timer_t *t)
{
    BCU(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
    BCU(cudaEventCreate(&t->start));
    BCU(cudaEventCreate(&t->stop));
}

void bdev_timer_start(bdev_timer_t *t)
{
    BCU(cudaEventRecord(t->start, t->stream));
}

double bdev_timer_stop(bdev_timer_t *t)
{
    float ms = 0;
    BCU(cudaEventRecord(t->stop, t->stream));
    BCU(cudaEventSynchronize(t->stop));
    BCU(cudaGetLastError());   /* a failed launch or a trap shows here */
    BCU(cudaEventElapsedTime(&ms, t->start, t->stop));
    return (double)ms * 1e3;
}

void bdev_timer_destroy(bdev_timer_t *t)
{
    cudaEventDestroy(t->start);
    cudaEventDestroy(t->stop);
    cudaStreamDestroy(t->stream);
}

/* ---- data ------------------------------------------------------------------- */

void bdev_fill_random(void *dev, size_t len, uint64_t seed)
{
    std::vector<unsigned char> h(len ? len : 1);
    perf_fill_random(h.data(), len, seed);
    BCU(cudaMemcpy(dev, h.data(), len, cudaMemcpyHostToDevice));
}

void bdev_poison(void *dev, size_t len)
{
    BCU(cudaMemset(dev, 0xa5, len));
    BCU(cudaDeviceSynchronize());
}

void bdev_check(const char *name, const char *ctx, const void *dev, size_t len, uint64_t seed)
{
    std::vector<unsigned char> h(len ? len : 1);
    BCU(cudaDeviceSynchronize());
    BCU(cudaMemcpy(h.data(), dev, len, cudaMemcpyDeviceToHost));
    if (perf_check_random(name, ctx, h.data(), len, seed) != 0) {
        fprintf(stderr, "%s: PE %d: wrong data, stopping the job\n", name, brt_my_pe());
        brt_fail();
    }
}

/* ---- banner and table --------------------------------------------------------- */

static void bdev_print_gpus(void)
{
    int n = brt_n_pes(), me = brt_my_pe(), dev = -1;
    BCU(cudaGetDevice(&dev));
    std::vector<double> v((size_t)n, -1.0);
    v[(size_t)me] = dev;
    brt_max_over_pes(v.data(), n);
    if (me != 0)
        return;
    cudaDeviceProp p;
    BCU(cudaGetDeviceProperties(&p, dev));
    printf("# %d PEs; GPU of each PE:", n);
    for (int i = 0; i < n; i++)
        printf(" PE %d -> %d", i, (int)v[(size_t)i]);
    printf("; PE 0's GPU: %s, %d SMs\n", p.name, p.multiProcessorCount);
}

void bdev_banner(const perf_opts_t *o, const char *what, const char *extra)
{
    bdev_print_gpus();
    if (brt_my_pe() != 0)
        return;
    char b[32], e[32];
    printf("# %s (%s): %s\n", o->name, brt_name(), what);
    printf("# sizes %s..%s x%zu, %d samples (+%d warm-up) per row, check %s\n",
           perf_format_size(o->min_size, b, sizeof b),
           perf_format_size(o->max_size, e, sizeof e), o->factor, o->iters, o->warmup,
           o->check ? "on" : "off");
    if (extra)
        printf("# %s\n", extra);
    fflush(stdout);
}

void bdev_table_open(perf_table_t *t, const perf_opts_t *o, int ncols,
                     const char *const *names, const int *decimals)
{
    memset(t, 0, sizeof *t);
    if (brt_my_pe() != 0)
        return;
    if (perf_table_open(t, ncols, names, decimals, o->csv_path) != 0)
        brt_fail();
    perf_table_header(t);
}

void bdev_table_row(perf_table_t *t, const double *values)
{
    if (brt_my_pe() == 0)
        perf_table_row(t, values);
}

void bdev_table_close(perf_table_t *t)
{
    if (brt_my_pe() == 0)
        perf_table_close(t);
}

int bdev_reps(int fixed, size_t size)
{
    if (fixed > 0)
        return fixed;
    size_t r = ((size_t)64 << 20) / (size ? size : 1);
    return r < 1 ? 1 : r > 100 ? 100 : (int)r;
}

void bdev_pe1_device(int *my_dev_p, int *peer_dev_p)
{
    int np = brt_n_pes(), me = brt_my_pe(), dev = -1;
    BCU(cudaGetDevice(&dev));
    std::vector<double> v((size_t)np, -1.0);
    v[(size_t)me] = dev;
    brt_max_over_pes(v.data(), np);
    *my_dev_p = dev;
    *peer_dev_p = (int)v[1];
}

void *bdev_peer_alloc(int my_dev, int peer_dev, size_t bytes)
{
    void *p = NULL;
    if (peer_dev != my_dev) {
        cudaError_t e = cudaDeviceEnablePeerAccess(peer_dev, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            (void)cudaGetLastError();
        else
            BCU(e);
    }
    BCU(cudaSetDevice(peer_dev));
    BCU(cudaMalloc(&p, bytes));
    BCU(cudaSetDevice(my_dev));
    return p;
}

void bdev_peer_free(int my_dev, int peer_dev, void *p)
{
    if (p == NULL)
        return;
    BCU(cudaSetDevice(peer_dev));
    BCU(cudaFree(p));
    BCU(cudaSetDevice(my_dev));
}

int bdev_sm_count(void)
{
    int dev = 0, n = 0;
    BCU(cudaGetDevice(&dev));
    BCU(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
}

int bdev_parse_int(const char *name, int opt, const char *arg, int min, int *v_p)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v < min || v > 1000000000L) {
        fprintf(stderr, "%s: -%c '%s': expected an integer >= %d\n", name, opt, arg, min);
        return -1;
    }
    *v_p = (int)v;
    return 0;
}

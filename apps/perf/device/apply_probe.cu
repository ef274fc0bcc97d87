/* apply_probe.cu: gshmem-perf-dev-apply-probe. How fast can a host thread
 * make a few bytes it holds in pinned memory visible in GPU memory, and
 * know that it is done? That is the target side of every small put that
 * arrives over the network path (ofi active messages: the target thread
 * holds the payload in a pinned receive buffer; the heap is GPU memory).
 * One GPU, one process, no gshmem runtime. Each method, -r times, median
 * of -n samples, us per apply (8 B unless -b):
 *
 *   copy+event   cudaMemcpyAsync H2D from pinned memory on a non-blocking
 *                stream, cudaEventRecord, spin on cudaEventQuery (the
 *                path's applies today)
 *   pageable     the same copy from pageable memory (the driver may carry a
 *                small one in its command stream instead of a DMA)
 *   kernel+event a 1-warp kernel that reads the pinned bytes (mapped) and
 *                stores them, then an event as above
 *   receiver     a resident 1-warp kernel polls a pinned descriptor word,
 *                copies the bytes (mapped reads, device stores), fences and
 *                writes the descriptor's number into a pinned done word;
 *                the host spins on it (no CUDA call per apply)
 *   doorbell     the receiver's loop without the copy: the bare host ->
 *                GPU -> host round trip through mapped memory
 *
 * Every apply is checked: the device word must hold the bytes afterwards
 * (read back at the end of each sample for the last apply).
 *
 * Then the device side of a queue post and quiet, one GPU thread, ns per
 * operation (the GPU's global timer, mean of -r): fence.sc.sys
 * (__threadfence_system), fence.acq_rel.sys, a relaxed store to pinned host
 * memory + fence.sc.sys, the same with fence.acq_rel.sys, a release store
 * to pinned host memory (the doorbell), an acquire load of pinned host
 * memory, a GPU-scope and a system-scope atomic add on device memory.
 *
 *   gshmem-perf-dev-apply-probe [-b 8] [-r 1000] [-n 15]
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <algorithm>
#include <vector>

#define AP_CHECK(x)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (x);                                                         \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "apply-probe: %s failed: %s\n", #x, cudaGetErrorString(e_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static double ap_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Descriptor words (pinned, mapped): [0] number posted, [16] number done,
 * [32] stop. */
#define AP_POSTED 0
#define AP_DONE 16
#define AP_STOP 32

__global__ void ap_copy_kernel(uint64_t *dst, const uint64_t *src, uint32_t words)
{
    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        dst[i] = ((volatile const uint64_t *)src)[i];
}

__global__ void ap_receiver(volatile uint64_t *ctl, uint64_t *dst, const uint64_t *src,
                            uint32_t words, int copy)
{
    uint64_t seen = 0;
    for (;;) {
        uint64_t want = 0;
        if (threadIdx.x == 0) {
            while ((want = ctl[AP_POSTED]) == seen && ctl[AP_STOP] == 0)
                ;
        }
        want = __shfl_sync(0xffffffffu, want, 0);
        if (want == seen)
            return;   /* stop */
        if (copy)
            for (uint32_t i = threadIdx.x; i < words; i += 32)
                dst[i] = ((volatile const uint64_t *)src)[i];
        __threadfence_system();
        __syncwarp();
        if (threadIdx.x == 0)
            ctl[AP_DONE] = want;
        seen = want;
    }
}

__device__ __forceinline__ uint64_t ap_gtime(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}

#define AP_PRIMS 8
__global__ void ap_prims(uint64_t *host, uint64_t *dev, int reps, unsigned long long *ns)
{
    uint64_t t0, v = 0;
#define AP_TIME(k, body)                        \
    t0 = ap_gtime();                            \
    for (int i = 0; i < reps; i++) {            \
        body;                                   \
    }                                           \
    ns[k] = ap_gtime() - t0;
    AP_TIME(0, asm volatile("fence.sc.sys;" ::: "memory"))
    AP_TIME(1, asm volatile("fence.acq_rel.sys;" ::: "memory"))
    AP_TIME(2, asm volatile("st.relaxed.sys.u64 [%0], %1; fence.sc.sys;" ::"l"(host), "l"((uint64_t)i)
                                : "memory"))
    AP_TIME(3, asm volatile("st.relaxed.sys.u64 [%0], %1; fence.acq_rel.sys;" ::"l"(host),
                            "l"((uint64_t)i) : "memory"))
    AP_TIME(4, asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(host + 8), "l"((uint64_t)i)
                                : "memory"))
    AP_TIME(5, { uint64_t x; asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(x) : "l"(host + 16)
                                          : "memory"); v += x; })
    AP_TIME(6, { uint64_t x; asm volatile("atom.relaxed.gpu.add.u64 %0, [%1], 1;" : "=l"(x)
                                          : "l"(dev) : "memory"); v += x; })
    AP_TIME(7, { uint64_t x; asm volatile("atom.relaxed.sys.add.u64 %0, [%1], 1;" : "=l"(x)
                                          : "l"(dev) : "memory"); v += x; })
#undef AP_TIME
    if (v == 42)
        dev[1] = v;   /* keeps the loads */
}

typedef struct ap {
    size_t bytes;
    uint32_t words;
    uint64_t *src;      /* pinned */
    uint64_t *psrc;     /* pageable */
    uint64_t *ctl;      /* pinned */
    uint64_t *dst;      /* device */
    cudaStream_t s, rs;
    cudaEvent_t ev;
    int reps;
    uint64_t pattern;
} ap_t;

/* The apply's bytes: words v, v + 1, .. into buf (the pinned source by
 * default, the pageable one for that method). */
static void ap_fill_in(ap_t *a, uint64_t *buf, uint64_t v)
{
    for (uint32_t i = 0; i < a->words; i++)
        buf[i] = v + i;
}

static void ap_fill(ap_t *a, uint64_t v)
{
    ap_fill_in(a, a->src, v);
}

static int ap_verify(ap_t *a, uint64_t v, const char *what)
{
    std::vector<uint64_t> got(a->words);
    AP_CHECK(cudaMemcpy(got.data(), a->dst, a->bytes, cudaMemcpyDeviceToHost));
    for (uint32_t i = 0; i < a->words; i++)
        if (got[i] != v + i) {
            fprintf(stderr, "apply-probe: %s: word %u is %llx, expected %llx\n", what, i,
                    (unsigned long long)got[i], (unsigned long long)(v + i));
            return 1;
        }
    return 0;
}

static void ap_event_wait(ap_t *a)
{
    AP_CHECK(cudaEventRecord(a->ev, a->s));
    cudaError_t e;
    while ((e = cudaEventQuery(a->ev)) == cudaErrorNotReady)
        ;
    AP_CHECK(e);
}

/* cudaMemcpyAsync from src (pinned or pageable) + the event, per apply. */
static double ap_copy_event_from(ap_t *a, uint64_t *src, uint64_t base)
{
    double t0 = ap_now_us();
    for (int i = 0; i < a->reps; i++) {
        ap_fill_in(a, src, base + (uint64_t)i * 1000);
        AP_CHECK(cudaMemcpyAsync(a->dst, src, a->bytes, cudaMemcpyHostToDevice, a->s));
        ap_event_wait(a);
    }
    return (ap_now_us() - t0) / a->reps;
}

static double ap_kernel_event(ap_t *a, uint64_t base)
{
    double t0 = ap_now_us();
    for (int i = 0; i < a->reps; i++) {
        ap_fill(a, base + (uint64_t)i * 1000);
        ap_copy_kernel<<<1, 32, 0, a->s>>>(a->dst, a->src, a->words);
        AP_CHECK(cudaGetLastError());
        ap_event_wait(a);
    }
    return (ap_now_us() - t0) / a->reps;
}

/* A resident receiver runs during the sample; copy = 0: doorbell only. */
static double ap_receiver_run(ap_t *a, uint64_t base, int copy)
{
    volatile uint64_t *ctl = a->ctl;
    ctl[AP_POSTED] = 0;
    ctl[AP_DONE] = 0;
    ctl[AP_STOP] = 0;
    __sync_synchronize();
    ap_receiver<<<1, 32, 0, a->rs>>>(a->ctl, a->dst, a->src, a->words, copy);
    AP_CHECK(cudaGetLastError());
    /* the first apply also waits for the kernel to start: not timed */
    ap_fill(a, base);
    __sync_synchronize();
    ctl[AP_POSTED] = 1;
    while (ctl[AP_DONE] != 1)
        ;
    double t0 = ap_now_us();
    for (int i = 1; i <= a->reps; i++) {
        ap_fill(a, base + (uint64_t)i * 1000);
        __sync_synchronize();
        ctl[AP_POSTED] = (uint64_t)i + 1;
        while (ctl[AP_DONE] != (uint64_t)i + 1)
            ;
    }
    double us = (ap_now_us() - t0) / a->reps;
    ctl[AP_STOP] = 1;
    AP_CHECK(cudaStreamSynchronize(a->rs));
    return us;
}

int main(int argc, char **argv)
{
    ap_t a = {};
    int samples = 15, opt;
    a.bytes = 8;
    a.reps = 1000;
    while ((opt = getopt(argc, argv, "b:r:n:")) != -1) {
        switch (opt) {
        case 'b': a.bytes = strtoull(optarg, NULL, 0); break;
        case 'r': a.reps = atoi(optarg); break;
        case 'n': samples = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-b bytes (multiple of 8)] [-r reps] [-n samples]\n",
                    argv[0]);
            return 2;
        }
    }
    if (a.bytes == 0 || a.bytes % 8 != 0 || a.reps < 1 || samples < 1) {
        fprintf(stderr, "apply-probe: -b must be a positive multiple of 8 (got %zu), -r and -n "
                "positive\n", a.bytes);
        return 2;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("apply-probe: skipped: no CUDA device\n");
        return 0;
    }
    a.words = (uint32_t)(a.bytes / 8);
    AP_CHECK(cudaHostAlloc((void **)&a.src, a.bytes, cudaHostAllocMapped));
    AP_CHECK(cudaHostAlloc((void **)&a.ctl, 64 * sizeof(uint64_t), cudaHostAllocMapped));
    AP_CHECK(cudaMalloc((void **)&a.dst, a.bytes));
    a.psrc = (uint64_t *)malloc(a.bytes);
    if (a.psrc == NULL) {
        fprintf(stderr, "apply-probe: out of memory\n");
        return 1;
    }
    AP_CHECK(cudaStreamCreateWithFlags(&a.s, cudaStreamNonBlocking));
    AP_CHECK(cudaStreamCreateWithFlags(&a.rs, cudaStreamNonBlocking));
    AP_CHECK(cudaEventCreateWithFlags(&a.ev, cudaEventDisableTiming));
    ap_copy_event_from(&a, a.src, 1);   /* warm-up */
    ap_kernel_event(&a, 1);

    const char *names[5] = {"copy+event", "kernel+event", "receiver", "doorbell", "pageable"};
    std::vector<double> t[5];
    int bad = 0;
    for (int k = 0; k < samples; k++) {
        uint64_t base = 0x100000000ull * (uint64_t)(k + 1);
        for (int m = 0; m < 5; m++) {
            uint64_t b = base + 0x10000000ull * (uint64_t)m;
            double us = m == 0   ? ap_copy_event_from(&a, a.src, b)
                        : m == 1 ? ap_kernel_event(&a, b)
                        : m == 4 ? ap_copy_event_from(&a, a.psrc, b)
                                 : ap_receiver_run(&a, b, m == 2);
            t[m].push_back(us);
            if (m != 3)
                bad |= ap_verify(&a, b + (uint64_t)(a.reps - (m == 2 ? 0 : 1)) * 1000,
                                 names[m]);
        }
    }
    printf("# apply-probe: %zu B per apply, %d applies per sample, median of %d; check %s\n",
           a.bytes, a.reps, samples, bad ? "FAILED" : "ok");
    printf("method,bytes,us_median,us_min\n");
    for (int m = 0; m < 5; m++) {
        std::sort(t[m].begin(), t[m].end());
        printf("%s,%zu,%.3f,%.3f\n", names[m], a.bytes, t[m][t[m].size() / 2], t[m][0]);
    }
    /* the device side of a post and a quiet */
    static const char *prim[AP_PRIMS] = {"fence.sc.sys", "fence.acq_rel.sys",
                                         "st.relaxed.sys(host)+fence.sc.sys",
                                         "st.relaxed.sys(host)+fence.acq_rel.sys",
                                         "st.release.sys(host)", "ld.acquire.sys(host)",
                                         "atom.add.gpu(device)", "atom.add.sys(device)"};
    unsigned long long *ns, h[AP_PRIMS];
    uint64_t *dev2;
    AP_CHECK(cudaMalloc((void **)&ns, sizeof h));
    AP_CHECK(cudaMalloc((void **)&dev2, 2 * sizeof(uint64_t)));
    AP_CHECK(cudaMemset(dev2, 0, 2 * sizeof(uint64_t)));
    ap_prims<<<1, 1>>>(a.ctl, dev2, 100, ns);   /* warm-up */
    ap_prims<<<1, 1>>>(a.ctl, dev2, a.reps, ns);
    AP_CHECK(cudaDeviceSynchronize());
    AP_CHECK(cudaMemcpy(h, ns, sizeof h, cudaMemcpyDeviceToHost));
    printf("primitive,ns_mean\n");
    for (int k = 0; k < AP_PRIMS; k++)
        printf("%s,%.1f\n", prim[k], (double)h[k] / a.reps);
    return bad;
}

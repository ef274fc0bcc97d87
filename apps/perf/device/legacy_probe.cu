/* legacy_probe.cu: gshmem-perf-dev-legacy-probe. Which CUDA calls of one
 * host thread (the engine's, bringing queue-path data into the heap) are
 * held back while another thread of the process (the user's) waits for a
 * kernel inside a blocking call, when the kernel itself waits for the data
 * the first thread brings. One GPU, one process, no gshmem runtime.
 *
 * Each case: a kernel (one 128-thread block per SM) spins until a device
 * flag is set, for at most -c ms; thread A, in the user's place, issues the
 * kernel on its stream and then the blocking call; thread B, in the
 * engine's place, after 100 ms sets the flag from its own non-blocking
 * stream. B's call "passes" when it returns before the kernel's cap, and
 * "held" when it returns only after the kernel gave up (a deadlock in a
 * program whose kernel never gives up). Every kernel B launches was loaded
 * before (cudaFuncGetAttributes), so lazy module loading plays no part.
 *
 * A's calls:
 *   memcpy-pageable     cudaMemcpy D2H into pageable memory (legacy stream)
 *   memcpy-pinned       cudaMemcpy D2H into pinned memory
 *   async-pageable-0    cudaMemcpyAsync D2H pageable on stream 0 + sync
 *                       (torch's tensor.cpu() on its default stream)
 *   async-pinned-0      cudaMemcpyAsync D2H pinned on stream 0 + sync
 *   sync-0              cudaStreamSynchronize(0)
 *   async-pageable-own  cudaMemcpyAsync D2H pageable on a non-blocking
 *                       stream of A's own (the kernel there too) + sync
 * B's calls (on its non-blocking stream):
 *   copy     cudaMemcpyAsync H2D of the flag from pinned memory
 *   copy2d   cudaMemcpy2DAsync of the same (ofi active messages' writes)
 *   kernel   a one-thread kernel that sets the flag (the small-op batch,
 *            the AMOs)
 *
 *   gshmem-perf-dev-legacy-probe [-c cap_ms (1000)]
 * One line per case: A's call, B's call, ms until B's call returned, ms
 * until A's returned, pass/held. Status 1 on a CUDA error. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROBE_CK(call)                                                                   \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "legacy-probe: %s: %s\n", #call, cudaGetErrorString(e_));    \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static double probe_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static __device__ unsigned long long probe_gtime(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void probe_spin(volatile int *flag, unsigned long long cap_ns)
{
    unsigned long long t0 = probe_gtime();
    while (*flag == 0 && probe_gtime() - t0 < cap_ns) {
    }
}

static __global__ void probe_set(volatile int *flag)
{
    *flag = 1;
    __threadfence_system();
}

typedef struct probe {
    int *flag;              /* device */
    int *one;               /* pinned, holds 1 */
    cudaStream_t b_stream;  /* B's, non-blocking */
    const char *b_call;
    double b_ms;            /* B's call: ms until it returned */
} probe_t;

static void *probe_b(void *arg)
{
    probe_t *p = (probe_t *)arg;
    usleep(100000);
    double t0 = probe_now_ms();
    if (strcmp(p->b_call, "copy") == 0) {
        PROBE_CK(cudaMemcpyAsync(p->flag, p->one, sizeof(int), cudaMemcpyHostToDevice,
                                 p->b_stream));
    } else if (strcmp(p->b_call, "copy2d") == 0) {
        PROBE_CK(cudaMemcpy2DAsync(p->flag, sizeof(int), p->one, sizeof(int), sizeof(int), 1,
                                   cudaMemcpyHostToDevice, p->b_stream));
    } else {
        probe_set<<<1, 1, 0, p->b_stream>>>(p->flag);
        PROBE_CK(cudaGetLastError());
    }
    p->b_ms = probe_now_ms() - t0;
    return NULL;
}

int main(int argc, char **argv)
{
    static const char *a_calls[] = {"memcpy-pageable", "memcpy-pinned", "async-pageable-0",
                                    "async-pinned-0", "sync-0", "async-pageable-own"};
    static const char *b_calls[] = {"copy", "copy2d", "kernel"};
    double cap_ms = 1000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            cap_ms = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [-c cap_ms]\n", argv[0]);
            return 2;
        }
    }
    probe_t p;
    memset(&p, 0, sizeof(p));
    int sms = 0;
    const size_t n = 1 << 20;
    char *dev_buf = NULL, *pinned = NULL, *pageable = (char *)malloc(n);
    cudaStream_t own;
    cudaFuncAttributes fa;
    PROBE_CK(cudaSetDevice(0));
    PROBE_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    PROBE_CK(cudaMalloc((void **)&p.flag, sizeof(int)));
    PROBE_CK(cudaHostAlloc((void **)&p.one, sizeof(int), cudaHostAllocDefault));
    *p.one = 1;
    PROBE_CK(cudaMalloc((void **)&dev_buf, n));
    PROBE_CK(cudaHostAlloc((void **)&pinned, n, cudaHostAllocDefault));
    PROBE_CK(cudaStreamCreateWithFlags(&p.b_stream, cudaStreamNonBlocking));
    PROBE_CK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    PROBE_CK(cudaFuncGetAttributes(&fa, probe_set));   /* loaded now, not under A's call */
    PROBE_CK(cudaFuncGetAttributes(&fa, probe_spin));
    if (pageable == NULL)
        return 1;
    printf("# %d SMs, kernel cap %.0f ms; a call of B is held when it returns after the cap\n",
           sms, cap_ms);
    printf("a_call,b_call,b_ms,a_ms,verdict\n");
    for (size_t a = 0; a < sizeof(a_calls) / sizeof(a_calls[0]); a++) {
        for (size_t b = 0; b < sizeof(b_calls) / sizeof(b_calls[0]); b++) {
            const char *ac = a_calls[a];
            cudaStream_t s = strcmp(ac, "async-pageable-own") == 0 ? own : (cudaStream_t)0;
            pthread_t th;
            PROBE_CK(cudaMemset(p.flag, 0, sizeof(int)));
            PROBE_CK(cudaDeviceSynchronize());
            p.b_call = b_calls[b];
            probe_spin<<<sms, 128, 0, s>>>(p.flag, (unsigned long long)(cap_ms * 1e6));
            PROBE_CK(cudaGetLastError());
            if (pthread_create(&th, NULL, probe_b, &p) != 0)
                return 1;
            double t0 = probe_now_ms();
            if (strcmp(ac, "memcpy-pageable") == 0) {
                PROBE_CK(cudaMemcpy(pageable, dev_buf, n, cudaMemcpyDeviceToHost));
            } else if (strcmp(ac, "memcpy-pinned") == 0) {
                PROBE_CK(cudaMemcpy(pinned, dev_buf, n, cudaMemcpyDeviceToHost));
            } else if (strcmp(ac, "async-pinned-0") == 0) {
                PROBE_CK(cudaMemcpyAsync(pinned, dev_buf, n, cudaMemcpyDeviceToHost, s));
                PROBE_CK(cudaStreamSynchronize(s));
            } else if (strcmp(ac, "sync-0") == 0) {
                PROBE_CK(cudaStreamSynchronize(s));
            } else {   /* async-pageable-0, async-pageable-own */
                PROBE_CK(cudaMemcpyAsync(pageable, dev_buf, n, cudaMemcpyDeviceToHost, s));
                PROBE_CK(cudaStreamSynchronize(s));
            }
            double a_ms = probe_now_ms() - t0;
            pthread_join(th, NULL);
            PROBE_CK(cudaDeviceSynchronize());
            int flag = 0;
            PROBE_CK(cudaMemcpy(&flag, p.flag, sizeof(int), cudaMemcpyDeviceToHost));
            if (flag != 1) {
                fprintf(stderr, "legacy-probe: %s / %s: the flag is %d after B's call\n", ac,
                        p.b_call, flag);
                return 1;
            }
            printf("%s,%s,%.1f,%.1f,%s\n", ac, p.b_call, p.b_ms, a_ms,
                   p.b_ms >= cap_ms / 2 ? "held" : "pass");
        }
    }
    return 0;
}
